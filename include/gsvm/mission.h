/* gsvm mission — a sandboxed Lua 5.4 mission runtime whose callbacks are
 * transactions.
 *
 * A mission script is one Lua chunk that returns a program table
 * (initial_state, on_start, on_load, on_event_<kind>).  The runtime runs each
 * callback against a private copy of the mission's durable record (variables,
 * timers, phase, sequences, requests); a callback that returns commits, one
 * that raises any error (its own, an instruction, time or memory limit)
 * faults the mission.  Requests leave through an outbox delivered one at a
 * time; timers run on the server tick; with a state file the record
 * lives in SQLite (without one, in memory only).
 *
 * Embedding, in short:
 *
 *     gsvm_mission_config cfg;
 *     gsvm_mission_config_init(&cfg);
 *     cfg.activity_id = "mission_deadzone_2";
 *     cfg.state_path = "mission.db";          // NULL: an in-memory record
 *     cfg.host.request = my_request_cb;       // answers each request
 *     gsvm_mission *m;
 *     if (gsvm_mission_open(&cfg, src, len, &m, &err) != GSVM_OK) ...
 *     gsvm_mission_report(m, "trigger_entered", fields, n, &err);
 *     gsvm_mission_advance(m, 50, &err);       // one server tick
 *     gsvm_mission_close(m);
 *
 * Nothing here prints or exits; every object belongs to its caller and many
 * missions may coexist in one process.
 *
 * Threads: a mission (and a world while a mission borrows it) is used by one
 * thread at a time; the host callbacks run on the thread that called in.
 * Different missions run in parallel in different threads.  The one shared
 * piece is the wall-clock guard: the first callback starts one watchdog
 * thread per process that watches every running callback's deadline (a
 * list under a mutex); it touches a Lua state only to set its hook while
 * that state runs a callback. */
#ifndef GSVM_MISSION_H
#define GSVM_MISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Documented limits. */
#define GSVM_MISSION_MAX_SOURCE (128u * 1024u)
#define GSVM_MISSION_CALLBACK_BUDGET 5000000u
#define GSVM_MISSION_OPEN_BUDGET 100000000u
#define GSVM_MISSION_ARENA_BYTES ((size_t)64 * 1024 * 1024)
#define GSVM_MISSION_MAX_VARIABLES 512u
#define GSVM_MISSION_MAX_TIMERS 32u
#define GSVM_MISSION_MAX_NAME 63u
#define GSVM_MISSION_MAX_STRING 127u
#define GSVM_MISSION_MAX_ERROR 255u
#define GSVM_MISSION_MAX_STEM 119u /* a stem of 120 characters or more is refused */
#define GSVM_MISSION_EVENT_KINDS 41
/* The request burst of one callback: its first request plus 63 more.  The
 * 65th request fails like an allocation (no pcall catches it) and faults. */
#define GSVM_MISSION_REQUEST_BURST 64u
/* A request's arguments as JSON text are at most this many bytes (a larger
 * one is refused with a Lua error the script may catch); every byte is
 * charged to the callback's instruction budget. */
#define GSVM_MISSION_MAX_REQUEST_ARGS 8192u
/* One call into the runtime (a report, an outcome, one server tick of
 * gsvm_mission_advance) runs at most this many callbacks; what is left (a
 * chain of phase_entered or effect_result events that each raise the next)
 * waits for the next server tick, so no script stalls its host. */
#define GSVM_MISSION_CALLBACKS_PER_TICK 256u
/* The simulated clock never passes 2^53 ms (about 285,000 years; exact in
 * a JSON number): gsvm_mission_advance refuses to go further. */
#define GSVM_MISSION_MAX_CLOCK_MS (UINT64_C(1) << 53)
/* Delivery deadlines on the simulated clock (the defaults of the config). */
#define GSVM_MISSION_COMMIT_WAIT_MS 2000u   /* no host commit by then: refused */
#define GSVM_MISSION_NETWORK_WAIT_MS 15000u /* this long in the network queue: a cancel is requested */
#define GSVM_MISSION_CANCEL_WAIT_MS 2000u   /* a requested cancel not confirmed by then: the mission faults */
#define GSVM_MISSION_EXPIRE_MS 60000u       /* this long after the first try: expired */

