/* What a host reads of an ABI-3 script besides running it (gsvm/lsl.h,
 * "what a host running many scripts reads"): the running event and its tag,
 * the queue, the next deadline, the state, listens and globals by name. */
#include <string.h>

#include <jansson.h>

#include "lsl/builtins.h"
#include "lsl/prog3.h"

const char *gsvm_lsl3_vm_current_event(const gsvm_lsl3_vm *vm, uint32_t *tag)
{
    size_t n;
    const lsl_event_def *defs = lsl_events(&n);
    if (tag)
        *tag = vm->cur_event >= 0 ? vm->cur_tag : 0;
    return vm->cur_event >= 0 && (size_t)vm->cur_event < n ? defs[vm->cur_event].name : NULL;
}

size_t gsvm_lsl3_vm_queue_length(const gsvm_lsl3_vm *vm) { return vm->sched.count; }

bool gsvm_lsl3_vm_next_deadline(const gsvm_lsl3_vm *vm, uint64_t *at_ms)
{
    return lsl_sched_next_deadline(&vm->sched, at_ms);
}

const char *gsvm_lsl3_vm_state(const gsvm_lsl3_vm *vm) { return vm->prog->states[vm->cur_state].name; }

size_t gsvm_lsl3_vm_listen_count(const gsvm_lsl3_vm *vm) { return vm->sched.nlistens; }

bool gsvm_lsl3_vm_listen(const gsvm_lsl3_vm *vm, size_t i, gsvm_lsl3_listen_info *out)
{
    if (i >= vm->sched.nlistens)
        return false;
    const lsl_listen *l = &vm->sched.listens[i];
    out->handle = l->handle;
    out->channel = l->channel;
    out->active = l->active;
    out->name = l->name ? l->name : "";
    out->key = l->key ? l->key : "";
    out->msg = l->msg ? l->msg : "";
    return true;
}

json_t *gsvm_lsl3_vm_global_by_name(const gsvm_lsl3_vm *vm, const char *name)
{
    const gsvm_lsl3_program *p = vm->prog;
    for (size_t i = 0; i < p->nglobal; i++)
        if (p->global_names[i] && strcmp(p->global_names[i], name) == 0)
            return lsl_value_to_json(&vm->globals[i]);
    return NULL;
}

bool gsvm_lsl3_vm_in_host_call(const gsvm_lsl3_vm *vm) { return vm->in_host != NULL; }

bool gsvm_lsl3_vm_fault_line(const gsvm_lsl3_vm *vm, uint32_t *line, uint32_t *col)
{
    if (!vm->faulted) {
        *line = *col = 0;
        return false;
    }
    return gsvm_lsl3_program_line(vm->prog, vm->fault_ip, line, col);
}
