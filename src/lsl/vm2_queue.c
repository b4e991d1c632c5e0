/* The event queue the one API (gsvm_lsl_vm_start / _post / _run) gives an
 * ABI-2 VM.  The document's VM has none: its dispatch starts a handler at
 * once and clears the stack, so a host with events arriving while a handler
 * runs must hold them somewhere.  Here they wait, as ABI 3's do (Second
 * Life's rules: at most 64, FIFO, state_entry first, dropped when the script
 * has no handler), and run() dispatches the next whenever no handler runs.
 * Direct dispatch (gsvm_lsl_vm_dispatch) bypasses the queue entirely, so a
 * host using the document's calls sees exactly the document's VM. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "lsl/abi2.h"
#include "lsl/builtins.h"

#define FAL2_QUEUE_MAX 64u

/* One waiting event: its handler and its arguments (owned values). */
typedef struct fal_queued {
    const fal_event *ev;
    uint32_t tag;
    fal_value *args; /* ev->nparams of them, NULL when none */
} fal_queued;

static void entry_free(gsvm_lsl_vm *vm, fal_queued *q)
{
    if (q->args) {
        fal_values_release(vm, q->args, q->ev->nparams);
        fal_free(vm, q->args);
    }
}

void fal2_queue_free(gsvm_lsl_vm *vm)
{
    for (size_t i = 0; i < vm->qlen; i++)
        entry_free(vm, &vm->queue[(vm->qhead + i) % FAL2_QUEUE_MAX]);
    fal_free(vm, vm->queue);
    vm->queue = NULL;
    vm->qlen = vm->qhead = 0;
}

/* Puts `q` at the back (or, for state_entry, the front) of the queue; false
 * when full (the caller still owns q's arguments). */
static bool enqueue(gsvm_lsl_vm *vm, fal_queued q, bool front, gsvm_error *err, gsvm_status *st)
{
    *st = GSVM_OK;
    if (!vm->queue && !(vm->queue = fal_calloc(vm, FAL2_QUEUE_MAX, sizeof *vm->queue))) {
        *st = gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        return false;
    }
    if (vm->qlen == FAL2_QUEUE_MAX)
        return false;
    if (front) {
        vm->qhead = (vm->qhead + FAL2_QUEUE_MAX - 1) % FAL2_QUEUE_MAX;
        vm->queue[vm->qhead] = q;
    } else {
        vm->queue[(vm->qhead + vm->qlen) % FAL2_QUEUE_MAX] = q;
    }
    vm->qlen++;
    return true;
}

gsvm_status fal2_vm_start(gsvm_lsl_vm *vm, gsvm_error *err)
{
    const fal_event *e = fal_program_find_event(vm->prog, "state_entry");
    gsvm_status st = GSVM_OK;
    if (e && e->nparams == 0)
        enqueue(vm, (fal_queued){e, 0, NULL}, true, err, &st);
    return st;
}

/* One argument, JSON `j` or typed `it`, as the handler's parameter type
 * wants it (a typed string may be given as a key). */
static gsvm_status arg_value(gsvm_lsl_vm *vm, const fal_event *e, size_t i, const json_t *j,
                             const gsvm_lsl_item *it, fal_value *out, gsvm_error *err)
{
    if (e->param_types[i] == GSVM_LSL_INTEGER) {
        if (j ? !json_is_integer(j) || json_integer_value(j) < INT32_MIN || json_integer_value(j) > INT32_MAX
              : it->type != GSVM_LSL_T_INTEGER)
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s argument %zu must be integer", e->name, i + 1);
        *out = (fal_value){.tag = GSVM_LSL_INTEGER, .u.i = j ? (int32_t)json_integer_value(j) : it->i};
        return GSVM_OK;
    }
    if (j ? !json_is_string(j) : it->type != GSVM_LSL_T_STRING && it->type != GSVM_LSL_T_KEY)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s argument %zu must be string", e->name, i + 1);
    out->tag = GSVM_LSL_STRING;
    const char *text = j ? json_string_value(j) : it->s ? it->s : "";
    if (!(out->u.s = fal_str_new(vm, text, j ? json_string_length(j) : it->s ? it->len : 0)))
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    return GSVM_OK;
}

