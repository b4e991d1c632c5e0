/* Internal structures of the mission runtime, shared by its source files.
 *
 * The picture: a gsvm_mission owns
 *   - the committed record (rec): variables in a hash map, timers in a small
 *     sorted array, phase, revision, sequences, attempt, fault;
 *   - at most one open transaction (txn) while a callback runs: an overlay of
 *     changed variables, a copy of the timers made on first write, the staged
 *     phase and sequences, and the callback's new requests.  Its cost grows
 *     with what the callback changes, never with the size of the record;
 *   - the outbox (requests waiting or in delivery), the input queue (client
 *     reports) and the event queue (runtime events: effect_result,
 *     phase_entered, fireteam_state);
 *   - a Lua state on a capped allocator with an instruction/time budget;
 *   - with a state file, the SQLite store that makes each commit durable
 *     (without one, the committed record in memory is all there is). */
#ifndef GSVM_MISSION_INTERNAL_H
#define GSVM_MISSION_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "gsvm/mission.h"

/* ---- event kinds (events.def) ---- */
enum { FR_NONE, FR_SILENT, FR_FLAG };
enum {
#define EVENT(idx, name, reaches, fr, doc) EV_##name = idx,
#include "mission/events.def"
#undef EVENT
    EV_COUNT
};
bool ms_event_reaches_script(int kind);
int ms_event_first_report_rule(int kind);

/* A variable or timer name: 1..GSVM_MISSION_MAX_NAME characters of
 * [A-Za-z0-9_./-] (api_support.c).  Scripts' names and names read back
 * from the store are held to the same rule. */
bool ms_name_ok(const char *s, size_t n);

/* ---- scalar values ---- */
typedef struct mval {
    uint8_t type; /* gsvm_mission_vtype */
    uint8_t len;  /* string length (<= 127) */
    bool b;
    int64_t i;
    double n;
    char s[GSVM_MISSION_MAX_STRING + 1];
} mval;

typedef struct mvar {
    char name[GSVM_MISSION_MAX_NAME + 1];
    uint8_t nlen;
    bool deleted; /* in a transaction overlay: the variable is cleared */
    mval v;
} mvar;

/* Open-addressing hash map (linear probing, backward-shift deletion) from
 * name to an owned mvar. */
typedef struct vmap {
    mvar **slots;
    uint32_t cap, count;
} vmap;

void ms_vmap_init(vmap *m);
void ms_vmap_free(vmap *m); /* frees the entries too */
mvar *ms_vmap_get(const vmap *m, const char *name, size_t nlen);
/* Inserts `v` (owned from now on); false when out of memory. */
bool ms_vmap_put(vmap *m, mvar *v);
/* Room for `extra` more entries: the next `extra` puts cannot fail. */
bool ms_vmap_reserve(vmap *m, uint32_t extra);
mvar *ms_vmap_remove(vmap *m, const char *name, size_t nlen); /* caller owns the result */
/* Entries sorted by name into a new array (caller frees the array only). */
mvar **ms_vmap_sorted(const vmap *m);

/* ---- timers ---- */
typedef struct mtimer {
    char name[GSVM_MISSION_MAX_NAME + 1];
    uint64_t deadline, seq;
} mtimer;

typedef struct mtimers {
    mtimer t[GSVM_MISSION_MAX_TIMERS];
    int n; /* sorted by name */
} mtimers;

int ms_timers_find(const mtimers *t, const char *name);
bool ms_timers_set(mtimers *t, const char *name, uint64_t deadline, uint64_t seq); /* false: full */
bool ms_timers_remove(mtimers *t, const char *name);
/* The due timer with the earliest deadline, then sequence; -1 if none. */
int ms_timers_due(const mtimers *t, uint64_t now);

/* ---- requests ---- */
enum {
    OP_HOST = 0,       /* a host request */
    OP_SELECT_STATE,   /* local: waits for publication */
    OP_HOLD_SPAWN,     /* local */
    OP_RESTART,        /* local: checkpoint arm or release */
    OP_ACTOR_COMMAND,  /* local */
};

