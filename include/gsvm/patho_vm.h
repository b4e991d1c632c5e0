/* gsvm — the Pathologic script VM: run a loaded .bin program outside the game.
 *
 * The VM follows the game's CScriptRun: one flat stack of typed variables
 * shared by every task, a stack of tasks (each with its own call list and
 * event-disable counters), global variables, and natives reached through a
 * host boundary.  A script runs frame by frame: each frame it runs until a
 * latent native (Sleep, Hold, ...) asks it to wait, until its entry frame
 * returns, or until the instruction cap (1,000,000 by default) is reached.
 * Events from the host run their handler at once, on the topmost task.
 *
 *     gsvm_patho_vm *vm;
 *     gsvm_patho_vm_new(prog, &host, &vm, &err);   // prog from gsvm/patho.h
 *     gsvm_patho_vm_start(vm, &err);
 *     while (gsvm_patho_vm_state(vm) == GSVM_PATHO_WAITING ...) {
 *         gsvm_patho_vm_run_frame(vm, &err);       // once per game frame
 *         gsvm_patho_vm_send_event(vm, id, args, n, &result, &err);
 *     }
 *     gsvm_patho_vm_snapshot(vm, &buf, &err);      // whole state as bytes
 *
 * A faulting script stops with a message (state GSVM_PATHO_FAULTED, status
 * GSVM_ERR_FAULT); the host and other VMs go on.  Nothing here prints or
 * exits.  A VM keeps a pointer to its program, which must outlive it.
 *
 * Threads: a VM belongs to one thread at a time and calls its host on that
 * thread; many VMs may run one program (which they only read) in parallel.
 * A native-table context chain (gsvm_patho_context) is only read, so hosts
 * of VMs in several threads may share one if their natives allow it. */
#ifndef GSVM_PATHO_VM_H
#define GSVM_PATHO_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"
#include "gsvm/patho.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- values ---------------------------------------------------------- */

/* Variable types are gsvm_patho_type (GSVM_PATHO_BOOL .. GSVM_PATHO_CVECTOR)
 * from gsvm/patho.h; gsvm_patho_type_name() names them. */

/* One typed variable.  Hosts read the fields directly; they write through
 * gsvm_patho_value_assign() (or the constructors below for fresh values)
 * so that a slot keeps its type and strings stay owned by their slot. */
typedef struct gsvm_patho_value {
    uint8_t type; /* gsvm_patho_type */
    union {
        bool b;
        int32_t i;
        float f;
        uint32_t object;
        float v[3];
        struct {
            uint16_t *units; /* owned; NULL when len == 0 */
            uint32_t len;
        } s;
    } as;
} gsvm_patho_value;

/* Longest string a value may hold, in UTF-16 code units. */
#define GSVM_PATHO_MAX_STRING 8192u

/* Fresh values (no allocation except for strings). */
gsvm_patho_value gsvm_patho_bool(bool b);
gsvm_patho_value gsvm_patho_int(int32_t i);
gsvm_patho_value gsvm_patho_float(float f);
gsvm_patho_value gsvm_patho_object(uint32_t handle);
gsvm_patho_value gsvm_patho_cvector(float x, float y, float z);
/* The default value of a type (false, 0, 0.0, "", null, (0,0,0)); false
 * when `type` is not a variable type. */
bool gsvm_patho_value_default(gsvm_patho_value *out, int type);
/* A string from UTF-8 (invalid bytes become U+FFFD); GSVM_ERR_LIMIT when it
 * is longer than GSVM_PATHO_MAX_STRING units, GSVM_ERR_NOMEM on allocation. */
gsvm_status gsvm_patho_string_utf8(gsvm_patho_value *out, const char *utf8, size_t len);
/* A string's text as UTF-8 (unpaired surrogates become U+FFFD) into a
 * malloc'd NUL-terminated buffer the caller frees; NULL on allocation failure
 * or when `v` is not a string. */
char *gsvm_patho_string_to_utf8(const gsvm_patho_value *v, size_t *len);
/* Frees what a value owns (its string) and leaves it as bool false. */
void gsvm_patho_value_free(gsvm_patho_value *v);
/* A deep copy. */
gsvm_status gsvm_patho_value_copy(gsvm_patho_value *out, const gsvm_patho_value *src);
/* Writes `src` into the existing slot `dst` the way the VM's Mov and the
 * "2" operators do: the slot keeps its type; bool, int and float convert
 * into each other (float to int truncates), anything else must match.
 * On GSVM_ERR_FAULT `msg` (if not NULL) says why and `dst` is unchanged. */
gsvm_status gsvm_patho_value_assign(gsvm_patho_value *dst, const gsvm_patho_value *src, char *msg,
                                    size_t msg_size);

/* ---- the host boundary ----------------------------------------------- */

typedef struct gsvm_patho_vm gsvm_patho_vm;

typedef enum gsvm_patho_call_result {
    GSVM_PATHO_CALL_DONE = 0, /* the call finished; the script goes on */
    GSVM_PATHO_CALL_YIELD,    /* latent: call me again next frame */
    GSVM_PATHO_CALL_FAULT     /* the call failed: the script stops with `fault` */
} gsvm_patho_call_result;

