/* gsvm — a host for Pathologic scripts: declared natives, the game's latent
 * waits, and the simulation `gsvm patho run` drives.
 *
 * Three pieces, each usable alone:
 *
 * 1. Native declarations (docs/natives.md): which natives exist, their
 *    arguments, and whether they wait.  The library ships declarations of
 *    every native the public scripts import; a host adds its own files on
 *    top (searched first).  gsvm_patho_natives_check() refuses a program
 *    that imports a native nobody declared, before anything runs.
 *
 * 2. The clock and the latent waits of the game's standard context:
 *    Sleep(t) / Sleep(t, b) wait on simulated time, Hold() until the script
 *    calls StopGroup0(), sync() / sync(dt) for the next frame (dt receives
 *    the seconds that passed), WaitForAnimEnd until the animation ends.
 *    An embedder with its own natives calls gsvm_patho_clock_wait() from its
 *    call hook for the latent ones, so it need not rewrite them.
 *
 * 3. The simulation host: every call becomes a JSON line
 *    {"host":NAME,"args":[...]}, latent natives wait as declared, and the
 *    whole run (VM and clock) can be saved and resumed.
 *
 *     gsvm_patho_natives *nat;
 *     gsvm_patho_natives_new(true, &nat, &err);          // the shipped ones
 *     gsvm_patho_natives_add_file(nat, "mine.json", &err);
 *     gsvm_patho_sim_opts o = {nat, 0, 0, print_line, stdout};
 *     gsvm_patho_sim *sim;
 *     gsvm_patho_sim_new(prog, "door.bin", &o, &sim, &err);  // refuses undeclared natives
 *     gsvm_patho_sim_start(sim, &err);                   // frame 0 at time 0
 *     gsvm_patho_sim_advance(sim, 16, &err);             // 16 ms later, one frame
 *     gsvm_patho_sim_event(sim, 10, args, 1, &res, &err);
 *     gsvm_patho_sim_save(sim, &bytes, &len, &err);
 *
 * Threads: nothing here has global state (the shipped declarations are
 * parsed into each new natives stack).  A natives stack is only read once
 * built (lookup, check, the sims over it), so sims in several threads may
 * share one as long as no thread adds to it meanwhile; a clock and a sim
 * belong to one thread at a time. */
#ifndef GSVM_PATHO_HOST_H
#define GSVM_PATHO_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"
#include "gsvm/patho.h"
#include "gsvm/patho_vm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- native declarations ---------------------------------------------- */

/* What ends a latent native's wait (the "latent" field of a declaration). */
typedef enum gsvm_patho_wait {
    GSVM_PATHO_WAIT_NONE = 0, /* not latent */
    GSVM_PATHO_WAIT_TIME,     /* simulated time: the first argument, in seconds */
    GSVM_PATHO_WAIT_EVENT,    /* the script calls StopGroup0() (Hold) */
    GSVM_PATHO_WAIT_FRAME,    /* the next frame */
    GSVM_PATHO_WAIT_ANIM      /* the animation ends (gsvm_patho_clock_anim_end) */
} gsvm_patho_wait;

/* A declaration's argument and result type: a gsvm_patho_type, or ANY. */
#define GSVM_PATHO_TYPE_ANY 0

typedef struct gsvm_patho_native_info {
    const char *name;
    uint32_t min_args, max_args; /* max_args UINT32_MAX: varargs */
    const uint8_t *arg_types;    /* the declared ones (nargs of them), GSVM_PATHO_TYPE_ANY or a type */
    uint32_t nargs;
    int result;                  /* -1 none, else a type or GSVM_PATHO_TYPE_ANY */
    int out;                     /* the argument the result goes into, -1 none */
    gsvm_patho_wait wait;
    const char *file;            /* where it was declared, and at which line:column */
    long line, column;
} gsvm_patho_native_info;

/* A stack of declaration sets: the ones added last are searched first. */
typedef struct gsvm_patho_natives gsvm_patho_natives;

/* An empty stack, or (`builtin`) one holding the shipped declarations. */
gsvm_status gsvm_patho_natives_new(bool builtin, gsvm_patho_natives **out, gsvm_error *err);
/* Adds declarations from a file or text; errors name file:line:column. */
gsvm_status gsvm_patho_natives_add_file(gsvm_patho_natives *n, const char *path, gsvm_error *err);
gsvm_status gsvm_patho_natives_add_text(gsvm_patho_natives *n, const char *text, size_t len,
                                        const char *name, gsvm_error *err);
void gsvm_patho_natives_free(gsvm_patho_natives *n);
/* The shipped declarations as JSON text (static). */
const char *gsvm_patho_natives_builtin_text(size_t *len);
/* The declaration that takes (name, argc), searching the newest set first. */
bool gsvm_patho_natives_lookup(const gsvm_patho_natives *n, const char *name, uint32_t argc,
                               gsvm_patho_native_info *info);
/* Every import of `prog` must be declared: otherwise GSVM_ERR_INPUT naming
 * `file`, the import and (when the name is declared for other counts) the
 * counts it is declared for. */
gsvm_status gsvm_patho_natives_check(const gsvm_patho_natives *n, const gsvm_patho_program *prog,
                                     const char *file, gsvm_error *err);

