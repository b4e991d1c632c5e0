/* The Pathologic script VM's life outside the interpreter loop: creating a
 * VM (its globals, its imports resolved against the host), growing its
 * arrays, freeing it, and the inspection calls of gsvm/patho_vm.h. */
#include "patho/vm.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

/* ---- allocation ---------------------------------------------------------- */

bool patho_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : 16;
    while (n < need)
        n = n > UINT32_MAX / 2 ? need : n * 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

bool patho_vm_reserve_stack(gsvm_patho_vm *vm, uint32_t n)
{
    return patho_grow((void **)&vm->stack, &vm->cap, n, sizeof *vm->stack);
}

bool patho_vm_reserve_tasks(gsvm_patho_vm *vm, uint32_t n)
{
    return patho_grow((void **)&vm->tasks, &vm->tasks_cap, n, sizeof *vm->tasks);
}

bool patho_task_reserve_calls(patho_task *t, uint32_t n)
{
    return patho_grow((void **)&t->calls, &t->calls_cap, n, sizeof *t->calls);
}

bool patho_task_reserve_disabled(patho_task *t, uint32_t n)
{
    return patho_grow((void **)&t->disabled, &t->disabled_cap, n, sizeof *t->disabled);
}

gsvm_status patho_program_digest(const gsvm_patho_program *prog, uint8_t out[32], gsvm_error *err)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    gsvm_status st = gsvm_patho_save(prog, &bytes, &len, err);
    if (st != GSVM_OK)
        return st;
    bool ok = gsvm_sha256(bytes, len, out);
    free(bytes);
    if (!ok)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "hashing the program failed");
    return GSVM_OK;
}

gsvm_status patho_vm_alloc(const gsvm_patho_program *prog, const gsvm_patho_host *host,
                           gsvm_patho_vm **out, gsvm_error *err)
{
    *out = NULL;
    for (uint32_t i = 0; i < prog->nglobals; i++)
        if (!gsvm_patho_type_name(prog->globals[i].type))
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                  "global variable %u has the invalid type %u", i,
                                  prog->globals[i].type);
    gsvm_patho_vm *vm = calloc(1, sizeof *vm);
    if (!vm)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    vm->prog = prog;
    if (host)
        vm->host = *host;
    vm->max_insns = GSVM_PATHO_DEFAULT_MAX_INSTRUCTIONS;
    vm->pc = -1;
    vm->fault_op = -1;
    gsvm_status st = patho_program_digest(prog, vm->digest, err);
    if (st != GSVM_OK) {
        free(vm);
        return st;
    }
    vm->native_ids = calloc(prog->nimports ? prog->nimports : 1, sizeof *vm->native_ids);
    vm->globals = calloc(prog->nglobals ? prog->nglobals : 1, sizeof *vm->globals);
    if (!vm->native_ids || !vm->globals) {
        gsvm_patho_vm_free(vm);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    for (unsigned op = 0; op < GSVM_PATHO_OP_COUNT; op++) {
        vm->shapes[op] = gsvm_patho_op_shape(op);
        vm->meanings[op] = patho_op_meaning(op);
    }
    vm->nglobals = prog->nglobals;
    for (uint32_t i = 0; i < prog->nglobals; i++)
        gsvm_patho_value_default(&vm->globals[i], prog->globals[i].type);
    /* Every import must resolve now: a script that calls a native the host
     * lacks is refused here, not when (and only if) the call is reached. */
    for (uint32_t i = 0; i < prog->nimports; i++) {
        const gsvm_patho_import *im = &prog->imports[i];
        const char *name = im->name.str ? im->name.str : "";
        vm->native_ids[i] =
            vm->host.resolve ? vm->host.resolve(vm->host.user, name, im->argc) : (int32_t)i;
        if (vm->native_ids[i] < 0) {
            gsvm_patho_vm_free(vm);
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                  "import #%u '%s' with %u arguments: the host has no such "
                                  "native",
                                  i, name, im->argc);
        }
    }
    *out = vm;
    return GSVM_OK;
}

gsvm_status gsvm_patho_vm_new(const gsvm_patho_program *prog, const gsvm_patho_host *host,
                              gsvm_patho_vm **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    gsvm_patho_vm *vm;
    gsvm_status st = patho_vm_alloc(prog, host, &vm, err);
    if (st != GSVM_OK)
        return st;
    vm->state = GSVM_PATHO_READY;
    *out = vm;
    return GSVM_OK;
}

