/* HKS structures in the compiler: slot positions, slot lookup through the
 * meta structures (the tag chain of GETSLOTMT / SELFSLOTMT), and the
 * structure block written after the main function.
 *
 * What the golden chunks of hksc show, and this file reproduces:
 * - every structure has three reserved slots before its own: an internal
 *   one ("__testdummy", position 0), the meta slot ("__structmeta") and the
 *   backing table ("__structbacking"); its own slots follow in declaration
 *   order;
 * - slot n sits at position size * n / (size - 1) + 1 for a slot size of the
 *   target's size_t: one position in every `size` holds the type tags of the
 *   slots before it, so with 8-byte slots the 8th slot is at 9, not 8;
 * - a structure's id is its declaration number (from 1);
 * - the block lists the structures in the order of a Lua 5.1 string-keyed
 *   hash table that received them in declaration order, walked by node
 *   (hksc keeps them in such a table; its FromSoftware builds walk tables in
 *   reverse insertion order, which gives the same order for every golden
 *   chunk of those targets; Ghosts' order is not explained yet, see
 *   tests/hks/compile/expected_mismatches.txt). */
#include <stdlib.h>
#include <string.h>

#include "hks/compile.h"

int hc_slot_position(const hc_compiler *C, int index)
{
    if (index == 0)
        return 0;
    int size = C->o.size_size;
    return size * index / (size - 1) + 1;
}

const hc_slotdef *hc_find_slot(const hc_struct *s, const hc_str *name)
{
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].name == name)
            return &s->slots[i];
    return NULL;
}

/* A slot reached from structure `sid`: one (A, Bx) pair per structure on
 * the way.  A structure that lacks the name contributes (0, position of
 * "__index" in its meta structure) and the search goes on in the structure
 * that __index is typed with; the one that has it contributes (position,
 * 0).  Returns the number of pairs in `words` (2 per pair), 0 when the name
 * is not found through structure-typed slots alone. */
static int chain(const hc_compiler *C, int sid, const hc_str *name, uint32_t *words, int max,
                 const hc_slotdef **found)
{
    const hc_str *index_name = NULL;
    for (int n = 0; n < max; n++) {
        const hc_struct *s = &C->sdefs[sid];
        const hc_slotdef *d = hc_find_slot(s, name);
        if (d) {
            words[2 * n] = (uint32_t)d->pos;
            words[2 * n + 1] = 0;
            *found = d;
            return n + 1;
        }
        if (s->meta_type != HC_TSTRUCT)
            return 0;
        const hc_struct *m = &C->sdefs[s->meta_sid];
        if (!index_name) {
            /* "__index" is interned only when some structure declares it */
            for (int i = 0; i < m->nslots && !index_name; i++)
                if (m->slots[i].name->len == 7 && memcmp(m->slots[i].name->data, "__index", 7) == 0)
                    index_name = m->slots[i].name;
            if (!index_name)
                return 0;
        }
        const hc_slotdef *ix = hc_find_slot(m, index_name);
        if (!ix || ix->type != HC_TSTRUCT)
            return 0;
        words[2 * n] = 0;
        words[2 * n + 1] = (uint32_t)ix->pos;
        sid = ix->sid;
    }
    return 0;
}

int hc_slot_chain(const hc_compiler *C, int sid, const hc_str *name, uint32_t *words, int max)
{
    const hc_slotdef *d;
    return chain(C, sid, name, words, max, &d);
}

const hc_slotdef *hc_chain_end(const hc_compiler *C, int sid, const hc_str *name)
{
    uint32_t words[2 * HC_MAX_CHAIN];
    const hc_slotdef *d = NULL;
    chain(C, sid, name, words, HC_MAX_CHAIN, &d);
    return d;
}

/* ---- the block's order: a Lua 5.1 hash table of the names ---- */
static uint32_t name_hash(const hc_str *s)
{
    uint32_t h = (uint32_t)s->len;
    size_t step = (s->len >> 5) + 1;
    for (size_t l = s->len; l >= step; l -= step)
        h ^= (h << 5) + (h >> 2) + (unsigned char)s->data[l - 1];
    return h;
}

typedef struct node {
    int key;  /* structure index, -1 free */
    int next; /* collision chain, -1 end */
} node;

typedef struct htab {
    node *n;
    int size, lastfree; /* size 0: the empty table (no node can be used) */
    const uint32_t *hash;
} htab;

static int mainpos(const htab *t, int key) { return (int)(t->hash[key] & (uint32_t)(t->size - 1)); }

