/* Memory accounting and a stop-the-world mark-and-sweep collector.
 *
 * Every byte a script causes passes through hv_alloc, which counts it and
 * enforces the VM's memory limit (an allocation past the limit is the
 * script's error "not enough memory", never the host's crash).  Collection
 * happens only at the interpreter's safe points (hv_gc_check: instructions
 * that make objects, returns from C functions), where every live
 * value is in a thread's stack, a table, a closure or a prototype's
 * constants, so C code never holds an unrooted object across a collection. */
#include <stdlib.h>
#include <string.h>

#include "hks/vm.h"

void *hv_alloc(hv_thread *L, void *p, size_t old, size_t size)
{
    hv_vm *vm = L->vm;
    /* the collector's threshold approaches the limit (hv_gc_collect), so
     * garbage is collected at a safe point before the limit refuses */
    if (size > old && vm->lim.max_memory && vm->bytes - old + size > vm->lim.max_memory)
        hv_throw(L, HV_ERRMEM);
    void *q = realloc(p, size ? size : 1);
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
    void *q = calloc(1, size ? size : 1);
    if (!q)
        hv_throw(L, HV_ERRMEM);
    vm->bytes += size;
    return q;
}

void hv_free_(hv_vm *vm, void *p, size_t sz)
{
    if (!p)
        return;
    free(p);
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

/* After marking: an entry of a weak table whose weak key or value was not
 * reached otherwise goes (its key stays as a dead key for next()). */
static void clear_weak(gray_stack *g)
{
    for (size_t w = 0; w < g->nweak; w++) {
        hv_table *t = (hv_table *)g->weak[w];
        for (uint32_t i = 0; i < t->asize; i++)
            if (cleared(&t->arr[i]))
                hv_setnil(&t->arr[i]);
        size_t n = t->node ? (size_t)1 << t->lsizenode : 0;
        for (size_t i = 0; i < n; i++) {
            hv_node *nd = &t->node[i];
            if (!hv_isnil(&nd->val) && (cleared(&nd->key) || cleared(&nd->val))) {
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
    default: free(o); break;
    }
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