typedef struct mreq {
    uint64_t key;
    uint64_t attempt;
    int op;
    bool publish;        /* waits for publication (select_state, scene requests) */
    bool completes;      /* lifetime state 6: marks the attempt complete on commit */
    char call[48];
    char effect[40];     /* "" when the effect has no name */
    char *args;          /* JSON object text */
    int64_t p1, p2, p3;  /* op parameters: region/hash/release, hold active, ... */
} mreq;

void ms_mreq_free(mreq *r);
/* Serializes / parses a request record for the store. */
char *ms_mreq_encode(const mreq *r);
mreq *ms_mreq_decode(const char *text, size_t len, gsvm_error *err);

/* ---- events ---- */
enum { EF_NIL, EF_BOOL, EF_INT, EF_NUM, EF_STR, EF_KEY };
typedef struct mfield {
    char name[40];
    uint8_t type;
    bool b;
    int64_t i;
    double n;
    /* A string's bytes: `s` when they were allocated, else in `small`
     * (the runtime's own fields, sequences and generations, fit there: a
     * dispatched event set four of them with a malloc each).  Read them
     * through ms_mfield_str. */
    char *s;
    size_t len;
    char small[24];
} mfield;
static inline const char *ms_mfield_str(const mfield *f) { return f->s ? f->s : f->small; }

typedef struct mevent {
    int kind;
    uint64_t attempt;     /* attempt_generation when raised */
    uint64_t source_generation;
    int slot_row;         /* 1-based world slot row, 0 when none */
    int64_t db_id;        /* row in the store's events table, 0 when not stored */
    bool input;           /* a client report waiting in the input queue */
    int nf, capf;
    mfield *f;
    struct mevent *next;
} mevent;

mevent *ms_mevent_new(int kind);
void ms_mevent_free(mevent *e);
bool ms_mevent_set_int(mevent *e, const char *name, int64_t v);
bool ms_mevent_set_num(mevent *e, const char *name, double v);
bool ms_mevent_set_bool(mevent *e, const char *name, bool v);
bool ms_mevent_set_str(mevent *e, const char *name, const char *s, size_t len);
bool ms_mevent_set_key(mevent *e, const char *name, uint64_t key);
bool ms_mevent_set_nil(mevent *e, const char *name);
const mfield *ms_mevent_get(const mevent *e, const char *name);
char *ms_mevent_encode(const mevent *e);
mevent *ms_mevent_decode(const char *text, size_t len);

typedef struct mqueue {
    mevent *head, *tail;
    size_t n;
} mqueue;
void ms_mqueue_push(mqueue *q, mevent *e);
mevent *ms_mqueue_pop(mqueue *q);
void ms_mqueue_clear(mqueue *q);

/* ---- world model ---- */
typedef struct wslot {
    char id[64];
    int type;
    int64_t tag;
    char registry_key[32];
    char owner[32];
} wslot;

typedef struct wnamed {
    char id[64];
} wnamed;

typedef struct wpeer {
    char session_id[32], session_generation[32], member_key[32], join_identity[64];
} wpeer;

struct gsvm_mission_world {
    char name[256], display_name[256];
    uint32_t index, definition_hash;
    int64_t row;
    char player_key[32];
    char sdk_build_id[80];
    int role; /* -1: not declared */
    uint32_t tick_ms;
    wslot *slots;
    int nslots;
    wnamed *squads, *scenes;
    int nsquads, nscenes;
    wpeer *peers;
    int npeers;
    uint32_t *spawn_sets;
    int nspawn_sets; /* 0: every spawn set hash is available */
};

/* ---- what the record knows about each world slot ----
 * Part of the committed record (the store's `slots` table), read by
 * slot:ghost_link(), slot:applied{channel}, slot:sequences() and
 * event:applied_request{channel}.
 *   Ghost link  the last ghost_link_state report (generation, progress,
 *               active); kept across attempts.
 *   device      per channel (position, power, lock): the key of the last
 *               set_channel/transition request of this attempt (committed
 *               with the callback that made it) and the last sequence the
 *               device reported in device_state's <channel>_sequence.  A
 *               device reports as its sequence the key value of the last
 *               request it applied on that channel, so a request is applied
 *               once the reported sequence reaches its key.  A new attempt
 *               clears these device records. */
