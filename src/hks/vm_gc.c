/* Memory accounting and a stop-the-world mark-and-sweep collector.
 *
 * Every byte a script causes passes through hv_alloc, which counts it and
 * enforces the VM's memory limit (an allocation past the limit is the
 * script's error "not enough memory", never the host's crash).  Collection
 * happens only at the interpreter's safe points (hv_gc_check: instructions
 * that make objects, returns from C functions), where every live
 * value is in a thread's stack, a table, a closure or a prototype's
 * constants, so C code never holds an unrooted object across a collection. */
#define _GNU_SOURCE /* mremap */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hks/vm.h"

/* ---- the small-block pool ----
 *
 * Objects and small vectors (at most HV_POOL_MAX bytes: strings, closures,
 * upvalues, tables, small array and hash parts) come from per-VM free lists
 * of 16-byte size classes carved out of 64 kB slabs: a script that makes
 * and drops many small objects reuses the same blocks instead of a malloc
 * and a free per object.  Callers always pass a block's size back (free,
 * realloc), so a block needs no header.  The slabs go with the VM.  Under
 * AddressSanitizer a pooled block is poisoned while it is free, so a use
 * after free is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Slabs start at 64 kB; a VM that has filled 16 of them gets 2 MB ones,
 * mapped as huge pages (see huge_new). */
enum { SLAB_BYTES = 64 * 1024, SLAB_BIG = 2 << 20, SLABS_SMALL = 16 };
static void *huge_new(size_t size);

static inline unsigned pool_class(size_t size)
{
    return size ? (unsigned)((size - 1) / HV_POOL_GRAIN) : 0;
}

static void *pool_get(hv_vm *vm, size_t size)
{
    unsigned c = pool_class(size);
    size_t bs = ((size_t)c + 1) * HV_POOL_GRAIN;
    void *b = vm->pool_free[c];
    if (b) {
        UNPOISON(b, bs);
        vm->pool_free[c] = *(void **)b;
        return b;
    }
    if ((size_t)(vm->slab_end - vm->slab_cur) < bs) {
        /* the rest of the slab (less than one block of this class) is
         * given to the smaller classes' lists */
        size_t sb = vm->nslabs < SLABS_SMALL ? SLAB_BYTES : SLAB_BIG;
        char *slab = sb == SLAB_BYTES ? malloc(sb) : huge_new(sb);
        if (!slab)
            return NULL;
        /* the first grain: the link to the previous slab and this one's size */
        ((void **)slab)[0] = vm->slabs;
        ((size_t *)slab)[1] = sb;
        vm->slabs = slab;
        vm->nslabs++;
        while ((size_t)(vm->slab_end - vm->slab_cur) >= HV_POOL_GRAIN) {
            size_t left = (size_t)(vm->slab_end - vm->slab_cur);
            unsigned lc = pool_class(left > HV_POOL_MAX ? HV_POOL_MAX : (left / HV_POOL_GRAIN) * HV_POOL_GRAIN);
            size_t lbs = ((size_t)lc + 1) * HV_POOL_GRAIN;
            UNPOISON(vm->slab_cur, lbs);
            *(void **)vm->slab_cur = vm->pool_free[lc];
            vm->pool_free[lc] = vm->slab_cur;
            POISON(vm->slab_cur, lbs);
            vm->slab_cur += lbs;
        }
        vm->slab_cur = slab + HV_POOL_GRAIN; /* the first grain links the slabs */
        vm->slab_end = slab + sb;
        POISON(vm->slab_cur, (size_t)(vm->slab_end - vm->slab_cur));
    }
    b = vm->slab_cur;
    vm->slab_cur += bs;
    UNPOISON(b, bs);
    return b;
}

static void pool_put(hv_vm *vm, void *b, size_t size)
{
    unsigned c = pool_class(size);
    *(void **)b = vm->pool_free[c];
    vm->pool_free[c] = b;
    POISON(b, ((size_t)c + 1) * HV_POOL_GRAIN);
}

