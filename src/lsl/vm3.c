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
#include "lsl/vm3.h"

static size_t extra_now(const gsvm_lsl3_vm *vm)
{
    return vm->hp->extra;
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
void fal3_unwind(gsvm_lsl3_vm *vm)
{
    for (uint32_t i = 0; i < vm->sp; i++)
        vrelease(&vm->stack[i]);
    vm->sp = 0;
    for (uint32_t i = 0; i < vm->nframes; i++)
        vm->hp->extra -= vm->frames[i].bytes;
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
    vm->hp->keep_small = true; /* drained when idle (fal3_trim) and at free */
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
    if (st == GSVM_OK && fal3_heap_over(vm))
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
    fal3_unwind(vm);
    lsl_sched_free(&vm->sched);
    if (vm->globals)
        for (size_t i = 0; i < vm->prog->nglobal; i++)
            vrelease(&vm->globals[i]);
    if (vm->consts)
        for (size_t i = 0; i < vm->nconsts; i++)
            vrelease(&vm->consts[i]);
    gsvm_lsl3_program_free((gsvm_lsl3_program *)vm->prog);
    lsl_heap_drain(vm->hp);
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
    return gsvm_lsl3_vm_post_tagged(vm, event, args, 0, was_queued, err);
}

gsvm_status gsvm_lsl3_vm_post_tagged(gsvm_lsl3_vm *vm, const char *event, const json_t *args, uint32_t tag,
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
    return fal3_post_values(vm, ed, vals, n, tag, was_queued, err);
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
    lsl_heap_drain(vm->hp);
}

void fal3_set_fault(gsvm_lsl3_vm *vm, uint32_t ip, const char *msg)
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
        fal3_set_fault(vm, f->entry, "out of memory");
        return false;
    }
    vm->sp = 0;
    for (uint8_t k = 0; k < nargs; k++)
        vm->stack[vm->sp++] = args[k];
    for (uint32_t k = nargs; k < f->nslots; k++)
        vm->stack[vm->sp++] = fal3_zero((lsl_type)f->slot_types[k]);
    vm->frames[0] = (fal3_frame){UINT32_MAX, 0, (uint32_t)fi, f->frame_bytes};
    vm->nframes = 1;
    vm->hp->extra += f->frame_bytes;
    vm->ip = f->entry;
    vm->active = true;
    if (fal3_heap_over(vm)) {
        fal3_set_fault(vm, f->entry, "Stack-Heap Collision");
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

void fal3_reset_script(gsvm_lsl3_vm *vm)
{
    fal3_unwind(vm);
    lsl_sched_reset(&vm->sched);
    gsvm_error e;
    if (reset_globals(vm, &e) != GSVM_OK) {
        fal3_set_fault(vm, vm->ip, e.message);
        return;
    }
    vm->cur_state = 0;
    vm->next_state = -1;
    vm->phase = FAL3_PHASE_NONE;
    lsl_sched_set_handled(&vm->sched, fal3_handled_mask(vm->prog, 0));
    gsvm_lsl3_vm_start(vm, &e);
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
        if (!fal3_exec(vm, &left))
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

