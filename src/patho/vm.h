/* The Pathologic VM's state (internal: shared by vm.c and snapshot.c).
 *
 * The layout mirrors CScriptRun::Data: one flat stack of typed variables
 * shared by every task; a stack of tasks, each with the base of its
 * variables (sp), its own call list and its event-disable counters; the
 * global variables; the current op.  A latent native that is waiting keeps
 * its host-owned state in `latent`; an event that interrupts it saves that
 * state in the call frame it pushes, so the wait resumes when the handler
 * returns (the engine's FUNCTION_CALL::savedObject). */
#ifndef GSVM_PATHO_VM_INTERNAL_H
#define GSVM_PATHO_VM_INTERNAL_H

#include "gsvm/patho_vm.h"
#include "patho/isa.h"
#include "patho/value.h"

typedef struct patho_frame {
    int64_t ret;        /* op to return to; -1 ends the script (the entry frame) */
    uint32_t extra_pop; /* slots the handler's Return also pops (event arguments) */
    uint8_t waiting;    /* the interrupted op was a waiting latent native */
    uint64_t latent[2]; /* ... and its state */
} patho_frame;

typedef struct patho_disabled {
    uint32_t id;    /* event id (as stored, i32 bits) */
    uint32_t count; /* EventDisable minus EventEnable, >= 1 while present */
} patho_disabled;

typedef struct patho_task {
    uint32_t id; /* index into the program's tasks */
    uint32_t sp; /* stack index of task variable 0 */
    patho_frame *calls;
    uint32_t ncalls, calls_cap;
    patho_disabled *disabled;
    uint32_t ndisabled, disabled_cap;
} patho_task;

/* Which operator an FPUSH/FSET op applies. */
typedef struct opmeaning {
    int8_t binop; /* patho_binop, or -1 */
    int8_t unop;  /* patho_unop, or -1 */
} opmeaning;

struct gsvm_patho_vm {
    const gsvm_patho_program *prog;
    gsvm_patho_host host;
    int32_t *native_ids; /* per import, from host.resolve */
    uint8_t digest[32];  /* identity of the program, checked on restore */

    gsvm_patho_value *stack;
    uint32_t size, cap;
    gsvm_patho_value *globals;
    uint32_t nglobals;
    patho_task *tasks;
    uint32_t ntasks, tasks_cap;

    int64_t pc;
    gsvm_patho_state state;
    uint64_t latent[2]; /* the waiting latent call's state */
    uint64_t executed;
    uint64_t max_insns;
    bool in_call; /* inside a host call: re-entering the VM is refused */

    char fault[256];
    int64_t fault_op;

    gsvm_patho_shape shapes[GSVM_PATHO_OP_COUNT]; /* per opcode, from isa.def */
    opmeaning meanings[GSVM_PATHO_OP_COUNT];

    /* scratch for host calls */
    gsvm_patho_value **argv;
    uint32_t argv_cap;
    char name[256];
};

/* Creates an empty VM for `prog` (no tasks, empty stack, globals at their
 * defaults), resolving natives through `host`; used by new and restore. */
gsvm_status patho_vm_alloc(const gsvm_patho_program *prog, const gsvm_patho_host *host,
                           gsvm_patho_vm **out, gsvm_error *err);
/* The SHA-256 of the program's encoded bytes. */
gsvm_status patho_program_digest(const gsvm_patho_program *prog, uint8_t out[32], gsvm_error *err);
/* Grows a task's arrays; false on allocation failure. */
bool patho_task_reserve_calls(patho_task *t, uint32_t n);
bool patho_task_reserve_disabled(patho_task *t, uint32_t n);
bool patho_vm_reserve_stack(gsvm_patho_vm *vm, uint32_t n);
bool patho_vm_reserve_tasks(gsvm_patho_vm *vm, uint32_t n);
/* Grows *p (cap elements of elem bytes) to hold need; false on failure. */
bool patho_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);
/* What operator `op` computes (vm.c; a VM keeps one per opcode). */
opmeaning patho_op_meaning(unsigned op);

#endif
