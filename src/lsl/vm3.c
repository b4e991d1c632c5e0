/* The ABI-3 interpreter: handlers, user-function frames, states, the event
 * queue, simulation time, listens and the builtin boundary.
 *
 * All script state is data in the VM (ip, value stack, frames, queue,
 * clocks), never the C stack, so run() may stop after any instruction and a
 * snapshot captures everything.  Dispatch is threaded through a table of
 * label addresses expanded from isa3.def (computed goto) where the compiler
 * has it, else a switch.
 *
 * Memory (the 64 KiB limit): the heap charges every string, key and list
 * object (value.h); `heap.extra` adds the code (FAL3_INSN_BYTES per
 * instruction), the globals' slots and each live call frame
 * (FAL3_FRAME_BYTES + its slots).  Constants are copied into the VM's heap
 * and so count as the values they are.  A frame or an object that does not
 * fit is a Stack-Heap Collision. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "lsl/hostcall.h"
#include "lsl/lib.h"
#include "lsl/prog3.h"

#if defined(__GNUC__) && !defined(GSVM_LSL_NO_COMPUTED_GOTO)
#define F3_THREADED 1
#else
#define F3_THREADED 0
#endif

#define HEAPTYPE(t) ((1u << (t)) & ((1u << LSL_TYPE_STRING) | (1u << LSL_TYPE_KEY) | (1u << LSL_TYPE_LIST)))

static inline void vretain(const lsl_value *v)
{
    if (HEAPTYPE(v->type))
        lsl_value_retain(v);
}

static inline void vrelease(lsl_value *v)
{
    if (HEAPTYPE(v->type))
        lsl_value_release(v);
}

/* *d = *s, copying only the bytes the type uses.  Typed instructions write
 * a number's 4 bytes alone; copying the whole 24-byte slot right after such
 * a narrow write would make the CPU wait for the write to land (a failed
 * store-to-load forward, ~a dozen cycles each time). */
static inline void vcopy(lsl_value *d, const lsl_value *s)
{
    d->type = s->type;
    if (s->type <= LSL_TYPE_FLOAT)
        d->u.i = s->u.i;
    else if (s->type == LSL_TYPE_VECTOR || s->type == LSL_TYPE_ROTATION)
        memcpy(d->u.v, s->u.v, sizeof d->u.v);
    else
        d->u.s = s->u.s; /* string, key, list: the pointer (same place in the union) */
}

/* A float on the operand stack is its double (u.t.d, Mono's temporaries);
 * in a variable (a frame slot, a global) and everywhere else, its float32
 * (u.f).  vload pushes a variable's value, vstore stores a stack value
 * (rounding a float), vdup copies within the stack. */
static inline void vload(lsl_value *d, const lsl_value *s)
{
    if (s->type == LSL_TYPE_FLOAT) {
        d->type = LSL_TYPE_FLOAT;
        d->u.t.d = s->u.f;
    } else
        vcopy(d, s);
}

static inline void vstore(lsl_value *d, const lsl_value *s)
{
    if (s->type == LSL_TYPE_FLOAT) {
        d->type = LSL_TYPE_FLOAT;
        d->u.f = (float)s->u.t.d;
    } else
        vcopy(d, s);
}

static inline void vdup(lsl_value *d, const lsl_value *s)
{
    if (s->type == LSL_TYPE_FLOAT) {
        d->type = LSL_TYPE_FLOAT;
        d->u.t.d = s->u.t.d;
    } else
        vcopy(d, s);
}

/* A stack value about to be read as an LSL value (by the library, a list,
 * a vector, a call): a float rounded to its float32. */
static inline void fround(lsl_value *v)
{
    if (v->type == LSL_TYPE_FLOAT)
        v->u.f = (float)v->u.t.d;
}

static inline void fround_n(lsl_value *v, int32_t n)
{
    for (int32_t k = 0; k < n; k++)
        fround(&v[k]);
}

#define IS_NUMBER(t) ((t) == LSL_TYPE_INTEGER || (t) == LSL_TYPE_FLOAT)

/* Number results written field by field, for the same reason. */
#define SET_I(p, x) do { (p)->type = LSL_TYPE_INTEGER; (p)->u.i = (x); } while (0)
#define SET_F(p, x) do { float f_ = (x); (p)->type = LSL_TYPE_FLOAT; (p)->u.f = f_; (p)->u.t.d = f_; } while (0)

/* Float temporaries (Mono's precision): the VM's float arithmetic reads and
 * writes an operand stack value's double (D), keeping its float32 rounding
 * beside it for every other reader; a float32 operand (a local, a
 * constant) is widened exactly.  A store rounds (vcopy, the fused stores). */
#define FD(p) ((p)->u.t.d)
#define PUT_D(p, x) do { (p)->u.t.d = (x); } while (0)
#define PUSH_D(p, x) do { (p)->type = LSL_TYPE_FLOAT; PUT_D(p, x); } while (0)

/* A value the library made, now on the stack: a float's double is its float32. */
static inline void fnorm(lsl_value *v)
{
    if (v->type == LSL_TYPE_FLOAT)
        v->u.t.d = v->u.f;
}

static size_t extra_now(const gsvm_lsl3_vm *vm)
{
    return vm->hp->extra;
}

static bool heap_over(gsvm_lsl3_vm *vm)
{
    size_t total = vm->hp->used + vm->hp->extra;
    if (total > vm->hp->peak)
        vm->hp->peak = total;
    return vm->hp->limit && total > vm->hp->limit;
}

size_t gsvm_lsl3_vm_used_memory(const gsvm_lsl3_vm *vm)
{
    return vm->hp->used + extra_now(vm);
}

uint64_t fal3_handled_mask(const gsvm_lsl3_program *p, int32_t state)
{
    uint64_t m = 0;
    for (int e = 0; e < FAL3_EVENT_COUNT; e++)
        if (p->states[state].handler[e] >= 0)
            m |= UINT64_C(1) << e;
    return m;
}

/* Releases the frames and the stack (the handler is abandoned). */
static void unwind(gsvm_lsl3_vm *vm)
{
    for (uint32_t i = 0; i < vm->sp; i++)
        vrelease(&vm->stack[i]);
    vm->sp = 0;
    for (uint32_t i = 0; i < vm->nframes; i++)
        vm->hp->extra -= vm->prog->funcs[vm->frames[i].func].frame_bytes;
    vm->nframes = 0;
    vm->active = false;
    vm->ip = 0;
}

static gsvm_status reset_globals(gsvm_lsl3_vm *vm, gsvm_error *err)
{
    const gsvm_lsl3_program *p = vm->prog;
    for (size_t i = 0; i < p->nglobal; i++) {
        vrelease(&vm->globals[i]);
        gsvm_status st = lsl_value_copy_to(vm->hp, &p->globals[i], &vm->globals[i], err);
        if (st != GSVM_OK)
            return st;
    }
    return GSVM_OK;
}

/* Zeroed memory from the VM's allocator. */
static void *vm_zalloc(const lsl_heap *h, size_t n)
{
    void *p = lsl_heap_realloc(h, NULL, n);
    if (p)
        memset(p, 0, n);
    return p;
}

gsvm_status gsvm_lsl3_vm_new(const gsvm_lsl3_program *prog, gsvm_lsl3_vm **out, gsvm_error *err)
{
    return gsvm_lsl3_vm_new_alloc(prog, NULL, NULL, out, err);
}

gsvm_status gsvm_lsl3_vm_new_alloc(const gsvm_lsl3_program *prog, gsvm_lsl_realloc_fn fn, void *user,
                                   gsvm_lsl3_vm **out, gsvm_error *err)
{
    *out = NULL;
    lsl_heap a; /* the allocator alone, until the VM's heap exists */
    lsl_heap_init(&a, 0);
    a.realloc = fn;
    a.alloc_user = user;
    gsvm_lsl3_vm *vm = vm_zalloc(&a, sizeof *vm);
    if (!vm)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    vm->abi = 3;
    vm->prog = gsvm_lsl3_program_retain(prog);
    vm->hp = vm_zalloc(&a, sizeof *vm->hp);
    if (!vm->hp) {
        gsvm_lsl3_program_free((gsvm_lsl3_program *)prog);
        lsl_heap_free(&a, vm);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    lsl_heap_init(vm->hp, LSL_DEFAULT_MEMORY_LIMIT);
    vm->hp->realloc = fn;
    vm->hp->alloc_user = user;
    uint64_t seed;
    memcpy(&seed, prog->hash, 8);
    lsl_lib_state_init(&vm->lib, seed);
    vm->next_state = -1;
    vm->cur_event = -1;
    lsl_sched_init(&vm->sched, vm->hp, 0);
    lsl_sched_set_handled(&vm->sched, fal3_handled_mask(prog, 0));
    vm->globals = vm_zalloc(vm->hp, (prog->nglobal ? prog->nglobal : 1) * sizeof *vm->globals);
    vm->consts = vm_zalloc(vm->hp, (prog->nconst ? prog->nconst : 1) * sizeof *vm->consts);
    if (!vm->globals || !vm->consts) {
        gsvm_lsl3_vm_free(vm);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    size_t extra = prog->ncode * FAL3_INSN_BYTES;
    for (size_t i = 0; i < prog->nglobal; i++)
        extra += lsl_value_slot_size(&prog->globals[i]);
    vm->base_extra = extra;
    vm->hp->extra = extra;
    gsvm_status st = GSVM_OK;
    for (size_t i = 0; st == GSVM_OK && i < prog->nconst; i++) {
        st = lsl_value_copy_to(vm->hp, &prog->consts[i], &vm->consts[i], err);
        vm->nconsts = i + 1;
    }
    for (size_t i = 0; i < prog->nglobal; i++)
        vm->globals[i] = lsl_empty(prog->globals[i].type);
    if (st == GSVM_OK)
        st = reset_globals(vm, err);
    if (st == GSVM_OK && heap_over(vm))
        st = gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "Stack-Heap Collision");
    if (st != GSVM_OK) {
        gsvm_lsl3_vm_free(vm);
        return st;
    }
    *out = vm;
    return GSVM_OK;
}

void gsvm_lsl3_vm_free(gsvm_lsl3_vm *vm)
{
    if (!vm)
        return;
    unwind(vm);
    lsl_sched_free(&vm->sched);
    if (vm->globals)
        for (size_t i = 0; i < vm->prog->nglobal; i++)
            vrelease(&vm->globals[i]);
    if (vm->consts)
        for (size_t i = 0; i < vm->nconsts; i++)
            vrelease(&vm->consts[i]);
    gsvm_lsl3_program_free((gsvm_lsl3_program *)vm->prog);
    lsl_heap a = *vm->hp; /* its allocator, to give back the heap itself */
    lsl_heap_free(&a, vm->consts);
    lsl_heap_free(&a, vm->globals);
    lsl_heap_free(&a, vm->stack);
    lsl_heap_free(&a, vm->frames);
    lsl_heap_free(&a, vm->hp);
    lsl_heap_free(&a, vm);
}

void gsvm_lsl3_vm_set_host(gsvm_lsl3_vm *vm, gsvm_lsl3_host_fn fn, void *user)
{
    vm->host = fn;
    vm->host_user = user;
}

uint64_t gsvm_lsl3_vm_total(const gsvm_lsl3_vm *vm) { return vm->total; }
uint64_t gsvm_lsl3_vm_now_ms(const gsvm_lsl3_vm *vm) { return vm->sched.now_ms; }
uint64_t gsvm_lsl3_vm_wake_ms(const gsvm_lsl3_vm *vm)
{
    return lsl_sched_sleeping(&vm->sched) ? vm->sched.wake_ms : 0;
}
const char *gsvm_lsl3_vm_fault(const gsvm_lsl3_vm *vm) { return vm->faulted ? vm->fault : NULL; }
uint64_t gsvm_lsl3_vm_fault_ip(const gsvm_lsl3_vm *vm) { return vm->fault_ip; }

json_t *gsvm_lsl3_vm_global(const gsvm_lsl3_vm *vm, size_t slot)
{
    return slot < vm->prog->nglobal ? lsl_value_to_json(&vm->globals[slot]) : NULL;
}

/* ---- events -------------------------------------------------------------- */

static int32_t handler_of(const gsvm_lsl3_vm *vm, int ev)
{
    return vm->prog->states[vm->cur_state].handler[ev];
}

gsvm_status gsvm_lsl3_vm_start(gsvm_lsl3_vm *vm, gsvm_error *err)
{
    (void)err;
    if (handler_of(vm, LSL_SCHED_EV_STATE_ENTRY) >= 0)
        vm->phase = FAL3_PHASE_ENTRY;
    return GSVM_OK;
}

gsvm_status gsvm_lsl3_vm_post(gsvm_lsl3_vm *vm, const char *event, const json_t *args,
                              bool *was_queued, gsvm_error *err)
{
    *was_queued = false;
    const lsl_event_def *ed = lsl_event_by_name(event, strlen(event));
    if (!ed)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "'%s' is not an LSL event", event);
    size_t n = args ? json_array_size(args) : 0;
    if (args && !json_is_array(args))
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "\"args\" must be an array");
    if (n != ed->nargs)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s takes %u arguments, not %zu", event, ed->nargs, n);
    lsl_value vals[LSL_MAX_ARGS];
    for (size_t i = 0; i < n; i++) {
        gsvm_status st = lsl_value_from_json(vm->hp, json_array_get(args, i),
                                             lsl_type_from_letter(ed->argtypes[i]), &vals[i], err);
        if (st != GSVM_OK) {
            for (size_t k = 0; k < i; k++)
                vrelease(&vals[k]);
            if (st == GSVM_ERR_INPUT) {
                char msg[sizeof err->message];
                snprintf(msg, sizeof msg, "%s", err->message);
                gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s argument %zu: %s", event, i + 1, msg);
            }
            return st;
        }
    }
    return fal3_post_values(vm, ed, vals, n, 0, was_queued, err);
}

