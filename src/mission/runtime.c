/* The mission object: opening (chunk, program, record, on_start/on_load),
 * the work loop that runs callbacks as transactions, client reports, the
 * server clock, reopen and "Reload script". */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

#define GC_FULL_ABOVE ((size_t)48 * 1024 * 1024)
#define GC_STEP_EVERY ((size_t)64 * 1024)

void gsvm_mission_config_init(gsvm_mission_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->activity_id = "activity";
    cfg->role = GSVM_MISSION_PUBLIC;
    cfg->max_variables = GSVM_MISSION_MAX_VARIABLES;
    cfg->callback_budget = GSVM_MISSION_CALLBACK_BUDGET;
    cfg->open_budget = GSVM_MISSION_OPEN_BUDGET;
    cfg->arena_bytes = GSVM_MISSION_ARENA_BYTES;
    cfg->callback_wall_ms = 1000;
    cfg->open_wall_ms = 20000;
    cfg->commit_wait_ms = GSVM_MISSION_COMMIT_WAIT_MS;
    cfg->network_wait_ms = GSVM_MISSION_NETWORK_WAIT_MS;
    cfg->cancel_wait_ms = GSVM_MISSION_CANCEL_WAIT_MS;
    cfg->expire_ms = GSVM_MISSION_EXPIRE_MS;
}

/* Error text: at most 255 characters, '"' becomes '\'', CR LF TAB become spaces. */
void ms_sanitize_error(const char *in, size_t len, char *out)
{
    size_t n = len > GSVM_MISSION_MAX_ERROR ? GSVM_MISSION_MAX_ERROR : len;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '"')
            c = '\'';
        else if (c == '\r' || c == '\n' || c == '\t')
            c = ' ';
        else if (c == 0)
            c = ' ';
        out[i] = c;
    }
    out[n] = 0;
}

void ms_fault(gsvm_mission *m, const char *text)
{
    gsvm_error err;
    ms_sanitize_error(text, strlen(text), m->rec.fault);
    m->rec.faulted = true;
    ms_store_save_meta(m->store, m, &err);
    if (m->cfg.host.fault)
        m->cfg.host.fault(m->cfg.host.ud, m->rec.fault);
}

const wslot *ms_world_slot(const gsvm_mission *m, int row)
{
    return row >= 1 && row <= m->world->nslots ? &m->world->slots[row - 1] : NULL;
}

/* Resolves a selector (1-based row or id string) to a row; 0 when unknown or
 * ambiguous. */
static int find_id(const gsvm_mission *m, int what, const char *id)
{
    const gsvm_mission_world *w = m->world;
    int n = what == W_SLOT ? w->nslots : what == W_SQUAD ? w->nsquads : w->nscenes, found = 0;
    for (int i = 0; i < n; i++) {
        const char *cand = what == W_SLOT ? w->slots[i].id : what == W_SQUAD ? w->squads[i].id : w->scenes[i].id;
        if (strcmp(cand, id) == 0) {
            if (found)
                return 0;
            found = i + 1;
        }
    }
    return found;
}

int ms_world_find(const gsvm_mission *m, int what, lua_State *L, int idx)
{
    const gsvm_mission_world *w = m->world;
    int n = what == W_SLOT ? w->nslots : what == W_SQUAD ? w->nsquads : w->nscenes;
    if (lua_type(L, idx) == LUA_TNUMBER) {
        int isnum;
        lua_Integer row = lua_tointegerx(L, idx, &isnum);
        return isnum && row >= 1 && row <= n ? (int)row : 0;
    }
    if (lua_type(L, idx) == LUA_TSTRING)
        return find_id(m, what, lua_tostring(L, idx));
    return 0;
}

/* ---- error text of a failed call (never runs script code) ---- */
static void error_text(lua_State *L, int status, char *out, size_t size)
{
    gsvm_mission *m = ms_from_L(L);
    if (m->lim.tripped) {
        snprintf(out, size, "%s", ms_limit_message(m->lim.tripped));
        return;
    }
    if (status == LUA_ERRMEM) {
        snprintf(out, size, "not enough memory");
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, -1, &n);
        if (n >= size)
            n = size - 1;
        memcpy(out, s, n);
        out[n] = 0;
        return;
    }
    case LUA_TNUMBER:
        if (lua_isinteger(L, -1))
            snprintf(out, size, "%lld", (long long)lua_tointeger(L, -1));
        else
            snprintf(out, size, "%.14g", (double)lua_tonumber(L, -1));
        return;
    default:
        snprintf(out, size, "(error object is a %s value)", luaL_typename(L, -1));
    }
}

/* ---- the input queue ----
 * Client reports wait here while the start, a delivery or earlier reports
 * hold them back.  A report that waits is in the store (events table, queue
 * 1) by the time gsvm_mission_report returns, so a killed process delivers it
 * after the reopen; one that runs at once is never written.  The unsaved
 * reports always form the tail of the queue. */
void ms_input_push(gsvm_mission *m, mevent *e)
{
    e->input = true;
    ms_mqueue_push(&m->inputs, e);
    if (!e->db_id && !m->inputs_unsaved)
        m->inputs_unsaved = e;
}

static mevent *input_pop(gsvm_mission *m)
{
    mevent *next = m->inputs.head ? m->inputs.head->next : NULL;
    mevent *e = ms_mqueue_pop(&m->inputs);
    if (e && e == m->inputs_unsaved)
        m->inputs_unsaved = next;
    return e;
}

void ms_inputs_clear(gsvm_mission *m)
{
    ms_mqueue_clear(&m->inputs);
    m->inputs_unsaved = NULL;
}

static void inputs_persist(gsvm_mission *m)
{
    if (!m->inputs_unsaved || !m->store)
        return;
    gsvm_error err;
    if (ms_store_add_inputs(m->store, m->inputs_unsaved, &err) != GSVM_OK) {
        ms_fault(m, err.message);
        return;
    }
    m->inputs_unsaved = NULL;
}

static void gc_between_callbacks(gsvm_mission *m, size_t *last)
{
    if (m->lim.arena_used > GC_FULL_ABOVE) {
        lua_gc(m->L, LUA_GCCOLLECT);
        *last = m->lim.arena_used;
    } else if (m->lim.arena_used > *last + GC_STEP_EVERY) {
        lua_gc(m->L, LUA_GCSTEP, 64);
        *last = m->lim.arena_used;
    }
}


/* ---- callbacks ---- */

typedef void (*txn_prep)(gsvm_mission *m, void *ud);

typedef struct cb_call {
    int ref;
    const mevent *ev;
} cb_call;

/* Runs inside lua_pcall: everything the runtime allocates on the state for a
 * callback (the event handle) is allocated here, protected, so a full arena
 * faults the mission instead of reaching Lua's panic. */
static int call_callback(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    const cb_call *c = lua_touserdata(L, 1);
    int ref = c->ref;
    const mevent *ev = c->ev;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    ms_push_context(L, m);
    ms_push_state(L, m);
    int nargs = 2;
    if (ev) {
        ms_push_event(L, m, ev);
        nargs = 3;
    }
    lua_call(L, nargs, 0);
    return 0;
}

