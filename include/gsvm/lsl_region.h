/* gsvm lsl region — many Falcon scripts (of either ABI) in one simulated region.
 *
 * A region holds objects (link sets of prims, each prim holding scripts), a
 * simulated clock cut into frames (45 per simulated second by default), and
 * what a Second Life simulator keeps around its scripts:
 *
 *   - programs compiled once per distinct source and shared by every VM that
 *     runs them;
 *   - chat routed by distance (llWhisper 10 m, llSay 20 m, llShout 100 m,
 *     llRegionSay, llRegionSayTo, llOwnerSay) to the listens that match,
 *     found through an index keyed by channel (a message is never offered to
 *     scripts without a listen on its channel);
 *   - llMessageLinked inside a link set (link_message);
 *   - one timer structure (a binary heap of deadlines) for every timer and
 *     sleep of the region: an idle script costs nothing per frame;
 *   - touches whose llDetected* answer for the event being handled;
 *   - host operations (dataserver, HTTP, notecards) that return a request
 *     key at once and are answered later by the host as the LSL event;
 *   - a scheduler: a per-frame instruction budget handed out in fair
 *     round-robin slices, per-script, per-object and per-owner budgets per
 *     frame, moving-average throttling and a wall-clock guard.
 *
 * Everything that leaves the region is handed to the output callback as one
 * JSON object (stolen by the callback): {"object": PRIM_ID, "script": NAME,
 * "host": FUNCTION, "args": [...]} for host effects (llOwnerSay always; chat
 * only with print_chat), {"object", "script", "fault", "line"...} for faults,
 * {"object", "script", "throttled": true|false, ...} for throttling.
 * docs/lsl.md ("Regions") gives the whole contract.
 *
 * Threads: nothing here has global state.  A region (its objects, scripts,
 * VMs and any crossing connection) belongs to one thread at a time, and the
 * output callback runs on that thread; different regions run in parallel.
 * A program added to a region must stay unchanged while the region lives;
 * programs are immutable, so several regions may share one. */
#ifndef GSVM_LSL_REGION_H
#define GSVM_LSL_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"
#include "gsvm/lsl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;
typedef struct gsvm_lsl_region gsvm_lsl_region;

typedef struct gsvm_lsl_region_opts {
    uint32_t frames_per_second; /* default 45 */
    uint64_t frame_budget;      /* instructions per frame for the whole region (default 200000) */
    uint64_t slice;             /* instructions per round-robin slice (default 1000) */
    uint64_t script_budget;     /* per script per frame (default 10000) */
    uint64_t object_budget;     /* per object (link set) per frame, 0 = none (default 0) */
    uint64_t owner_budget;      /* per owner per frame, 0 = none (default 0) */
    /* A script whose moving average (over ~8 frames) of instructions per
     * frame exceeds throttle_above is throttled: it runs only one frame in
     * throttle_period until its average falls under half the threshold.
     * 0 = no throttling.  Defaults script_budget / 2 and 4. */
    uint64_t throttle_above;
    uint32_t throttle_period;
    /* Wall-clock guard: a slice is stopped once it has run this many
     * microseconds (checked every 256 instructions), a frame once it has run
     * frame_guard_us; 0 = none.  Defaults 20000 and 250000. */
    uint64_t slice_guard_us, frame_guard_us;
    /* The guards' clock in microseconds (NULL: CLOCK_MONOTONIC).  A host
     * with a clock of its own passes it here; a test passes a counter, so
     * where the guards stop does not depend on the machine's load. */
    uint64_t (*wall_us)(void *user);
    void *wall_user;
    bool print_chat; /* print chat between scripts as host lines too */
    uint64_t max_scripts;  /* a crossing that would pass it is refused, 0 = none */
    int cross_fault;       /* testing: drop a crossing's connection at this step (1..7), 0 = never */
    const char *cache_dir; /* compiled-program cache (NULL: none) */
    /* Where the region's memory comes from: the region itself, its tables
     * (objects, prims, scripts, programs store, timer heap, run queue,
     * listen index, touches) and every script's VM, either ABI
     * (gsvm_lsl_vm_new_alloc).  NULL: the C library.  What leaves the
     * region (output lines, crossing frames) and the host-function table
     * use the C library. */
    gsvm_lsl_realloc_fn alloc;
    void *alloc_user;
} gsvm_lsl_region_opts;

/* The defaults above. */
void gsvm_lsl_region_opts_default(gsvm_lsl_region_opts *o);

