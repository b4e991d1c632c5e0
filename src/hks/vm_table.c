/* Tables: an array part and a hash part of chained scatter nodes with a
 * free pointer, sized by the same rule as Lua 5.1 (the array part is the
 * largest power of two that is more than half full).  Keeping Lua 5.1's
 * placement rules (main positions, the free pointer running down, resize
 * reinserting from the last node) is what makes pairs() visit keys in the
 * order stock Lua 5.1 does, which the differential tests compare. */
#include <math.h>
#include <string.h>

#include "hks/vm.h"

const hv_value hv_nilobject = {HV_TNIL, 0, {0}};
static hv_node dummynode_storage; /* never written: every writer checks for it */
#define dummynode (&dummynode_storage)

enum { MAXBITS = 26 };
#define MAXASIZE (1u << MAXBITS)

static inline int ceillog2(uint32_t x)
{
    int l = 0;
    x--;
    while (x >= 1) {
        l++;
        x >>= 1;
    }
    return l;
}

#define sizenode(t) ((size_t)1 << (t)->lsizenode)
#define gnode(t, i) (&(t)->node[i])
#define hashpow2(t, n) (gnode(t, (n) & (sizenode(t) - 1)))
#define hashmod(t, n) (gnode(t, ((n) % ((uint32_t)((sizenode(t) - 1) | 1)))))

static hv_node *hashnum(const hv_table *t, double n)
{
    uint32_t a[2];
    n += 1; /* normalise -0 (Lua 5.1.5) */
    memcpy(a, &n, sizeof a);
    a[0] += a[1];
    return hashmod(t, a[0]);
}

static hv_node *mainposition(const hv_table *t, const hv_value *key)
{
    switch (key->tt) {
    case HV_TNUM: return hashnum(t, key->v.n);
    case HV_TSTR: return hashpow2(t, hv_strv(key)->hash);
    case HV_TBOOL: return hashpow2(t, (uint32_t)key->v.b);
    case HV_TUI64:
    case HV_TLUD: return hashmod(t, (uint32_t)(key->v.u ^ (key->v.u >> 32)));
    default: return hashmod(t, (uint32_t)(uintptr_t)key->v.gc);
    }
}

/* the array index of a key, or -1 */
static inline int64_t arrayindex(const hv_value *key)
{
    if (key->tt == HV_TNUM) {
        double n = key->v.n;
        if (n >= 1 && n <= (double)MAXASIZE) {
            int64_t k = (int64_t)n;
            if ((double)k == n)
                return k;
        }
    }
    return -1;
}

bool hv_rawequal(const hv_value *a, const hv_value *b)
{
    if (a->tt != b->tt)
        return false;
    switch (a->tt) {
    case HV_TNIL: return true;
    case HV_TNUM: return a->v.n == b->v.n;
    case HV_TBOOL: return a->v.b == b->v.b;
    case HV_TLUD:
    case HV_TUI64: return a->v.u == b->v.u;
    default: return a->v.gc == b->v.gc;
    }
}

static void setnodevector(hv_thread *L, hv_table *t, hv_node *fresh, int lsize)
{
    if (!fresh) {
        t->node = dummynode;
        t->lsizenode = 0;
    } else {
        /* fresh comes from hv_alloc_zero: every key and value nil (tag 0),
         * every link NULL */
        t->node = fresh;
        t->lsizenode = (uint8_t)lsize;
    }
    t->lastfree = gnode(t, sizenode(t)); /* all positions are free */
    if (!fresh)
        t->lastfree = t->node;
    (void)L;
}

hv_table *hv_table_new(hv_thread *L, int narr, int nhash)
{
    hv_table *t = (hv_table *)hv_newobj(L, HV_TTAB, sizeof(hv_table));
    t->node = dummynode;
    t->lastfree = dummynode;
    if (narr > 0 || nhash > 0) {
        /* the object is reachable from nothing yet; the collector only runs
         * at safe points, so allocating here is safe */
        if ((uint64_t)narr + (uint64_t)nhash > L->vm->lim.max_table)
            hv_error(L, "table size %d exceeds the limit of %u entries", narr + nhash,
                     L->vm->lim.max_table);
        if (narr > 0) {
            t->arr = hv_alloc(L, NULL, 0, (size_t)narr * sizeof(hv_value));
            for (int i = 0; i < narr; i++)
                hv_setnil(&t->arr[i]);
            t->asize = (uint32_t)narr;
        }
        if (nhash > 0) {
            int ls = ceillog2((uint32_t)nhash);
            hv_node *n = hv_alloc_zero(L, ((size_t)1 << ls) * sizeof(hv_node));
            setnodevector(L, t, n, ls);
        }
    }
    return t;
}