typedef struct gsvm_mission gsvm_mission;
typedef struct gsvm_mission_world gsvm_mission_world;

typedef enum gsvm_mission_role { GSVM_MISSION_PUBLIC = 0, GSVM_MISSION_PRIVATE = 1 } gsvm_mission_role;

/* A scalar: what a variable holds and what an event field carries. */
typedef enum gsvm_mission_vtype {
    GSVM_MV_NIL = 0,
    GSVM_MV_BOOL,
    GSVM_MV_INT,
    GSVM_MV_NUM,
    GSVM_MV_STR
} gsvm_mission_vtype;

typedef struct gsvm_mission_value {
    gsvm_mission_vtype type;
    bool b;
    int64_t i;
    double n;
    const char *s; /* not NUL-terminated necessarily; `len` bytes */
    size_t len;
} gsvm_mission_value;

/* One field of a client report.  The name "slot" selects the report's slot
 * (an integer 1-based row or a slot id string of the world model). */
typedef struct gsvm_mission_field {
    const char *name;
    gsvm_mission_value value;
} gsvm_mission_field;

/* How the host answers one request (the delivery rules of docs/mission.md):
 * ACCEPT commits and stages at once; REFUSE refuses; STALL never commits
 * (refused after 2 s); PENDING keeps the output pending (transport stage
 * after 2 s, cancel requested and confirmed after 15 more, so canceled);
 * DROP commits then drops (canceled after 2 s); NO_CANCEL is PENDING whose
 * cancel is never confirmed (the mission faults 2 s after the cancel);
 * UNPUBLISHED commits but never publishes (expired after 60 s);
 * MISMATCH reports a revision mismatch (the mission faults). */
typedef enum gsvm_mission_answer {
    GSVM_MISSION_ACCEPT = 0,
    GSVM_MISSION_REFUSE,
    GSVM_MISSION_STALL,
    GSVM_MISSION_PENDING,
    GSVM_MISSION_DROP,
    GSVM_MISSION_NO_CANCEL,
    GSVM_MISSION_UNPUBLISHED,
    GSVM_MISSION_MISMATCH,
    /* The host answers later, at any simulated time, through
     * gsvm_mission_report_outcome (see "Asynchronous outcomes" below). */
    GSVM_MISSION_DEFER
} gsvm_mission_answer;

/* ---- asynchronous outcomes ----
 * A host that answers DEFER keeps the request at the head of the queue
 * (gsvm_mission_head_request) and reports, whenever it knows:
 *   COMMITTED  the host committed the request's revision; it now waits in
 *              the network queue (only before any other outcome);
 *   STAGED     the transport staged it: the outcome transport_staged
 *              (committing is implied; also after a cancel was requested);
 *   REFUSED    the host refused it: refused (before the network queue);
 *   CANCELED   a cancel is confirmed (the runtime's request, or the host's
 *              own drop): canceled.
 * The runtime applies the deadlines itself on the simulated clock (the
 * config's, defaults above): no COMMITTED within commit_wait_ms of the first
 * try -> refused; network_wait_ms in the network queue -> the runtime asks
 * host.cancel and waits cancel_wait_ms for CANCELED (else the mission
 * faults); expire_ms after the first try -> expired, whatever the stage. */
typedef enum gsvm_mission_outcome {
    GSVM_MISSION_COMMITTED = 0,
    GSVM_MISSION_STAGED,
    GSVM_MISSION_REFUSED,
    GSVM_MISSION_CANCELED
} gsvm_mission_outcome;

