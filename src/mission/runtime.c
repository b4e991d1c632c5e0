/* The mission object: opening (chunk, program, record, on_start/on_load),
 * the work loop that runs callbacks as transactions, reopen and "Reload
 * script" (client reports and the clock are reports.c's, the record's
 * readers record.c's). */
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
int ms_find_id(const gsvm_mission *m, int what, const char *id)
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
        return ms_find_id(m, what, lua_tostring(L, idx));
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
void ms_pump(gsvm_mission *m)
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
    ms_pump(m);
    return GSVM_OK;
}

/* The "pending starts" step of a tick: on_start once the initial state is
 * published; then the reports that waited are delivered (by pump). */
void ms_run_pending_start(gsvm_mission *m)
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