enum { CH_POSITION, CH_POWER, CH_LOCK, CH_COUNT };
typedef struct mslotrec {
    bool gl_known, gl_active;
    int64_t gl_generation;
    double gl_progress;
    uint64_t req_key[CH_COUNT];  /* 0: no request on the channel */
    bool rep_known[CH_COUNT];
    uint64_t rep_seq[CH_COUNT];
} mslotrec;
extern const char *const ms_channel_names[CH_COUNT];

/* ---- the mission ---- */
typedef struct mrecord {
    bool started, faulted, complete, wipe_active;
    char fault[GSVM_MISSION_MAX_ERROR + 1];
    uint32_t phase;
    uint64_t revision, attempt, next_timer_seq, next_key, mission_seq, wipe_key;
    uint64_t event_seq;   /* the events' `sequence` counter (durable, so a reopen continues it) */
    uint64_t clock;
    vmap vars;
    mtimers timers;
} mrecord;

typedef struct mtxn {
    bool active;
    vmap overlay;          /* changed variables (deleted flag for clears) */
    int64_t var_delta;     /* change of the variable count */
    bool timers_copied;
    mtimers timers;        /* copy of rec.timers once written */
    bool phase_set;
    uint32_t phase;
    uint64_t next_timer_seq, next_key;
    bool durable;          /* something durable changed */
    bool completes;
    bool starts;           /* on_start: the commit marks the record started */
    mreq **reqs;
    int nreqs, capreqs;
    int64_t consumed_event; /* store row of the runtime event this callback consumes */
    size_t req_bytes;      /* the argument text of the callback's requests (counted against the arena) */
} mtxn;

typedef struct mdelivery {
    bool active;
    uint64_t t0;        /* first try */
    int answer;
    int stage;          /* 0 commit wait, 1 network queue, 2 cancel requested */
    uint64_t stage_t;
} mdelivery;

/* Limits of the running Lua code. */
typedef struct mlimits {
    size_t arena_used, arena_cap, arena_peak;
    uint64_t used, budget;     /* instruction units charged / allowed */
    bool charging;             /* a budget is active (callback or open) */
    int tripped;               /* 0, or the LIM_* limit that was hit (sticky) */
    /* The allocator refused a block and no allocation succeeded since (Lua
     * retries once after an emergency collection): a LUA_ERRMEM status is
     * the runtime's only while this is set, never because of its text. */
    bool mem_refused;
    uint64_t deadline_ns;      /* wall-clock guard */
    /* The watchdog thread (limits.c) sets wd_fired and the hook to every
     * instruction once deadline_ns passed, so a callback stuck in costly
     * instructions (a compare of two huge strings) stops at the next one. */
    lua_State *L;
    struct mlimits *wd_prev, *wd_next;
    bool wd_listed;
    volatile int wd_fired;
} mlimits;

/* LIM_BURST: the callback asked for more than 1+63 requests (a failed request
 * allocation, which pcall cannot catch either). */
enum { LIM_NONE = 0, LIM_INSTRUCTIONS, LIM_MEMORY, LIM_TIME, LIM_BURST };

typedef struct mstore mstore;

struct gsvm_mission {
    gsvm_mission_config cfg;
    char activity_id[128];
    char sdk_root[1024];
    const gsvm_mission_world *world;
    gsvm_mission_world empty_world;
    char *source;
    size_t source_len;

    mrecord rec;
    mtxn txn;
    mreq **outbox;
    int nout, capout;
    mdelivery dlv;
    mqueue inputs, events;