/* A request as it leaves the outbox. */
typedef struct gsvm_mission_request {
    uint64_t key;
    const char *effect;    /* "lifetime.set", ...; NULL for effects without a name */
    const char *call;      /* "context:complete_mission", "slot:set_channel", ... */
    const char *args_json; /* the request's arguments as one JSON object */
    bool local;            /* finishes locally, with no host revision */
} gsvm_mission_request;

/* What the runtime tells its host.  Every member may be NULL. */
typedef struct gsvm_mission_host {
    /* A request starts delivery; the return value is the host's answer
     * (ignored for local requests, which the runtime finishes itself). */
    gsvm_mission_answer (*request)(void *ud, const gsvm_mission_request *req);
    /* A request reached its outcome: "transport_staged", "refused",
     * "expired" or "canceled". */
    void (*effect_result)(void *ud, uint64_t key, const char *effect, const char *outcome);
    /* A fresh mission whose program declares initial_state selects it
     * before on_start: `args_json` is {"region_index":N[,"spawn_set_hash":H]
     * [,"omit":[...]]}.  ACCEPT (or NULL here) means the host publishes it;
     * UNPUBLISHED withholds it until gsvm_mission_publish.  on_start runs on
     * the first server tick after publication; client reports and timers
     * wait for it, and reports that arrive meanwhile are kept and delivered
     * after on_start. */
    gsvm_mission_answer (*initial_state)(void *ud, const char *args_json);
    /* The mission faulted (also when a faulted record is reopened). */
    void (*fault)(void *ud, const char *message);
    /* A deferred request spent network_wait_ms in the network queue: the
     * runtime asks the host to cancel it (confirm with CANCELED, or it may
     * still answer STAGED). */
    void (*cancel)(void *ud, uint64_t key);
    void *ud;
} gsvm_mission_host;

typedef struct gsvm_mission_config {
    const char *activity_id;  /* chunk name and context.activity_id; default "activity" */
    const char *sdk_root;     /* require() searches ROOT/sdk/lua and ROOT/scripts; NULL: no require */
    gsvm_mission_role role;
    const gsvm_mission_world *world; /* slots, squads, scenes, peers; NULL: an empty world.
                                        Borrowed: it must outlive the mission. */
    const char *state_path;   /* SQLite file (WAL; missing or 0 bytes: a fresh record);
                                 NULL: the record lives in memory only, and a reopen keeps it */
    bool durable_fsync;       /* synchronous=FULL instead of NORMAL (survive power loss too) */
    uint32_t max_variables;   /* default 512 */
    uint64_t callback_budget; /* instructions; default 5,000,000 */
    uint64_t open_budget;     /* instructions; default 100,000,000 */
    size_t arena_bytes;       /* default 64 MiB */
    uint32_t callback_wall_ms; /* wall-clock guard per callback; default 1000 */
    uint32_t open_wall_ms;     /* wall-clock guard while opening; default 20000 */
    uint32_t tick_ms;          /* server tick; default: the world's, else 50 */
    /* Delivery deadlines in simulated ms (0: the GSVM_MISSION_*_MS defaults). */
    uint32_t commit_wait_ms, network_wait_ms, cancel_wait_ms, expire_ms;
    gsvm_mission_host host;
} gsvm_mission_config;

void gsvm_mission_config_init(gsvm_mission_config *cfg);

/* ---- world model (the game-specific objects a host supplies) ---- */

/* Parses a world description (JSON; see docs/mission.md).  `name` is used in
 * error messages. */
gsvm_status gsvm_mission_world_parse(const char *json_text, size_t len, const char *name,
                                     gsvm_mission_world **out, gsvm_error *err);
void gsvm_mission_world_free(gsvm_mission_world *world);
/* The activity's internal name, display name, index and definition hash as
 * the world declares them ("" and 0 when absent). */