static int on_panic(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "error object is not a string";
    snprintf(m->panic_text, sizeof m->panic_text, "%s", msg);
    if (m->panic_armed)
        longjmp(m->panic_jmp, 1);
    return 0; /* unreachable while the runtime holds every call protected */
}

void ms_install_panic(gsvm_mission *m)
{
    lua_atpanic(m->L, on_panic);
}

void (*ms_test_unprotected)(lua_State *L);

/* lua_pcall of `f` with a light userdata argument and the `nvals` values on
 * top of the stack, armed against a panic: returns the status, or -1 when
 * Lua panicked (the state is then closed: nothing may touch it again). */
static int guarded_pcall(gsvm_mission *m, lua_CFunction f, void *arg, int nvals)
{
    lua_State *L = m->L;
    if (setjmp(m->panic_jmp)) {
        m->panic_armed = false;
        ms_limits_end(m);
        lua_close(m->L);
        m->L = NULL;
        return -1;
    }
    m->panic_armed = true;
    if (ms_test_unprotected)
        ms_test_unprotected(L);
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, arg);
    lua_rotate(L, -(nvals + 2), 2);
    int st = lua_pcall(L, nvals + 1, 0, 0);
    m->panic_armed = false;
    return st;
}

/* Runs one callback as a transaction.  `ref` may be LUA_NOREF (no handler):
 * the transaction still commits what `prep` staged. */
static void run_callback(gsvm_mission *m, int ref, const mevent *ev, bool on_start,
                         int64_t consumed, txn_prep prep, void *ud)
{
    gsvm_error err;
    ms_txn_begin(m);
    m->txn.consumed_event = consumed;
    m->txn.starts = on_start;
    if (prep)
        prep(m, ud);
    if (ref != LUA_NOREF && m->L) {
        m->event_gen++;
        m->cur_event = ev;
        m->callbacks++;
        ms_limits_begin(m, m->cfg.callback_budget, m->cfg.callback_wall_ms);
        cb_call call = {ref, ev};
        lua_settop(m->L, 0);
        int st = guarded_pcall(m, call_callback, &call, 0);
        if (st < 0) {
            m->cur_event = NULL;
            ms_txn_discard(m);
            if (consumed)
                ms_store_delete_event(m->store, consumed, &err);
            char text[200];
            snprintf(text, sizeof text, "mission Lua state panicked: %s", m->panic_text);
            ms_fault(m, text);
            return;
        }
        lua_State *L = m->L;
        bool failed = st != LUA_OK || m->lim.tripped;
        char text[GSVM_MISSION_MAX_ERROR + 64];
        if (failed)
            error_text(L, st, text, sizeof text);
        ms_limits_end(m);
        m->lim.tripped = LIM_NONE;
        m->cur_event = NULL;
        m->event_gen++;
        lua_settop(L, 0);
        /* The collector runs only between callbacks. */
        gc_between_callbacks(m, &m->gc_mark);
        if (failed) {
            ms_txn_discard(m);
            /* The event that faulted is consumed: a reload does not replay it. */
            if (consumed)
                ms_store_delete_event(m->store, consumed, &err);
            ms_fault(m, text);
            lua_gc(L, LUA_GCCOLLECT);
            return;
        }
    }
    if (ms_txn_commit(m, on_start, &err) != GSVM_OK) {
        ms_fault(m, err.message);
        return;
    }
}

/* The next value of the events' sequence (and of mission_sequence, which
 * moves with it) as text.  When it passes what the store holds, a block of
 * SEQ_BLOCK numbers is reserved there first, so callbacks that commit
 * nothing write nothing and a process killed at any moment never hands out
 * a number twice: after a kill -9 the sequence goes on above the block. */
#define SEQ_BLOCK 1024u

static void next_event_seq(gsvm_mission *m, char *seq, char *mseq)
{
    uint64_t n = ++m->rec.event_seq;
    m->rec.mission_seq++;
    if (m->store && n > m->seq_stored) {
        gsvm_error err;
        m->seq_reserve = n + SEQ_BLOCK - 1;
        gsvm_status st = ms_store_save_meta(m->store, m, &err);
        m->seq_reserve = 0;
        if (st != GSVM_OK)
            ms_fault(m, err.message);
    }
    ms_u64_text(n, seq);
    ms_u64_text(m->rec.mission_seq, mseq);
}

static void dispatch(gsvm_mission *m, mevent *e)
{
    gsvm_error err;
    if (e->attempt && e->attempt < m->rec.attempt) {
        if (e->db_id)
            ms_store_delete_event(m->store, e->db_id, &err);
        ms_mevent_free(e);
        return;
    }
    int ref = m->ref_event[e->kind];
    if (ref == LUA_NOREF) {
        if (e->db_id)
            ms_store_delete_event(m->store, e->db_id, &err);
        ms_mevent_free(e);
        return;
    }
    char buf[24], mseq[24];
    next_event_seq(m, buf, mseq);
    if (m->rec.faulted) {
        if (e->db_id)
            ms_store_delete_event(m->store, e->db_id, &err);
        ms_mevent_free(e);
        return;
    }
    ms_mevent_set_str(e, "sequence", buf, strlen(buf));
    ms_mevent_set_str(e, "source_generation", buf, ms_u64_text(e->source_generation, buf));
    ms_mevent_set_str(e, "attempt_generation", buf, ms_u64_text(m->rec.attempt, buf));
    if (e->kind != EV_scriptable_override_transport_staged)
        ms_mevent_set_str(e, "mission_sequence", mseq, strlen(mseq));
    run_callback(m, ref, e, false, e->db_id, NULL, NULL);
    ms_mevent_free(e);
}

typedef struct timer_fire {
    mtimer t;
} timer_fire;

static void remove_timer(gsvm_mission *m, void *ud)
{
    timer_fire *tf = ud;
    ms_timers_remove(ms_txn_timers_w(m), tf->t.name);
}

static void fire_timer(gsvm_mission *m, int i)
{
    timer_fire tf = {m->rec.timers.t[i]};
    mevent *e = ms_mevent_new(EV_timer_elapsed);
    if (!e) {
        ms_fault(m, "not enough memory");
        return;
    }
    char buf[24];
    ms_mevent_set_str(e, "timer_name", tf.t.name, strlen(tf.t.name));
    ms_mevent_set_str(e, "timer_deadline_tick", buf, ms_u64_text(tf.t.deadline, buf));
    ms_mevent_set_str(e, "timer_sequence", buf, ms_u64_text(tf.t.seq, buf));
    e->attempt = m->rec.attempt;
    int ref = m->ref_event[EV_timer_elapsed];
    if (ref != LUA_NOREF) {
        char mseq[24];
        next_event_seq(m, buf, mseq);
        ms_mevent_set_str(e, "sequence", buf, strlen(buf));
        ms_mevent_set_str(e, "source_generation", "1", 1);
        ms_mevent_set_str(e, "attempt_generation", buf, ms_u64_text(m->rec.attempt, buf));
        ms_mevent_set_str(e, "mission_sequence", mseq, strlen(mseq));
    }
    /* The timer is removed before the handler runs, even without a handler. */
    run_callback(m, ref, e, false, 0, remove_timer, &tf);
    ms_mevent_free(e);
}