    /* volatile (not durable) host-side knowledge */
    char (*first_seen)[80];
    int nfirst, capfirst;
    /* An index over first_seen (open addressing; entry i + 1, 0 empty;
     * first_cap a power of two above twice nfirst): a linear search made
     * reports of many distinct slots quadratic (40,000 took 2.6 s of CPU). */
    uint32_t *first_idx;
    uint32_t first_cap;
    int64_t last_region;      /* -1 unknown */
    bool have_fireteam;
    int64_t ft_alive, ft_dead, ft_unknown;
    int64_t *squad_alive;     /* per world squad: -1 unknown */
    mslotrec *slotrec;      /* one per world slot (committed record) */
    char *initial_json;     /* the program's initial_state as JSON, NULL when none */
    bool start_waiting;     /* fresh mission: on_start waits for the initial state */
    bool published;         /* ... which the host has published */
    mevent *inputs_unsaved; /* first input not yet in the store (they form a suffix) */
    uint64_t callbacks;
    bool timer_fired_this_tick;
    bool in_pump;
    size_t gc_mark;       /* arena size after the last collection step */

    lua_State *L;
    /* Lua calls its panic handler for an error outside any protected call
     * (then aborts the process when the handler returns).  The runtime
     * makes every allocation on L inside lua_pcall, and as a second line
     * the handler jumps back here: that mission faults, the process lives. */
    jmp_buf panic_jmp;
    bool panic_armed;
    char panic_text[128];
    /* The events' sequence counter: the store holds a value no sequence
     * handed out exceeds (a block is reserved ahead, so a callback that
     * commits nothing needs no write, and a kill -9 never reuses one). */
    uint64_t seq_stored, seq_reserve;
    bool seq_exact;        /* the next meta write stores the exact counter (close) */
    mlimits lim;
    int ref_start, ref_load, ref_event[EV_COUNT];
    int ref_context, ref_state, ref_objid;
    uint64_t next_objid;
    uint64_t event_gen;   /* generation of the event userdata that is valid */
    const mevent *cur_event;

    mstore *store;
};

/* limits.c */
void *ms_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void ms_limits_begin(gsvm_mission *m, uint64_t budget, uint32_t wall_ms);
void ms_limits_end(gsvm_mission *m);
void ms_charge(lua_State *L, uint64_t units);
void ms_check_tripped(lua_State *L);
int ms_raise_limit(lua_State *L);
const char *ms_limit_message(int which);
gsvm_mission *ms_from_L(lua_State *L);
/* True when a LUA_ERRMEM status is the runtime's own (see mem_refused). */
bool ms_memory_error_is_real(gsvm_mission *m);

/* sandbox.c */
bool ms_sandbox_open(gsvm_mission *m, gsvm_error *err);
void ms_tostring(lua_State *L, int idx); /* pushes a reproducible text of any value */

/* api.c */
void ms_api_register(lua_State *L);
void ms_push_context(lua_State *L, gsvm_mission *m);
void ms_push_state(lua_State *L, gsvm_mission *m);
void ms_push_event(lua_State *L, gsvm_mission *m, const mevent *e);
void ms_push_key(lua_State *L, uint64_t key);

/* txn.c */
void ms_txn_begin(gsvm_mission *m);
void ms_txn_discard(gsvm_mission *m);
gsvm_status ms_txn_commit(gsvm_mission *m, bool force_revision, gsvm_error *err);
const mval *ms_txn_get_var(gsvm_mission *m, const char *name, size_t nlen);
/* Returns 0 ok, 1 capacity exceeded, -1 out of memory. */
int ms_txn_set_var(gsvm_mission *m, const char *name, size_t nlen, const mval *v);
int ms_txn_clear_var(gsvm_mission *m, const char *name, size_t nlen); /* 1 existed, 0 not, -1 oom */
mtimers *ms_txn_timers_w(gsvm_mission *m);
const mtimers *ms_txn_timers_r(const gsvm_mission *m);
uint32_t ms_txn_phase(const gsvm_mission *m);
/* Appends a request to the transaction (owned from now on); false on OOM. */
bool ms_txn_add_request(gsvm_mission *m, mreq *r);
mreq *ms_mreq_new(gsvm_mission *m, int op, const char *call, const char *effect);

/* runtime.c */
void ms_fault(gsvm_mission *m, const char *text);
void ms_install_panic(gsvm_mission *m); /* the state's panic handler (see panic_jmp) */
/* A test hook (test_mission_hostile's test_panic), NULL otherwise: called on
 * the state with the panic handler armed, outside any protected call, just
 * before a callback's lua_pcall.  No path of the runtime raises there (every
 * allocation it makes on the state is inside lua_pcall), so this is how a
 * test proves the second line of defence: an error raised outside any
 * protected call reaches the panic handler, which faults that mission only. */