void hv_pool_free_all(hv_vm *vm)
{
    char *s = vm->slabs;
    while (s) {
        char *next = ((char **)s)[0];
        size_t sb = ((size_t *)s)[1];
        UNPOISON(s, sb);
        if (sb == SLAB_BYTES)
            free(s);
        else
            munmap(s, sb);
        s = next;
    }
    vm->nslabs = 0;
    vm->slabs = NULL;
    vm->slab_cur = vm->slab_end = NULL;
    memset(vm->pool_free, 0, sizeof vm->pool_free);
}

/* Big blocks (array and hash parts of big tables, big stacks) are mapped
 * by the VM itself and asked to be backed by huge pages: a table that grows
 * to megabytes otherwise takes one page fault per 4 kB when it is first
 * written, which costs more than the writes (a sieve over a million
 * entries spent a fifth of its time in the kernel). */
enum { HUGE_BYTES = 1 << 20, HUGE_ALIGN = 1 << 21 };

static size_t huge_round(size_t size)
{
    return (size + HUGE_ALIGN - 1) & ~(size_t)(HUGE_ALIGN - 1);
}

/* A fresh or moved mapping of n bytes, asked to be backed by huge pages
 * (NULL when the mapping failed). */
static void *huge_advise(void *q, size_t n)
{
    if (q == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(q, n, MADV_HUGEPAGE);
#endif
    return q;
}

static void *huge_new(size_t size)
{
    size_t n = huge_round(size);
    return huge_advise(mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), n);
}

static void *huge_resize(void *p, size_t old, size_t size)
{
    size_t on = huge_round(old), nn = huge_round(size);
    if (on == nn)
        return p;
    return huge_advise(mremap(p, on, nn, MREMAP_MAYMOVE), nn);
}

static void block_free(hv_vm *vm, void *p, size_t size)
{
    if (size <= HV_POOL_MAX)
        pool_put(vm, p, size);
    else if (size >= HUGE_BYTES)
        munmap(p, huge_round(size));
    else
        free(p);
}

/* A block of `size` bytes in place of p (of `old` bytes; NULL for a new
 * one), or NULL when the system has no memory (p then stays as it was). */
static void *block_resize(hv_vm *vm, void *p, size_t old, size_t size)
{
    if (size <= HV_POOL_MAX) {
        if (p && old <= HV_POOL_MAX && pool_class(old) == pool_class(size))
            return p;
        void *q = pool_get(vm, size);
        if (q && p) {
            memcpy(q, p, old < size ? old : size);
            block_free(vm, p, old);
        }
        return q;
    }
    if (size >= HUGE_BYTES) {
        if (p && old >= HUGE_BYTES)
            return huge_resize(p, old, size);
        void *q = huge_new(size);
        if (q && p) {
            memcpy(q, p, old);
            block_free(vm, p, old);
        }
        return q;
    }
    if (p && old > HV_POOL_MAX && old < HUGE_BYTES)
        return realloc(p, size);
    void *q = malloc(size);
    if (q && p) {
        memcpy(q, p, old < size ? old : size);
        block_free(vm, p, old);
    }
    return q;
}

void *hv_alloc(hv_thread *L, void *p, size_t old, size_t size)
{
    hv_vm *vm = L->vm;
    /* the collector's threshold approaches the limit (hv_gc_collect), so
     * garbage is collected at a safe point before the limit refuses */
    if (size > old && vm->lim.max_memory && vm->bytes - old + size > vm->lim.max_memory)
        hv_throw(L, HV_ERRMEM);
    void *q = block_resize(vm, p, old, size);
    if (!q)
        hv_throw(L, HV_ERRMEM);
    vm->bytes = vm->bytes - old + size;
    return q;
}

/* A new zeroed block (nil values, NULL links): calloc gets fresh pages from
 * the system already zero, so a big hash part is not written twice. */