/* Runs everything that can run now, in the tick order: delivery of the
 * outbox, client inputs, one timer per tick, queued events. */
static void pump(gsvm_mission *m)
{
    if (m->in_pump || !m->L)
        return;
    m->in_pump = true;
    /* A callback may raise the event that runs the next one (set_phase in
     * on_event_phase_entered, a request in on_event_effect_result): past
     * the per-tick bound the rest waits for the next tick (next_wake). */
    uint64_t first_callback = m->callbacks;
    while (!m->rec.faulted && m->rec.started &&
           m->callbacks - first_callback < GSVM_MISSION_CALLBACKS_PER_TICK) {
        if (m->nout > 0) {
            ms_dlv_step(m);
            if (m->dlv.active || m->rec.faulted)
                break;
            continue;
        }
        mevent *e = input_pop(m);
        if (e) {
            dispatch(m, e);
            continue;
        }
        if (!m->timer_fired_this_tick) {
            int i = ms_timers_due(&m->rec.timers, m->rec.clock);
            if (i >= 0) {
                m->timer_fired_this_tick = true;
                fire_timer(m, i);
                continue;
            }
        }
        e = ms_mqueue_pop(&m->events);
        if (e) {
            dispatch(m, e);
            continue;
        }
        break;
    }
    if (m->L)
        gc_between_callbacks(m, &m->gc_mark);
    inputs_persist(m);
    m->in_pump = false;
}

/* ---- opening ---- */

static const char *const entry_names[] = {"on_start", "on_load"};

static gsvm_status capture_program(gsvm_mission *m, gsvm_error *err)
{
    lua_State *L = m->L;
    int prog = lua_gettop(L);
    /* initial_state: nil or {region_index=int 0..INT32_MAX, spawn_set_hash, omit} (rawget). */
    /* Runs inside lua_pcall (capture_tramp): a failed allocation raises. */
    lua_pushliteral(L, "initial_state");
    int t = lua_rawget(L, prog);
    free(m->initial_json);
    m->initial_json = NULL;
    if (t != LUA_TNIL) {
        bool ok = t == LUA_TTABLE;
        json_t *o = json_object();
        if (ok) {
            lua_pushliteral(L, "region_index");
            lua_rawget(L, -2);
            int isnum = 0;
            lua_Integer r = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
            ok = isnum && r >= 0 && r <= INT32_MAX;
            json_object_set_new(o, "region_index", json_integer(r));
            lua_pop(L, 1);
            lua_pushliteral(L, "spawn_set_hash");
            int ht = lua_rawget(L, -2);
            if (ht != LUA_TNIL) {
                lua_Integer h = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
                ok = ok && isnum && h >= 1 && h <= 0xFFFFFFFFll;
                json_object_set_new(o, "spawn_set_hash", json_integer(h));
            }
            lua_pop(L, 1);
            lua_pushliteral(L, "omit");
            int ot = lua_rawget(L, -2);
            if (ot != LUA_TNIL) {
                /* A list of at most 32 slot selectors (1-based rows or ids). */
                ok = ok && ot == LUA_TTABLE && lua_rawlen(L, -1) <= 32;
                json_t *omit = json_array();
                for (lua_Integer i = 1; ok && i <= (lua_Integer)lua_rawlen(L, -1); i++) {
                    int et = lua_rawgeti(L, -1, i);
                    if (et == LUA_TNUMBER && lua_isinteger(L, -1))
                        json_array_append_new(omit, json_integer(lua_tointeger(L, -1)));
                    else if (et == LUA_TSTRING)
                        json_array_append_new(omit, json_string(lua_tostring(L, -1)));
                    else
                        ok = false;
                    lua_pop(L, 1);
                }
                json_object_set_new(o, "omit", omit);
            }
            lua_pop(L, 1);
        }
        if (ok)
            m->initial_json = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        if (!ok)
            return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                                  "initial_state must be a generated state with an integer region_index");
        if (!m->initial_json)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    }
    lua_pop(L, 1);
    int *refs[] = {&m->ref_start, &m->ref_load};
    for (int i = 0; i < 2; i++) {
        lua_pushstring(L, entry_names[i]);
        t = lua_rawget(L, prog);
        if (t != LUA_TNIL && t != LUA_TFUNCTION)
            return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                                  "mission entries must be functions or nil");
        *refs[i] = t == LUA_TFUNCTION ? luaL_ref(L, LUA_REGISTRYINDEX) : (lua_pop(L, 1), LUA_NOREF);
    }
    lua_pushliteral(L, "on_event");
    if (lua_rawget(L, prog) != LUA_TNIL)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                              "on_event is unsupported; use one on_event_<type> callback");
    lua_pop(L, 1);
    for (int k = 0; k < EV_COUNT; k++) {
        char name[64];
        snprintf(name, sizeof name, "on_event_%s", gsvm_mission_event_name(k));
        lua_pushstring(L, name);
        t = lua_rawget(L, prog);
        if (t != LUA_TNIL && t != LUA_TFUNCTION)
            return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                                  "mission event entries must be functions or nil");
        /* Kinds that never reach a script get no handler at all. */
        if (t == LUA_TFUNCTION && ms_event_reaches_script(k))
            m->ref_event[k] = luaL_ref(L, LUA_REGISTRYINDEX);
        else
            lua_pop(L, 1);
    }
    return GSVM_OK;
}

typedef struct cap_call {
    gsvm_error *err;
    gsvm_status st;
} cap_call;

static int capture_tramp(lua_State *L)
{
    cap_call *c = lua_touserdata(L, 1);
    lua_remove(L, 1); /* the program table alone */
    c->st = capture_program(ms_from_L(L), c->err);
    return 0;
}

/* Runs the compiled chunk (below it on the stack) and returns all it returns. */
static int run_chunk(lua_State *L)
{
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L);
}