void hv_table_freeobj(hv_vm *vm, hv_table *t)
{
    if (t->node != dummynode)
        hv_free(vm, t->node, sizenode(t) * sizeof(hv_node));
    hv_free(vm, t->arr, t->asize * sizeof(hv_value));
    hv_free(vm, t, sizeof *t);
}

const hv_value *hv_table_getint(hv_table *t, int64_t key)
{
    if ((uint64_t)(key - 1) < (uint64_t)t->asize)
        return &t->arr[key - 1];
    double nk = (double)key;
    hv_node *n = hashnum(t, nk);
    do {
        if (n->key.tt == HV_TNUM && n->key.v.n == nk)
            return &n->val;
        n = n->next;
    } while (n);
    return &hv_nilobject;
}

const hv_value *hv_table_getnum(hv_table *t, double key)
{
    if (key >= -2147483648.0 && key <= 2147483647.0) {
        int64_t k = (int64_t)key;
        if ((double)k == key)
            return hv_table_getint(t, k);
    }
    hv_node *n = hashnum(t, key);
    do {
        if (n->key.tt == HV_TNUM && n->key.v.n == key)
            return &n->val;
        n = n->next;
    } while (n);
    return &hv_nilobject;
}

const hv_value *hv_table_get(hv_table *t, const hv_value *key)
{
    switch (key->tt) {
    case HV_TNIL: return &hv_nilobject;
    case HV_TSTR: return hv_table_getstr(t, hv_strv(key));
    case HV_TNUM: return hv_table_getnum(t, key->v.n);
    default: {
        hv_node *n = mainposition(t, key);
        do {
            if (hv_rawequal(&n->key, key))
                return &n->val;
            n = n->next;
        } while (n);
        return &hv_nilobject;
    }
    }
}

/* ---- rehash ---- */

static int countint(const hv_value *key, int *nums)
{
    int64_t k = arrayindex(key);
    if (k > 0 && k <= (int64_t)MAXASIZE) {
        nums[ceillog2((uint32_t)k)]++;
        return 1;
    }
    return 0;
}

static int numusearray(const hv_table *t, int *nums)
{
    int ause = 0;
    uint32_t i = 1;
    uint32_t ttlg = 1;
    for (int lg = 0; lg <= MAXBITS; lg++, ttlg *= 2) {
        int lc = 0;
        uint32_t lim = ttlg;
        if (lim > t->asize) {
            lim = t->asize;
            if (i > lim)
                break;
        }
        for (; i <= lim; i++)
            if (!hv_isnil(&t->arr[i - 1]))
                lc++;
        nums[lg] += lc;
        ause += lc;
    }
    return ause;
}

static int numusehash(const hv_table *t, int *nums, int *pnasize)
{
    int totaluse = 0, ause = 0;
    size_t i = sizenode(t);
    while (i--) {
        hv_node *n = &t->node[i];
        if (!hv_isnil(&n->val)) {
            ause += countint(&n->key, nums);
            totaluse++;
        }
    }
    *pnasize += ause;
    return totaluse;
}

static int computesizes(int *nums, int *narray)
{
    int a = 0, na = 0, n = 0;
    int64_t twotoi = 1;
    for (int i = 0; twotoi / 2 < *narray; i++, twotoi *= 2) {
        if (nums[i] > 0) {
            a += nums[i];
            if (a > twotoi / 2) {
                n = (int)twotoi;
                na = a;
            }
        }
        if (a == *narray)
            break;
    }
    *narray = n;
    return na;
}

static hv_value *newkey(hv_thread *L, hv_table *t, const hv_value *key);
static void len_relearn(hv_table *t);