void *hv_alloc_zero(hv_thread *L, size_t size)
{
    hv_vm *vm = L->vm;
    if (vm->lim.max_memory && vm->bytes + size > vm->lim.max_memory)
        hv_throw(L, HV_ERRMEM);
    void *q = hv_alloc_raw(vm, size);
    if (!q)
        hv_throw(L, HV_ERRMEM);
    return q;
}

/* The same without a thread to throw on: NULL when there is no memory
 * (the main thread is made this way, before any thread exists). */
void *hv_alloc_raw(hv_vm *vm, size_t size)
{
    void *q;
    if (size <= HV_POOL_MAX) {
        q = pool_get(vm, size);
        if (q)
            memset(q, 0, size ? size : 1);
    } else if (size >= HUGE_BYTES) {
        q = huge_new(size); /* fresh mapped pages are zero */
    } else {
        q = calloc(1, size);
    }
    if (q)
        vm->bytes += size;
    return q;
}

void hv_free_(hv_vm *vm, void *p, size_t sz)
{
    if (!p)
        return;
    block_free(vm, p, sz);
    vm->bytes -= sz;
}

hv_gc *hv_newobj(hv_thread *L, uint8_t tt, size_t size)
{
    hv_gc *o = hv_alloc(L, NULL, 0, size);
    memset(o, 0, size);
    o->tt = tt;
    o->next = L->vm->all;
    L->vm->all = o;
    return o;
}

/* ---- mark ---- */

/* The objects marked but not yet traversed, and the weak tables met (their
 * unmarked entries are cleared once marking is done). */
typedef struct gray_stack {
    hv_vm *vm;
    hv_thread *caller; /* the thread whose C function asked for the collection, or NULL */
    hv_gc **a;
    size_t n, cap;
    hv_gc **weak;
    size_t nweak, capweak;
    bool oom;
} gray_stack;

static void push(gray_stack *g, hv_gc ***a, size_t *n, size_t *cap, hv_gc *o)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        hv_gc **na = realloc(*a, nc * sizeof *na);
        if (!na) {
            g->oom = true;
            return;
        }
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = o;
}

static void push_gray(gray_stack *g, hv_gc *o)
{
    push(g, &g->a, &g->n, &g->cap, o);
}

static inline void mark_obj(gray_stack *g, hv_gc *o)
{
    if (!o || o->marked)
        return;
    o->marked = 1;
    if (o->tt != HV_TSTR)
        push_gray(g, o);
}

static inline void mark_val(gray_stack *g, const hv_value *v)
{
    if (hv_iscollectable(v))
        mark_obj(g, v->v.gc);
}

static void mark_proto(gray_stack *g, hv_proto *p)
{
    for (uint32_t i = 0; i < p->nk; i++)
        mark_val(g, &p->k[i]);
    if (p->source)
        mark_obj(g, &p->source->h);
    if (p->name)
        mark_obj(g, &p->name->h);
}

/* Weak entries are those holding objects other than strings (strings are
 * values, as in Lua 5.1: never removed from a weak table). */
static inline bool weakref(const hv_value *v)
{
    return hv_iscollectable(v) && v->tt != HV_TSTR;
}

/* A table's __mode as Lua 5.1 reads it: 'k' weak keys, 'v' weak values. */
static int weak_mode(hv_vm *vm, const hv_table *t)
{
    hv_table *mt = t->meta;
    if (!mt || (mt->nomm & (1u << TM_MODE)))
        return 0;
    const hv_value *m = hv_table_getstr(mt, vm->tmname[TM_MODE]);
    if (m->tt != HV_TSTR) {
        if (hv_isnil(m))
            mt->nomm |= 1u << TM_MODE;
        return 0;
    }
    const char *s = hv_strv(m)->data;
    return (strchr(s, 'k') ? 1 : 0) | (strchr(s, 'v') ? 2 : 0);
}