static gsvm_status open_lua(gsvm_mission *m, gsvm_error *err)
{
    m->ref_start = m->ref_load = LUA_NOREF;
    for (int k = 0; k < EV_COUNT; k++)
        m->ref_event[k] = LUA_NOREF;
    m->next_objid = 0;
    if (!ms_sandbox_open(m, err))
        return err->status;
    lua_State *L = m->L;
    int st = luaL_loadbufferx(L, m->source, m->source_len, m->activity_id, "t");
    if (st != LUA_OK) {
        gsvm_status s = gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id, "%s",
                                       st == LUA_ERRMEM ? "not enough memory" : lua_tostring(L, -1));
        return s;
    }
    /* The top-level code runs under the opening budget; require happens here. */
    lua_pushcfunction(L, run_chunk);
    lua_insert(L, -2);
    ms_limits_begin(m, m->cfg.open_budget, m->cfg.open_wall_ms);
    st = lua_pcall(L, 1, LUA_MULTRET, 0);
    int tripped = m->lim.tripped;
    ms_limits_end(m);
    m->lim.tripped = LIM_NONE;
    if (st != LUA_OK || tripped) {
        char text[512];
        m->lim.tripped = tripped;
        error_text(L, st, text, sizeof text);
        m->lim.tripped = LIM_NONE;
        return gsvm_error_set(err, tripped == LIM_INSTRUCTIONS || tripped == LIM_TIME ? GSVM_ERR_LIMIT : GSVM_ERR_INPUT,
                              m->activity_id, "%s", text);
    }
    if (lua_gettop(L) < 1 || !lua_istable(L, 1))
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                              "mission chunk must return one program table");
    /* Capturing allocates (names, references): protected too. */
    lua_settop(L, 1);
    cap_call cap = {err, GSVM_OK};
    st = guarded_pcall(m, capture_tramp, &cap, 1);
    if (st < 0)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "mission Lua state panicked: %s", m->panic_text);
    gsvm_status s = st == LUA_OK ? cap.st
                                 : gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "not enough memory");
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT);
    m->gc_mark = m->lim.arena_used;
    return s;
}

static void close_lua(gsvm_mission *m)
{
    if (m->L) {
        lua_close(m->L);
        m->L = NULL;
    }
}

static void free_volatile(gsvm_mission *m)
{
    for (int i = 0; i < m->nout; i++)
        ms_mreq_free(m->outbox[i]);
    m->nout = 0;
    ms_mqueue_clear(&m->events);
    ms_inputs_clear(m); /* the store has every report that waits */
    /* ... and what the reports told (facts) */
    ms_first_clear(m);
    m->last_region = -1;
    m->have_fireteam = false;
    m->ft_alive = m->ft_dead = m->ft_unknown = 0;
    for (int i = 0; m->squad_alive && i < m->world->nsquads; i++)
        m->squad_alive[i] = -1;
    if (m->slotrec)
        memset(m->slotrec, 0, (size_t)m->world->nslots * sizeof *m->slotrec);
    ms_vmap_free(&m->rec.vars);
    memset(&m->rec, 0, sizeof m->rec);
    memset(&m->dlv, 0, sizeof m->dlv);
}

/* A fresh record (what a new state file holds, store.c's schema). */
static void fresh_record(gsvm_mission *m)
{
    free_volatile(m);
    m->rec.attempt = 1;
    m->rec.next_timer_seq = 1;
    m->rec.next_key = 1;
}

/* Restores the record, builds the Lua state and runs on_load or on_start.
 * With a state file the record is read back from it (the store is the
 * committed record); without one the record in memory is, and a reopen
 * (`reopen` true) keeps it as it is: every commit applied it there. */
static gsvm_status start(gsvm_mission *m, bool reopen, gsvm_error *err)
{
    gsvm_status st = GSVM_OK;
    if (m->store) {
        free_volatile(m);
        st = ms_store_load(m->store, m, err);
    } else if (!reopen) {
        fresh_record(m);
    }
    if (st != GSVM_OK)
        return st;
    st = open_lua(m, err);
    if (st != GSVM_OK) {
        close_lua(m);
        m->ref_start = m->ref_load = LUA_NOREF;
        for (int k = 0; k < EV_COUNT; k++)
            m->ref_event[k] = LUA_NOREF;
        return st;
    }
    m->timer_fired_this_tick = true; /* timers wait for the next tick */
    if (m->rec.faulted) {
        /* Reopening a faulted record faults again; only Reload script clears it. */
        if (m->cfg.host.fault)
            m->cfg.host.fault(m->cfg.host.ud, m->rec.fault);
        return GSVM_OK;
    }
    m->start_waiting = m->published = false;
    if (m->rec.started) {
        run_callback(m, m->ref_load, NULL, false, 0, NULL, NULL);
    } else if (m->initial_json) {
        /* Select the initial state and wait until it is published: on_start
         * runs on the first tick after that, and until then events and
         * timers wait (pump runs nothing before the start). */
        gsvm_mission_answer a = GSVM_MISSION_ACCEPT;
        if (m->cfg.host.initial_state)
            a = m->cfg.host.initial_state(m->cfg.host.ud, m->initial_json);
        m->start_waiting = true;
        m->published = a != GSVM_MISSION_UNPUBLISHED;
    } else {
        run_callback(m, m->ref_start, NULL, true, 0, NULL, NULL);
    }
    pump(m);
    return GSVM_OK;
}

/* The "pending starts" step of a tick: on_start once the initial state is
 * published; then the reports that waited are delivered (by pump). */
static void run_pending_start(gsvm_mission *m)
{
    if (!m->L || !m->start_waiting || !m->published || m->rec.started || m->rec.faulted)
        return;
    m->start_waiting = false;
    run_callback(m, m->ref_start, NULL, true, 0, NULL, NULL);
}

gsvm_status gsvm_mission_publish(gsvm_mission *m, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (m->start_waiting)
        m->published = true;
    return GSVM_OK;
}

bool gsvm_mission_start_pending(const gsvm_mission *m) { return m->start_waiting; }
size_t gsvm_mission_waiting_reports(const gsvm_mission *m) { return m->inputs.n; }