/* One call across the host boundary: a native (Func) or a method on a host
 * object (ObjFunc/TObjFunc).  Arguments are the script's own slots, passed
 * by reference: a native writes its outputs with gsvm_patho_value_assign().
 * A latent native returns YIELD and keeps what it needs in `latent` (plain
 * data, saved in snapshots); the VM calls it again with `resuming` set at
 * the start of every later frame until it returns DONE. */
typedef struct gsvm_patho_call {
    const char *name;        /* native or method name (8-bit text) */
    int32_t native;          /* the id resolve() gave; -1 for a method */
    bool is_method;          /* ObjFunc/TObjFunc */
    uint32_t object;         /* the object of a method call (never 0) */
    gsvm_patho_value **args; /* argc pointers to the argument slots */
    uint32_t argc;
    bool resuming;           /* a later frame of a latent call */
    uint64_t latent[2];      /* the latent call's own state (zero at first) */
    char fault[256];         /* message when the result is FAULT */
} gsvm_patho_call;

typedef struct gsvm_patho_host {
    void *user;
    /* Resolves a native by name and argument count (an import of the
     * program); an id >= 0, or -1 when there is none: gsvm_patho_vm_new
     * then refuses the program (GSVM_ERR_INPUT naming the import).
     * NULL: every native resolves to its import index. */
    int32_t (*resolve)(void *user, const char *name, uint32_t argc);
    /* Performs a call (see gsvm_patho_call).  NULL: every call is DONE. */
    gsvm_patho_call_result (*call)(void *user, gsvm_patho_vm *vm, gsvm_patho_call *call);
    /* FuncExist: does object `object` have method `name` taking `argc`
     * arguments?  NULL: no object has any method. */
    bool (*method_exists)(void *user, uint32_t object, const char *name, int32_t argc);
} gsvm_patho_host;

/* ---- native tables along a context chain ------------------------------- */

/* The game resolves a native by (name, argument count) along a chain of
 * script contexts (an actor's, then the player's, then the standard one of
 * ~141 functions).  A host may build the same: tables of natives, each
 * context pointing at the one it falls back to, turned into a
 * gsvm_patho_host by gsvm_patho_context_host().  The first match along the
 * chain wins, so a context overrides what it inherits.  Methods (ObjFunc)
 * and FuncExist go to the first context in the chain that has `method` /
 * `method_exists`. */
typedef gsvm_patho_call_result (*gsvm_patho_native_fn)(void *user, gsvm_patho_vm *vm,
                                                      gsvm_patho_call *call);

typedef struct gsvm_patho_native {
    const char *name;
    int32_t argc; /* the argument count it takes; -1 for any */
    gsvm_patho_native_fn fn;
} gsvm_patho_native;

typedef struct gsvm_patho_context {
    const gsvm_patho_native *natives;
    uint32_t count;
    void *user; /* passed to this context's functions */
    gsvm_patho_native_fn method; /* ObjFunc/TObjFunc, or NULL */
    bool (*method_exists)(void *user, uint32_t object, const char *name, int32_t argc);
    const struct gsvm_patho_context *parent; /* the fallback, or NULL */
} gsvm_patho_context;

/* Longest chain followed (a guard against a cycle). */
#define GSVM_PATHO_MAX_CONTEXT_DEPTH 64u

/* A host over the chain starting at `ctx` (which must outlive the VMs). */
gsvm_patho_host gsvm_patho_context_host(const gsvm_patho_context *ctx);

/* ---- the VM ---------------------------------------------------------- */

typedef enum gsvm_patho_state {
    GSVM_PATHO_READY = 0, /* created, not started */
    GSVM_PATHO_RUNNING,   /* runnable (between instructions; e.g. after a cap) */
    GSVM_PATHO_WAITING,   /* inside a latent native until a later frame */
    GSVM_PATHO_FINISHED,  /* the entry frame returned */
    GSVM_PATHO_FAULTED    /* a script error stopped it */
} gsvm_patho_state;

/* Resource limits the VM enforces (a script that passes one faults). */
#define GSVM_PATHO_DEFAULT_MAX_INSTRUCTIONS 1000000u
#define GSVM_PATHO_MAX_STACK 8192u  /* variable slots */
#define GSVM_PATHO_MAX_CALLS 1024u  /* call frames per task */
#define GSVM_PATHO_MAX_TASKS 256u   /* nested tasks */
#define GSVM_PATHO_MAX_DISABLED 256u /* distinct disabled events per task */

/* Refuses (GSVM_ERR_INPUT) a program with an import the host does not resolve. */
gsvm_status gsvm_patho_vm_new(const gsvm_patho_program *prog, const gsvm_patho_host *host,
                              gsvm_patho_vm **out, gsvm_error *err);
void gsvm_patho_vm_free(gsvm_patho_vm *vm);

/* Instructions one run may execute (per frame, per event: the game's cap);
 * 0 means the default of 1,000,000.  A total over many frames is the
 * host's to count (gsvm_patho_sim_opts.max_instructions). */