static bool tab_insert(htab *t, int key)
{
    if (t->size == 0)
        return false;
    int mp = mainpos(t, key);
    if (t->n[mp].key < 0) {
        t->n[mp].key = key;
        return true;
    }
    int f = -1;
    while (t->lastfree > 0)
        if (t->n[--t->lastfree].key < 0) {
            f = t->lastfree;
            break;
        }
    if (f < 0)
        return false;
    int other = mainpos(t, t->n[mp].key);
    if (other != mp) {
        /* the node in the way is not in its main position: move it */
        while (t->n[other].next != mp)
            other = t->n[other].next;
        t->n[other].next = f;
        t->n[f] = t->n[mp];
        t->n[mp].key = key;
        t->n[mp].next = -1;
    } else {
        t->n[f].key = key;
        t->n[f].next = t->n[mp].next;
        t->n[mp].next = f;
    }
    return true;
}

static bool tab_rehash(htab *t, int count)
{
    int size = 1;
    while (size < count)
        size *= 2;
    node *old = t->n;
    int oldsize = t->size;
    t->n = malloc((size_t)size * sizeof *t->n);
    if (!t->n) {
        t->n = old;
        return false;
    }
    for (int i = 0; i < size; i++)
        t->n[i].key = t->n[i].next = -1;
    t->size = t->lastfree = size;
    for (int i = oldsize - 1; i >= 0; i--)
        if (old[i].key >= 0)
            tab_insert(t, old[i].key);
    free(old);
    return true;
}

static void *alloc_or_fail(hc_compiler *C, size_t n) { return hc_alloc(C, n); }

static void set_str(hc_compiler *C, gsvm_hks_str *d, const char *s, size_t len)
{
    d->size = len + 1;
    d->data = alloc_or_fail(C, len + 2);
    memcpy(d->data, s, len);
}

static void set_slot(hc_compiler *C, gsvm_hks_slot *sl, const char *name, uint64_t a, uint32_t b,
                     uint32_t c, uint64_t d)
{
    set_str(C, &sl->name, name, strlen(name));
    sl->a = a;
    sl->b = b;
    sl->c = c;
    sl->d = d;
}

/* the size_t field of a slot: the structure id, or -1 as a 16-bit id */
static uint64_t slot_id(int type, int sid) { return type == HC_TSTRUCT ? (uint64_t)(sid + 1) : 0xFFFF; }

void hc_write_structs(hc_compiler *C)
{
    gsvm_hks_chunk *c = C->chunk;
    int n = C->nsdefs;
    if (n == 0)
        return;
    uint32_t *hash = alloc_or_fail(C, (size_t)n * sizeof *hash);
    for (int i = 0; i < n; i++)
        hash[i] = name_hash(C->sdefs[i].name);
    htab t = {NULL, 0, 0, hash};
    int count = 0;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        count++;
        while (ok && !tab_insert(&t, i))
            ok = tab_rehash(&t, count);
    }
    free(hash);
    if (!ok) {
        free(t.n);
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    }
    /* the chunk owns what follows: gsvm_hks_chunk_free releases it on error */
    c->structs = calloc((size_t)n, sizeof *c->structs);
    if (!c->structs) {
        free(t.n);
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    }
    int k = 0;
    for (int i = 0; i < t.size; i++) {
        if (t.n[i].key < 0)
            continue;
        const hc_struct *s = &C->sdefs[t.n[i].key];
        gsvm_hks_struct *o = &c->structs[k++];
        c->nstructs = (uint32_t)k;
        set_str(C, &o->name, s->name->data, s->name->len);
        o->id = (uint64_t)t.n[i].key + 1;
        o->x = s->meta_type >= 0;
        o->y = s->proxy;
        o->slots = alloc_or_fail(C, (size_t)(s->nslots + HC_RESERVED_SLOTS) * sizeof *o->slots);
        o->nslots = (uint64_t)s->nslots + HC_RESERVED_SLOTS;
        set_slot(C, &o->slots[0], "__testdummy", 0, 0, 3, 0);
        if (s->meta_type >= 0)
            set_slot(C, &o->slots[1], "__structmeta", slot_id(s->meta_type, s->meta_sid),
                     (uint32_t)s->meta_type, 1, (uint64_t)hc_slot_position(C, 1));
        else
            set_slot(C, &o->slots[1], "__structmeta", 0, 0, 1, (uint64_t)hc_slot_position(C, 1));
        set_slot(C, &o->slots[2], "__structbacking", 0xFFFF, 5, 2,
                 (uint64_t)hc_slot_position(C, 2));
        for (int j = 0; j < s->nslots; j++) {
            const hc_slotdef *d = &s->slots[j];
            set_slot(C, &o->slots[HC_RESERVED_SLOTS + j], d->name->data, slot_id(d->type, d->sid),
                     (uint32_t)d->type, 0, (uint64_t)d->pos);
        }
    }
    free(t.n);
}
