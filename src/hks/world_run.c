/* The world-layer runtime's script threads, simulated time and event
 * dispatch (world.c: the world, its natives and records, install).
 * StartupCommands start as threads; LithThreadSleep suspends one until the
 * clock passes its deadline; ScriptBind entries map (object, event) to a
 * function of the layer's section. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/world_int.h"

/* ---- threads ---- */

typedef struct start_ud {
    gsvm_hks_world *w;
    const char *entry, *object;
    w_thread *t;
    int rc;
} start_ud;

static hv_value section_entry(hv_thread *L, const char *name)
{
    hv_value lr = hv_get_path(L, "loadedresource");
    if (lr.tt != HV_TTAB)
        return hv_nilobject;
    return *hv_table_getstr(hv_tabv(&lr), hv_str_cstr(L, name));
}

static void do_resume(hv_thread *L, void *ud)
{
    start_ud *u = ud;
    w_thread *t = u->t;
    int nargs = 0;
    if (!t->co->started) {
        hv_stack_check(L, 3);
        hv_pushcstr(L, u->object);
        hv_pushnum(L, t->id);
        hv_pushnum(L, u->w->script_id);
        nargs = 3;
    }
    int top = L->top - nargs;
    u->rc = hv_resume(L, t->co, nargs);
    if (u->rc != HV_OK && u->rc != HV_YIELD) {
        /* the coroutine's error value is on top: raise it on this thread,
         * keeping where the coroutine faulted */
        hv_throw(L, HV_ERRRUN);
    }
    L->top = top;
}

static void do_new_thread(hv_thread *L, void *ud)
{
    start_ud *u = ud;
    hv_value f = section_entry(L, u->entry);
    if (f.tt != HV_TLFN && f.tt != HV_TCFN)
        hv_error(L, "loadedresource.%s is not a function (a %s value)", u->entry,
                 hv_typename(&f));
    hv_thread *co = hv_thread_new(L);
    co->stack[0] = f;
    co->top = 1;
    hv_value cv;
    hv_setgc(&cv, HV_TTHREAD, co);
    /* rooted in the registry until the thread ends */
    *hv_table_setint(L, L->vm->registry, 100 + u->t->reg) = cv;
    u->t->co = co;
}

static gsvm_status resume_thread(gsvm_hks_world *w, w_thread *t, const char *object,
                                 gsvm_error *err)
{
    gsvm_hks_vm *h = w->h;
    start_ud u = {w, NULL, object, t, HV_OK};
    w->current = t;
    w_script_push(w, t->name);
    hv_vm *vm = h->vm;
    uint64_t done_steps = vm->slice_end_steps - (uint64_t)vm->steps_left;
    vm->slice = 0;
    vm->slice_end_steps = done_steps;
    vm->steps_left = 0;
    int rc = hv_protect(h->L, do_resume, &u);
    w_script_pop(w);
    w->current = NULL;
    if (rc != HV_OK) {
        t->done = true;
        hv_setnil(hv_table_setint(h->L, vm->registry, 100 + t->reg));
        char what[64];
        snprintf(what, sizeof what, "%d", t->id);
        gsvm_status st = fault_from_public(h, rc, err);
        return w_report(w, st, err, "thread", what);
    }
    if (u.rc == HV_OK) {
        t->done = true;
        t->sleeping = false;
        w_emit(w, json_pack("{s:i,s:b}", "thread", t->id, "done", 1));
        hv_setnil(hv_table_setint(h->L, vm->registry, 100 + t->reg)); /* an existing key: no allocation */
    }
    return GSVM_OK;
}

gsvm_status gsvm_hks_world_start(gsvm_hks_world *w, gsvm_error *err)
{
    if (!w->installed)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "install the layer first");
    gsvm_status worst = GSVM_OK;
    for (uint32_t i = 0; i < w->nobjects; i++) {
        w_object *o = &w->objects[i];
        size_t nl = strlen(o->name);
        if (nl < 3 || strcmp(o->name + nl - 3, ".SC") != 0 || !o->entry)
            continue;
        if (w->nthreads == w->threads_cap) {
            uint32_t nc = w->threads_cap ? w->threads_cap * 2 : 8;
            w_thread *nt = realloc(w->threads, nc * sizeof *nt);
            if (!nt)
                return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
            w->threads = nt;
            w->threads_cap = nc;
        }
        w_thread *t = &w->threads[w->nthreads];
        memset(t, 0, sizeof *t);
        t->id = (int)w->nthreads + 1;
        t->reg = w->next_reg++;
        snprintf(t->name, sizeof t->name, "%s", o->name);
        start_ud u = {w, o->entry, o->name, t, HV_OK};
        int rc = hv_protect(w->h->L, do_new_thread, &u);
        if (rc != HV_OK) {
            gsvm_status st = fault_from_public(w->h, rc, err);
            w_report(w, st, err, "startup", o->name);
            if (st == GSVM_ERR_LIMIT)
                return st;
            worst = st;
            continue;
        }
        w->nthreads++;
        w_emit(w, json_pack("{s:i,s:s,s:s}", "thread", t->id, "start", o->entry, "object", o->name));
        gsvm_status st = resume_thread(w, t, o->name, err);
        if (st == GSVM_ERR_LIMIT)
            return st;
        if (st != GSVM_OK)
            worst = st;
    }
    return worst;
}