uint64_t gsvm_lsl3_vm_advance(gsvm_lsl3_vm *vm, uint64_t ms)
{
    /* stop at the next timer due time or wake-up so that each timer event
     * is handled before the next is due; the caller advances again */
    lsl_sched *sc = &vm->sched;
    uint64_t step = ms, at;
    if (step > LSL_SCHED_MAX_TIME_MS - sc->now_ms)
        step = LSL_SCHED_MAX_TIME_MS - sc->now_ms;
    if (lsl_sched_next_deadline(sc, &at))
        step = at <= sc->now_ms ? 0 : (at - sc->now_ms < step ? at - sc->now_ms : step);
    lsl_sched_advance(sc, step, NULL, NULL); /* within the clock's bound: cannot fail */
    return step;
}

/* ---- handler start and state changes ------------------------------------- */

bool fal3_grow_stack(gsvm_lsl3_vm *vm, size_t need)
{
    if (need <= vm->cap)
        return true;
    size_t nc = vm->cap ? vm->cap : 16;
    while (nc < need)
        nc *= 2;
    lsl_value *n = lsl_heap_realloc(vm->hp, vm->stack, nc * sizeof *n);
    if (!n)
        return false;
    memset(n + vm->cap, 0, (nc - vm->cap) * sizeof *n);
    vm->stack = n;
    vm->cap = (uint32_t)nc;
    return true;
}

bool fal3_grow_frames(gsvm_lsl3_vm *vm, size_t need)
{
    if (need <= vm->capframes)
        return true;
    size_t nc = vm->capframes ? vm->capframes : 4;
    while (nc < need)
        nc *= 2;
    if (nc > FAL3_MAX_DEPTH)
        nc = FAL3_MAX_DEPTH;
    if (nc < need)
        return false;
    fal3_frame *n = lsl_heap_realloc(vm->hp, vm->frames, nc * sizeof *n);
    if (!n)
        return false;
    vm->frames = n;
    vm->capframes = (uint32_t)nc;
    return true;
}

void fal3_trim(gsvm_lsl3_vm *vm)
{
    if (vm->active || vm->sp || vm->nframes)
        return;
    lsl_heap_free(vm->hp, vm->stack);
    vm->stack = NULL;
    vm->cap = 0;
    lsl_heap_free(vm->hp, vm->frames);
    vm->frames = NULL;
    vm->capframes = 0;
    lsl_sched_trim(&vm->sched);
}

static void set_fault(gsvm_lsl3_vm *vm, uint32_t ip, const char *msg)
{
    vm->faulted = true;
    vm->fault_ip = ip;
    size_t n = strlen(msg);
    if (n >= sizeof vm->fault)
        n = sizeof vm->fault - 1;
    memcpy(vm->fault, msg, n);
    vm->fault[n] = 0;
}

/* Starts function `fi` as a handler with `args` (moved). */
static bool start_handler(gsvm_lsl3_vm *vm, int32_t fi, lsl_value *args, uint8_t nargs)
{
    const fal3_func *f = &vm->prog->funcs[fi];
    vm->cur_event = f->event;
    vm->cur_tag = 0;
    if (!fal3_grow_stack(vm, (size_t)f->nslots + f->max_stack + 4) || !fal3_grow_frames(vm, 1)) {
        for (uint8_t k = 0; k < nargs; k++)
            vrelease(&args[k]);
        set_fault(vm, f->entry, "out of memory");
        return false;
    }
    vm->sp = 0;
    for (uint8_t k = 0; k < nargs; k++)
        vm->stack[vm->sp++] = args[k];
    for (uint32_t k = nargs; k < f->nslots; k++)
        vm->stack[vm->sp++] = fal3_zero((lsl_type)f->slot_types[k]);
    vm->frames[0] = (fal3_frame){UINT32_MAX, 0, (uint32_t)fi};
    vm->nframes = 1;
    vm->hp->extra += f->frame_bytes;
    vm->ip = f->entry;
    vm->active = true;
    if (heap_over(vm)) {
        set_fault(vm, f->entry, "Stack-Heap Collision");
        return false;
    }
    return true;
}

/* Picks the next thing to do when no handler runs: a pending state change
 * (state_exit, then the switch and state_entry) or the next queued event.
 * False when idle (or on a fault). */
static bool next_step(gsvm_lsl3_vm *vm)
{
    if (vm->next_state >= 0) {
        if (vm->phase == FAL3_PHASE_NONE) {
            vm->phase = FAL3_PHASE_EXIT;
            int32_t h = handler_of(vm, LSL_SCHED_EV_STATE_EXIT);
            if (h >= 0)
                return start_handler(vm, h, NULL, 0);
        }
        vm->cur_state = vm->next_state;
        vm->next_state = -1;
        vm->phase = FAL3_PHASE_NONE;
        lsl_sched_state_change(&vm->sched);
        lsl_sched_set_handled(&vm->sched, fal3_handled_mask(vm->prog, vm->cur_state));
        int32_t h = handler_of(vm, LSL_SCHED_EV_STATE_ENTRY);
        if (h >= 0)
            return start_handler(vm, h, NULL, 0);
        return true;
    }
    if (vm->phase == FAL3_PHASE_ENTRY) {
        vm->phase = FAL3_PHASE_NONE;
        int32_t h = handler_of(vm, LSL_SCHED_EV_STATE_ENTRY);
        if (h >= 0)
            return start_handler(vm, h, NULL, 0);
    }
    /* the scheduler queues only events the current state handles */
    lsl_sched_event e;
    if (lsl_sched_pop(&vm->sched, &e)) {
        bool ok = start_handler(vm, handler_of(vm, e.event), e.args, (uint8_t)e.nargs);
        vm->cur_tag = e.tag;
        return ok;
    }
    return false;
}

static void reset_script(gsvm_lsl3_vm *vm)
{
    unwind(vm);
    lsl_sched_reset(&vm->sched);
    gsvm_error e;
    if (reset_globals(vm, &e) != GSVM_OK) {
        set_fault(vm, vm->ip, e.message);
        return;
    }
    vm->cur_state = 0;
    vm->next_state = -1;
    vm->phase = FAL3_PHASE_NONE;
    lsl_sched_set_handled(&vm->sched, fal3_handled_mask(vm->prog, 0));
    gsvm_lsl3_vm_start(vm, &e);
}

/* ---- builtins ------------------------------------------------------------ */

enum { CALL_OK, CALL_FAULT, CALL_RESET };

static int vm_service(gsvm_lsl3_vm *vm, const lsl_builtin *b, lsl_value *args, lsl_value *ret, gsvm_error *err)
{
    *ret = lsl_empty(b->ret);
    switch (b->id) {
    case LSL_ID_llListen: {
        int32_t h = 0;
        gsvm_status st = lsl_sched_listen(&vm->sched, args[0].u.i, &args[1], &args[2], &args[3], &h, err);
        if (st != GSVM_OK)
            return CALL_FAULT; /* "Too Many Listens" (or out of memory) */
        *ret = lsl_int(h);
        return CALL_OK;
    }
    case LSL_ID_llListenControl:
        lsl_sched_listen_control(&vm->sched, args[0].u.i, args[1].u.i != 0);
        return CALL_OK;
    case LSL_ID_llListenRemove:
        lsl_sched_listen_remove(&vm->sched, args[0].u.i);
        return CALL_OK;
    case LSL_ID_llGetTime:
        *ret = lsl_float(lsl_sched_get_time(&vm->sched));
        return CALL_OK;
    case LSL_ID_llResetTime:
        lsl_sched_reset_time(&vm->sched);
        return CALL_OK;
    case LSL_ID_llGetAndResetTime:
        *ret = lsl_float(lsl_sched_get_and_reset_time(&vm->sched));
        return CALL_OK;
    case LSL_ID_llSetTimerEvent:
        lsl_sched_set_timer(&vm->sched, args[0].u.f);
        return CALL_OK;
    case LSL_ID_llSleep:
        lsl_sched_sleep(&vm->sched, args[0].u.f);
        return CALL_OK;
    case LSL_ID_llResetScript:
        return CALL_RESET;
    case LSL_ID_llGetFreeMemory: {
        size_t used = gsvm_lsl3_vm_used_memory(vm);
        *ret = lsl_int(vm->hp->limit > used ? (int32_t)(vm->hp->limit - used) : 0);
        return CALL_OK;
    }
    case LSL_ID_llGetUsedMemory:
        *ret = lsl_int((int32_t)gsvm_lsl3_vm_used_memory(vm));
        return CALL_OK;
    case LSL_ID_llGetSPMaxMemory:
        *ret = lsl_int((int32_t)vm->hp->peak);
        return CALL_OK;
    case LSL_ID_llGetMemoryLimit:
        *ret = lsl_int((int32_t)vm->hp->limit);
        return CALL_OK;
    case LSL_ID_llSetMemoryLimit: {
        int32_t want = args[0].u.i;
        bool ok = want > 0 && (size_t)want <= LSL_DEFAULT_MEMORY_LIMIT &&
                  (size_t)want >= gsvm_lsl3_vm_used_memory(vm);
        if (ok)
            vm->hp->limit = (size_t)want;
        *ret = lsl_int(ok);
        return CALL_OK;
    }
    default: /* llMinEventDelay, llScriptProfiler: nothing to simulate */
        return CALL_OK;
    }
    (void)err;
}