gsvm_status fal2_vm_post(gsvm_lsl_vm *vm, const char *event, const json_t *args, const gsvm_lsl_item *items,
                         size_t nitems, uint32_t tag, bool *queued, gsvm_error *err)
{
    *queued = false;
    const fal_event *e = fal_program_find_event(vm->prog, event);
    if (!e) /* dropped, as for a script without the handler; a name no event has is the host's error */
        return lsl_event_by_name(event, strlen(event))
                   ? GSVM_OK
                   : gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "'%s' is not an LSL event", event);
    if (args && !json_is_array(args))
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "\"args\" must be an array");
    size_t n = args ? json_array_size(args) : nitems;
    if (n != e->nparams)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s takes %u arguments, not %zu", event, e->nparams, n);
    if (strcmp(event, "state_entry") == 0 || strcmp(event, "state_exit") == 0)
        return GSVM_OK; /* never queued: start() runs state_entry */
    fal_queued q = {e, tag, NULL};
    if (n && !(q.args = fal_calloc(vm, n, sizeof *q.args)))
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        gsvm_status st = args ? arg_value(vm, e, i, json_array_get(args, i), NULL, &q.args[i], err)
                              : arg_value(vm, e, i, NULL, &items[i], &q.args[i], err);
        if (st != GSVM_OK) {
            fal_values_release(vm, q.args, i);
            fal_free(vm, q.args);
            return st;
        }
    }
    gsvm_status st;
    *queued = enqueue(vm, q, false, err, &st);
    if (!*queued)
        entry_free(vm, &q); /* a full queue drops the newest, as Second Life does */
    return st;
}

/* Starts the oldest waiting event's handler; false (the script faulted) when
 * that cannot be done (out of memory: the arguments were checked when the
 * event was posted). */
static bool dispatch_next(gsvm_lsl_vm *vm)
{
    fal_queued q = vm->queue[vm->qhead];
    vm->qhead = (vm->qhead + 1) % FAL2_QUEUE_MAX;
    vm->qlen--;
    gsvm_lsl_hostval args[FAL_MAX_PARAMS];
    for (uint32_t i = 0; i < q.ev->nparams; i++) {
        const fal_value *v = &q.args[i];
        args[i] = v->tag == GSVM_LSL_INTEGER
                      ? (gsvm_lsl_hostval){GSVM_LSL_INTEGER, v->u.i, NULL, 0}
                      : (gsvm_lsl_hostval){GSVM_LSL_STRING, 0, v->u.s->bytes, v->u.s->len};
    }
    gsvm_error err;
    bool ok = fal2_vm_dispatch(vm, q.ev->name, args, q.ev->nparams, &err) == GSVM_OK;
    vm->current_tag = q.tag;
    entry_free(vm, &q);
    if (!ok) {
        vm->faulted = vm->finished = true;
        vm->fault_ip = vm->ip;
        snprintf(vm->fault, sizeof vm->fault, "%.*s", (int)sizeof vm->fault - 1, err.message);
    }
    return ok;
}

gsvm_lsl_run_status fal2_vm_run_queued(gsvm_lsl_vm *vm, uint64_t budget)
{
    uint64_t left = budget;
    if (vm->in_host)
        return GSVM_LSL_ERROR; /* refused: called from this VM's own host callback */
    for (;;) {
        if (vm->faulted)
            return GSVM_LSL_ERROR; /* as ABI 3: a fault stops the script for good */
        if (vm->finished) {
            if (!vm->qlen)
                return GSVM_LSL_FINISHED;
            if (!dispatch_next(vm))
                return GSVM_LSL_ERROR;
            continue;
        }
        if (left == 0)
            return GSVM_LSL_YIELDED;
        uint64_t before = vm->total;
        gsvm_lsl_run_status st = fal2_vm_run(vm, left);
        uint64_t used = vm->total - before;
        left -= used < left ? used : left;
        if (st != GSVM_LSL_FINISHED)
            return st;
    }
}

json_t *fal2_vm_global_by_name(const gsvm_lsl_vm *vm, const char *name)
{
    const gsvm_lsl_program *p = vm->prog;
    for (size_t i = 0; i < p->nglobal && i < vm->nglobals; i++) {
        if (!p->global_names[i] || strcmp(p->global_names[i], name) != 0)
            continue;
        const fal_value *v = &vm->globals[i];
        return v->tag == GSVM_LSL_INTEGER ? json_integer(v->u.i) : json_stringn(v->u.s->bytes, v->u.s->len);
    }
    return NULL;
}
