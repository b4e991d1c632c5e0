/* ABI 3: the compiled program (functions, handlers per state, constants,
 * global defaults) and the VM's private state.  Shared by compiler3*.c,
 * prog3.c, vm3*.c and snapshot3.c only; embedders see the opaque
 * gsvm_lsl3_program / gsvm_lsl3_vm of include/gsvm/lsl.h. */
#ifndef GSVM_LSL_PROG3_H
#define GSVM_LSL_PROG3_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/lsl.h"
#include "lsl/builtins.h"
#include "lsl/sched.h"
#include "lsl/value.h"

typedef enum {
#define FALCON3_OP(name, mnem, operands, pops, pushes, meaning) F3_##name,
#include "lsl/isa3.def"
#undef FALCON3_OP
    F3_COUNT
} fal3_op;

typedef struct fal3_op_info {
    const char *mnemonic;
    const char *operands;
    int pops, pushes;
    const char *meaning;
} fal3_op_info;
extern const fal3_op_info fal3_ops[F3_COUNT];

/* A type's default value, as an unassigned LSL variable holds it
 * (rotation: ZERO_ROTATION <0,0,0,1>). */
static inline lsl_value fal3_zero(lsl_type t)
{
    lsl_value v = lsl_empty(t);
    if (t == LSL_TYPE_ROTATION)
        v.u.v[3] = 1.0f;
    return v;
}

typedef struct fal3_insn {
    int32_t op;
    int32_t a, b, c;
} fal3_insn;

#define FAL3_EVENT_COUNT 43
#define FAL3_MAX_FUNCS 65536u
#define FAL3_MAX_SLOTS 65536u
#define FAL3_MAX_STATES 4096u
#define FAL3_MAX_CODE (1u << 24)
#define FAL3_MAX_CONSTS (1u << 20)
#define FAL3_MAX_GLOBALS 65536u
#define FAL3_MAX_DEPTH 512u      /* call frames (recursion bound) */
#define FAL3_FRAME_BYTES 16u     /* the memory one call frame costs beside its slots */
#define FAL3_INSN_BYTES 4u       /* the memory one instruction costs */

/* The line table: from instruction `ip` on (up to the next entry), the
 * code is of source line:column `line`:`col` (1-based; 0:0 = unknown). */
typedef struct fal3_line {
    uint32_t ip, line, col;
} fal3_line;

/* A user function or an event handler (ret VOID, event >= 0). */
typedef struct fal3_func {
    char *name;
    uint32_t entry;
    uint8_t ret;
    int32_t event; /* event index for handlers, -1 for user functions */
    uint32_t nparams;
    uint8_t *slot_types; /* nslots: parameters first, then each local (no reuse) */
    uint32_t nslots;
    uint32_t max_stack;  /* operand stack high-water above the slots */
    uint32_t frame_bytes; /* memory charged while a call of it is live */
} fal3_func;

typedef struct fal3_state {
    char *name;
    int32_t handler[FAL3_EVENT_COUNT]; /* function index or -1 */
} fal3_state;

struct gsvm_lsl3_program {
    uint8_t abi; /* 3, first in the struct: the one API tells the ABIs apart by it (api.c) */
    fal3_insn *code;
    size_t ncode, capcode;
    lsl_value *consts; /* unaccounted (NULL heap): part of the code charge */
    size_t nconst, capconst;
    lsl_value *globals; /* defaults, unaccounted */
    char **global_names;
    size_t nglobal, capglobal;
    fal3_func *funcs;
    size_t nfunc, capfunc;
    fal3_state *states; /* states[0] is default */
    size_t nstate, capstate;
    fal3_line *lines; /* ascending ip, no two entries alike in a row */
    size_t nlines, caplines;
    uint8_t hash[32]; /* SHA-256 of the program file form: the program's identity */
    size_t const_bytes;
    bool oom;
    /* The verifier's stack shape at each ip (depth -1: unreachable), the
     * types of its operands, deepest first, at shape_types + shape_off[ip]. */
    uint32_t *shape_off;
    int32_t *shape_depth;
    uint32_t *shape_func; /* the function each reachable ip belongs to */
    uint8_t *shape_types;
    size_t nshape_types, capshape_types;
    /* The code as the threaded interpreter runs it (fal3_threaded_insn[ncode]),
     * built by the first VM that runs and shared by every VM of the program
     * (identical for all; installed with a compare-exchange so VMs on
     * several threads may race to build it); freed with the program. */
    _Atomic(void *) threaded;
    /* references: the creator's and one per VM (gsvm_lsl3_program_retain) */
    atomic_size_t refs;
    /* builtins by func-id (set at seal to builtins.c's process-wide
     * tables), so a call needs no search */
    const lsl_builtin *const *builtin_by_id;
    const lsl_native_fn *native_by_id;
};