static void traverse_table(gray_stack *g, hv_table *t)
{
    if (t->meta)
        mark_obj(g, &t->meta->h);
    int weak = weak_mode(g->vm, t);
    if (weak)
        push(g, &g->weak, &g->nweak, &g->capweak, &t->h);
    for (uint32_t i = 0; i < t->asize; i++)
        if (!(weak & 2) || !weakref(&t->arr[i]))
            mark_val(g, &t->arr[i]);
    if (t->node) {
        size_t n = (size_t)1 << t->lsizenode;
        for (size_t i = 0; i < n; i++) {
            hv_node *nd = &t->node[i];
            if (hv_isnil(&nd->val)) {
                /* the key of an empty entry stays for next(), but must not
                 * keep its object alive */
                if (hv_iscollectable(&nd->key))
                    nd->key.tt = HV_TDEADKEY;
            } else {
                if (!(weak & 1) || !weakref(&nd->key))
                    mark_val(g, &nd->key);
                if (!(weak & 2) || !weakref(&nd->val))
                    mark_val(g, &nd->val);
            }
        }
    }
}

static inline bool cleared(const hv_value *v)
{
    return weakref(v) && !v->v.gc->marked;
}

/* A userdata waiting for its finalizer is gone as a weak value (not as a
 * weak key), as in Lua 5.1. */
static inline bool cleared_val(const hv_value *v)
{
    return cleared(v) || (v->tt == HV_TUDATA && ((hv_udata *)v->v.gc)->fin);
}

/* After marking: an entry of a weak table whose weak key or value was not
 * reached otherwise goes (its key stays as a dead key for next()). */
static void clear_weak(gray_stack *g)
{
    for (size_t w = 0; w < g->nweak; w++) {
        hv_table *t = (hv_table *)g->weak[w];
        for (uint32_t i = 0; i < t->asize; i++)
            if (cleared_val(&t->arr[i])) {
                hv_setnil(&t->arr[i]);
                t->lenmode = HV_LEN_UNKNOWN; /* a hole anywhere */
            }
        size_t n = t->node ? (size_t)1 << t->lsizenode : 0;
        for (size_t i = 0; i < n; i++) {
            hv_node *nd = &t->node[i];
            if (!hv_isnil(&nd->val) && (cleared(&nd->key) || cleared_val(&nd->val))) {
                hv_setnil(&nd->val);
                if (hv_iscollectable(&nd->key))
                    nd->key.tt = HV_TDEADKEY;
            }
        }
    }
}

static void traverse_thread(gray_stack *g, hv_thread *th)
{
    int hi = th->top;
    for (int i = 0; i < th->ncis; i++)
        if (th->cis[i].top > hi)
            hi = th->cis[i].top;
    if (hi > th->stacksize)
        hi = th->stacksize;
    /* collectgarbage() (a C function) marks up to its own top, as Lua 5.1
     * does: the slots above it are dead registers of the frames below, which
     * must not keep a weak table's entry */
    int live = th == g->caller ? th->top : hi;
    for (int i = 0; i < live; i++)
        mark_val(g, &th->stack[i]);
    /* slots above every frame hold nothing live: clear them so that a later
     * frame never sees a collected object there */
    for (int i = live; i < th->stacksize; i++)
        hv_setnil(&th->stack[i]);
    for (hv_upval *u = th->openup; u; u = u->next)
        mark_obj(g, &u->h);
    if (th->resumer)
        mark_obj(g, &th->resumer->h);
}

static void traverse(gray_stack *g, hv_gc *o)
{
    switch (o->tt) {
    case HV_TTAB: traverse_table(g, (hv_table *)o); break;
    case HV_TLFN: {
        hv_lfn *f = (hv_lfn *)o;
        if (f->env)
            mark_obj(g, &f->env->h);
        for (uint32_t i = 0; i < f->nups; i++)
            if (f->up[i])
                mark_obj(g, &f->up[i]->h);
        break;
    }
    case HV_TCFN: {
        hv_cfn *f = (hv_cfn *)o;
        if (f->env)
            mark_obj(g, &f->env->h);
        for (uint32_t i = 0; i < f->nups; i++)
            mark_val(g, &f->up[i]);
        break;
    }
    case HV_TUPVAL: {
        hv_upval *u = (hv_upval *)o;
        mark_val(g, u->v);
        break;
    }
    case HV_TTHREAD: traverse_thread(g, (hv_thread *)o); break;
    case HV_TUDATA:
        if (((hv_udata *)o)->meta)
            mark_obj(g, &((hv_udata *)o)->meta->h);
        break;
    case HV_TSTRUCT: {
        hv_struct *s = (hv_struct *)o;
        if (s->meta)
            mark_obj(g, &s->meta->h);
        for (uint32_t i = 0; i < s->nslots; i++)
            mark_val(g, &s->slot[i]);
        break;
    }
    default: break;
    }
}