gsvm_status gsvm_mission_open(const gsvm_mission_config *cfg, const char *source, size_t len,
                              gsvm_mission **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    *out = NULL;
    gsvm_mission_config c = *cfg;
    const char *id = c.activity_id && c.activity_id[0] ? c.activity_id : "activity";
    if (!source || len == 0 || len > GSVM_MISSION_MAX_SOURCE)
        return gsvm_error_set(err, GSVM_ERR_INPUT, id, "source_too_large: a script is 1 to %u bytes",
                              GSVM_MISSION_MAX_SOURCE);
    gsvm_mission *m = calloc(1, sizeof *m);
    if (!m)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, id, "out of memory");
    snprintf(m->activity_id, sizeof m->activity_id, "%s", id);
    if (c.sdk_root)
        snprintf(m->sdk_root, sizeof m->sdk_root, "%s", c.sdk_root);
    if (!c.max_variables)
        c.max_variables = GSVM_MISSION_MAX_VARIABLES;
    if (!c.callback_budget)
        c.callback_budget = GSVM_MISSION_CALLBACK_BUDGET;
    if (!c.open_budget)
        c.open_budget = GSVM_MISSION_OPEN_BUDGET;
    if (!c.arena_bytes)
        c.arena_bytes = GSVM_MISSION_ARENA_BYTES;
    if (!c.commit_wait_ms)
        c.commit_wait_ms = GSVM_MISSION_COMMIT_WAIT_MS;
    if (!c.network_wait_ms)
        c.network_wait_ms = GSVM_MISSION_NETWORK_WAIT_MS;
    if (!c.cancel_wait_ms)
        c.cancel_wait_ms = GSVM_MISSION_CANCEL_WAIT_MS;
    if (!c.expire_ms)
        c.expire_ms = GSVM_MISSION_EXPIRE_MS;
    m->world = c.world ? c.world : &m->empty_world;
    if (!c.tick_ms)
        c.tick_ms = m->world->tick_ms ? m->world->tick_ms : 50;
    c.activity_id = m->activity_id;
    c.sdk_root = m->sdk_root;
    m->cfg = c;
    m->lim.arena_cap = c.arena_bytes;
    m->last_region = -1;
    if (m->world->nsquads) {
        m->squad_alive = malloc((size_t)m->world->nsquads * sizeof *m->squad_alive);
        if (!m->squad_alive) {
            free(m);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, id, "out of memory");
        }
        for (int i = 0; i < m->world->nsquads; i++)
            m->squad_alive[i] = -1;
    }
    if (m->world->nslots) {
        m->slotrec = calloc((size_t)m->world->nslots, sizeof *m->slotrec);
        if (!m->slotrec) {
            gsvm_mission_close(m);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, id, "out of memory");
        }
    }
    m->source = malloc(len);
    if (!m->source) {
        gsvm_mission_close(m);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, id, "out of memory");
    }
    memcpy(m->source, source, len);
    m->source_len = len;
    gsvm_status st = c.state_path ? ms_store_open(&m->store, c.state_path, c.durable_fsync, err) : GSVM_OK;
    if (st == GSVM_OK)
        st = start(m, false, err);
    if (st != GSVM_OK) {
        gsvm_mission_close(m);
        return st;
    }
    *out = m;
    return GSVM_OK;
}

void gsvm_mission_close(gsvm_mission *m)
{
    if (!m)
        return;
    gsvm_error err;
    if (m->store && m->L) {
        m->seq_exact = true; /* a clean stop keeps the exact sequence */
        ms_store_save_meta(m->store, m, &err); /* the clock */
    }
    close_lua(m);
    ms_txn_discard(m);
    ms_vmap_free(&m->txn.overlay);
    free(m->txn.reqs);
    free_volatile(m);
    free(m->outbox);
    ms_inputs_clear(m);
    ms_store_close(m->store);
    free(m->first_seen);
    free(m->first_idx);
    free(m->squad_alive);
    free(m->initial_json);
    free(m->slotrec);
    free(m->source);
    free(m);
}

gsvm_status gsvm_mission_reopen(gsvm_mission *m, gsvm_error *err)
{
    gsvm_error_clear(err);
    m->seq_exact = true;
    gsvm_status st = ms_store_save_meta(m->store, m, err);
    m->seq_exact = false;
    if (st != GSVM_OK)
        return st;
    close_lua(m);
    return start(m, true, err);
}

gsvm_status gsvm_mission_reload_script(gsvm_mission *m, const char *source, size_t len,
                                       gsvm_error *err)
{
    gsvm_error_clear(err);
    if (source) {
        if (len == 0 || len > GSVM_MISSION_MAX_SOURCE)
            return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                                  "source_too_large: a script is 1 to %u bytes", GSVM_MISSION_MAX_SOURCE);
        char *copy = malloc(len);
        if (!copy)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
        memcpy(copy, source, len);
        free(m->source);
        m->source = copy;
        m->source_len = len;
    }
    m->rec.faulted = false;
    m->rec.fault[0] = 0;
    m->seq_exact = true;
    gsvm_status st = ms_store_save_meta(m->store, m, err);
    m->seq_exact = false;
    if (st != GSVM_OK)
        return st;
    close_lua(m);
    return start(m, true, err);
}

/* ---- reports ----
 * What the host learns from reports whether or not a handler runs (the last
 * region, the fireteam counts, squad populations, which slots reported
 * first) is kept in the store's `facts` table as it arrives, so a killed
 * process judges a checkpoint or a first report after its reopen exactly as
 * it would have before. */

static uint32_t first_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of `key` in first_idx: the entry holding it, or the empty one
 * where it would go (first_cap > 0). */
static uint32_t *first_slot(const gsvm_mission *m, const char *key)
{
    uint32_t mask = m->first_cap - 1, i = first_hash(key) & mask;
    while (m->first_idx[i] && strcmp(m->first_seen[m->first_idx[i] - 1], key) != 0)
        i = (i + 1) & mask;
    return &m->first_idx[i];
}

static bool first_known(const gsvm_mission *m, const char *key)
{
    return m->first_cap && *first_slot(m, key) != 0;
}

void ms_first_clear(gsvm_mission *m)
{
    m->nfirst = 0;
    if (m->first_idx)
        memset(m->first_idx, 0, m->first_cap * sizeof *m->first_idx);
}

static bool remember_first(gsvm_mission *m, const char *key)
{
    if (m->nfirst >= MS_MAX_FIRST_REPORTS)
        return false;
    if ((uint32_t)(m->nfirst + 1) * 2 > m->first_cap) {
        uint32_t nc = m->first_cap ? m->first_cap * 2 : 64;
        uint32_t *idx = calloc(nc, sizeof *idx);
        if (!idx)
            return false;
        free(m->first_idx);
        m->first_idx = idx;
        m->first_cap = nc;
        for (int i = 0; i < m->nfirst; i++)
            *first_slot(m, m->first_seen[i]) = (uint32_t)i + 1;
    }
    if (m->nfirst == m->capfirst) {
        int nc = m->capfirst ? m->capfirst * 2 : 32;
        char(*n)[80] = realloc(m->first_seen, (size_t)nc * sizeof *n);
        if (!n)
            return false;
        m->first_seen = n;
        m->capfirst = nc;
    }
    snprintf(m->first_seen[m->nfirst], sizeof m->first_seen[0], "%s", key);
    *first_slot(m, m->first_seen[m->nfirst]) = (uint32_t)m->nfirst + 1;
    m->nfirst++;
    return true;
}

static gsvm_status put_facts(gsvm_mission *m, const char *const *names, const int64_t *values, int n,
                             gsvm_error *err)
{
    gsvm_error serr;
    if (ms_store_put_facts(m->store, names, values, n, &serr) != GSVM_OK)
        return gsvm_error_set(err, serr.status, m->activity_id, "%s", serr.message);
    return GSVM_OK;
}

/* True (and recorded) when this is the slot's first report of the family. */
static gsvm_status first_report(gsvm_mission *m, const char *family, const char *slot, bool *first,
                                gsvm_error *err)
{
    char key[80];
    snprintf(key, sizeof key, "%s/%s", family, slot);
    *first = false;
    if (first_known(m, key))
        return GSVM_OK;
    if (m->nfirst >= MS_MAX_FIRST_REPORTS)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                              "more than %d slots made a first report (a world without declared slots"
                              " takes any slot name)",
                              MS_MAX_FIRST_REPORTS);
    if (!remember_first(m, key))
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    *first = true;
    char name[96];
    snprintf(name, sizeof name, "first:%s", key);
    const char *names[] = {name};
    const int64_t one[] = {1};
    return put_facts(m, names, one, 1, err);
}