const char *gsvm_mission_world_activity_name(const gsvm_mission_world *world);
const char *gsvm_mission_world_display_name(const gsvm_mission_world *world);
uint32_t gsvm_mission_world_activity_index(const gsvm_mission_world *world);
uint32_t gsvm_mission_world_definition_hash(const gsvm_mission_world *world);
/* The role the world declares: GSVM_MISSION_PUBLIC/PRIVATE, or -1. */
int gsvm_mission_world_role(const gsvm_mission_world *world);

/* ---- finding the script ---- */

/* The file stem of an activity: ASCII letters and digits lowercased, runs of
 * other bytes become one '_' between kept characters, "unnamed" when empty, a
 * leading digit gets '_'.  The display name is used when `internal_name` is
 * empty.  Fails (GSVM_ERR_INPUT, "file_error") when the stem is 120 characters
 * or more. */
gsvm_status gsvm_mission_file_stem(const char *internal_name, const char *display_name,
                                   char *out, size_t out_size, gsvm_error *err);
/* Reads ROOT/scripts/<stem>/<stem>.lua, or, only when that file is missing,
 * ROOT/scripts/activities/a_%04u_%08x.lua.  `path_out` receives the path read.
 * The text is checked for size (1..128 KiB; an empty file is
 * "source_too_large").  The caller frees *text. */
gsvm_status gsvm_mission_find_script(const char *root, const char *internal_name,
                                     const char *display_name, uint32_t activity_index,
                                     uint32_t definition_hash, char **text, size_t *len,
                                     char *path_out, size_t path_size, gsvm_error *err);

/* Reads one script file ("-": standard input), checking the size before
 * reading (1..128 KiB; a regular file's size is known from stat, so a
 * 300 MB file is refused without reading it).  The caller frees *text. */
gsvm_status gsvm_mission_read_script(const char *path, char **text, size_t *len, gsvm_error *err);

/* ---- the mission ---- */

/* Loads the script (text only, 1..128 KiB), runs its chunk, captures the
 * program, restores the durable record and runs on_load (an already started
 * mission) or on_start.  A script that cannot be loaded gives GSVM_ERR_INPUT
 * (or GSVM_ERR_LIMIT when its top-level code ran out of budget).  A callback
 * fault is not an open failure: the mission is returned faulted. */
gsvm_status gsvm_mission_open(const gsvm_mission_config *cfg, const char *source, size_t len,
                              gsvm_mission **out, gsvm_error *err);
void gsvm_mission_close(gsvm_mission *m);

/* A client report of kind `kind` ("trigger_entered", ...; without the
 * "on_event_" prefix).  Unknown kinds are GSVM_ERR_USAGE.  Reports without a
 * handler, of kinds that never reach a script, silenced first reports and
 * fireteam_state in a public activity are dropped.  The report runs (with all
 * it leads to) unless delivery, earlier reports or the start hold it back;
 * a report held back is in the store (with a --state file: durable) when
 * this returns, and is delivered after a reopen. */
gsvm_status gsvm_mission_report(gsvm_mission *m, const char *kind,
                                const gsvm_mission_field *fields, size_t nfields,
                                gsvm_error *err);
/* One client packet: its report and the events derived from it, in any
 * order.  The runtime delivers the report first (region_changed right after a
 * state report), then the derived events in the documented order: trigger,
 * Ghost link, object, damage monitor, actor path, squad, combatant damage,
 * device, scene, objective. */
typedef struct gsvm_mission_report_item {
    const char *kind;
    const gsvm_mission_field *fields;
    size_t nfields;
} gsvm_mission_report_item;
gsvm_status gsvm_mission_report_packet(gsvm_mission *m, const gsvm_mission_report_item *items,
                                       size_t n, gsvm_error *err);
/* The host published the initial state it withheld (see host.initial_state);
 * on_start runs on the next server tick.  A no-op once started. */
