/* The simulation host behind `gsvm patho run` (internal; the CLI prints).
 *
 * Every native and method call becomes a JSON line {"host":NAME,"args":[..]}
 * (a method call adds "object":N after the arguments).  Two natives are
 * latent on simulation time, as in the game's standard context:
 * Sleep(seconds) with one numeric argument waits until the clock has
 * advanced that far (at least until the next frame; a negative time is the
 * script error "Negative wait time"), and Hold() waits until the script
 * calls StopGroup0(), which ends every pending Sleep and Hold on the next
 * frame.  Every other call returns at once and leaves its arguments as they
 * were.  FuncExist answers true for every method of a non-null object,
 * since this host accepts (and prints) any method call.
 *
 * The timeline is a JSON array of {"advance_ms":N} (advance the clock and
 * run one frame) and {"event":ID,"args":[...]} (send the event; its handler
 * runs at once).  The run starts with one frame at time 0 and ends when the
 * entry frame returns, when the script faults or reaches the instruction
 * cap, or when the timeline is exhausted (every task then waits). */
#ifndef GSVM_PATHO_HOST_H
#define GSVM_PATHO_HOST_H

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/patho_vm.h"

typedef void (*patho_emit_fn)(void *user, const char *line, size_t len);

typedef struct patho_sim_host {
    double now_ms;  /* simulation time */
    uint64_t frame; /* frames begun so far */
    uint64_t stop_gen; /* StopGroup0 calls so far */
    patho_emit_fn emit;
    void *emit_user;
    gsvm_buf line; /* scratch for one output line */
} patho_sim_host;

/* The outcome of a whole run. */
typedef enum patho_sim_outcome {
    PATHO_SIM_FINISHED, /* the entry frame returned */
    PATHO_SIM_WAITING,  /* the timeline ran out while the script waits */
    PATHO_SIM_FAULT,    /* the script faulted (a {"fault":...} line was emitted) */
    PATHO_SIM_LIMIT     /* the instruction cap was reached ({"stopped":...}) */
} patho_sim_outcome;

void patho_sim_host_init(patho_sim_host *h, patho_emit_fn emit, void *user);
void patho_sim_host_free(patho_sim_host *h);
/* The gsvm_patho_host that routes the VM's calls to `h`. */
gsvm_patho_host patho_sim_host_iface(patho_sim_host *h);

/* Checks a timeline (an array of JSON objects) before anything runs, so a
 * bad line is an input error with no partial output. */
gsvm_status patho_timeline_check(const json_t *timeline, const char *file, gsvm_error *err);

/* How a run is driven. */
typedef struct patho_sim_opts {
    uint64_t max_insns;  /* per frame or event; 0 = the default */
    patho_emit_fn emit;  /* output lines */
    patho_emit_fn note;  /* notices (an event nobody handled); may be NULL */
    void *user;          /* passed to emit and note */
    /* A state saved by an earlier run to continue from (NULL: start fresh
     * with frame 0).  The timeline then goes on from there. */
    const uint8_t *resume;
    size_t resume_len;
    /* When not NULL: receives the state at the end of the run (malloc'd). */
    uint8_t **save;
    size_t *save_len;
} patho_sim_opts;

/* Runs `prog` against `timeline` (may be NULL: empty).  Returns GSVM_OK with
 * *outcome set, or an error when the program cannot start or the resumed
 * state is invalid (GSVM_ERR_INPUT).
 *
 * A saved state is "GSPS", u32 version 1, f64 simulation time (ms), u64
 * frames begun, u64 StopGroup0 count, then the VM snapshot. */
gsvm_status patho_sim_run(const gsvm_patho_program *prog, const json_t *timeline,
                          const patho_sim_opts *opts, patho_sim_outcome *outcome,
                          gsvm_error *err);

/* Appends the JSON form of a value: numbers, true/false, a string,
 * {"object":N} or {"cvector":[x,y,z]}; floats in their shortest form. */
void patho_value_json(gsvm_buf *b, const gsvm_patho_value *v);
/* Converts a JSON event argument into a value; false if it has no form. */
bool patho_value_from_json(const json_t *j, gsvm_patho_value *out);

#endif