bool ms_fact_restore(gsvm_mission *m, const char *name, int64_t value)
{
    if (strcmp(name, "region") == 0)
        m->last_region = value;
    else if (strcmp(name, "ft.have") == 0)
        m->have_fireteam = value != 0;
    else if (strcmp(name, "ft.alive") == 0)
        m->ft_alive = value;
    else if (strcmp(name, "ft.dead") == 0)
        m->ft_dead = value;
    else if (strcmp(name, "ft.unknown") == 0)
        m->ft_unknown = value;
    else if (strncmp(name, "squad:", 6) == 0) {
        long row = strtol(name + 6, NULL, 10);
        if (m->squad_alive && row >= 1 && row <= m->world->nsquads)
            m->squad_alive[row - 1] = value; /* a squad the world no longer has is ignored */
    } else if (strncmp(name, "first:", 6) == 0 && strlen(name + 6) < 80) {
        return remember_first(m, name + 6);
    } else {
        return false;
    }
    return true;
}

static bool field_int(const gsvm_mission_field *f, size_t n, const char *name, int64_t *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0 && f[i].value.type == GSVM_MV_INT) {
            *out = f[i].value.i;
            return true;
        }
    return false;
}

static const gsvm_mission_value *field_get(const gsvm_mission_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i].value;
    return NULL;
}

/* A non-negative integer, or a decimal string of one (sequences travel as both). */
bool ms_value_u64(const gsvm_mission_value *v, uint64_t *out)
{
    if (!v)
        return false;
    if (v->type == GSVM_MV_INT && v->i >= 0) {
        *out = (uint64_t)v->i;
        return true;
    }
    if (v->type != GSVM_MV_STR || !v->s || v->len < 1 || v->len > 20)
        return false;
    uint64_t r = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (v->s[i] < '0' || v->s[i] > '9')
            return false;
        uint64_t d = (uint64_t)(v->s[i] - '0');
        if (r > (UINT64_MAX - d) / 10)
            return false;
        r = r * 10 + d;
    }
    *out = r;
    return true;
}
#define value_u64 ms_value_u64

static int resolve_selector(const gsvm_mission *m, int what, const gsvm_mission_value *v)
{
    const gsvm_mission_world *w = m->world;
    int n = what == W_SLOT ? w->nslots : what == W_SQUAD ? w->nsquads : w->nscenes;
    if (!v)
        return 0;
    if (v->type == GSVM_MV_INT)
        return v->i >= 1 && v->i <= n ? (int)v->i : 0;
    if (v->type == GSVM_MV_STR && v->s && memchr(v->s, 0, v->len) == NULL && v->len < 64) {
        char id[64];
        memcpy(id, v->s, v->len);
        id[v->len] = 0;
        return find_id(m, what, id);
    }
    return 0;
}

/* A report about a slot the world does not have is the host's mistake:
 * refused, never delivered as a report about no slot. */
static gsvm_status slot_error(const gsvm_mission *m, const gsvm_mission_value *slotv, gsvm_error *err)
{
    if (slotv->type == GSVM_MV_STR)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id, "unknown slot '%.*s'",
                              (int)(slotv->len < 64 ? slotv->len : 64), slotv->s ? slotv->s : "");
    if (slotv->type == GSVM_MV_INT)
        return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                              "unknown slot row %lld (the world has %d slots)", (long long)slotv->i,
                              m->world->nslots);
    return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                          "slot must be a 1-based row (an integer) or a slot id (a string)");
}

/* A world without slots names none: there a selector (an integer or a
 * string) only tells reports apart (first reports); a world that declares
 * slots must know it.  Any other type (slot=2.5, true) is always refused. */
static bool slot_selector_ok(const gsvm_mission *m, const gsvm_mission_value *v)
{
    if (v->type == GSVM_MV_NIL)
        return true;
    return m->world->nslots == 0 && (v->type == GSVM_MV_INT || v->type == GSVM_MV_STR);
}

/* A report's fields, checked before any of it is used: at most 256, each
 * named by 1..39 bytes (a longer name was dropped without a word, so the
 * script saw a different report than the client sent). */
static gsvm_status fields_check(const gsvm_mission *m, const gsvm_mission_field *fields, size_t nfields,
                                gsvm_error *err)
{
    if (nfields > 256)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "too many event fields");
    for (size_t i = 0; i < nfields; i++) {
        size_t n = fields[i].name ? strlen(fields[i].name) : 0;
        if (n == 0 || n >= sizeof ((mfield *)0)->name)
            return gsvm_error_set(err, GSVM_ERR_INPUT, m->activity_id,
                                  "event field names have 1 to %zu bytes ('%.40s%s')",
                                  sizeof ((mfield *)0)->name - 1, fields[i].name ? fields[i].name : "",
                                  n > 40 ? "..." : "");
    }
    return GSVM_OK;
}