/* ---- the clock and the latent waits ------------------------------------ */

typedef struct gsvm_patho_clock {
    double now_ms;     /* simulated time */
    uint64_t frame;    /* frames begun so far */
    uint64_t stop_gen; /* StopGroup0() calls so far */
    uint64_t anim_gen; /* animation ends so far */
} gsvm_patho_clock;

/* A new frame begins `advance_ms` later. */
void gsvm_patho_clock_frame(gsvm_patho_clock *c, double advance_ms);
/* StopGroup0(): every pending Sleep, Hold and animation wait ends on its next resume. */
void gsvm_patho_clock_stop_group0(gsvm_patho_clock *c);
/* The animation a WaitForAnimEnd waits for has ended. */
void gsvm_patho_clock_anim_end(gsvm_patho_clock *c);
/* Starts (call->resuming false) or resumes a latent call that waits as `w`
 * says: YIELD while it waits, DONE when the wait is over, FAULT for a time
 * that is not a number >= 0 ("Negative wait time").  A wait always lasts at
 * least until the next frame.  With `out` >= 0 a FRAME wait writes the
 * seconds that passed into that argument when it ends (sync(dt)).  The wait
 * keeps its state in call->latent, so VM snapshots hold it. */
gsvm_patho_call_result gsvm_patho_clock_wait(const gsvm_patho_clock *c, gsvm_patho_wait w,
                                             int out, gsvm_patho_call *call);

/* ---- the simulation host ------------------------------------------------ */

typedef void (*gsvm_patho_emit_fn)(void *user, const char *line, size_t len);

typedef struct gsvm_patho_sim_opts {
    const gsvm_patho_natives *natives; /* must outlive the sim; NULL: the shipped ones */
    uint64_t frame_instructions; /* per frame or event; 0 = 1,000,000 (the game's) */
    uint64_t max_instructions;   /* in total over the run; 0 = no total */
    gsvm_patho_emit_fn emit;     /* one output line at a time (no newline) */
    void *user;
} gsvm_patho_sim_opts;

typedef struct gsvm_patho_sim gsvm_patho_sim;

/* How the last step ended. */
typedef enum gsvm_patho_sim_outcome {
    GSVM_PATHO_SIM_RUNNING = 0, /* waiting (or not started): more steps may follow */
    GSVM_PATHO_SIM_FINISHED,    /* the entry frame returned */
    GSVM_PATHO_SIM_FAULT,       /* the script faulted ({"fault":MESSAGE,"op":N} was emitted) */
    GSVM_PATHO_SIM_LIMIT        /* an instruction cap was reached ({"stopped":...}) */
} gsvm_patho_sim_outcome;

/* Object globals start as these handles plus the global's index, as if the
 * game had bound each to an object of its own. */
#define GSVM_PATHO_SIM_GLOBAL_OBJECT 1000u

/* A sim over `prog` (which must outlive it).  Refuses (GSVM_ERR_INPUT, naming
 * `file`) a program that imports an undeclared native. */
gsvm_status gsvm_patho_sim_new(const gsvm_patho_program *prog, const char *file,
                               const gsvm_patho_sim_opts *o, gsvm_patho_sim **out,
                               gsvm_error *err);
/* A sim continuing a run saved by gsvm_patho_sim_save (same program). */
gsvm_status gsvm_patho_sim_resume(const gsvm_patho_program *prog, const char *file,
                                  const gsvm_patho_sim_opts *o, const void *state, size_t len,
                                  gsvm_patho_sim **out, gsvm_error *err);
void gsvm_patho_sim_free(gsvm_patho_sim *s);

/* Frame 0 at time 0 (RunTask at RunOp). */
gsvm_patho_sim_outcome gsvm_patho_sim_start(gsvm_patho_sim *s);
/* Time advances `ms` and one frame runs. */
gsvm_patho_sim_outcome gsvm_patho_sim_advance(gsvm_patho_sim *s, double ms);
/* Sends an event; its handler runs at once.  *result says whether it was delivered. */
gsvm_patho_sim_outcome gsvm_patho_sim_event(gsvm_patho_sim *s, uint32_t id,
                                            const gsvm_patho_value *args, uint32_t nargs,
                                            gsvm_patho_event_result *result);
/* The animation ends (every WaitForAnimEnd ends on the next frame). */
void gsvm_patho_sim_anim_end(gsvm_patho_sim *s);
/* How the run stands (FINISHED, FAULT and LIMIT are final). */
gsvm_patho_sim_outcome gsvm_patho_sim_outcome_of(const gsvm_patho_sim *s);

/* The whole run (VM snapshot and clock) as bytes the caller frees:
 * "GSPS", u32 version 2, f64 time (ms), u64 frames, u64 StopGroup0 count,
 * u64 animation ends, u64 instructions counted against the total, then
 * the VM snapshot. */
gsvm_status gsvm_patho_sim_save(const gsvm_patho_sim *s, uint8_t **data, size_t *len,
                                gsvm_error *err);

gsvm_patho_vm *gsvm_patho_sim_vm(gsvm_patho_sim *s);
const gsvm_patho_clock *gsvm_patho_sim_clock(const gsvm_patho_sim *s);

#ifdef __cplusplus
}
#endif
#endif