static int call_host(gsvm_lsl3_vm *vm, const lsl_builtin *b, lsl_value *args, lsl_value *ret, gsvm_error *err)
{
    gsvm_status st = lsl_builtin_check_args(b, args, b->nargs, err);
    if (st != GSVM_OK)
        return CALL_FAULT;
    *ret = lsl_builtin_default_result(b);
    const fal_host_entry *e = fal_host_entry_of(vm->hosts, b);
    if (e) {
        vm->in_host = b;
        st = fal_host_call3(e, vm->hosts_user, b, args, vm->hp, ret, err);
        vm->in_host = NULL;
        return st == GSVM_OK ? CALL_OK : CALL_FAULT;
    }
    if (!vm->host)
        return CALL_OK;
    json_t *ja = json_array();
    for (unsigned i = 0; ja && i < b->nargs; i++)
        if (json_array_append_new(ja, lsl_value_to_json(&args[i])) != 0) {
            json_decref(ja);
            ja = NULL;
        }
    if (!ja) {
        gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        return CALL_FAULT;
    }
    json_t *res = NULL;
    vm->in_host = b;
    st = vm->host(vm->host_user, b->name, ja, &res, err);
    vm->in_host = NULL;
    json_decref(ja);
    if (st != GSVM_OK) {
        json_decref(res);
        return CALL_FAULT;
    }
    if (res && b->ret != LSL_TYPE_VOID) {
        lsl_value v;
        st = lsl_value_from_json(vm->hp, res, b->ret, &v, err);
        json_decref(res);
        if (st == GSVM_ERR_INPUT) {
            /* name the function whose host answered with the wrong type */
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "the host's result for %s (%s): %s", b->name,
                           lsl_type_name(b->ret), msg);
        }
        if (st != GSVM_OK)
            return CALL_FAULT;
        *ret = v;
    } else
        json_decref(res);
    return CALL_OK;
}

/* Fast paths for string functions on text whose characters are single
 * bytes (its UTF-16 units equal its bytes): character offsets are byte
 * offsets, so no walk of the text is needed.  Same results and charges as
 * the library's (the result is built the same way). */
static bool single_byte_chars(const lsl_value *v)
{
    return !v->u.s || (v->u.s->charge - LSL_MEM_STRING_HEADER) / 2 == v->u.s->len;
}

static bool fast_builtin(gsvm_lsl3_vm *vm, int32_t id, const lsl_value *args, lsl_value *ret, gsvm_error *err,
                         int *r)
{
    if (id == LSL_ID_llGetListLength) {
        *ret = lsl_int((int32_t)lsl_list_len(&args[0]));
        *r = CALL_OK;
        return true;
    }
    if (id == LSL_ID_llList2Integer || id == LSL_ID_llList2Float) {
        /* the element already of the wanted type (else the library converts) */
        int64_t i = lsl_index((int64_t)lsl_list_len(&args[0]), args[1].u.i);
        lsl_type want = id == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
        if (i < 0 || lsl_list_items(&args[0])[i].type != want)
            return false;
        *ret = lsl_list_items(&args[0])[i];
        *r = CALL_OK;
        return true;
    }
    if (id == LSL_ID_llStringLength && single_byte_chars(&args[0])) {
        *ret = lsl_int((int32_t)lsl_str_len(&args[0]));
        *r = CALL_OK;
        return true;
    }
    if (id == LSL_ID_llGetSubString && single_byte_chars(&args[0])) {
        const char *s = lsl_str_data(&args[0]);
        int64_t iv[2][2];
        int k = lsl_range_select((int64_t)lsl_str_len(&args[0]), args[1].u.i, args[2].u.i, iv);
        gsvm_status st;
        if (k == 0)
            st = lsl_string_new(vm->hp, LSL_TYPE_STRING, "", 0, ret, err);
        else if (k == 1)
            st = lsl_string_new(vm->hp, LSL_TYPE_STRING, s + iv[0][0], (size_t)(iv[0][1] - iv[0][0]), ret, err);
        else
            return false;
        *r = st == GSVM_OK ? CALL_OK : CALL_FAULT;
        return true;
    }
    return false;
}

static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t wrap_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }

/* The integer operators that fused instructions carry in an operand
 * (IOpLK, IOpLG, IOpKR, IOpLKS) and their results on l and r; division and
 * modulo, which can fault, are apart.  int_op and the threaded
 * interpreter's handlers per operator expand from this list. */
#define F3_INT_OPS(X)                                                          \
    X(ADD_I, wrap_add(l, r)) X(SUB_I, wrap_sub(l, r)) X(MUL_I, wrap_mul(l, r)) \
    X(BAND_I, l & r) X(BOR_I, l | r) X(BXOR_I, l ^ r)                          \
    X(SHL_I, (int32_t)((uint32_t)l << (r & 31))) X(SHR_I, l >> (r & 31))       \
    X(EQ_I, l == r) X(NE_I, l != r) X(LT_I, l < r) X(LE_I, l <= r)             \
    X(GT_I, l > r) X(GE_I, l >= r)

/* The operators of JzIOpLL / JnzIOpLL: all the above, division and modulo too. */
#define F3_INT_OPS_ALL(X) F3_INT_OPS(X) X(DIV_I, 0) X(MOD_I, 0)

/* The float operators FOpLK / FOpLKS carry in an operand (DivF, which can
 * fault, is apart). */
#define F3_FLOAT_OPS(X) X(ADD_F, +) X(SUB_F, -) X(MUL_F, *)

/* The integer comparisons JcmpIL carries in an operand. */
#define F3_INT_CMPS(X) X(EQ_I, ==) X(NE_I, !=) X(LT_I, <) X(LE_I, <=) X(GT_I, >) X(GE_I, >=)

/* The float comparisons CmpFK carries in an operand. */
#define F3_FLOAT_CMPS(X) X(EQ_F, ==) X(NE_F, !=) X(LT_F, <) X(LE_F, <=) X(GT_F, >) X(GE_F, >=)

/* CmpfK and JcmpfK/JcmpfKT where the operator is not threaded in: a double
 * temporary against the float32 constant a, by the comparison b. */
static inline float k_float(int32_t a)
{
    float k;
    memcpy(&k, &a, 4);
    return k;
}

static inline int32_t float_cmp_k(double l, int32_t a, int32_t b)
{
    float k = k_float(a);
    switch (b) {
#define X(name, OPR) case F3_##name: return l OPR k;
        F3_FLOAT_CMPS(X)
#undef X
    default: return 0; /* the verifier admits no other comparison */
    }
}

/* l OP k for the float operator op (AddF...DivF): false on DivF's Math
 * Error (a zero divisor or a NaN quotient). */
static inline bool float_op_k(int32_t op, double l, int32_t a, double *v)
{
    double k = k_float(a);
    switch (op) {
    case F3_ADD_F: *v = l + k; return true;
    case F3_SUB_F: *v = l - k; return true;
    case F3_MUL_F: *v = l * k; return true;
    default: /* DivF: the verifier admits no other operator */
        if (k == 0.0)
            return false;
        *v = l / k;
        return !isnan(*v);
    }
}

/* l / r and l % r for r != 0, as LSL (C's truncation; MIN / -1 = MIN,
 * MIN % -1 = 0). */
static inline int32_t div_i(int32_t l, int32_t r) { return r == -1 ? (int32_t)(0u - (uint32_t)l) : l / r; }
static inline int32_t mod_i(int32_t l, int32_t r) { return r == -1 ? 0 : l % r; }

/* The same for a constant divisor r != 0 (IOpLK, IOpLKS): a positive power
 * of two (bit sets: `m / 32`, `m % 32`) takes shifts instead of a hardware
 * division, which costs tens of cycles.  Only for constants: on a divisor
 * that varies (Euclid's `a % b`) the test is a branch the CPU mispredicts. */
static inline int32_t div_k(int32_t l, int32_t r)
{
#if defined(__GNUC__)
    if (r > 0 && (r & (r - 1)) == 0) /* round toward zero: bias a negative l by r - 1 first */
        return (l + ((l >> 31) & (r - 1))) >> __builtin_ctz((unsigned)r);
#endif
    return div_i(l, r);
}

static inline int32_t mod_k(int32_t l, int32_t r)
{
    if (r > 0 && (r & (r - 1)) == 0)
        return (int32_t)((uint32_t)l - (uint32_t)div_k(l, r) * (uint32_t)r);
    return mod_i(l, r);
}

/* l OP r for the integer operator whose opcode is `op`; false on a Math
 * Error (division or modulo by zero).  `k`: r is the instruction's constant. */
static inline bool int_op_by(int32_t op, int32_t l, int32_t r, int32_t *v, bool k)
{
    switch (op) {
#define X(name, expr) case F3_##name: *v = (expr); return true;
        F3_INT_OPS(X)
#undef X
    case F3_DIV_I: if (r == 0) return false; *v = k ? div_k(l, r) : div_i(l, r); return true;
    case F3_MOD_I: if (r == 0) return false; *v = k ? mod_k(l, r) : mod_i(l, r); return true;
    default: *v = 0; return true; /* the verifier admits no other operator */
    }
}

static inline bool int_op(int32_t op, int32_t l, int32_t r, int32_t *v) { return int_op_by(op, l, r, v, false); }

/* llList2Integer / llList2Float (`id`) of a list that stays where it is:
 * an element already of the wanted type directly, any other through the
 * library.  False (err filled) on a fault. */
static inline bool list_get(gsvm_lsl3_vm *vm, const lsl_value *lst, int32_t idx, int32_t id, lsl_value *out,
                            gsvm_error *err)
{
    int64_t len = (int64_t)lsl_list_len(lst), i = idx;
    if (i < 0)
        i += len;
    lsl_type want = id == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
    if (i >= 0 && i < len && lsl_list_items(lst)[i].type == want) {
        *out = lsl_list_items(lst)[i];
        fnorm(out);
        return true;
    }
    lsl_value args[2] = {*lst, lsl_int(idx)};
    out->type = LSL_TYPE_VOID;
    err->message[0] = 0;
    lsl_call_ctx ctx = {vm->hp, &vm->lib, err};
    bool ok = vm->prog->native_by_id[id](&ctx, args, out) == GSVM_OK;
    fnorm(out);
    return ok;
}

/* `l += n` for a number n and an unshared list with room for it: the item
 * goes in place, charged as the library charges it (16 bytes an integer or
 * float element).  False when the library must do it. */