gsvm_status gsvm_hks_world_advance(gsvm_hks_world *w, uint64_t ms, gsvm_error *err)
{
    if (w->paused) {
        w_emit(w, json_pack("{s:I,s:b}", "time_ms", (json_int_t)w->now_ms, "paused", 1));
        return GSVM_OK; /* simulation time stands still: nobody wakes */
    }
    uint64_t target = w->now_ms + ms;
    gsvm_status worst = GSVM_OK;
    for (;;) {
        /* the earliest deadline not after the target (ties: the older thread) */
        w_thread *next = NULL;
        for (uint32_t i = 0; i < w->nthreads; i++) {
            w_thread *t = &w->threads[i];
            if (t->done || !t->sleeping || t->wake_ms > target)
                continue;
            if (!next || t->wake_ms < next->wake_ms)
                next = t;
        }
        if (!next)
            break;
        w->now_ms = next->wake_ms;
        next->sleeping = false;
        w_emit(w, json_pack("{s:i,s:I}", "wake", next->id, "at_ms", (json_int_t)w->now_ms));
        gsvm_status st = resume_thread(w, next, next->name, err);
        if (st == GSVM_ERR_LIMIT)
            return st;
        if (st != GSVM_OK)
            worst = st;
    }
    w->now_ms = target;
    w_emit(w, json_pack("{s:I}", "time_ms", (json_int_t)w->now_ms));
    return worst;
}

void gsvm_hks_world_pause(gsvm_hks_world *w, bool paused)
{
    w->paused = paused;
    w_emit(w, json_pack("{s:b}", "pause", paused));
}

gsvm_status gsvm_hks_world_answer(gsvm_hks_world *w, const char *native, json_t *value,
                                  gsvm_error *err)
{
    if (w->nanswers == w->answers_cap) {
        uint32_t nc = w->answers_cap ? w->answers_cap * 2 : 8;
        w_answer *na = realloc(w->answers, nc * sizeof *na);
        if (!na)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        w->answers = na;
        w->answers_cap = nc;
    }
    w->answers[w->nanswers].native = strdup(native);
    w->answers[w->nanswers].value = json_incref(value);
    w->nanswers++;
    return GSVM_OK;
}

/* ---- events ---- */

typedef struct event_ud {
    gsvm_hks_world *w;
    const char *function, *object;
    json_t *args;
} event_ud;

static void do_event(hv_thread *L, void *ud)
{
    event_ud *u = ud;
    hv_value f = section_entry(L, u->function);
    if (f.tt != HV_TLFN && f.tt != HV_TCFN)
        hv_error(L, "loadedresource.%s is not a function (a %s value)", u->function,
                 hv_typename(&f));
    size_t na = json_array_size(u->args);
    hv_stack_check(L, (int)na + 2);
    int func = L->top;
    hv_push(L, &f);
    hv_pushcstr(L, u->object);
    for (size_t i = 0; i < na; i++)
        w_push_json(L, json_array_get(u->args, i));
    hv_call(L, func, 0);
    L->top = func;
}

gsvm_status gsvm_hks_world_event(gsvm_hks_world *w, const char *object, const char *event,
                                 json_t *args, gsvm_error *err)
{
    int matched = 0;
    gsvm_status worst = GSVM_OK;
    for (uint32_t i = 0; i < w->nbinds; i++) {
        w_bind *b = &w->binds[i];
        if (strcmp(b->event, event) != 0 || (object && strcmp(b->object, object) != 0))
            continue;
        matched++;
        w_emit(w, json_pack("{s:s,s:s,s:s}", "dispatch", event, "object", b->object, "function",
                          b->function));
        event_ud u = {w, b->function, b->object, args};
        hv_vm *vm = w->h->vm;
        uint64_t done_steps = vm->slice_end_steps - (uint64_t)vm->steps_left;
        vm->slice = 0;
        vm->slice_end_steps = done_steps;
        vm->steps_left = 0;
        w_script_push(w, b->object);
        int rc = hv_protect(w->h->L, do_event, &u);
        w_script_pop(w);
        if (rc != HV_OK) {
            gsvm_status st = fault_from_public(w->h, rc, err);
            w_report(w, st, err, "dispatch", event);
            if (st == GSVM_ERR_LIMIT)
                return st;
            worst = st;
        }
    }
    if (!matched)
        w_emit(w, json_pack("{s:s,s:s,s:s}", "dispatch", event, "object", object ? object : "",
                          "unbound", "no ScriptBind entry"));
    return worst;
}

int gsvm_hks_world_faults(const gsvm_hks_world *w)
{
    return w->faults;
}