extern void (*ms_test_unprotected)(lua_State *L);
void ms_input_push(gsvm_mission *m, mevent *e); /* a client report joins the input queue */
/* runtime.c for reports.c: runs queued work until none is left (callbacks as
 * transactions, timers due), runs an on_start that waited for a publish, and
 * finds a world entity of kind `what` by id (its 1-based row; 0 when unknown
 * or ambiguous). */
void ms_pump(gsvm_mission *m);
void ms_run_pending_start(gsvm_mission *m);
int ms_find_id(const gsvm_mission *m, int what, const char *id);
/* Forgets which slots reported first (a new attempt, a reopen). */
void ms_first_clear(gsvm_mission *m);
/* Distinct first reports one mission remembers: a world that declares no
 * slots takes any slot name, so a client could otherwise grow the list (and
 * the store's facts) without end; past it a report is refused. */
#define MS_MAX_FIRST_REPORTS 65536
void ms_inputs_clear(gsvm_mission *m);
bool ms_value_u64(const gsvm_mission_value *v, uint64_t *out);
/* Decimal text of `v` in `out` (at least 21 bytes); returns its length (api_support.c). */
size_t ms_u64_text(uint64_t v, char *out);
/* Puts one stored fact back (ms_store_load); false when it makes no sense. */
bool ms_fact_restore(gsvm_mission *m, const char *name, int64_t value);
void ms_sanitize_error(const char *in, size_t len, char *out);
const wslot *ms_world_slot(const gsvm_mission *m, int row);
int ms_world_find(const gsvm_mission *m, int what, lua_State *L, int idx); /* 0 none */
enum { W_SLOT, W_SQUAD, W_SCENE };

/* delivery.c */
void ms_dlv_step(gsvm_mission *m);   /* progresses the head of the outbox; may finish it */
void ms_dlv_new_attempt(gsvm_mission *m);
uint64_t ms_dlv_next_deadline(const gsvm_mission *m);
gsvm_status ms_dlv_outcome(gsvm_mission *m, uint64_t key, gsvm_mission_outcome o, gsvm_error *err);

/* store.c: the record in a state file.  A mission without one has no
 * store (NULL): every write function is then a no-op returning GSVM_OK and
 * the record in memory is the committed one. */
gsvm_status ms_store_open(mstore **out, const char *path, bool fsync_full, gsvm_error *err);
void ms_store_close(mstore *s);
gsvm_status ms_store_load(mstore *s, gsvm_mission *m, gsvm_error *err);
gsvm_status ms_store_commit(mstore *s, gsvm_mission *m, mevent **new_events, int n_new_events,
                         int64_t consumed_event, const int *slot_rows, int n_slot_rows,
                         gsvm_error *err);
/* Records that the outbox head finished (deleted) and its event queued. */
gsvm_status ms_store_finish_request(mstore *s, gsvm_mission *m, uint64_t key, mevent *ev,
                                 gsvm_error *err);
gsvm_status ms_store_save_meta(mstore *s, gsvm_mission *m, gsvm_error *err);
gsvm_status ms_store_drop_attempt(mstore *s, gsvm_mission *m, gsvm_error *err);
gsvm_status ms_store_delete_event(mstore *s, int64_t id, gsvm_error *err);
gsvm_status ms_store_add_event(mstore *s, mevent *e, gsvm_error *err);
/* Records facts the host learned from reports ("region", "ft.alive", ...,
 * "squad:<row>", "first:<family>/<slot>"), in one transaction. */
gsvm_status ms_store_put_facts(mstore *s, const char *const *names, const int64_t *values, int n,
                               gsvm_error *err);
/* Writes the record of world slot `row` (a report changed it). */
gsvm_status ms_store_put_slot(mstore *s, gsvm_mission *m, int row, gsvm_error *err);
/* Stores `first` and the reports after it in the input queue, in one transaction. */
gsvm_status ms_store_add_inputs(mstore *s, mevent *first, gsvm_error *err);

#endif
