/* The VM's private state and its runtime value representation (ABI 2 needs
 * only integers and strings).  Shared by vm.c and snapshot.c only. */
#ifndef GSVM_LSL_VM_H
#define GSVM_LSL_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/program.h"

/* A reference-counted string.  Every value on the stack, in a local or in a
 * global owns one reference, so copying a string is O(1); a string is never
 * changed while shared (refs > 1) — only ConcatStr, holding the sole
 * reference to its left operand, may extend it in place. */
typedef struct fal_str {
    uint32_t refs;
    uint32_t len;
    char bytes[]; /* NUL-terminated for convenience; len excludes it */
} fal_str;

typedef struct fal_value {
    uint32_t tag; /* GSVM_LSL_INTEGER or GSVM_LSL_STRING (not a char type, so
                   * writes to it cannot alias the VM's counters) */
    union {
        int32_t i;
        fal_str *s;
    } u;
} fal_value;

struct gsvm_lsl_vm {
    uint8_t abi; /* 2, first in the struct (api.c) */
    const gsvm_lsl_program *prog;
    /* the host's allocator (gsvm_lsl_vm_new_alloc; NULL: the C library):
     * the VM, its stack, locals, globals, constants, strings and host-call
     * scratch all come from it */
    gsvm_lsl_realloc_fn alloc;
    void *alloc_user;
    fal_value *consts; /* the VM's own copy of the constant pool */
    fal_value *stack;
    size_t sp, stack_cap;
    fal_value *locals;
    size_t nlocals, locals_cap;
    fal_value *globals;
    size_t nglobals;
    size_t max_locals; /* the largest handler's local_count */
    uint64_t ip, total;
    bool finished;
    bool faulted;
    uint64_t fault_ip;
    char fault[300];
    gsvm_lsl_host_fn host;
    void *host_user;
    /* typed host functions (gsvm_lsl_vm_set_hosts: `host` is then
     * hostcall.c's adapter, called with the VM) */
    const struct gsvm_lsl_hosts *hosts;
    void *hosts_user;
    /* inside the host callback (run, dispatch and restore are refused; a
     * snapshot is of the state after the call: ip + 1, the host_argc
     * arguments popped, host_total instructions) */
    bool in_host;
    size_t host_argc;
    uint64_t host_total;
    /* the one API's additions (vm2_queue.c): events waiting for run() (a
     * ring of 64, allocated at the first post), the simulation time the host
     * advanced, and the handler dispatched last with its queue tag */
    struct fal_queued *queue;
    size_t qhead, qlen;
    uint64_t now_ms;
    const char *current;
    uint32_t current_tag;
};

static inline void *fal_realloc(const struct gsvm_lsl_vm *vm, void *p, size_t n)
{
    return vm->alloc ? vm->alloc(vm->alloc_user, p, n ? n : 1) : realloc(p, n ? n : 1);
}
static inline void fal_free(const struct gsvm_lsl_vm *vm, void *p)
{
    if (p && vm->alloc)
        vm->alloc(vm->alloc_user, p, 0);
    else
        free(p);
}
static inline void *fal_calloc(const struct gsvm_lsl_vm *vm, size_t n, size_t size)
{
    void *p = n && size > SIZE_MAX / n ? NULL : fal_realloc(vm, NULL, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}
fal_str *fal_str_new(const struct gsvm_lsl_vm *vm, const char *bytes, size_t len);
static inline void fal_value_release(const struct gsvm_lsl_vm *vm, fal_value *v)
{
    if (v->tag == GSVM_LSL_STRING && --v->u.s->refs == 0)
        fal_free(vm, v->u.s);
}
static inline fal_value fal_value_retain(fal_value v)
{
    if (v.tag == GSVM_LSL_STRING)
        v.u.s->refs++;
    return v;
}
void fal_values_release(const struct gsvm_lsl_vm *vm, fal_value *vals, size_t n);

#endif