static inline bool list_push_number(lsl_heap *hp, lsl_value *dst, const lsl_value *item)
{
    lsl_list *l = dst->u.l;
    if (dst->type != LSL_TYPE_LIST || !l || l->refs != 1 || l->heap != hp || !IS_NUMBER(item->type) ||
        l->len >= l->cap || !lsl_heap_fits(hp, 16))
        return false;
    l->items[l->len++] = *item;
    l->charge += 16;
    hp->used += 16;
    if (hp->used + hp->extra > hp->peak)
        hp->peak = hp->used + hp->extra;
    return true;
}

/* ---- the interpreter ----------------------------------------------------- */

/* The handler table[op] for an operator operand op, or `generic` when the
 * operator has none of its own (division and modulo: they can fault). */
static inline const void *by_operator(const void *const *table, int32_t op, const void *generic)
{
    return op >= 0 && op < F3_COUNT && table[op] ? table[op] : generic;
}

/* Whether code[i] and code[i + 1] are one function's (the pair handlers
 * read the second instruction's operands in place). */
static inline bool in_loop_pair(const gsvm_lsl3_program *prog, size_t i)
{
    return prog->shape_depth && prog->shape_depth[i] >= 0 && prog->shape_depth[i + 1] >= 0 &&
           prog->shape_func[i] == prog->shape_func[i + 1];
}

/* The handler of an instruction on a typed slot: `hi` for an integer,
 * `hf` for a float, else the generic one. */
static inline const void *typed_handler(lsl_type t, const void *hi, const void *hf, const void *generic)
{
    return t == LSL_TYPE_INTEGER ? hi : t == LSL_TYPE_FLOAT ? hf : generic;
}

#if F3_THREADED
/* No slot of f holds a string, key or list (nothing to release on return). */
static bool numbers_only(const fal3_func *f)
{
    for (uint32_t k = 0; k < f->nslots; k++)
        if (f->slot_types[k] != LSL_TYPE_INTEGER && f->slot_types[k] != LSL_TYPE_FLOAT)
            return false;
    return true;
}

/* A parameter of f is a float (its argument is rounded to float32). */
static bool float_params(const fal3_func *f)
{
    for (uint32_t k = 0; k < f->nparams; k++)
        if (f->slot_types[k] == LSL_TYPE_FLOAT)
            return true;
    return false;
}
#endif

/* Runs instructions of the active handler; `*left` is the remaining
 * budget.  Returns false on a fault.  Stops when the handler ends, the
 * budget is spent, the script sleeps or changes state. */