static gsvm_status report_one(gsvm_mission *m, const char *kind, const gsvm_mission_field *fields,
                              size_t nfields, bool run, gsvm_error *err)
{
    if (!m->L)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "the mission script is not loaded");
    int k = gsvm_mission_event_kind(kind);
    if (k < 0)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "unknown event kind '%s'", kind);
    if (k == EV_timer_elapsed || k == EV_effect_result || k == EV_phase_entered)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "%s is raised by the runtime, not reported", kind);
    if (fields_check(m, fields, nfields, err) != GSVM_OK)
        return err->status;
    if (!ms_event_reaches_script(k))
        return GSVM_OK;
    const gsvm_mission_value *slotv = field_get(fields, nfields, "slot");
    int row = resolve_selector(m, W_SLOT, slotv);
    if (slotv && !row && !slot_selector_ok(m, slotv))
        return slot_error(m, slotv, err);
    int64_t v;
    /* What the host records whether or not a handler exists. */
    int64_t previous_region = m->last_region;
    if ((k == EV_region_changed || k == EV_client_state_changed) &&
        field_int(fields, nfields, "region_index", &v) && v != m->last_region) {
        m->last_region = v;
        const char *names[] = {"region"};
        if (put_facts(m, names, &v, 1, err) != GSVM_OK)
            return err->status;
    }
    if (k == EV_fireteam_state) {
        m->have_fireteam = true;
        field_int(fields, nfields, "alive_count", &m->ft_alive);
        field_int(fields, nfields, "dead_count", &m->ft_dead);
        field_int(fields, nfields, "unknown_count", &m->ft_unknown);
        const char *names[] = {"ft.have", "ft.alive", "ft.dead", "ft.unknown"};
        const int64_t values[] = {1, m->ft_alive, m->ft_dead, m->ft_unknown};
        if (put_facts(m, names, values, 4, err) != GSVM_OK)
            return err->status;
        if (m->cfg.role != GSVM_MISSION_PRIVATE)
            return GSVM_OK;
    }
    if (k == EV_squad_state && m->squad_alive) {
        int sq = resolve_selector(m, W_SQUAD, field_get(fields, nfields, "squad"));
        if (sq && field_int(fields, nfields, "alive_count", &v) && v != m->squad_alive[sq - 1]) {
            m->squad_alive[sq - 1] = v;
            char name[32];
            snprintf(name, sizeof name, "squad:%d", sq);
            const char *names[] = {name};
            if (put_facts(m, names, &v, 1, err) != GSVM_OK)
                return err->status;
        }
    }
    /* What the record keeps about the slot (see mslotrec). */
    if (row > 0 && m->slotrec && (k == EV_ghost_link_state || k == EV_device_state)) {
        mslotrec *sr = &m->slotrec[row - 1];
        if (k == EV_ghost_link_state) {
            const gsvm_mission_value *pv = field_get(fields, nfields, "progress");
            const gsvm_mission_value *av = field_get(fields, nfields, "active");
            sr->gl_known = true;
            if (field_int(fields, nfields, "generation", &v))
                sr->gl_generation = v;
            if (pv && pv->type == GSVM_MV_INT)
                sr->gl_progress = (double)pv->i;
            else if (pv && pv->type == GSVM_MV_NUM && pv->n == pv->n)
                sr->gl_progress = pv->n;
            if (av && av->type == GSVM_MV_BOOL)
                sr->gl_active = av->b;
        } else {
            for (int c = 0; c < CH_COUNT; c++) {
                char name[40];
                snprintf(name, sizeof name, "%s_sequence", ms_channel_names[c]);
                uint64_t seq;
                if (value_u64(field_get(fields, nfields, name), &seq)) {
                    sr->rep_known[c] = true;
                    sr->rep_seq[c] = seq;
                }
            }
        }
        gsvm_error serr;
        if (ms_store_put_slot(m->store, m, row, &serr) != GSVM_OK)
            return gsvm_error_set(err, serr.status, m->activity_id, "%s", serr.message);
    }
    /* First reports: recorded silently for some kinds, flagged for devices. */
    int fr = ms_event_first_report_rule(k);
    bool first = false;
    if (fr != FR_NONE) {
        char sel[64] = "";
        if (slotv && slotv->type == GSVM_MV_STR)
            snprintf(sel, sizeof sel, "%.*s", (int)(slotv->len < 60 ? slotv->len : 60), slotv->s);
        else if (slotv && slotv->type == GSVM_MV_INT)
            snprintf(sel, sizeof sel, "#%lld", (long long)slotv->i);
        const char *family = (k == EV_trigger_entered || k == EV_trigger_exited) ? "trigger" : kind;
        if (first_report(m, family, sel, &first, err) != GSVM_OK)
            return err->status;
        if (first && fr == FR_SILENT)
            return GSVM_OK;
    }
    if (m->ref_event[k] == LUA_NOREF || m->rec.faulted)
        return GSVM_OK; /* a kind without a handler is not even queued */
    mevent *e = ms_mevent_new(k);
    if (!e)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    e->attempt = m->rec.attempt;
    e->slot_row = row;
    bool ok = true;
    for (size_t i = 0; i < nfields && ok; i++) {
        const gsvm_mission_field *f = &fields[i];
        if (strcmp(f->name, "slot") == 0)
            continue;
        if (strcmp(f->name, "source_generation") == 0 && f->value.type == GSVM_MV_INT && f->value.i > 0) {
            e->source_generation = (uint64_t)f->value.i;
            continue;
        }
        switch (f->value.type) {
        case GSVM_MV_BOOL: ok = ms_mevent_set_bool(e, f->name, f->value.b); break;
        case GSVM_MV_INT: ok = ms_mevent_set_int(e, f->name, f->value.i); break;
        case GSVM_MV_NUM: ok = ms_mevent_set_num(e, f->name, f->value.n); break;
        case GSVM_MV_STR: ok = ms_mevent_set_str(e, f->name, f->value.s ? f->value.s : "", f->value.len); break;
        default: ok = ms_mevent_set_nil(e, f->name); break;
        }
    }
    const wslot *ws = ms_world_slot(m, row);
    if (ok && ws) {
        if (!ms_mevent_get(e, "registry_key"))
            ok = ms_mevent_set_str(e, "registry_key", ws->registry_key, strlen(ws->registry_key));
        if (ok && !ms_mevent_get(e, "object_tag"))
            ok = ms_mevent_set_int(e, "object_tag", ws->tag);
        if (ok && !ms_mevent_get(e, "slot_index"))
            ok = ms_mevent_set_int(e, "slot_index", row);
        if (ok && !ms_mevent_get(e, "slot_type"))
            ok = ms_mevent_set_int(e, "slot_type", ws->type);
    }
    /* region_changed: previous_region_index is nil the first time. */
    if (ok && k == EV_region_changed && !ms_mevent_get(e, "previous_region_index") && previous_region >= 0)
        ok = ms_mevent_set_int(e, "previous_region_index", previous_region);
    if (ok && fr == FR_FLAG && !ms_mevent_get(e, "first_report"))
        ok = ms_mevent_set_bool(e, "first_report", first);
    if (!ok) {
        ms_mevent_free(e);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "out of memory");
    }
    ms_input_push(m, e);
    if (run)
        pump(m);
    return GSVM_OK;
}

gsvm_status gsvm_mission_report(gsvm_mission *m, const char *kind,
                                const gsvm_mission_field *fields, size_t nfields, gsvm_error *err)
{
    gsvm_error_clear(err);
    return report_one(m, kind, fields, nfields, true, err);
}

/* The place of a kind within one client packet: the report itself first
 * (region_changed right after its state report), then the derived events in
 * the documented order: trigger, Ghost link, object, damage monitor, actor
 * path, squad, combatant damage, device, scene, objective.  An incident's
 * player_trigger thus precedes its cinematic events. */
static int packet_rank(int kind)
{
    switch (kind) {
    case EV_sensor_sense_updated:
    case EV_client_state_changed:
    case EV_client_message_received:
    case EV_incident_received: return 0;
    case EV_region_changed: return 1;
    case EV_trigger_entered:
    case EV_trigger_exited:
    case EV_player_trigger: return 2;
    case EV_ghost_link_state: return 3;
    case EV_object_state:
    case EV_object_interacted: return 4;
    case EV_damage_state: return 5;
    case EV_actor_path_state: return 6;
    case EV_squad_state:
    case EV_entity_spawned:
    case EV_squad_provoked: return 7;
    case EV_entity_died: return 8;
    case EV_device_state: return 9;
    case EV_scene_finished:
    case EV_cinematic_started:
    case EV_cinematic_terminated:
    case EV_cinematic_skip_requested: return 10;
    case EV_objective_progress: return 11;
    default: return 12;
    }
}

