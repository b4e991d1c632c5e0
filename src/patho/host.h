/* The simulation host behind `gsvm patho run` and gsvm_patho_sim
 * (gsvm/patho_host.h), and the JSON Lines timeline that drives it.
 *
 * Every native and method call becomes a JSON line {"host":NAME,"args":[..]}
 * (a method call adds "object":N after the arguments).  Natives wait as
 * their declaration says (gsvm_patho_clock_wait); StopGroup0() ends every
 * pending group-0 wait; a declaration's "answer" is written into its "out"
 * argument.  FuncExist answers true for every method of a non-null object,
 * since this host accepts (and prints) any method call.
 *
 * The timeline is a JSON array of {"advance_ms":N} (advance the clock and
 * run one frame), {"event":ID,"args":[...]} (send the event; its handler
 * runs at once) and {"anim_end":true} (the animation a WaitForAnimEnd waits
 * for ends).  The run starts with one frame at time 0 and ends when the
 * entry frame returns, when the script faults or reaches an instruction
 * cap, or when the timeline is exhausted (every task then waits). */
#ifndef PATHO_SIM_HOST_H
#define PATHO_SIM_HOST_H

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/patho_host.h"
#include "gsvm/patho_vm.h"

typedef gsvm_patho_emit_fn patho_emit_fn;

/* A native the host resolved: its declaration (copied) and its answer. */
typedef struct patho_sim_native {
    gsvm_patho_native_info info; /* info.name NULL: undeclared (lenient hosts only) */
    const json_t *answer;        /* the declaration's "answer", or NULL */
} patho_sim_native;

typedef struct patho_sim_host {
    gsvm_patho_clock clock;
    const gsvm_patho_natives *natives;
    /* Lenient: an undeclared import resolves as a native that returns at
     * once (the fuzzers, which make up imports); otherwise it does not
     * resolve and gsvm_patho_vm_new refuses the program. */
    bool lenient;
    patho_sim_native *resolved; /* by the ids resolve() gave */
    uint32_t nresolved, cap;
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

void patho_sim_host_init(patho_sim_host *h, const gsvm_patho_natives *natives, bool lenient,
                         patho_emit_fn emit, void *user);
void patho_sim_host_free(patho_sim_host *h);
/* The gsvm_patho_host that routes the VM's calls to `h`. */
gsvm_patho_host patho_sim_host_iface(patho_sim_host *h);

/* Checks a timeline (an array of JSON objects) before anything runs, so a
 * bad line is an input error with no partial output. */
gsvm_status patho_timeline_check(const json_t *timeline, const char *file, gsvm_error *err);

/* How a run is driven. */
typedef struct patho_sim_opts {
    gsvm_patho_sim_opts sim;  /* natives, caps, output lines */
    const char *file;         /* the program's name in errors */
    patho_emit_fn note;       /* notices (an event nobody handled); may be NULL */
    /* A state saved by an earlier run to continue from (NULL: start fresh
     * with frame 0).  The timeline then goes on from there. */
    const uint8_t *resume;
    size_t resume_len;
    /* When not NULL: receives the state at the end of the run (malloc'd). */
    uint8_t **save;
    size_t *save_len;
} patho_sim_opts;

/* Runs `prog` against `timeline` (may be NULL: empty) through a
 * gsvm_patho_sim.  Returns GSVM_OK with *outcome set, or an error when the
 * program cannot start (an undeclared native) or the resumed state is
 * invalid (GSVM_ERR_INPUT). */
gsvm_status patho_sim_run(const gsvm_patho_program *prog, const json_t *timeline,
                          const patho_sim_opts *opts, patho_sim_outcome *outcome,
                          gsvm_error *err);

/* The "answer" of the declaration of (name, argc), or NULL. */
const json_t *patho_natives_answer(const gsvm_patho_natives *n, const char *name, uint32_t argc);

/* Appends the JSON form of a value: numbers, true/false, a string,
 * {"object":N} or {"cvector":[x,y,z]}; floats in their shortest form. */
void patho_value_json(gsvm_buf *b, const gsvm_patho_value *v);
/* Converts a JSON event argument into a value; false if it has no form. */
bool patho_value_from_json(const json_t *j, gsvm_patho_value *out);

#endif