void gsvm_patho_vm_free(gsvm_patho_vm *vm)
{
    if (!vm)
        return;
    for (uint32_t i = 0; i < vm->size; i++)
        gsvm_patho_value_free(&vm->stack[i]);
    for (uint32_t i = 0; i < vm->nglobals; i++)
        gsvm_patho_value_free(&vm->globals[i]);
    for (uint32_t i = 0; i < vm->ntasks; i++) {
        free(vm->tasks[i].calls);
        free(vm->tasks[i].disabled);
    }
    free(vm->tasks);
    free(vm->stack);
    free(vm->globals);
    free(vm->native_ids);
    free(vm->argv);
    free(vm);
}

void gsvm_patho_vm_set_max_instructions(gsvm_patho_vm *vm, uint64_t n)
{
    vm->max_insns = n ? n : GSVM_PATHO_DEFAULT_MAX_INSTRUCTIONS;
}

const char *gsvm_patho_event_result_name(gsvm_patho_event_result r)
{
    switch (r) {
    case GSVM_PATHO_EVENT_HANDLED: return "handled";
    case GSVM_PATHO_EVENT_NOT_RUNNING: return "not running";
    case GSVM_PATHO_EVENT_DISABLED: return "disabled";
    case GSVM_PATHO_EVENT_NO_HANDLER: return "no handler";
    case GSVM_PATHO_EVENT_ARG_COUNT: return "wrong argument count";
    case GSVM_PATHO_EVENT_ARG_TYPES: return "wrong argument types";
    }
    return "?";
}

/* ---- inspection ---------------------------------------------------------------------------- */

gsvm_patho_state gsvm_patho_vm_state(const gsvm_patho_vm *vm) { return vm->state; }

const char *gsvm_patho_state_name(gsvm_patho_state s)
{
    switch (s) {
    case GSVM_PATHO_READY: return "ready";
    case GSVM_PATHO_RUNNING: return "running";
    case GSVM_PATHO_WAITING: return "waiting";
    case GSVM_PATHO_FINISHED: return "finished";
    case GSVM_PATHO_FAULTED: return "faulted";
    }
    return "?";
}

int64_t gsvm_patho_vm_op(const gsvm_patho_vm *vm) { return vm->pc; }
uint64_t gsvm_patho_vm_instructions(const gsvm_patho_vm *vm) { return vm->executed; }
const char *gsvm_patho_vm_fault(const gsvm_patho_vm *vm)
{
    return vm->state == GSVM_PATHO_FAULTED ? vm->fault : "";
}
int64_t gsvm_patho_vm_fault_op(const gsvm_patho_vm *vm)
{
    return vm->state == GSVM_PATHO_FAULTED ? vm->fault_op : -1;
}
uint32_t gsvm_patho_vm_stack_size(const gsvm_patho_vm *vm) { return vm->size; }
const gsvm_patho_value *gsvm_patho_vm_stack_at(const gsvm_patho_vm *vm, uint32_t index)
{
    return index < vm->size ? &vm->stack[index] : NULL;
}
uint32_t gsvm_patho_vm_global_count(const gsvm_patho_vm *vm) { return vm->nglobals; }
const gsvm_patho_value *gsvm_patho_vm_global(const gsvm_patho_vm *vm, uint32_t index)
{
    return index < vm->nglobals ? &vm->globals[index] : NULL;
}
gsvm_status gsvm_patho_vm_set_global(gsvm_patho_vm *vm, uint32_t index,
                                     const gsvm_patho_value *v, gsvm_error *err)
{
    if (index >= vm->nglobals)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "global %u does not exist (%u globals)",
                              index, vm->nglobals);
    if (vm->in_call)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "a host call may not set globals");
    char msg[200];
    if (gsvm_patho_value_assign(&vm->globals[index], v, msg, sizeof msg) != GSVM_OK)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "global %u: %s", index, msg);
    return GSVM_OK;
}
uint32_t gsvm_patho_vm_task_depth(const gsvm_patho_vm *vm) { return vm->ntasks; }
int64_t gsvm_patho_vm_task_id(const gsvm_patho_vm *vm, uint32_t depth)
{
    return depth < vm->ntasks ? (int64_t)vm->tasks[depth].id : -1;
}