static void resize(hv_thread *L, hv_table *t, uint32_t nasize, uint32_t nhsize)
{
    uint32_t oldasize = t->asize;
    int oldhsize = t->lsizenode;
    hv_node *nold = t->node;
    int ls = nhsize ? ceillog2(nhsize) : 0;
    if ((uint64_t)nasize + (nhsize ? ((uint64_t)1 << ls) : 0) > L->vm->lim.max_table)
        hv_error(L, "table size exceeds the limit of %u entries", L->vm->lim.max_table);
    /* each step leaves a consistent table if the next allocation fails: the
     * array grows first (its new slots nil), then the node vector is made */
    if (nasize > oldasize) {
        t->arr = hv_alloc(L, t->arr, oldasize * sizeof(hv_value), nasize * sizeof(hv_value));
        for (uint32_t i = oldasize; i < nasize; i++)
            hv_setnil(&t->arr[i]);
        t->asize = nasize;
    }
    hv_node *fresh = nhsize ? hv_alloc_zero(L, ((size_t)1 << ls) * sizeof(hv_node)) : NULL;
    setnodevector(L, t, fresh, ls);
    if (nasize < oldasize) {
        t->asize = nasize;
        for (uint32_t i = nasize; i < oldasize; i++)
            if (!hv_isnil(&t->arr[i]))
                *hv_table_setint(L, t, (int64_t)i + 1) = t->arr[i];
        t->arr = hv_alloc(L, t->arr, oldasize * sizeof(hv_value), nasize * sizeof(hv_value));
    }
    /* the old keys are distinct: each goes to the array or a new node
     * without the lookup hv_table_set would make first */
    for (int64_t i = ((int64_t)1 << oldhsize) - 1; i >= 0; i--) {
        hv_node *old = nold + i;
        if (hv_isnil(&old->val))
            continue;
        int64_t ak = arrayindex(&old->key);
        if (ak > 0 && (uint64_t)ak <= t->asize)
            t->arr[ak - 1] = old->val;
        else
            *newkey(L, t, &old->key) = old->val;
    }
    if (nold != dummynode)
        hv_free(L->vm, nold, ((size_t)1 << oldhsize) * sizeof(hv_node));
    len_relearn(t);
}

void hv_table_resize_array(hv_thread *L, hv_table *t, uint32_t n)
{
    uint32_t nsize = t->node == dummynode ? 0 : (uint32_t)sizenode(t);
    resize(L, t, n, nsize);
}

static void rehash(hv_thread *L, hv_table *t, const hv_value *ek)
{
    int nums[MAXBITS + 1];
    memset(nums, 0, sizeof nums);
    int nasize = numusearray(t, nums);
    int totaluse = nasize;
    totaluse += numusehash(t, nums, &nasize);
    nasize += countint(ek, nums);
    totaluse++;
    int na = computesizes(nums, &nasize);
    resize(L, t, (uint32_t)nasize, (uint32_t)(totaluse - na));
}

static hv_node *getfreepos(hv_table *t)
{
    while (t->lastfree > t->node) {
        t->lastfree--;
        if (hv_isnil(&t->lastfree->key))
            return t->lastfree;
    }
    return NULL;
}

static hv_value *newkey(hv_thread *L, hv_table *t, const hv_value *key)
{
    hv_node *mp = mainposition(t, key);
    if (!hv_isnil(&mp->val) || mp == dummynode) {
        hv_node *n = getfreepos(t);
        if (!n) {
            rehash(L, t, key);
            return hv_table_set(L, t, key);
        }
        hv_node *othern = mainposition(t, &mp->key);
        if (othern != mp) {
            while (othern->next != mp)
                othern = othern->next;
            othern->next = n;
            *n = *mp;
            mp->next = NULL;
            hv_setnil(&mp->val);
        } else {
            n->next = mp->next;
            mp->next = n;
            mp = n;
        }
    }
    mp->key = *key;
    t->nomm = 0;
    return &mp->val;
}

hv_value *hv_table_set(hv_thread *L, hv_table *t, const hv_value *key)
{
    const hv_value *p = hv_table_get(t, key);
    t->nomm = 0;
    if (p != &hv_nilobject) {
        hv_table_noteslot(t, p);
        return (hv_value *)p;
    }
    if (key->tt == HV_TNIL)
        hv_error(L, "table index is nil");
    if (key->tt == HV_TNUM && isnan(key->v.n))
        hv_error(L, "table index is NaN");
    return newkey(L, t, key);
}

hv_value *hv_table_setint(hv_thread *L, hv_table *t, int64_t key)
{
    if ((uint64_t)(key - 1) < (uint64_t)t->asize) {
        hv_table_noteput(t, (uint32_t)(key - 1));
        return &t->arr[key - 1];
    }
    const hv_value *p = hv_table_getint(t, key);
    if (p != &hv_nilobject)
        return (hv_value *)p;
    hv_value k;
    hv_setnum(&k, (double)key);
    return newkey(L, t, &k);
}