static bool exec(gsvm_lsl3_vm *vm, uint64_t *left)
{
    const gsvm_lsl3_program *prog = vm->prog;
#if F3_THREADED
    static const void *const labels[F3_COUNT] = {
#define FALCON3_OP(name, mnem, operands, pops, pushes, meaning) &&L_##name,
#include "lsl/isa3.def"
#undef FALCON3_OP
    };
    static const char *const operand_kinds[F3_COUNT] = {
#define FALCON3_OP(name, mnem, operands, pops, pushes, meaning) operands,
#include "lsl/isa3.def"
#undef FALCON3_OP
    };
#define X(name, expr) [F3_##name] = &&L_IOP_LK_##name,
    static const void *const iop_lk[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LL_##name,
    static const void *const iop_ll[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LG_##name,
    static const void *const iop_lg[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_KR_##name,
    static const void *const iop_kr[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LK_S_##name,
    static const void *const iop_lk_s[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_CMPF_K_##name,
    static const void *const cmpf_k[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_K_##name,
    static const void *const jcmpf_k[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_KT_##name,
    static const void *const jcmpf_kt[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMP_IL_##name,
    static const void *const jcmp_il[F3_COUNT] = {F3_INT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMP_ILT_##name,
    static const void *const jcmp_ilt[F3_COUNT] = {F3_INT_CMPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LL_S_##name,
    static const void *const iop_ll_s[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LL_DM_##name,
    static const void *const iop_ll_dm[F3_COUNT] = {X(DIV_I, 0) X(MOD_I, 0)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_FOP_LK_##name,
    static const void *const fop_lk[F3_COUNT] = {F3_FLOAT_OPS(X) [F3_DIV_F] = &&L_FOP_LK_DIV_F};
#undef X
#define X(name, OPR) [F3_##name] = &&L_FOP_LK_S_##name,
    static const void *const fop_lk_s[F3_COUNT] = {F3_FLOAT_OPS(X) [F3_DIV_F] = &&L_FOP_LK_S_DIV_F};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_LK_##name,
    static const void *const jcmpf_lk[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_LKT_##name,
    static const void *const jcmpf_lkt[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_JZ_IOP_LL_##name,
    static const void *const jz_iop_ll[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_JNZ_IOP_LL_##name,
    static const void *const jnz_iop_ll[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(N, OPR) [F3_##N##_LI] = &&L_INC_##N##_LI, [F3_##N##_LL] = &&L_INC_##N##_LL, [F3_##N##_LG] = &&L_INC_##N##_LG,
    static const void *const inc_jcmp[F3_COUNT] = {X(JGE, >=) X(JGT, >) X(JLT, <) X(JLE, <=)};
#undef X
    /* Direct threading: the VM's copy of the code holds each instruction's
     * handler address in place of its opcode, which saves a table load on
     * every dispatch, and its local and global slot operands as byte
     * offsets, which saves scaling them on every access.  Built on the
     * first run; indices (ip) are the same. */
    if (!vm->threaded)
        vm->threaded = atomic_load(&((gsvm_lsl3_program *)prog)->threaded);
    if (!vm->threaded) {
        fal3_threaded_insn *tc = malloc((prog->ncode ? prog->ncode : 1) * sizeof *tc);
        if (!tc) {
            set_fault(vm, vm->ip, "out of memory");
            return false;
        }
        for (size_t i = 0; i < prog->ncode; i++) {
            const fal3_insn *in = &prog->code[i];
            const void *h = labels[in->op];
            /* an operator carried in an operand: that operator's own handler */
            switch (in->op) {
            case F3_IOP_LK: h = by_operator(iop_lk, in->c, h); break;
            case F3_IOP_LG: h = by_operator(iop_lg, in->c, h); break;
            case F3_IOP_LL: h = by_operator(iop_ll, in->c, by_operator(iop_ll_dm, in->c, h)); break;
            case F3_IOP_LL_S: h = by_operator(iop_ll_s, in->c & 255, h); break;
            case F3_FOP_LK: h = by_operator(fop_lk, in->c, h); break;
            case F3_FOP_LK_S: h = by_operator(fop_lk_s, in->c & 255, h); break;
            case F3_JCMPF_LK: h = by_operator(jcmpf_lk, in->c & 255, h); break;
            case F3_JCMPF_LKT: h = by_operator(jcmpf_lkt, in->c & 255, h); break;
            case F3_IOP_KR: h = by_operator(iop_kr, in->b, h); break;
            case F3_IOP_LK_S: h = by_operator(iop_lk_s, in->c & 255, h); break;
            case F3_CMPF_K: h = by_operator(cmpf_k, in->b, h); break;
            case F3_JCMPF_K: h = by_operator(jcmpf_k, in->b, h); break;
            case F3_JCMPF_KT: h = by_operator(jcmpf_kt, in->b, h); break;
            case F3_JCMP_IL: h = by_operator(jcmp_il, in->b, h); break;
            case F3_JCMP_ILT: h = by_operator(jcmp_ilt, in->b, h); break;
            case F3_JZ_IOP_LL: h = by_operator(jz_iop_ll, in->c & 255, h); break;
            case F3_JNZ_IOP_LL: h = by_operator(jnz_iop_ll, in->c & 255, h); break;
            default: break;
            }
            /* a typed slot's own handler: the verifier fixed each slot's
             * type for the whole function (a reachable ip's function is
             * known), so loads and stores of numbers move 4 bytes with no
             * type test and no reference count */
            const fal3_func *fn = prog->shape_depth && prog->shape_depth[i] >= 0 ? &prog->funcs[prog->shape_func[i]] : NULL;
            if (fn) {
                lsl_type ta = in->a >= 0 && (uint32_t)in->a < fn->nslots ? (lsl_type)fn->slot_types[in->a] : LSL_TYPE_VOID;
                lsl_type tb = in->b >= 0 && (uint32_t)in->b < fn->nslots ? (lsl_type)fn->slot_types[in->b] : LSL_TYPE_VOID;
                lsl_type ga = in->a >= 0 && (size_t)in->a < prog->nglobal ? prog->globals[in->a].type : LSL_TYPE_VOID;
                switch (in->op) {
                case F3_LOAD_LOCAL: h = typed_handler(ta, &&L_LOAD_LOCAL_I, &&L_LOAD_LOCAL_F, h); break;
                case F3_STORE_LOCAL: h = typed_handler(ta, &&L_STORE_LOCAL_I, &&L_STORE_LOCAL_F, h); break;
                case F3_PUT_LOCAL: h = typed_handler(ta, &&L_PUT_LOCAL_I, &&L_PUT_LOCAL_F, h); break;
                case F3_LOAD_GLOBAL: h = typed_handler(ga, &&L_LOAD_GLOBAL_I, &&L_LOAD_GLOBAL_F, h); break;
                case F3_STORE_GLOBAL: h = typed_handler(ga, &&L_STORE_GLOBAL_I, &&L_STORE_GLOBAL_F, h); break;
                case F3_MOVE_LL: h = typed_handler(ta, &&L_MOVE_LL_N, &&L_MOVE_LL_N, h); break;
                case F3_LOAD_LL:
                    if (ta == tb)
                        h = typed_handler(ta, &&L_LOAD_LL_I, &&L_LOAD_LL_F, h);
                    break;
                case F3_RETV_L: h = typed_handler(ta, &&L_RETV_L_I, &&L_RETV_L_F, h); break;
                default: break;
                }
                /* a return from a frame of numbers only, whose stack holds
                 * just the operands of the return: nothing to release */
                int32_t depth = prog->shape_depth[i];
                if (numbers_only(fn) && fn->ret == LSL_TYPE_FLOAT && in->op == F3_RETV && depth == 1)
                    h = &&L_RETV_FN;
                if (numbers_only(fn) && fn->ret == LSL_TYPE_INTEGER &&
                    ((in->op == F3_RETV_L && depth == 0) || (in->op == F3_RETV && depth == 1) ||
                     (in->op == F3_RETV_ADD_I && depth == 2)))
                    h = in->op == F3_RETV_L ? &&L_RETV_L_IN : in->op == F3_RETV ? &&L_RETV_IN : &&L_RETV_ADD_I_N;
            }
            if (in->op == F3_CALL && in->a >= 0 && (size_t)in->a < prog->nfunc && !float_params(&prog->funcs[in->a]))
                h = &&L_CALL_NF;
            /* a loop's back edge, `++i` then `i < n`: one dispatch for the
             * pair.  The handler still counts two instructions and stops
             * between them when the budget ends there, so a slice or a
             * snapshot sees the same ip as without the pair; a jump to
             * the comparison runs the comparison's own handler. */
            if (in->op == F3_INC_LOCAL_I && i + 1 < prog->ncode && in_loop_pair(prog, i) &&
                inc_jcmp[prog->code[i + 1].op])
                h = inc_jcmp[prog->code[i + 1].op];
            const char *kinds = operand_kinds[in->op];
            int32_t f[3] = {in->a, in->b, in->c};
            for (int k = 0; k < 3 && kinds[k]; k++)
                if (kinds[k] == 'l' || kinds[k] == 'g')
                    f[k] *= (int32_t)sizeof(lsl_value);
            tc[i] = (fal3_threaded_insn){h, f[0], f[1], f[2]};
        }
        /* the program is shared and otherwise immutable: the first VM to
         * finish building installs its copy, the others drop theirs */
        void *none = NULL;
        if (atomic_compare_exchange_strong(&((gsvm_lsl3_program *)prog)->threaded, &none, (void *)tc)) {
            vm->threaded = tc;
        } else {
            free(tc);
            vm->threaded = none;
        }
    }
    const fal3_threaded_insn *code = vm->threaded, *pc = code + vm->ip;
#else
    const fal3_insn *code = prog->code, *pc = code + vm->ip;
#endif
    lsl_value *stack = vm->stack;
    lsl_value *sp = stack + vm->sp;
    lsl_value *fp = stack + vm->frames[vm->nframes - 1].fp;
    lsl_value *consts = vm->consts;
    lsl_value *globals = vm->globals;
    /* n counts down the instructions this call may run; it is signed so
     * that the check before each instruction is one decrement and a sign
     * test.  A budget beyond its range runs in more than one call. */
    uint64_t budget = *left > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : *left, spare = *left - budget;
    int64_t n = (int64_t)budget;
    const char *fmsg = NULL;
    gsvm_error err;
    lsl_value tmp;

#define SYNC() do { vm->ip = (uint32_t)(pc - code); vm->sp = (uint32_t)(sp - stack); } while (0)
#define FAULT(msg) do { fmsg = (msg); goto fault; } while (0)
#define CHECK(st) do { if ((st) != GSVM_OK) FAULT(err.message); } while (0)
/* The end of both call handlers, once the frame is recorded: room for the
 * callee's slots and stack, its locals past the arguments zeroed, and a
 * jump to its entry. */
#define ENTER_CALLEE(g, at) do { \
        if (__builtin_expect((at) + (g)->nslots + (g)->max_stack + 4 > vm->cap, 0)) { \
            SYNC(); \
            if (!fal3_grow_stack(vm, (at) + (g)->nslots + (g)->max_stack + 4)) \
                FAULT("out of memory"); \
            sp = vm->stack + (sp - stack); \
            stack = vm->stack; \
        } \
        fp = stack + (at); \
        for (uint32_t k_ = (g)->nparams; k_ < (g)->nslots; k_++) \
            *sp++ = fal3_zero((lsl_type)(g)->slot_types[k_]); \
        pc = code + (g)->entry; \
        DISPATCH(); \
    } while (0)

#if F3_THREADED
#define LOC(off) (*(lsl_value *)((char *)fp + (off)))
#define GLB(off) (*(lsl_value *)((char *)globals + (off)))
#define CASE(name) L_##name:
#define DISPATCH() do { if (__builtin_expect(--n < 0, 0)) { n = 0; goto out; } goto *pc->handler; } while (0)
#define NEXT() do { pc++; DISPATCH(); } while (0)
    DISPATCH();
#else
#define LOC(i) fp[i]
#define GLB(i) globals[i]
#define CASE(name) case F3_##name:
#define DISPATCH() goto top
#define NEXT() { pc++; goto top; }
top:
    for (;;) {
        if (--n < 0) {
            n = 0;
            goto out;
        }
        switch ((fal3_op)pc->op) {
#endif

    CASE(PUSH_INT) sp->type = LSL_TYPE_INTEGER; sp->u.i = pc->a; sp++; NEXT();
    CASE(PUSH_FLOAT) { float k; memcpy(&k, &pc->a, 4); SET_F(sp, k); sp++; NEXT(); }
    CASE(PUSH_CONST) *sp = consts[pc->a]; vretain(sp); sp++; NEXT();
    CASE(PUSH_EMPTY) *sp = fal3_zero((lsl_type)pc->a); sp++; NEXT();
    CASE(LOAD_LOCAL) vload(sp, &LOC(pc->a)); vretain(sp); sp++; NEXT();
    CASE(STORE_LOCAL) sp--; vrelease(&LOC(pc->a)); vstore(&LOC(pc->a), sp); NEXT();
    /* an assignment's value is the value stored */
    CASE(PUT_LOCAL) vretain(&sp[-1]); vrelease(&LOC(pc->a)); vstore(&LOC(pc->a), &sp[-1]); vload(&sp[-1], &LOC(pc->a)); NEXT();
    CASE(LOAD_GLOBAL) vload(sp, &GLB(pc->a)); vretain(sp); sp++; NEXT();
    CASE(STORE_GLOBAL) sp--; vrelease(&GLB(pc->a)); vstore(&GLB(pc->a), sp); NEXT();
    CASE(PUT_GLOBAL) vretain(&sp[-1]); vrelease(&GLB(pc->a)); vstore(&GLB(pc->a), &sp[-1]); vload(&sp[-1], &GLB(pc->a)); NEXT();
    CASE(POP) sp--; vrelease(sp); NEXT();
    CASE(DUP) vdup(sp, &sp[-1]); vretain(sp); sp++; NEXT();
    CASE(ADD_I) sp[-2].u.i = wrap_add(sp[-1].u.i, sp[-2].u.i); sp--; NEXT();
    CASE(SUB_I) sp[-2].u.i = wrap_sub(sp[-1].u.i, sp[-2].u.i); sp--; NEXT();
    CASE(MUL_I) sp[-2].u.i = wrap_mul(sp[-1].u.i, sp[-2].u.i); sp--; NEXT();
    CASE(DIV_I) {
        int32_t l = sp[-1].u.i, r = sp[-2].u.i;
        if (r == 0)
            FAULT("Math Error");
        sp[-2].u.i = div_i(l, r);
        sp--;
        NEXT();
    }
    CASE(MOD_I) {
        int32_t l = sp[-1].u.i, r = sp[-2].u.i;
        if (r == 0)
            FAULT("Math Error");
        sp[-2].u.i = mod_i(l, r);
        sp--;
        NEXT();
    }
    CASE(BAND_I) sp[-2].u.i = sp[-1].u.i & sp[-2].u.i; sp--; NEXT();
    CASE(BOR_I) sp[-2].u.i = sp[-1].u.i | sp[-2].u.i; sp--; NEXT();
    CASE(BXOR_I) sp[-2].u.i = sp[-1].u.i ^ sp[-2].u.i; sp--; NEXT();
    CASE(SHL_I) sp[-2].u.i = (int32_t)((uint32_t)sp[-1].u.i << (sp[-2].u.i & 31)); sp--; NEXT();
    CASE(SHR_I) sp[-2].u.i = sp[-1].u.i >> (sp[-2].u.i & 31); sp--; NEXT();
    CASE(LAND_I) sp[-2].u.i = (sp[-1].u.i != 0) & (sp[-2].u.i != 0); sp--; NEXT();
    CASE(LOR_I) sp[-2].u.i = (sp[-1].u.i != 0) | (sp[-2].u.i != 0); sp--; NEXT();
    CASE(EQ_I) sp[-2].u.i = sp[-1].u.i == sp[-2].u.i; sp--; NEXT();
    CASE(NE_I) sp[-2].u.i = sp[-1].u.i != sp[-2].u.i; sp--; NEXT();
    CASE(LT_I) sp[-2].u.i = sp[-1].u.i < sp[-2].u.i; sp--; NEXT();
    CASE(LE_I) sp[-2].u.i = sp[-1].u.i <= sp[-2].u.i; sp--; NEXT();
    CASE(GT_I) sp[-2].u.i = sp[-1].u.i > sp[-2].u.i; sp--; NEXT();
    CASE(GE_I) sp[-2].u.i = sp[-1].u.i >= sp[-2].u.i; sp--; NEXT();
    CASE(NEG_I) sp[-1].u.i = wrap_sub(0, sp[-1].u.i); NEXT();
    CASE(NOT_I) sp[-1].u.i = !sp[-1].u.i; NEXT();
    CASE(BNOT_I) sp[-1].u.i = ~sp[-1].u.i; NEXT();
    CASE(ADD_F) PUT_D(&sp[-2], FD(&sp[-1]) + FD(&sp[-2])); sp--; NEXT();
    CASE(SUB_F) PUT_D(&sp[-2], FD(&sp[-1]) - FD(&sp[-2])); sp--; NEXT();
    CASE(MUL_F) PUT_D(&sp[-2], FD(&sp[-1]) * FD(&sp[-2])); sp--; NEXT();
    CASE(DIV_F) {
        double l = FD(&sp[-1]), r = FD(&sp[-2]);
        if (r == 0.0)
            FAULT("Math Error");
        double q = l / r;
        if (isnan(q))
            FAULT("Math Error");
        PUT_D(&sp[-2], q);
        sp--;
        NEXT();
    }
#define FCMP(name, OPR) CASE(name) { int32_t v = FD(&sp[-1]) OPR FD(&sp[-2]); SET_I(&sp[-2], v); sp--; NEXT(); }
    FCMP(EQ_F, ==)
    FCMP(NE_F, !=)
    FCMP(LT_F, <)
    FCMP(LE_F, <=)
    FCMP(GT_F, >)
    FCMP(GE_F, >=)
    CASE(NEG_F) PUT_D(&sp[-1], -FD(&sp[-1])); NEXT();
    CASE(I2F) PUSH_D(&sp[-1], (double)sp[-1].u.i); NEXT(); /* exact: Mono's conv.r8 */
    CASE(I2F_UNDER) PUSH_D(&sp[-2], (double)sp[-2].u.i); NEXT();
    CASE(F2I) SET_I(&sp[-1], lsl_double_to_int(FD(&sp[-1]))); NEXT();
    CASE(CONCAT_S) {
        SYNC();
        gsvm_status st = lsl_string_concat(vm->hp, &sp[-1], &sp[-2], &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        vrelease(&sp[-2]);
        sp[-2] = tmp;
        sp--;
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(BINOP) {
        if ((pc->a == LSL_OP_EQ || pc->a == LSL_OP_NE) && sp[-1].type == LSL_TYPE_STRING &&
            sp[-2].type == LSL_TYPE_STRING) {
            /* string == string: the bytes compared here, as lsl_value_equal does */
            size_t n1 = lsl_str_len(&sp[-1]);
            int32_t eq = n1 == lsl_str_len(&sp[-2]) && memcmp(lsl_str_data(&sp[-1]), lsl_str_data(&sp[-2]), n1) == 0;
            vrelease(&sp[-1]);
            vrelease(&sp[-2]);
            SET_I(&sp[-2], pc->a == LSL_OP_EQ ? eq : !eq);
            sp--;
            NEXT();
        }
        SYNC();
        fround(&sp[-1]);
        fround(&sp[-2]);
        gsvm_status st = lsl_value_binop(vm->hp, (lsl_op)pc->a, &sp[-1], &sp[-2], &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        vrelease(&sp[-2]);
        fnorm(&tmp);
        sp[-2] = tmp;
        sp--;
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(UNOP) {
        fround(&sp[-1]);
        gsvm_status st = lsl_value_unop((lsl_unop)pc->a, &sp[-1], &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        fnorm(&tmp);
        sp[-1] = tmp;
        NEXT();
    }
    CASE(CAST) {
        SYNC();
        fround(&sp[-1]);
        gsvm_status st = lsl_value_cast(vm->hp, &sp[-1], (lsl_type)pc->a, &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        fnorm(&tmp);
        sp[-1] = tmp;
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(TRUTH) {
        fround(&sp[-1]);
        int32_t t = lsl_value_truthy(&sp[-1]);
        vrelease(&sp[-1]);
        SET_I(&sp[-1], t);
        NEXT();
    }
    CASE(MKVEC) sp[-3] = lsl_vector((float)FD(&sp[-3]), (float)FD(&sp[-2]), (float)FD(&sp[-1])); sp -= 2; NEXT();
    CASE(MKROT)
        sp[-4] = lsl_rotation((float)FD(&sp[-4]), (float)FD(&sp[-3]), (float)FD(&sp[-2]), (float)FD(&sp[-1]));
        sp -= 3;
        NEXT();
    CASE(MKLIST) {
        SYNC();
        fround_n(sp - pc->a, pc->a);
        gsvm_status st = lsl_list_adopt(vm->hp, sp - pc->a, (size_t)pc->a, &tmp, &err);
        CHECK(st);
        sp -= pc->a;
        *sp++ = tmp;
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(GET_MEMBER) SET_F(&sp[-1], sp[-1].u.v[pc->a]); NEXT();
    CASE(SET_MEMBER) {
        lsl_value v = sp[-1];
        v.u.v[pc->a] = (float)FD(&sp[-2]);
        sp[-2] = v;
        sp--;
        NEXT();
    }
    CASE(JMP) pc = code + pc->a; DISPATCH();
    CASE(JZ) sp--; if (sp->u.i == 0) { pc = code + pc->a; DISPATCH(); } NEXT();
    CASE(JNZ) sp--; if (sp->u.i != 0) { pc = code + pc->a; DISPATCH(); } NEXT();
#if F3_THREADED
    L_CALL_NF: { /* a call whose arguments need no rounding: the common one */
        const fal3_func *g = &prog->funcs[pc->a];
        uint32_t depth = vm->nframes;
        if (__builtin_expect(depth >= vm->capframes, 0)) {
            if (depth >= FAL3_MAX_DEPTH)
                FAULT("Stack-Heap Collision");
            if (!fal3_grow_frames(vm, depth + 1))
                FAULT("out of memory");
        }
        vm->hp->extra += g->frame_bytes;
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        lsl_value *nfp = sp - g->nparams; /* the arguments are the callee's first locals */
        uint32_t at = (uint32_t)(nfp - stack);
        vm->frames[depth] = (fal3_frame){(uint32_t)(pc - code) + 1, at, (uint32_t)pc->a};
        vm->nframes = depth + 1;
        ENTER_CALLEE(g, at);
    }
#endif
    CASE(CALL) {
        const fal3_func *g = &prog->funcs[pc->a];
        uint32_t depth = vm->nframes;
        if (depth >= FAL3_MAX_DEPTH)
            FAULT("Stack-Heap Collision");
        if (depth >= vm->capframes && !fal3_grow_frames(vm, depth + 1))
            FAULT("out of memory");
        vm->hp->extra += g->frame_bytes;
        size_t at = (size_t)(sp - stack) - g->nparams; /* the callee's fp: its arguments are its first locals */
        fround_n(stack + at, (int32_t)g->nparams);       /* float32 parameters */
        vm->frames[depth] = (fal3_frame){(uint32_t)(pc - code) + 1, (uint32_t)at, (uint32_t)pc->a};
        vm->nframes = depth + 1;
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        ENTER_CALLEE(g, at);
    }
    CASE(RET) {
        while (sp > fp)
            vrelease(--sp);
        goto do_return;
    }
    CASE(RETV) {
        lsl_value rv; /* a float32 function result (Mono) */
        vstore(&rv, --sp);
        while (sp > fp)
            vrelease(--sp);
        vload(sp++, &rv);
        goto do_return;
    }
    CASE(CALLB) {
        if (pc->a == LSL_ID_llList2Integer || pc->a == LSL_ID_llList2Float) {
            /* inline: an element already of the wanted type (else the library converts) */
            const lsl_value *lst = &sp[-2];
            int64_t len = (int64_t)lsl_list_len(lst), i = sp[-1].u.i;
            if (i < 0)
                i += len;
            lsl_type want = pc->a == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
            if (i >= 0 && i < len && lst->u.l->items[i].type == want) {
                lsl_value v = lst->u.l->items[i];
                fnorm(&v);
                vrelease(&sp[-2]);
                sp[-2] = v;
                sp--;
                NEXT();
            }
        }
        const lsl_builtin *b = prog->builtin_by_id[pc->a];
        lsl_value *args = sp - pc->b;
        fround_n(args, pc->b);
        lsl_value ret;
        ret.type = LSL_TYPE_VOID;
        int r;
        SYNC();
        err.message[0] = 0;
        lsl_native_fn fn = prog->native_by_id[pc->a];
        if (fn && fast_builtin(vm, pc->a, args, &ret, &err, &r)) {
            /* done by the fast path */
        } else if (fn) {
            lsl_call_ctx ctx = {vm->hp, &vm->lib, &err};
            r = fn(&ctx, args, &ret) == GSVM_OK ? CALL_OK : CALL_FAULT;
        } else if (b->flags & LSL_FN_VM) {
            r = vm_service(vm, b, args, &ret, &err);
        } else {
            vm->host_total = vm->total + (budget - (uint64_t)n); /* this call included */
            r = call_host(vm, b, args, &ret, &err);
        }
        if (r == CALL_FAULT)
            FAULT(err.message[0] ? err.message : "builtin failed");
        for (int32_t k = 0; k < pc->b; k++)
            vrelease(&args[k]);
        sp = args;
        if (r == CALL_RESET) {
            vm->sp = (uint32_t)(sp - stack);
            pc++;
            reset_script(vm);
            goto stop;
        }
        if (b->ret != LSL_TYPE_VOID) {
            fnorm(&ret);
            *sp++ = ret;
        }
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        if (b->sleep > 0)
            lsl_sched_sleep(&vm->sched, b->sleep); /* forced delay */
        pc++;
        if (lsl_sched_sleeping(&vm->sched) || !vm->active) {
            SYNC();
            goto stop;
        }
        DISPATCH();
    }
    CASE(PRINT) {
        /* print(expr) is a host line like any function's */
        static const lsl_builtin print_fn = {"print", -1, LSL_TYPE_VOID, 1, "s", "value", 0.0f, 0.0f, 0};
        lsl_value ret;
        SYNC();
        err.message[0] = 0;
        if (call_host(vm, &print_fn, &sp[-1], &ret, &err) == CALL_FAULT)
            FAULT(err.message[0] ? err.message : "print failed");
        vrelease(--sp);
        NEXT();
    }
    CASE(FAULT) {
        SYNC();
        FAULT("Invalid IL code");
    }
    CASE(STATE) {
        int32_t target = pc->a;
        pc++;
        SYNC();
        unwind(vm);
        if (vm->phase == FAL3_PHASE_EXIT)
            vm->next_state = target;
        else if (target != vm->cur_state)
            vm->next_state = target;
        goto stop;
    }
    CASE(SET_STATE) {
        /* as STATE, without leaving the handler */
        if (vm->phase == FAL3_PHASE_EXIT || pc->a != vm->cur_state)
            vm->next_state = pc->a;
        NEXT();
    }
    CASE(INC_LOCAL_I) LOC(pc->a).u.i = wrap_add(LOC(pc->a).u.i, pc->b); NEXT();
    CASE(INC_GLOBAL_I) GLB(pc->a).u.i = wrap_add(GLB(pc->a).u.i, pc->b); NEXT();
    /* compare locals[a] with b, locals[b] or globals[b] (integers), jump to c */
#define JCMP_ROWS(X) X(JGE, >=) X(JGT, >) X(JLT, <) X(JLE, <=)
#define X(N, OPR)                                                                       \
    CASE(N##_LI) if (LOC(pc->a).u.i OPR pc->b) { pc = code + pc->c; DISPATCH(); } NEXT();         \
    CASE(N##_LL) if (LOC(pc->a).u.i OPR LOC(pc->b).u.i) { pc = code + pc->c; DISPATCH(); } NEXT(); \
    CASE(N##_LG) if (LOC(pc->a).u.i OPR GLB(pc->b).u.i) { pc = code + pc->c; DISPATCH(); } NEXT();
    JCMP_ROWS(X)
#undef X
#if F3_THREADED
    /* IncLocalI then the comparison at pc + 1 (see inc_jcmp): the second
     * instruction is counted as DISPATCH would count it */
#define INC_PAIR() LOC(pc->a).u.i = wrap_add(LOC(pc->a).u.i, pc->b); pc++; \
    if (__builtin_expect(--n < 0, 0)) { n = 0; goto out; }
#define X(N, OPR)                                                                                    \
    L_INC_##N##_LI: INC_PAIR() if (LOC(pc->a).u.i OPR pc->b) { pc = code + pc->c; DISPATCH(); } NEXT();         \
    L_INC_##N##_LL: INC_PAIR() if (LOC(pc->a).u.i OPR LOC(pc->b).u.i) { pc = code + pc->c; DISPATCH(); } NEXT(); \
    L_INC_##N##_LG: INC_PAIR() if (LOC(pc->a).u.i OPR GLB(pc->b).u.i) { pc = code + pc->c; DISPATCH(); } NEXT();
    JCMP_ROWS(X)
#undef X
#undef INC_PAIR
#endif
#undef JCMP_ROWS
    CASE(LOAD_LL) {
        vload(&sp[0], &LOC(pc->a));
        vretain(sp);
        vload(&sp[1], &LOC(pc->b));
        vretain(sp + 1);
        sp += 2;
        NEXT();
    }
    CASE(ADD_LI) sp->type = LSL_TYPE_INTEGER; sp->u.i = wrap_add(LOC(pc->a).u.i, pc->b); sp++; NEXT();

    CASE(APPEND_LOCAL) {
        lsl_value *dst = &LOC(pc->a);
        fround(&sp[-1]);
        if (list_push_number(vm->hp, dst, &sp[-1])) {
            sp--;
            NEXT();
        }
        SYNC();
        gsvm_status st = dst->type == LSL_TYPE_STRING ? lsl_string_append_inplace(vm->hp, dst, &sp[-1], &err)
                                                      : lsl_list_append_inplace(vm->hp, dst, &sp[-1], &err);
        vrelease(&sp[-1]);
        sp--;
        CHECK(st);
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(APPEND_GLOBAL) {
        lsl_value *dst = &GLB(pc->a);
        fround(&sp[-1]);
        if (list_push_number(vm->hp, dst, &sp[-1])) {
            sp--;
            NEXT();
        }
        SYNC();
        gsvm_status st = dst->type == LSL_TYPE_STRING ? lsl_string_append_inplace(vm->hp, dst, &sp[-1], &err)
                                                      : lsl_list_append_inplace(vm->hp, dst, &sp[-1], &err);
        vrelease(&sp[-1]);
        sp--;
        CHECK(st);
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(LIST_SET_LOCAL)
    list_set_local: {
        lsl_value *dst = &LOC(pc->a);
        fround(&sp[-2]);
        int32_t idx = sp[-1].u.i;
        int64_t len = (int64_t)lsl_list_len(dst), i = idx < 0 ? (int64_t)idx + len : idx;
        if (i >= 0 && i < len && IS_NUMBER(sp[-2].type) && IS_NUMBER(dst->u.l->items[i].type) &&
            dst->u.l->refs == 1 && dst->u.l->heap == vm->hp) {
            /* a number over a number in an unshared list: same charge, nothing to free */
            vstore(&dst->u.l->items[i], &sp[-2]);
            sp -= 2;
            NEXT();
        }
        SYNC();
        gsvm_status st;
        if (i >= 0 && i < len) {
            st = lsl_list_set_inplace(vm->hp, dst, (size_t)i, &sp[-2], &err);
        } else {
            /* out of range: exactly what llListReplaceList does */
            lsl_value args[4] = {*dst, lsl_empty(LSL_TYPE_LIST), sp[-1], sp[-1]}, res;
            st = lsl_list_new(vm->hp, &sp[-2], 1, &args[1], &err);
            if (st == GSVM_OK) {
                lsl_call_ctx ctx = {vm->hp, &vm->lib, &err};
                st = lsl_builtin_native(lsl_builtin_by_id(LSL_ID_llListReplaceList))(&ctx, args, &res);
                lsl_value_release(&args[1]);
                if (st == GSVM_OK) {
                    vrelease(dst);
                    *dst = res;
                }
            }
        }
        vrelease(&sp[-2]);
        sp -= 2;
        CHECK(st);
        if (heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(SUB_LI) sp->type = LSL_TYPE_INTEGER; sp->u.i = wrap_sub(LOC(pc->a).u.i, pc->b); sp++; NEXT();
    CASE(ADDF_LL) PUSH_D(sp, (double)LOC(pc->a).u.f + LOC(pc->b).u.f); sp++; NEXT();
    CASE(SUBF_LL) PUSH_D(sp, (double)LOC(pc->a).u.f - LOC(pc->b).u.f); sp++; NEXT();
    CASE(MULF_LL) PUSH_D(sp, (double)LOC(pc->a).u.f * LOC(pc->b).u.f); sp++; NEXT();
    CASE(ADDF_L) PUT_D(&sp[-1], LOC(pc->a).u.f + FD(&sp[-1])); NEXT();
    CASE(SUBF_L) PUT_D(&sp[-1], LOC(pc->a).u.f - FD(&sp[-1])); NEXT();
    CASE(MULF_L) PUT_D(&sp[-1], LOC(pc->a).u.f * FD(&sp[-1])); NEXT();
    CASE(MULF_K) { float k; memcpy(&k, &pc->a, 4); PUT_D(&sp[-1], k * FD(&sp[-1])); NEXT(); }
    CASE(ADDI_LL) sp->type = LSL_TYPE_INTEGER; sp->u.i = wrap_add(LOC(pc->a).u.i, LOC(pc->b).u.i); sp++; NEXT();
    CASE(ADDI_L) sp[-1].u.i = wrap_add(LOC(pc->a).u.i, sp[-1].u.i); NEXT();

    CASE(IOP_LK) {
        int32_t l = LOC(pc->a).u.i, r = pc->b, v;
        if (!int_op_by(pc->c, l, r, &v, true))
            FAULT("Math Error");
        sp->type = LSL_TYPE_INTEGER;
        sp->u.i = v;
        sp++;
        NEXT();
    }
    CASE(IOP_LL) {
        int32_t l = LOC(pc->a).u.i, r = LOC(pc->b).u.i, v;
        if (!int_op(pc->c, l, r, &v))
            FAULT("Math Error");
        sp->type = LSL_TYPE_INTEGER;
        sp->u.i = v;
        sp++;
        NEXT();
    }
    CASE(IOP_LG) {
        int32_t l = LOC(pc->a).u.i, r = GLB(pc->b).u.i, v;
        if (!int_op(pc->c, l, r, &v))
            FAULT("Math Error");
        sp->type = LSL_TYPE_INTEGER;
        sp->u.i = v;
        sp++;
        NEXT();
    }
    CASE(CMPF_K) {
        int32_t v = float_cmp_k(FD(&sp[-1]), pc->a, pc->b);
        SET_I(&sp[-1], v);
        NEXT();
    }
    CASE(MULF_LK) {
        float k;
        memcpy(&k, &pc->b, 4);
        PUSH_D(sp, (double)k * LOC(pc->a).u.f);
        sp++;
        NEXT();
    }
    CASE(LIST_GET_L) {
        if (!list_get(vm, &LOC(pc->a), sp[-1].u.i, pc->b, &sp[-1], &err))
            FAULT(err.message[0] ? err.message : "builtin failed");
        NEXT();
    }
    CASE(LIST_GET_LL) {
        if (!list_get(vm, &LOC(pc->a), LOC(pc->b).u.i, pc->c, sp, &err))
            FAULT(err.message[0] ? err.message : "builtin failed");
        sp++;
        NEXT();
    }
    CASE(LIST_SET_LL) {
        /* the index goes on the stack and ListSetLocal's code does the rest */
        sp->type = LSL_TYPE_INTEGER;
        sp->u.i = LOC(pc->b).u.i;
        sp++;
        goto list_set_local;
    }
    CASE(IOP_KR) {
        int32_t l = pc->a, r = sp[-1].u.i, v;
        if (!int_op(pc->b, l, r, &v))
            FAULT("Math Error");
        sp[-1].u.i = v;
        NEXT();
    }
    CASE(IOP_LK_S) {
        int32_t l = LOC(pc->a).u.i, r = pc->b, v;
        if (!int_op_by(pc->c & 255, l, r, &v, true))
            FAULT("Math Error");
        SET_I(&fp[pc->c >> 8], v);
        NEXT();
    }
    CASE(RETV_ADD_I) {
        int32_t rv = wrap_add(sp[-1].u.i, sp[-2].u.i);
        sp -= 2;
        while (sp > fp)
            vrelease(--sp);
        SET_I(sp, rv);
        sp++;
        goto do_return;
    }
    CASE(RETV_L) {
        lsl_value rv;
        vcopy(&rv, &LOC(pc->a));
        vretain(&rv);
        while (sp > fp)
            vrelease(--sp);
        vload(sp++, &rv);
        goto do_return;
    }
#define JCMP(name, field, OPR) CASE(name) { sp -= 2; if (!(field(sp[1]) OPR field(sp[0]))) { pc = code + pc->a; DISPATCH(); } NEXT(); }
#define OPND_I(v) ((v).u.i)
#define OPND_F(v) ((v).u.t.d)
    JCMP(JNLT_I, OPND_I, <)
    JCMP(JNLE_I, OPND_I, <=)
    JCMP(JNGT_I, OPND_I, >)
    JCMP(JNGE_I, OPND_I, >=)
    JCMP(JNEQ_I, OPND_I, ==)
    JCMP(JNNE_I, OPND_I, !=)
    JCMP(JNLT_F, OPND_F, <)
    JCMP(JNLE_F, OPND_F, <=)
    JCMP(JNGT_F, OPND_F, >)
    JCMP(JNGE_F, OPND_F, >=)

    CASE(ADD_F_S) LOC(pc->a).u.f = (float)(FD(&sp[-1]) + FD(&sp[-2])); sp -= 2; NEXT();
    CASE(SUB_F_S) LOC(pc->a).u.f = (float)(FD(&sp[-1]) - FD(&sp[-2])); sp -= 2; NEXT();
    CASE(MUL_F_S) LOC(pc->a).u.f = (float)(FD(&sp[-1]) * FD(&sp[-2])); sp -= 2; NEXT();
    CASE(ADDF_LL_S) LOC(pc->c).u.f = LOC(pc->a).u.f + LOC(pc->b).u.f; NEXT();
    CASE(SUBF_LL_S) LOC(pc->c).u.f = LOC(pc->a).u.f - LOC(pc->b).u.f; NEXT();
    CASE(MULF_LL_S) LOC(pc->c).u.f = LOC(pc->a).u.f * LOC(pc->b).u.f; NEXT();
    CASE(ADDI_LL_S) LOC(pc->c).u.i = wrap_add(LOC(pc->a).u.i, LOC(pc->b).u.i); NEXT();
    CASE(ADD_I_S) LOC(pc->a).u.i = wrap_add(sp[-1].u.i, sp[-2].u.i); sp -= 2; NEXT();
    CASE(JZ_AND) sp -= 2; if (!(sp[1].u.i && sp[0].u.i)) { pc = code + pc->a; DISPATCH(); } NEXT();

#define JTRUE(name, field, OPR) CASE(name) { sp -= 2; if (field(sp[1]) OPR field(sp[0])) { pc = code + pc->a; DISPATCH(); } NEXT(); }
    JTRUE(JLT_F, OPND_F, <)
    JTRUE(JLE_F, OPND_F, <=)
    JTRUE(JGT_F, OPND_F, >)
    JTRUE(JGE_F, OPND_F, >=)
    CASE(JNZ_AND) sp -= 2; if (sp[1].u.i && sp[0].u.i) { pc = code + pc->a; DISPATCH(); } NEXT();

    CASE(MOVE_LL) {
        lsl_value *src = &LOC(pc->a), *dst = &LOC(pc->b);
        if (src != dst) {
            vretain(src);
            vrelease(dst);
            vcopy(dst, src);
        }
        NEXT();
    }
    CASE(JZ_L) if (LOC(pc->a).u.i == 0) { pc = code + pc->b; DISPATCH(); } NEXT();
    CASE(JNZ_L) if (LOC(pc->a).u.i != 0) { pc = code + pc->b; DISPATCH(); } NEXT();
    CASE(JCMPF_K)
    CASE(JCMPF_KT) {
        int32_t v = float_cmp_k(FD(&sp[-1]), pc->a, pc->b);
        sp--;
        if (v == (prog->code[pc - code].op == F3_JCMPF_KT)) {
            pc = code + pc->c;
            DISPATCH();
        }
        NEXT();
    }
    CASE(JCMP_IL)
    CASE(JCMP_ILT) {
        int32_t l = sp[-1].u.i, r = LOC(pc->a).u.i, v = 0;
        switch (pc->b) {
#define X(name, OPR) case F3_##name: v = l OPR r; break;
            F3_INT_CMPS(X)
#undef X
        default: break;
        }
        sp--;
        if (v == (prog->code[pc - code].op == F3_JCMP_ILT)) {
            pc = code + pc->c;
            DISPATCH();
        }
        NEXT();
    }
    CASE(JZ_IOP_LL)
    CASE(JNZ_IOP_LL) {
        int32_t v;
        if (!int_op(pc->c & 255, LOC(pc->a).u.i, LOC(pc->b).u.i, &v))
            FAULT("Math Error");
        if ((v != 0) == (prog->code[pc - code].op == F3_JNZ_IOP_LL)) {
            pc = code + ((uint32_t)pc->c >> 8);
            DISPATCH();
        }
        NEXT();
    }

    CASE(ADD_TO_I) sp--; LOC(pc->a).u.i = wrap_add(LOC(pc->a).u.i, sp->u.i); NEXT();
    CASE(ADD_TO_F) sp--; LOC(pc->a).u.f = (float)(LOC(pc->a).u.f + FD(sp)); NEXT();
    CASE(FOP_LK) {
        double v;
        if (!float_op_k(pc->c, LOC(pc->a).u.f, pc->b, &v))
            FAULT("Math Error");
        PUSH_D(sp, v);
        sp++;
        NEXT();
    }
    CASE(FOP_LK_S) {
        double v;
        if (!float_op_k(pc->c & 255, LOC(pc->a).u.f, pc->b, &v))
            FAULT("Math Error");
        fp[pc->c >> 8].u.f = (float)v;
        NEXT();
    }
    CASE(IOP_LL_S) {
        int32_t v;
        if (!int_op(pc->c & 255, LOC(pc->a).u.i, LOC(pc->b).u.i, &v))
            FAULT("Math Error");
        fp[pc->c >> 8].u.i = v;
        NEXT();
    }
    CASE(JCMPF_LK)
    CASE(JCMPF_LKT) {
        int32_t v = float_cmp_k(LOC(pc->a).u.f, pc->b, pc->c & 255);
        if (v == (prog->code[pc - code].op == F3_JCMPF_LKT)) {
            pc = code + ((uint32_t)pc->c >> 8);
            DISPATCH();
        }
        NEXT();
    }

#if F3_THREADED
    /* the fused instructions' handlers per operator (see by_operator) */
#define X(name, expr)                                                                       \
    L_IOP_LK_##name: { int32_t l = LOC(pc->a).u.i, r = pc->b; SET_I(sp, expr); sp++; NEXT(); } \
    L_IOP_LG_##name: { int32_t l = LOC(pc->a).u.i, r = GLB(pc->b).u.i; SET_I(sp, expr); sp++; NEXT(); } \
    L_IOP_LL_##name: { int32_t l = LOC(pc->a).u.i, r = LOC(pc->b).u.i; SET_I(sp, expr); sp++; NEXT(); } \
    L_IOP_KR_##name: { int32_t l = pc->a, r = sp[-1].u.i; sp[-1].u.i = (expr); NEXT(); }   \
    L_IOP_LK_S_##name: { int32_t l = LOC(pc->a).u.i, r = pc->b; SET_I(&fp[pc->c >> 8], expr); NEXT(); }
    F3_INT_OPS(X)
#undef X
#define X(name, OPR) \
    L_CMPF_K_##name: SET_I(&sp[-1], FD(&sp[-1]) OPR k_float(pc->a)); NEXT(); \
    L_JCMPF_K_##name: sp--; if (!(FD(sp) OPR k_float(pc->a))) { pc = code + pc->c; DISPATCH(); } NEXT(); \
    L_JCMPF_KT_##name: sp--; if (FD(sp) OPR k_float(pc->a)) { pc = code + pc->c; DISPATCH(); } NEXT();
    F3_FLOAT_CMPS(X)
#undef X
#define X(name, OPR) \
    L_JCMP_IL_##name: { int32_t l = sp[-1].u.i; sp--; if (!(l OPR LOC(pc->a).u.i)) { pc = code + pc->c; DISPATCH(); } NEXT(); } \
    L_JCMP_ILT_##name: { int32_t l = sp[-1].u.i; sp--; if (l OPR LOC(pc->a).u.i) { pc = code + pc->c; DISPATCH(); } NEXT(); }
    F3_INT_CMPS(X)
#undef X
#define X(name, expr) \
    L_JZ_IOP_LL_##name: { int32_t v; if (!int_op(F3_##name, LOC(pc->a).u.i, LOC(pc->b).u.i, &v)) FAULT("Math Error"); if (v == 0) { pc = code + ((uint32_t)pc->c >> 8); DISPATCH(); } NEXT(); } \
    L_JNZ_IOP_LL_##name: { int32_t v; if (!int_op(F3_##name, LOC(pc->a).u.i, LOC(pc->b).u.i, &v)) FAULT("Math Error"); if (v != 0) { pc = code + ((uint32_t)pc->c >> 8); DISPATCH(); } NEXT(); }
    F3_INT_OPS_ALL(X)
#undef X
#define X(name, expr) \
    L_IOP_LL_S_##name: { int32_t v; if (!int_op(F3_##name, LOC(pc->a).u.i, LOC(pc->b).u.i, &v)) FAULT("Math Error"); fp[pc->c >> 8].u.i = v; NEXT(); }
    F3_INT_OPS_ALL(X)
#undef X
#define X(name, expr) \
    L_IOP_LL_DM_##name: { int32_t v; if (!int_op(F3_##name, LOC(pc->a).u.i, LOC(pc->b).u.i, &v)) FAULT("Math Error"); SET_I(sp, v); sp++; NEXT(); }
    X(DIV_I, 0) X(MOD_I, 0)
#undef X
#define X(name, OPR) \
    L_FOP_LK_##name: PUSH_D(sp, (double)LOC(pc->a).u.f OPR (double)k_float(pc->b)); sp++; NEXT(); \
    L_FOP_LK_S_##name: fp[pc->c >> 8].u.f = (float)((double)LOC(pc->a).u.f OPR (double)k_float(pc->b)); NEXT();
    F3_FLOAT_OPS(X)
#undef X
    /* x / k: k is a constant, so its test for 0 is always predicted */
    L_FOP_LK_DIV_F: { double v; if (!float_op_k(F3_DIV_F, LOC(pc->a).u.f, pc->b, &v)) FAULT("Math Error"); PUSH_D(sp, v); sp++; NEXT(); }
    L_FOP_LK_S_DIV_F: { double v; if (!float_op_k(F3_DIV_F, LOC(pc->a).u.f, pc->b, &v)) FAULT("Math Error"); fp[pc->c >> 8].u.f = (float)v; NEXT(); }
#define X(name, OPR) \
    L_JCMPF_LK_##name: if (!(LOC(pc->a).u.f OPR k_float(pc->b))) { pc = code + ((uint32_t)pc->c >> 8); DISPATCH(); } NEXT(); \
    L_JCMPF_LKT_##name: if (LOC(pc->a).u.f OPR k_float(pc->b)) { pc = code + ((uint32_t)pc->c >> 8); DISPATCH(); } NEXT();
    F3_FLOAT_CMPS(X)
#undef X
    /* loads and stores of typed number slots (see typed_handler) */
    L_LOAD_LOCAL_I: SET_I(sp, LOC(pc->a).u.i); sp++; NEXT();
    L_LOAD_LOCAL_F: PUSH_D(sp, LOC(pc->a).u.f); sp++; NEXT();
    L_STORE_LOCAL_I: sp--; LOC(pc->a).u.i = sp->u.i; NEXT();
    L_STORE_LOCAL_F: sp--; LOC(pc->a).u.f = (float)FD(sp); NEXT();
    L_PUT_LOCAL_I: LOC(pc->a).u.i = sp[-1].u.i; NEXT();
    L_PUT_LOCAL_F: { float f = (float)FD(&sp[-1]); LOC(pc->a).u.f = f; PUT_D(&sp[-1], f); NEXT(); }
    L_LOAD_GLOBAL_I: SET_I(sp, GLB(pc->a).u.i); sp++; NEXT();
    L_LOAD_GLOBAL_F: PUSH_D(sp, GLB(pc->a).u.f); sp++; NEXT();
    L_STORE_GLOBAL_I: sp--; GLB(pc->a).u.i = sp->u.i; NEXT();
    L_STORE_GLOBAL_F: sp--; GLB(pc->a).u.f = (float)FD(sp); NEXT();
    L_MOVE_LL_N: LOC(pc->b).u.i = LOC(pc->a).u.i; NEXT(); /* an integer's or a float's 4 bytes */
    L_LOAD_LL_I: SET_I(sp, LOC(pc->a).u.i); SET_I(sp + 1, LOC(pc->b).u.i); sp += 2; NEXT();
    L_LOAD_LL_F: PUSH_D(sp, LOC(pc->a).u.f); PUSH_D(sp + 1, LOC(pc->b).u.f); sp += 2; NEXT();
    L_RETV_L_I: {
        int32_t rv = LOC(pc->a).u.i;
        while (sp > fp)
            vrelease(--sp);
        SET_I(sp, rv);
        sp++;
        goto do_return;
    }
    /* returns from frames of numbers only (see numbers_only) */
    L_RETV_L_IN: { int32_t rv = LOC(pc->a).u.i; sp = fp; SET_I(sp, rv); sp++; goto do_return; }
    L_RETV_IN: { int32_t rv = sp[-1].u.i; sp = fp; SET_I(sp, rv); sp++; goto do_return; }
    L_RETV_ADD_I_N: { int32_t rv = wrap_add(sp[-1].u.i, sp[-2].u.i); sp = fp; SET_I(sp, rv); sp++; goto do_return; }
    L_RETV_FN: { float rv = (float)FD(&sp[-1]); sp = fp; PUSH_D(sp, rv); sp++; goto do_return; } /* a float32 result */
    L_RETV_L_F: {
        float rv = LOC(pc->a).u.f;
        while (sp > fp)
            vrelease(--sp);
        PUSH_D(sp, rv);
        sp++;
        goto do_return;
    }
#endif

#if !F3_THREADED
        default:
            FAULT("bad opcode");
        }
    }
#endif

do_return: {
    vm->nframes--;
    const fal3_frame *fr = &vm->frames[vm->nframes];
    vm->hp->extra -= prog->funcs[fr->func].frame_bytes;
    if (vm->nframes == 0) {
        /* the handler is done */
        while (sp > stack)
            vrelease(--sp);
        vm->sp = 0;
        vm->ip = 0;
        vm->active = false;
        vm->total += budget - (uint64_t)n;
        *left = spare + (uint64_t)n;
        return true;
    }
    pc = code + fr->ret_ip;
    fp = stack + vm->frames[vm->nframes - 1].fp;
    DISPATCH();
}
out:
    SYNC();
stop:
    vm->total += budget - (uint64_t)n;
    *left = spare + (uint64_t)n;
    return !vm->faulted;
fault:
    SYNC();
    vm->total += budget - (uint64_t)n;
    *left = spare + (uint64_t)n;
    set_fault(vm, (uint32_t)(pc - code), fmsg);
    return false;
#undef CASE
#undef DISPATCH
#undef NEXT
#undef LOC
#undef GLB
}

gsvm_lsl_run_status gsvm_lsl3_vm_run(gsvm_lsl3_vm *vm, uint64_t budget)
{
    uint64_t left = budget;
    if (vm->in_host)
        return GSVM_LSL_ERROR; /* refused: called from this VM's own host callback */
    for (;;) {
        if (vm->faulted)
            return GSVM_LSL_ERROR;
        if (lsl_sched_sleeping(&vm->sched))
            return GSVM_LSL_SLEEPING;
        if (!vm->active) {
            if (!next_step(vm)) {
                if (vm->faulted)
                    return GSVM_LSL_ERROR;
                fal3_trim(vm); /* idle: hold only what the script keeps */
                return GSVM_LSL_FINISHED;
            }
            continue;
        }
        if (left == 0)
            return GSVM_LSL_YIELDED;
        if (!exec(vm, &left))
            return GSVM_LSL_ERROR;
    }
}

size_t gsvm_lsl3_tick(gsvm_lsl3_vm **vms, size_t n, uint64_t budget, gsvm_lsl_run_status *statuses)
{
    size_t busy = 0;
    for (size_t i = 0; i < n; i++) {
        gsvm_lsl_run_status st = gsvm_lsl3_vm_run(vms[i], budget);
        if (statuses)
            statuses[i] = st;
        busy += st == GSVM_LSL_YIELDED;
    }
    return busy;
}