static void free_obj(hv_vm *vm, hv_gc *o)
{
    switch (o->tt) {
    case HV_TSTR: {
        hv_str *s = (hv_str *)o;
        hv_str_remove(vm, s);
        hv_free(vm, s, sizeof *s + s->len + 1);
        break;
    }
    case HV_TTAB: hv_table_freeobj(vm, (hv_table *)o); break;
    case HV_TLFN: {
        hv_lfn *f = (hv_lfn *)o;
        hv_free(vm, f, sizeof *f + f->nups * sizeof(hv_upval *));
        break;
    }
    case HV_TCFN: {
        hv_cfn *f = (hv_cfn *)o;
        hv_free(vm, f, sizeof *f + f->nups * sizeof(hv_value));
        break;
    }
    case HV_TUPVAL: hv_free(vm, o, sizeof(hv_upval)); break;
    case HV_TTHREAD: hv_thread_freeobj(vm, (hv_thread *)o); break;
    case HV_TSTRUCT: {
        hv_struct *s = (hv_struct *)o;
        hv_free(vm, s, sizeof *s + s->nslots * sizeof(hv_value));
        break;
    }
    case HV_TUDATA: hv_free(vm, o, sizeof(hv_udata)); break;
    default: free(o); break;
    }
}

static bool has_gc(hv_vm *vm, const hv_udata *u)
{
    if (!u->meta || (u->meta->nomm & (1u << TM_GC)))
        return false;
    return !hv_isnil(hv_table_getstr(u->meta, vm->tmname[TM_GC]));
}

/* Queues a userdata for its finalizer; false when the system is out of
 * memory (it is then freed without one). */
static bool queue_fin(hv_vm *vm, hv_udata *u)
{
    if (vm->nfin == vm->capfin) {
        size_t nc = vm->capfin ? vm->capfin * 2 : 16;
        hv_gc **na = realloc(vm->fin, nc * sizeof *na);
        if (!na)
            return false;
        vm->fin = na;
        vm->capfin = nc;
    }
    u->fin = true;
    vm->fin[vm->nfin++] = &u->h;
    return true;
}

void hv_gc_finalize(hv_thread *L, bool at_close)
{
    hv_vm *vm = L->vm;
    if (at_close)
        for (hv_gc *o = vm->all; o; o = o->next)
            if (o->tt == HV_TUDATA && !((hv_udata *)o)->fin && has_gc(vm, (hv_udata *)o))
                queue_fin(vm, (hv_udata *)o);
    if (vm->in_fin)
        return; /* a collection inside a finalizer: the running loop takes the new ones */
    vm->in_fin = true;
    /* in queue order (Lua 5.1's: the newest userdata first); the queued
     * ones stay roots until their turn (hv_gc_collect marks vm->fin) */
    size_t i = 0;
    while (i < vm->nfin) {
        hv_udata *u = (hv_udata *)vm->fin[i++];
        const hv_value *tm = u->meta ? hv_table_getstr(u->meta, vm->tmname[TM_GC]) : NULL;
        if (!tm || (tm->tt != HV_TLFN && tm->tt != HV_TCFN))
            continue;
        hv_value f = *tm;
        hv_stack_check(L, 2);
        int func = L->top;
        L->stack[func] = f;
        hv_setgc(&L->stack[func + 1], HV_TUDATA, u);
        L->top = func + 2;
        vm->fin_done = i;
        int st = hv_pcall(L, func, 0); /* a limit goes on (hv_pcall rethrows it) */
        if (st != HV_OK && !at_close) {
            /* As Lua 5.1: the finalizer's error leaves the collection that ran
             * it (collectgarbage, or the allocation that stepped the
             * collector); the ones not yet run stay queued for the next.  At
             * close there is no caller to take it, so it is dropped. */
            memmove(vm->fin, vm->fin + i, (vm->nfin - i) * sizeof *vm->fin);
            vm->nfin -= i;
            vm->fin_done = 0;
            vm->in_fin = false;
            hv_throw(L, HV_ERRRUN); /* hv_pcall left the error value on top */
        }
        L->top = func;
    }
    vm->nfin = 0;
    vm->fin_done = 0;
    vm->in_fin = false;
}