void gsvm_patho_vm_set_max_instructions(gsvm_patho_vm *vm, uint64_t n);

/* Enters the start task (RunTask) at RunOp inside an entry frame whose
 * return ends the script.  Runs nothing yet. */
gsvm_status gsvm_patho_vm_start(gsvm_patho_vm *vm, gsvm_error *err);

/* One frame: resumes a waiting latent native (once), then runs until the
 * script waits again, finishes, faults (GSVM_ERR_FAULT) or reaches the
 * instruction cap (GSVM_ERR_LIMIT; the next frame continues from there). */
gsvm_status gsvm_patho_vm_run_frame(gsvm_patho_vm *vm, gsvm_error *err);

/* The two halves of run_frame, for hosts and tests that step: frame_begin
 * resumes a waiting latent native; run executes at most `budget`
 * instructions (GSVM_ERR_LIMIT when the budget ran out first). */
gsvm_status gsvm_patho_vm_frame_begin(gsvm_patho_vm *vm, gsvm_error *err);
gsvm_status gsvm_patho_vm_run(gsvm_patho_vm *vm, uint64_t budget, gsvm_error *err);

/* What SendEvent did with an event. */
typedef enum gsvm_patho_event_result {
    GSVM_PATHO_EVENT_HANDLED = 0, /* a handler ran (see the status for how it ended) */
    GSVM_PATHO_EVENT_NOT_RUNNING, /* the script has finished, faulted or not started */
    GSVM_PATHO_EVENT_DISABLED,    /* the topmost task has it disabled */
    GSVM_PATHO_EVENT_NO_HANDLER,  /* neither the topmost task nor the globals handle it */
    GSVM_PATHO_EVENT_ARG_COUNT,   /* the handler takes another number of arguments */
    GSVM_PATHO_EVENT_ARG_TYPES    /* an argument does not convert to the handler's type */
} gsvm_patho_event_result;
const char *gsvm_patho_event_result_name(gsvm_patho_event_result r);

/* Sends event `id` with `nargs` values (copied) to the topmost task, else
 * the global events, and runs its handler at once (capped like a frame).
 * An event that is not handled is no error: *result says why. */
gsvm_status gsvm_patho_vm_send_event(gsvm_patho_vm *vm, uint32_t id, const gsvm_patho_value *args,
                                     uint32_t nargs, gsvm_patho_event_result *result,
                                     gsvm_error *err);

gsvm_patho_state gsvm_patho_vm_state(const gsvm_patho_vm *vm);
const char *gsvm_patho_state_name(gsvm_patho_state s);
/* The current instruction index (-1 once finished). */
int64_t gsvm_patho_vm_op(const gsvm_patho_vm *vm);
/* Instructions executed since start, over all runs. */
uint64_t gsvm_patho_vm_instructions(const gsvm_patho_vm *vm);
/* The fault message once FAULTED, else "". */
const char *gsvm_patho_vm_fault(const gsvm_patho_vm *vm);
/* The op that faulted (-1 when none). */
int64_t gsvm_patho_vm_fault_op(const gsvm_patho_vm *vm);

/* Inspection, for hosts and tests: the stack (index 0 is the bottom),
 * globals and task stack.  Pointers stay valid until the VM runs again. */
uint32_t gsvm_patho_vm_stack_size(const gsvm_patho_vm *vm);
const gsvm_patho_value *gsvm_patho_vm_stack_at(const gsvm_patho_vm *vm, uint32_t index);
uint32_t gsvm_patho_vm_global_count(const gsvm_patho_vm *vm);
const gsvm_patho_value *gsvm_patho_vm_global(const gsvm_patho_vm *vm, uint32_t index);
/* Sets global `index` the way the game binds a script's globals before it
 * runs (the slot keeps its type: GSVM_ERR_USAGE when `v` does not convert). */
gsvm_status gsvm_patho_vm_set_global(gsvm_patho_vm *vm, uint32_t index,
                                     const gsvm_patho_value *v, gsvm_error *err);
uint32_t gsvm_patho_vm_task_depth(const gsvm_patho_vm *vm);
/* The task id at depth `depth` (0 is the start task), or -1. */
int64_t gsvm_patho_vm_task_id(const gsvm_patho_vm *vm, uint32_t depth);

/* Snapshot and restore of the whole VM state (stack, globals, tasks with
 * their calls and disabled events, the current op, a waiting latent call).
 * The bytes name the program they belong to (a digest of it); restore
 * checks that, bounds every count by the limits above and validates every
 * index, type and offset, so bad bytes are an input error, never a crash. */
gsvm_status gsvm_patho_vm_snapshot(const gsvm_patho_vm *vm, uint8_t **data, size_t *len,
                                   gsvm_error *err);
gsvm_status gsvm_patho_vm_restore(const gsvm_patho_program *prog, const gsvm_patho_host *host,
                                  const void *data, size_t len, gsvm_patho_vm **out,
                                  gsvm_error *err);

#ifdef __cplusplus
}
#endif
#endif