gsvm_status gsvm_mission_report_packet(gsvm_mission *m, const gsvm_mission_report_item *items,
                                       size_t n, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (n > 1024)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "a packet holds at most 1024 reports");
    size_t order[1024];
    for (size_t i = 0; i < n; i++) {
        if (gsvm_mission_event_kind(items[i].kind) < 0)
            return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id, "unknown event kind '%s'",
                                  items[i].kind ? items[i].kind : "(null)");
        int k = gsvm_mission_event_kind(items[i].kind);
        if (k == EV_timer_elapsed || k == EV_effect_result || k == EV_phase_entered)
            return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                                  "%s is raised by the runtime, not reported", items[i].kind);
        /* The whole packet is checked before any of it is queued. */
        if (fields_check(m, items[i].fields, items[i].nfields, err) != GSVM_OK)
            return err->status;
        const gsvm_mission_value *sv = field_get(items[i].fields, items[i].nfields, "slot");
        if (sv && ms_event_reaches_script(k) && !resolve_selector(m, W_SLOT, sv) && !slot_selector_ok(m, sv))
            return slot_error(m, sv, err);
        /* A stable insertion by rank keeps the client's order within a rank. */
        int r = packet_rank(k);
        size_t j = i;
        while (j > 0 && packet_rank(gsvm_mission_event_kind(items[order[j - 1]].kind)) > r) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (size_t i = 0; i < n; i++) {
        const gsvm_mission_report_item *it = &items[order[i]];
        gsvm_status st = report_one(m, it->kind, it->fields, it->nfields, false, err);
        if (st != GSVM_OK)
            return st;
    }
    pump(m);
    return GSVM_OK;
}

/* The earliest simulated time at which something can run by itself: the
 * pending start (next tick), the delivery's next deadline, the earliest timer
 * (a due one that waits for its tick: the next tick); UINT64_MAX for none.
 * Reports and queued events need no tick: they run as soon as nothing holds
 * them back, which is one of these. */
static uint64_t next_wake(const gsvm_mission *m)
{
    uint64_t now = m->rec.clock;
    if (!m->L || m->rec.faulted)
        return UINT64_MAX;
    if (!m->rec.started)
        return m->start_waiting && m->published ? now + 1 : UINT64_MAX;
    uint64_t best = ms_dlv_next_deadline(m);
    if (m->nout)
        return best; /* nothing else runs during a delivery */
    for (int i = 0; i < m->rec.timers.n; i++) {
        uint64_t d = m->rec.timers.t[i].deadline;
        if (d <= now)
            d = now + 1;
        if (d < best)
            best = d;
    }
    if (m->inputs.n || m->events.n)
        best = now + 1; /* something waits for the pump (after a fault was cleared) */
    return best;
}

gsvm_status gsvm_mission_advance(gsvm_mission *m, uint64_t ms, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (ms > GSVM_MISSION_MAX_CLOCK_MS || m->rec.clock > GSVM_MISSION_MAX_CLOCK_MS - ms)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "the clock would pass 2^53 ms (now %llu ms, advance %llu ms)",
                              (unsigned long long)m->rec.clock, (unsigned long long)ms);
    uint64_t tick = m->cfg.tick_ms, target = m->rec.clock + ms;
    for (;;) {
        uint64_t next = (m->rec.clock / tick + 1) * tick;
        /* Skip the idle ticks: jump to the tick of the next thing that can happen. */
        uint64_t wake = next_wake(m);
        if (wake > next) {
            if (wake > target)
                break;
            next = (wake + tick - 1) / tick * tick;
        }
        if (next > target)
            break;
        m->rec.clock = next;
        m->timer_fired_this_tick = false;
        run_pending_start(m);
        pump(m);
    }
    m->rec.clock = target;
    return GSVM_OK;
}

gsvm_status gsvm_mission_report_outcome(gsvm_mission *m, uint64_t key, gsvm_mission_outcome outcome,
                                 gsvm_error *err)
{
    gsvm_error_clear(err);
    if (m->in_pump)
        return gsvm_error_set(err, GSVM_ERR_USAGE, m->activity_id,
                              "an outcome is reported after the request callback returned, not inside it");
    gsvm_status st = ms_dlv_outcome(m, key, outcome, err);
    if (st == GSVM_OK)
        pump(m);
    return st;
}

size_t gsvm_mission_memory_used(const gsvm_mission *m) { return m->lim.arena_used; }

/* ---- the committed record ---- */
uint32_t gsvm_mission_phase(const gsvm_mission *m) { return m->rec.phase; }
uint64_t gsvm_mission_revision(const gsvm_mission *m) { return m->rec.revision; }
uint64_t gsvm_mission_attempt(const gsvm_mission *m) { return m->rec.attempt; }
uint64_t gsvm_mission_now_ms(const gsvm_mission *m) { return m->rec.clock; }
uint32_t gsvm_mission_tick_ms(const gsvm_mission *m) { return m->cfg.tick_ms; }
bool gsvm_mission_faulted(const gsvm_mission *m) { return m->rec.faulted; }
const char *gsvm_mission_fault_text(const gsvm_mission *m) { return m->rec.faulted ? m->rec.fault : ""; }
size_t gsvm_mission_variable_count(const gsvm_mission *m) { return m->rec.vars.count; }
size_t gsvm_mission_timer_count(const gsvm_mission *m) { return (size_t)m->rec.timers.n; }
size_t gsvm_mission_pending_requests(const gsvm_mission *m) { return (size_t)m->nout; }
uint64_t gsvm_mission_callbacks_run(const gsvm_mission *m) { return m->callbacks; }

static void export_value(const mval *v, gsvm_mission_value *out)
{
    memset(out, 0, sizeof *out);
    out->type = (gsvm_mission_vtype)v->type;
    out->b = v->b;
    out->i = v->i;
    out->n = v->n;
    out->s = v->s;
    out->len = v->len;
}

bool gsvm_mission_foreach_variable(const gsvm_mission *m,
                                   void (*fn)(void *ud, const char *name, const gsvm_mission_value *v),
                                   void *ud)
{
    mvar **sorted = ms_vmap_sorted(&m->rec.vars);
    if (!sorted)
        return false;
    for (uint32_t i = 0; i < m->rec.vars.count; i++) {
        gsvm_mission_value v;
        export_value(&sorted[i]->v, &v);
        fn(ud, sorted[i]->name, &v);
    }
    free(sorted);
    return true;
}

bool gsvm_mission_variable(const gsvm_mission *m, const char *name, gsvm_mission_value *value)
{
    mvar *v = ms_vmap_get(&m->rec.vars, name, strlen(name));
    if (!v)
        return false;
    export_value(&v->v, value);
    return true;
}

bool gsvm_mission_timer_at(const gsvm_mission *m, size_t i, const char **name,
                           uint64_t *deadline_ms, uint64_t *sequence)
{
    if (i >= (size_t)m->rec.timers.n)
        return false;
    *name = m->rec.timers.t[i].name;
    *deadline_ms = m->rec.timers.t[i].deadline;
    *sequence = m->rec.timers.t[i].seq;
    return true;
}