void hv_gc_collect(hv_thread *L)
{
    hv_vm *vm = L->vm;
    if (vm->in_gc)
        return;
    vm->in_gc = true;
    gray_stack g = {vm, L->ci && !L->ci->is_lua ? L : NULL, NULL, 0, 0, NULL, 0, 0, false};
    mark_obj(&g, &vm->main->h);
    if (vm->running)
        mark_obj(&g, &vm->running->h);
    mark_obj(&g, &L->h);
    mark_obj(&g, &vm->globals->h);
    mark_obj(&g, &vm->registry->h);
    if (vm->strmeta)
        mark_obj(&g, &vm->strmeta->h);
    for (int i = 0; i < TM_N; i++)
        if (vm->tmname[i])
            mark_obj(&g, &vm->tmname[i]->h);
    for (int i = 0; i < HV_NTAGS; i++)
        if (vm->typenames[i])
            mark_obj(&g, &vm->typenames[i]->h);
    for (size_t i = 0; i < vm->nprotos; i++)
        mark_proto(&g, vm->protos[i]);
    for (size_t i = vm->fin_done; i < vm->nfin; i++)
        mark_obj(&g, vm->fin[i]);
    while (g.n > 0 && !g.oom)
        traverse(&g, g.a[--g.n]);
    /* unreachable userdata with a __gc live on until it has run (Lua 5.1
     * separates them the same way), with everything they reach */
    for (hv_gc *o = vm->all; o && !g.oom; o = o->next)
        if (o->tt == HV_TUDATA && !o->marked && !((hv_udata *)o)->fin &&
            has_gc(vm, (hv_udata *)o) && queue_fin(vm, (hv_udata *)o))
            mark_obj(&g, o);
    while (g.n > 0 && !g.oom)
        traverse(&g, g.a[--g.n]);
    if (!g.oom)
        clear_weak(&g);
    free(g.a);
    free(g.weak);
    if (g.oom) {
        /* the host ran out of memory while marking: keep everything (unmark) */
        for (hv_gc *o = vm->all; o; o = o->next)
            o->marked = 0;
        vm->in_gc = false;
        return;
    }
    hv_gc **pp = &vm->all;
    while (*pp) {
        hv_gc *o = *pp;
        if (o->marked) {
            o->marked = 0;
            pp = &o->next;
        } else {
            *pp = o->next;
            free_obj(vm, o);
        }
    }
    uint64_t th = vm->bytes * 2;
    if (th < 256 * 1024)
        th = 256 * 1024;
    if (vm->lim.max_memory && th > vm->lim.max_memory - vm->lim.max_memory / 8)
        th = vm->bytes + (vm->lim.max_memory - vm->bytes) / 2;
    vm->gc_threshold = th;
    vm->in_gc = false;
    if (vm->nfin > vm->fin_done && !vm->in_fin)
        hv_gc_finalize(L, false);
}

void hv_vm_free_all(hv_vm *vm)
{
    hv_gc *o = vm->all;
    while (o) {
        hv_gc *n = o->next;
        free_obj(vm, o);
        o = n;
    }
    vm->all = NULL;
}