hv_value *hv_table_setstr(hv_thread *L, hv_table *t, hv_str *key)
{
    const hv_value *p = hv_table_getstr(t, key);
    t->nomm = 0;
    if (p != &hv_nilobject)
        return (hv_value *)p;
    hv_value k;
    hv_setgc(&k, HV_TSTR, key);
    return newkey(L, t, &k);
}

static int64_t findindex(hv_thread *L, hv_table *t, const hv_value *key)
{
    if (hv_isnil(key))
        return -1;
    int64_t i = arrayindex(key);
    if (i > 0 && i <= (int64_t)t->asize)
        return i - 1;
    hv_node *n = mainposition(t, key);
    do {
        if (hv_rawequal(&n->key, key) ||
            (n->key.tt == HV_TDEADKEY && hv_iscollectable(key) && n->key.v.gc == key->v.gc))
            return (int64_t)(n - t->node) + t->asize;
        n = n->next;
    } while (n);
    hv_error(L, "invalid key to 'next'");
}

int hv_table_next(hv_thread *L, hv_table *t, hv_value *key)
{
    int64_t i = findindex(L, t, key);
    for (i++; i < (int64_t)t->asize; i++) {
        if (!hv_isnil(&t->arr[i])) {
            hv_setnum(key, (double)(i + 1));
            key[1] = t->arr[i];
            return 1;
        }
    }
    for (i -= t->asize; i < (int64_t)sizenode(t); i++) {
        hv_node *n = gnode(t, i);
        if (!hv_isnil(&n->val)) {
            key[0] = n->key;
            key[1] = n->val;
            return 1;
        }
    }
    return 0;
}

static uint32_t unbound_search(hv_table *t, uint32_t j)
{
    uint64_t i = j;
    uint64_t jj = (uint64_t)j + 1;
    while (!hv_isnil(hv_table_getint(t, (int64_t)jj))) {
        i = jj;
        jj *= 2;
        if (jj > 0x3FFFFFFFu) {
            i = 1;
            while (!hv_isnil(hv_table_getint(t, (int64_t)i)))
                i++;
            return (uint32_t)(i - 1);
        }
    }
    while (jj - i > 1) {
        uint64_t m = (i + jj) / 2;
        if (hv_isnil(hv_table_getint(t, (int64_t)m)))
            jj = m;
        else
            i = m;
    }
    return (uint32_t)i;
}

/* After a resize: is the array a run of values and then nils? */
static void len_relearn(hv_table *t)
{
    uint32_t b = 0;
    while (b < t->asize && !hv_isnil(&t->arr[b]))
        b++;
    t->border = b;
    t->lenmode = HV_LEN_DENSE;
    for (uint32_t i = b; i < t->asize; i++)
        if (!hv_isnil(&t->arr[i])) {
            t->lenmode = HV_LEN_UNKNOWN;
            return;
        }
}

/* PENDING: before the writes, exactly arr[0..border) held values; only
 * [wlo, whi] changed.  The array is still values-then-nils iff the run reads
 * values then nils and fits the old border on both sides. */
static void len_resolve(hv_table *t)
{
    uint32_t lo = t->wlo, hi = t->whi, b = t->border, i = lo;
    while (i <= hi && !hv_isnil(&t->arr[i]))
        i++;
    uint32_t end = i; /* [lo, end) hold values */
    for (; i <= hi; i++)
        if (!hv_isnil(&t->arr[i])) {
            t->lenmode = HV_LEN_UNKNOWN;
            return;
        }
    bool dense;
    if (end > lo && end == hi + 1) { /* the run is all values */
        dense = b >= lo;
        t->border = b > end ? b : end;
    } else if (end > lo) { /* values, then nils up to hi */
        dense = b >= lo && b <= hi + 1;
        t->border = end;
    } else { /* all nils */
        dense = b <= hi + 1; /* no values left after the run */
        t->border = b <= lo ? b : lo;
    }
    t->lenmode = dense ? HV_LEN_DENSE : HV_LEN_UNKNOWN;
}

uint32_t hv_table_len(hv_table *t)
{
    if (t->lenmode == HV_LEN_PENDING)
        len_resolve(t);
    if (t->lenmode == HV_LEN_DENSE && t->border < t->asize)
        return t->border;
    uint32_t j = t->asize;
    if (j > 0 && hv_isnil(&t->arr[j - 1])) {
        uint32_t i = 0;
        while (j - i > 1) {
            uint32_t m = (i + j) / 2;
            if (hv_isnil(&t->arr[m - 1]))
                j = m;
            else
                i = m;
        }
        return i;
    }
    if (t->node == dummynode)
        return j;
    return unbound_search(t, j);
}