/* Builders (compiler3*.c, prog3.c). */
gsvm_lsl3_program *fal3_program_new(void);
long fal3_emit(gsvm_lsl3_program *p, fal3_op op, int32_t a, int32_t b, int32_t c);
long fal3_const(gsvm_lsl3_program *p, lsl_value v); /* takes the reference */
/* The next instruction emitted is of line:col (the compiler calls it before
 * each emit; a position like the last one's adds nothing). */
void fal3_mark_line(gsvm_lsl3_program *p, uint32_t line, uint32_t col);
/* Computes the hash (after building or loading). */
gsvm_status fal3_program_seal(gsvm_lsl3_program *p, gsvm_error *err);
/* The same, naming `file` (may be NULL) in the verifier's errors: a loaded
 * program file (prog3_file.c) is verified as a compiled one is. */
gsvm_status fal3_program_seal_file(gsvm_lsl3_program *p, const char *file, gsvm_error *err);
/* The program file's magic and format (2: with the line table). */
#define HWZ3_MAGIC "HWZ3"
#define HWZ3_FORMAT 2
/* The program's fixed memory charge: code and constants. */
size_t fal3_program_charge(const gsvm_lsl3_program *p);
int fal3_event_index(const char *name);

/* ---- the VM -------------------------------------------------------------- */

typedef struct fal3_frame {
    uint32_t ret_ip;
    uint32_t fp;
    uint32_t func;
    uint32_t bytes; /* funcs[func].frame_bytes, kept here so a return need not look the function up */
} fal3_frame;

/* What next_step does before taking a queued event: nothing, finish a state
 * change (state_exit ran or is running), or run state_entry (script start
 * or reset; state_entry jumps the queue and is never queued, as SL). */
enum { FAL3_PHASE_NONE = 0, FAL3_PHASE_EXIT = 1, FAL3_PHASE_ENTRY = 2 };

/* An instruction as the threaded interpreter runs it (vm3_exec.c): the address
 * of its handler in place of the opcode. */
typedef struct fal3_threaded_insn {
    const void *handler;
    int32_t a, b;
    union {
        int32_t c;
        uint64_t m; /* IOpK / IOpLK dividing by a constant: its recip_k (vm3_int.h) */
        const fal3_func *g; /* Call: the callee (a), found when the code is threaded */
    };
} fal3_threaded_insn;

struct gsvm_lsl3_vm {
    uint8_t abi; /* 3, first in the struct (api.c) */
    const gsvm_lsl3_program *prog;
    const fal3_threaded_insn *threaded; /* prog->threaded once this VM has run, or NULL */
    lsl_heap *hp; /* separately allocated: objects point at it, so a restore may swap VMs */
    lsl_lib_state lib;
    lsl_value *globals;
    lsl_value *consts; /* the program's constants, copied into this VM's heap */
    size_t nconsts;
    /* the operand stack and the call frames exist only while a handler runs:
     * allocated when one starts, grown on demand, given back when the VM is
     * idle (fal3_trim), so an idle script holds neither */
    lsl_value *stack;
    uint32_t sp, cap;
    fal3_frame *frames;
    uint32_t nframes, capframes;
    uint32_t ip;
    uint64_t total;
    bool active; /* a handler is running (frames > 0) */
    int32_t cur_state, next_state;
    uint8_t phase;
    /* the event whose handler runs or ran last (-1: none yet) and its queue
     * entry's host tag (lsl_sched_event.tag; 0 for state_entry/exit) */
    int32_t cur_event;
    uint32_t cur_tag;
    /* event queue, timer, sleep, script time, listens: the one scheduler
     * (sched.h), charging vm->hp; its handled mask is always the current
     * state's handlers (fal3_handled_mask) */
    lsl_sched sched;
    size_t base_extra; /* code + globals charge */
    bool faulted;
    uint32_t fault_ip;
    char fault[300];
    gsvm_lsl3_host_fn host;
    void *host_user;
    /* typed host functions (hostcall.h), tried before `host` */
    const struct gsvm_lsl_hosts *hosts;
    void *hosts_user;
    /* inside the host callback of `in_host` (NULL otherwise): run() is
     * refused, and a snapshot is of the state after the call (its
     * instruction count then being host_total) */
    const lsl_builtin *in_host;
    uint64_t host_total;
};

bool fal3_grow_stack(gsvm_lsl3_vm *vm, size_t need);
bool fal3_grow_frames(gsvm_lsl3_vm *vm, size_t need);
/* Gives back what an idle VM (no handler running) does not need: its stack,
 * its frames and its empty event queue. */
void fal3_trim(gsvm_lsl3_vm *vm);
/* The events state `state` has handlers for (bit i = event index i). */
uint64_t fal3_handled_mask(const gsvm_lsl3_program *p, int32_t state);

/* Posts event `ed` with its arguments `vals` (released here, whatever
 * happens), tagging the queued entry with `tag` when nonzero (vm3_post.c:
 * the tail of gsvm_lsl3_vm_post and _post_items). */
gsvm_status fal3_post_values(gsvm_lsl3_vm *vm, const lsl_event_def *ed, lsl_value *vals, size_t n,
                             uint32_t tag, bool *queued, gsvm_error *err);

#endif