typedef void (*gsvm_lsl_region_output_fn)(void *user, struct json_t *line);

gsvm_status gsvm_lsl_region_new(const gsvm_lsl_region_opts *opts, gsvm_lsl_region **out,
                                gsvm_error *err);
void gsvm_lsl_region_free(gsvm_lsl_region *r);
void gsvm_lsl_region_set_output(gsvm_lsl_region *r, gsvm_lsl_region_output_fn fn, void *user);

/* Loads a world file (see docs/lsl.md): objects, their link sets and
 * scripts; script paths are relative to the world file.  Errors name the
 * file and line:column.  Scripts start (state_entry) in the next frame. */
gsvm_status gsvm_lsl_region_load_world(gsvm_lsl_region *r, const char *path, gsvm_error *err);
/* The same from a parsed world; script paths are relative to `dir` ("" for
 * the current directory), `name` names the world in errors. */
gsvm_status gsvm_lsl_region_load_world_json(gsvm_lsl_region *r, const struct json_t *world, const char *dir,
                                            const char *name, gsvm_error *err);

/* Building a world without JSON.  add_object makes the root prim (link 1 of
 * its link set) and returns its prim number; add_link adds a child prim to
 * the object whose root is `root`.  add_script puts a program in a prim under
 * `name`; the region holds a reference to it (gsvm_lsl_program_retain),
 * so the caller may release its own at once.  Programs are of either ABI
 * (gsvm_lsl_compile_with, gsvm_lsl_program_load).  Ids are unique. */
gsvm_status gsvm_lsl_region_add_object(gsvm_lsl_region *r, const char *id, const char *owner,
                                       const char *name, const float pos[3], uint32_t *prim,
                                       gsvm_error *err);
gsvm_status gsvm_lsl_region_add_link(gsvm_lsl_region *r, uint32_t root, const char *id,
                                     const char *name, const float local[3], uint32_t *prim,
                                     gsvm_error *err);
gsvm_status gsvm_lsl_region_add_script(gsvm_lsl_region *r, uint32_t prim, const char *name,
                                       const gsvm_lsl_program *prog, gsvm_error *err);
/* Puts a program (either ABI) in the region's store without a script (the
 * host's asset cache): an object crossing in whose scripts run it needs no
 * bytecode sent.  The region holds a reference.  Programs of world files,
 * of add_script and of crossings are in the store already. */
gsvm_status gsvm_lsl_region_add_program(gsvm_lsl_region *r, const gsvm_lsl_program *prog, gsvm_error *err);

/* Applies one timeline line ({"touch":...}, {"chat":...}, {"move":...},
 * {"dataserver":...}, {"http_response":...}, {"event":...},
 * {"advance_ms": N}); `where` names it in errors (FILE, line). */
gsvm_status gsvm_lsl_region_apply(gsvm_lsl_region *r, const struct json_t *line, const char *file,
                                  long lineno, gsvm_error *err);
/* Runs the frames of the next `ms` simulated milliseconds. */
gsvm_status gsvm_lsl_region_advance(gsvm_lsl_region *r, uint64_t ms, gsvm_error *err);
/* Runs frames until no script has work (queued events, a handler running),
 * at most `max_ms` simulated ms; *idle tells whether it got there. */
gsvm_status gsvm_lsl_region_settle(gsvm_lsl_region *r, uint64_t max_ms, bool *idle,
                                   gsvm_error *err);

/* A chat message from an avatar at `pos`: heard by the listens within
 * `range` metres (negative: the whole region). */
gsvm_status gsvm_lsl_region_chat(gsvm_lsl_region *r, int32_t channel, const char *name,
                                 const char *key, const float pos[3], double range,
                                 const char *msg, gsvm_error *err);

/* Figures. */
typedef struct gsvm_lsl_region_stats {
    uint64_t now_ms, frames;
    size_t objects, prims, scripts, programs;
    uint64_t instructions;  /* executed by every script */
    uint64_t slices;        /* VM runs */
    uint64_t chat_heard;    /* listen events queued by chat */
    uint64_t chat_offered;  /* scripts a message was offered to (through the index) */
    uint64_t timers_fired;
    size_t faulted, throttled;
} gsvm_lsl_region_stats;
void gsvm_lsl_region_get_stats(const gsvm_lsl_region *r, gsvm_lsl_region_stats *out);

#ifdef __cplusplus
}
#endif
#endif