gsvm_status gsvm_mission_publish(gsvm_mission *m, gsvm_error *err);
/* True while a fresh mission waits for its initial state (on_start not run). */
bool gsvm_mission_start_pending(const gsvm_mission *m);
/* Client reports waiting in the input queue. */
size_t gsvm_mission_waiting_reports(const gsvm_mission *m);
/* Advances the server clock by `ms`: every tick on which something can
 * happen (a timer, a delivery deadline, a pending start) runs in order, and
 * idle ticks are skipped, so the cost is the events', not the time's.
 * GSVM_ERR_USAGE (and no change) when the clock would pass
 * GSVM_MISSION_MAX_CLOCK_MS. */
gsvm_status gsvm_mission_advance(gsvm_mission *m, uint64_t ms, gsvm_error *err);
/* The request in delivery at the head of the queue: true and *req filled
 * (strings valid until the next call that runs callbacks); *deferred tells
 * whether it waits for gsvm_mission_report_outcome (may be NULL). */
bool gsvm_mission_head_request(const gsvm_mission *m, gsvm_mission_request *req, bool *deferred);
/* Reports the outcome of the deferred head request `key` (see above);
 * GSVM_ERR_USAGE when no deferred request of that key is in delivery or the
 * outcome does not fit its stage.  What can run afterwards runs. */
gsvm_status gsvm_mission_report_outcome(gsvm_mission *m, uint64_t key, gsvm_mission_outcome outcome,
                                 gsvm_error *err);
/* Closes the Lua state and opens it again from the committed record. */
gsvm_status gsvm_mission_reopen(gsvm_mission *m, gsvm_error *err);
/* "Reload script": clears a fault and reopens, with new source text when
 * `source` is not NULL. */
gsvm_status gsvm_mission_reload_script(gsvm_mission *m, const char *source, size_t len,
                                       gsvm_error *err);

/* ---- the committed record ----
 * Strings handed out (names, string values, the fault text) point into the
 * mission and stay valid until the next call that runs callbacks or closes
 * it.  A mission is used by one thread at a time. */
uint32_t gsvm_mission_phase(const gsvm_mission *m);
uint64_t gsvm_mission_revision(const gsvm_mission *m);
uint64_t gsvm_mission_attempt(const gsvm_mission *m);
uint64_t gsvm_mission_now_ms(const gsvm_mission *m);
/* The server tick in ms (the config's, else the world's, else 50). */
uint32_t gsvm_mission_tick_ms(const gsvm_mission *m);
bool gsvm_mission_faulted(const gsvm_mission *m);
const char *gsvm_mission_fault_text(const gsvm_mission *m); /* "" when not faulted */
/* Variables: the count, each in name order through `fn` (false when out of
 * memory), or one by name. */
size_t gsvm_mission_variable_count(const gsvm_mission *m);
bool gsvm_mission_foreach_variable(const gsvm_mission *m,
                                   void (*fn)(void *ud, const char *name, const gsvm_mission_value *v),
                                   void *ud);
bool gsvm_mission_variable(const gsvm_mission *m, const char *name, gsvm_mission_value *value);
/* Timers in name order. */
size_t gsvm_mission_timer_count(const gsvm_mission *m);
bool gsvm_mission_timer_at(const gsvm_mission *m, size_t i, const char **name,
                           uint64_t *deadline_ms, uint64_t *sequence);
/* Requests not yet delivered (including one in flight). */
size_t gsvm_mission_pending_requests(const gsvm_mission *m);
/* Callbacks run since open (for hosts and benchmarks). */
uint64_t gsvm_mission_callbacks_run(const gsvm_mission *m);
/* Bytes the mission's Lua state holds now (its arena; at most arena_bytes). */
size_t gsvm_mission_memory_used(const gsvm_mission *m);

/* Event kind names: index 0..40 -> "sensor_sense_updated", ...; -1 if unknown. */
const char *gsvm_mission_event_name(int kind);
int gsvm_mission_event_kind(const char *name);

/* Decodes one stored request record (the store's request body).  Used on
 * reopen; exposed for tests and fuzzing. */
gsvm_status gsvm_mission_request_record_check(const char *text, size_t len, gsvm_error *err);

#ifdef __cplusplus
}
#endif
#endif
