/* The script-facing API: `context`, `state`, events, RequestKeys and the
 * handles (sdk, lifetime, peers, timers, variables, slots, squads, scenes).
 *
 * Every object is a userdata whose metatable holds only __index and
 * __metatable=false, so scripts cannot add fields, compare two handles equal
 * or reach the metatable.  Each member read of a handle returns fresh
 * userdata; unknown names read nil.
 *
 * A C function here may raise a Lua error at any point, so it never holds C
 * memory across a call that can raise: arguments are checked first, then the
 * request is built and handed to the transaction, which owns it from then on. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "mission/api.h"

/* ---- sdk, lifetime, peers, timers, variables ---- */

static void push_sdk_build_id(lua_State *L, gsvm_mission *m)
{
    if (m->world->sdk_build_id[0]) {
        lua_pushstring(L, m->world->sdk_build_id);
        return;
    }
    uint8_t d[GSVM_SHA256_SIZE];
    char hex[2 * GSVM_SHA256_SIZE + 1], out[80];
    static const char seed[] = "gsvm mission sdk " GSVM_VERSION_STRING;
    gsvm_sha256(seed, sizeof seed - 1, d);
    gsvm_hex(d, sizeof d, hex);
    snprintf(out, sizeof out, "sha256:%s", hex);
    lua_pushstring(L, out);
}

static int sdk_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_SDK);
    if (mapi_key_is(L, "build_id"))
        push_sdk_build_id(L, ms_from_L(L));
    else
        lua_pushnil(L);
    return 1;
}

static int lifetime_set(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_LIFETIME);
    static const char *const a[] = {"state", NULL};
    mapi_args_table(L, 2, a);
    mapi_rawfield(L, 2, "state");
    lua_Integer st;
    if (!mapi_int_in(L, -1, 0, 10, &st))
        return luaL_error(L, "lifetime state is outside 0..10");
    lua_pop(L, 1);
    mreq *r = mapi_emit_request(L, m, OP_HOST, "lifetime:set", "lifetime.set", mapi_args_json(L, 2, NULL));
    r->p1 = st;
    return 1;
}

static int lifetime_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_LIFETIME);
    if (!mapi_method(L))
        lua_pushnil(L);
    return 1;
}

static int peers_at(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    mapi_check_handle(L, 1, H_PEERS);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || i > m->world->npeers) {
        lua_pushnil(L);
        return 1;
    }
    const wpeer *p = &m->world->peers[i - 1];
    lua_pushstring(L, p->session_id);
    lua_pushstring(L, p->session_generation);
    lua_pushstring(L, p->member_key);
    lua_pushstring(L, p->join_identity);
    return 4;
}

static int peers_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_PEERS);
    if (mapi_method(L))
        return 1;
    if (mapi_key_is(L, "count"))
        lua_pushinteger(L, ms_from_L(L)->world->npeers);
    else
        lua_pushnil(L);
    return 1;
}

static int resolve(lua_State *L, int kind, bool timer)
{
    mapi_check_handle(L, 1, kind);
    size_t n;
    const char *s = timer ? mapi_check_timer_name(L, 2, &n) : mapi_check_var_name(L, 2, &n);
    mapi_hud *h = mapi_new_handle(L, H_NAME);
    memcpy(h->name, s, n);
    return 1;
}
static int timers_resolve(lua_State *L) { return resolve(L, H_TIMERS, true); }
static int variables_resolve(lua_State *L) { return resolve(L, H_VARIABLES, false); }

static int timers_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_TIMERS);
    if (mapi_method(L))
        return 1;
    if (mapi_key_is(L, "capacity"))
        lua_pushinteger(L, GSVM_MISSION_MAX_TIMERS);
    else
        lua_pushnil(L);
    return 1;
}

static int variables_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_VARIABLES);
    if (mapi_method(L))
        return 1;
    if (mapi_key_is(L, "capacity"))
        lua_pushinteger(L, ms_from_L(L)->cfg.max_variables);
    else
        lua_pushnil(L);
    return 1;
}

static int name_index(lua_State *L)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_NAME);
    if (mapi_key_is(L, "name"))
        lua_pushstring(L, h->name);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- context methods ---- */

static int ctx_set_variable(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = mapi_check_var_name(L, 2, &n);
    mval v;
    if (!mapi_to_mval(L, 3, &v))
        return luaL_argerror(L, 3, "mission variable value is not a bounded scalar");
    int rc = ms_txn_set_var(m, name, n, &v);
    if (rc == 1)
        return luaL_error(L, "mission variable capacity exceeded");
    if (rc < 0)
        return mapi_raise_oom(L);
    return 0;
}

static int ctx_clear_variable(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = mapi_check_var_name(L, 2, &n);
    int rc = ms_txn_clear_var(m, name, n);
    if (rc < 0)
        return mapi_raise_oom(L);
    lua_pushboolean(L, rc == 1);
    return 1;
}

static int ctx_start_timer(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = mapi_check_timer_name(L, 2, &n);
    lua_Integer ms;
    if (!mapi_int_in(L, 3, 0, (lua_Integer)UINT32_MAX, &ms))
        return luaL_argerror(L, 3, "mission timer delay is outside u32 milliseconds");
    const mtimers *cur = ms_txn_timers_r(m);
    if (ms_timers_find(cur, name) < 0 && cur->n >= (int)GSVM_MISSION_MAX_TIMERS)
        return luaL_error(L, "mission timer capacity exceeded");
    uint64_t now = m->rec.clock, deadline = now + (uint64_t)ms;
    if (deadline < now)
        deadline = UINT64_MAX;
    uint64_t seq = m->txn.next_timer_seq++;
    ms_timers_set(ms_txn_timers_w(m), name, deadline, seq);
    mapi_push_u64(L, seq);
    return 1;
}

static int ctx_cancel_timer(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = mapi_check_timer_name(L, 2, &n);
    bool had = ms_timers_find(ms_txn_timers_r(m), name) >= 0;
    if (had)
        ms_timers_remove(ms_txn_timers_w(m), name);
    lua_pushboolean(L, had);
    return 1;
}

static int ctx_set_phase(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    lua_Integer p;
    if (!mapi_int_in(L, 2, 0, (lua_Integer)UINT32_MAX, &p))
        return luaL_argerror(L, 2, "mission phase is outside u32");
    m->txn.phase_set = true;
    m->txn.phase = (uint32_t)p;
    return 0;
}

static int ctx_select_state(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer region;
    mapi_rawfield(L, 2, "region_index");
    if (!mapi_int_in(L, -1, 0, INT32_MAX, &region))
        return luaL_argerror(L, 2, "state must be a generated state with an integer region_index");
    lua_pop(L, 1);
    lua_settop(L, 3);
    if (!lua_isnil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_rawlen(L, 3) > 32)
            return luaL_error(L, "select_state takes at most 32 slot selectors");
        int t = mapi_rawfield(L, 3, "retire_placed_props");
        if (t != LUA_TNIL && t != LUA_TBOOLEAN)
            return luaL_error(L, "retire_placed_props must be a boolean");
        lua_pop(L, 1);
    } else {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    int budget = 4096;
    mapi_check_plain(L, 3, 0, &budget);
    int retire = mapi_rawfield(L, 3, "retire_placed_props") == LUA_TBOOLEAN ? lua_toboolean(L, -1) : -1;
    lua_pop(L, 1);
    json_t *o = json_object();
    json_object_set_new(o, "region_index", json_integer(region));
    lua_rawgeti(L, 3, 1);
    bool has_omit = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (has_omit) {
        json_t *omit = json_array();
        for (size_t i = 1; i <= lua_rawlen(L, 3); i++) {
            lua_rawgeti(L, 3, (lua_Integer)i);
            json_array_append_new(omit, mapi_to_json(L, -1));
            lua_pop(L, 1);
        }
        json_object_set_new(o, "omit", omit);
    }
    if (retire >= 0)
        json_object_set_new(o, "retire_placed_props", json_boolean(retire));
    mreq *r = mapi_emit_request(L, m, OP_SELECT_STATE, "context:select_state", "mission.select_state", o);
    r->publish = true;
    r->p1 = region;
    return 1;
}

static int ctx_complete_mission(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {NULL};
    mapi_args_table(L, 2, a);
    if (m->rec.complete)
        return luaL_error(L, "mission attempt is already complete");
    mreq *r = mapi_emit_request(L, m, OP_HOST, "context:complete_mission", "lifetime.set",
                           json_pack("{s:i}", "state", 6));
    r->p1 = 6;
    r->completes = true;
    m->txn.completes = true;
    return 1;
}

static int ctx_hold_spawn(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"active", NULL};
    mapi_args_table(L, 2, a);
    if (mapi_rawfield(L, 2, "active") != LUA_TBOOLEAN)
        return luaL_error(L, "hold_spawn requires an active boolean");
    bool on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    mreq *r = mapi_emit_request(L, m, OP_HOLD_SPAWN, "context:hold_spawn", "mission.hold_spawn",
                           json_pack("{s:b}", "active", on));
    r->p1 = on;
    return 1;
}

static int ctx_restart_checkpoint(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"region", "spawn_set_hash", "release_request", NULL};
    mapi_args_table(L, 2, a);
    lua_Integer region, hash;
    mapi_rawfield(L, 2, "region");
    if (!mapi_int_in(L, -1, 0, 1022, &region))
        return luaL_error(L, "restart_checkpoint region is outside 0..1022");
    mapi_rawfield(L, 2, "spawn_set_hash");
    if (!mapi_int_in(L, -1, 1, 0xFFFFFFFEll, &hash))
        return luaL_error(L, "restart_checkpoint spawn_set_hash is outside 1..0xFFFFFFFE");
    uint64_t release = 0;
    int t = mapi_rawfield(L, 2, "release_request");
    if (t != LUA_TNIL) {
        size_t n;
        const char *s = t == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
        bool ok = s && n >= 1 && n <= 20 && s[0] != '0';
        for (size_t i = 0; ok && i < n; i++)
            ok = s[i] >= '0' && s[i] <= '9';
        if (ok) {
            char *end;
            release = strtoull(s, &end, 10);
            ok = release != 0 && release != UINT64_MAX;
        }
        if (!ok)
            return luaL_error(L, "restart_checkpoint release_request is not a request key value");
    }
    lua_pop(L, 3);
    json_t *o = json_pack("{s:I,s:I}", "region", (json_int_t)region, "spawn_set_hash", (json_int_t)hash);
    if (release) {
        char buf[24];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)release);
        json_object_set_new(o, "release_request", json_string(buf));
    }
    mreq *r = mapi_emit_request(L, m, OP_RESTART, "context:restart_checkpoint", "mission.restart_checkpoint", o);
    r->p1 = region;
    r->p2 = hash;
    r->p3 = (int64_t)release;
    return 1;
}

/* context.sdk, .lifetime, .peers, .timers, .variables: a new handle each. */
static void push_sub_handle(lua_State *L)
{
    static const struct {
        const char *key;
        int kind;
    } subs[] = {{"sdk", H_SDK}, {"lifetime", H_LIFETIME}, {"peers", H_PEERS}, {"timers", H_TIMERS},
                {"variables", H_VARIABLES}};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (mapi_key_is(L, subs[i].key)) {
            mapi_new_handle(L, subs[i].kind);
            return;
        }
    lua_pushnil(L);
}

static int ctx_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_CONTEXT);
    if (mapi_method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    const gsvm_mission_world *w = m->world;
    if (mapi_key_is(L, "sdk_build_id"))
        push_sdk_build_id(L, m);
    else if (mapi_key_is(L, "activity_id"))
        lua_pushstring(L, m->activity_id);
    else if (mapi_key_is(L, "activity_row"))
        lua_pushinteger(L, w->row);
    else if (mapi_key_is(L, "definition_hash"))
        lua_pushinteger(L, w->definition_hash);
    else if (mapi_key_is(L, "activity_role"))
        lua_pushstring(L, m->cfg.role == GSVM_MISSION_PRIVATE ? "private" : "public");
    else if (mapi_key_is(L, "player_key"))
        lua_pushstring(L, w->player_key[0] ? w->player_key : "0");
    else if (mapi_key_is(L, "attempt_generation"))
        mapi_push_u64(L, m->rec.attempt);
    else if (mapi_key_is(L, "mission_complete"))
        lua_pushboolean(L, m->rec.complete);
    else
        push_sub_handle(L);
    return 1;
}

/* ---- state ---- */

/* state:variable(name) and state:has_variable(name): the variable as the
 * callback sees it (its own writes included), NULL when unset. */
static const mval *st_lookup(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    mapi_check_handle(L, 1, H_STATE);
    size_t n;
    const char *name = mapi_check_var_name(L, 2, &n);
    return ms_txn_get_var(m, name, n);
}

static int st_variable(lua_State *L)
{
    const mval *v = st_lookup(L);
    if (v)
        mapi_push_mval(L, v);
    else
        lua_pushnil(L);
    return 1;
}

static int st_has_variable(lua_State *L)
{
    lua_pushboolean(L, st_lookup(L) != NULL);
    return 1;
}

static int st_timer(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    mapi_check_handle(L, 1, H_STATE);
    size_t n;
    const char *name = mapi_check_timer_name(L, 2, &n);
    const mtimers *t = ms_txn_timers_r(m);
    int i = ms_timers_find(t, name);
    if (i < 0)
        lua_pushnil(L);
    else
        mapi_push_u64(L, t->t[i].deadline);
    return 1;
}

static int st_index(lua_State *L)
{
    mapi_check_handle(L, 1, H_STATE);
    if (mapi_method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    if (mapi_key_is(L, "phase"))
        lua_pushinteger(L, ms_txn_phase(m));
    else if (mapi_key_is(L, "revision"))
        mapi_push_u64(L, m->rec.revision);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- events ---- */

static const mevent *live_event(lua_State *L, mapi_hud *h)
{
    gsvm_mission *m = ms_from_L(L);
    return h->gen == m->event_gen ? m->cur_event : NULL;
}

static void push_field(lua_State *L, const mfield *f)
{
    switch (f->type) {
    case EF_BOOL: lua_pushboolean(L, f->b); break;
    case EF_INT: lua_pushinteger(L, f->i); break;
    case EF_NUM: lua_pushnumber(L, f->n); break;
    case EF_STR: lua_pushlstring(L, ms_mfield_str(f), f->len); break;
    case EF_KEY: ms_push_key(L, (uint64_t)f->i); break;
    default: lua_pushnil(L);
    }
}

/* event:task_cost{group}, event:task_group{objective}, event:applied_request{channel}
 * read the report's "task_cost.<group>", "task_group.<objective>" and
 * "applied_request.<channel>" fields: (value, true) or (nil, false). */
static int ev_lookup(lua_State *L, const char *prefix, const char *arg)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_EVENT);
    const char *const a[] = {arg, NULL};
    mapi_args_table(L, 2, a);
    mapi_rawfield(L, 2, arg);
    const char *v = luaL_tolstring(L, -1, NULL);
    char name[40];
    snprintf(name, sizeof name, "%s.%s", prefix, v);
    const mevent *e = live_event(L, h);
    const mfield *f = e ? ms_mevent_get(e, name) : NULL;
    if (!f) {
        lua_pushnil(L);
        lua_pushboolean(L, 0);
        return 2;
    }
    push_field(L, f);
    lua_pushboolean(L, 1);
    return 2;
}
static int ev_task_cost(lua_State *L) { return ev_lookup(L, "task_cost", "group"); }
static int ev_task_group(lua_State *L) { return ev_lookup(L, "task_group", "objective"); }

/* event:applied_request{channel} on device_state: (key, true) when the
 * report's <channel>_sequence applies the last request on that channel,
 * else (nil, false).  A report may also carry "applied_request.<channel>"
 * explicitly, which wins. */
static int ev_applied_request(lua_State *L)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_EVENT);
    const mevent *e = live_event(L, h);
    if (e && e->kind == EV_device_state && e->slot_row > 0) {
        static const char *const a[] = {"channel", NULL};
        mapi_args_table(L, 2, a);
        mapi_rawfield(L, 2, "channel");
        int c = -1;
        if (lua_type(L, -1) == LUA_TSTRING) {
            for (int i = 0; i < CH_COUNT; i++)
                if (strcmp(lua_tostring(L, -1), ms_channel_names[i]) == 0)
                    c = i;
        } else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= CH_COUNT) {
            c = (int)lua_tointeger(L, -1) - 1;
        }
        if (c < 0)
            return luaL_error(L, "device channel must be position, power or lock");
        char name[40];
        snprintf(name, sizeof name, "applied_request.%s", ms_channel_names[c]);
        if (!ms_mevent_get(e, name)) {
            snprintf(name, sizeof name, "%s_sequence", ms_channel_names[c]);
            const mfield *f = ms_mevent_get(e, name);
            gsvm_mission_value v = {0};
            if (f && f->type == EF_INT) {
                v.type = GSVM_MV_INT;
                v.i = f->i;
            } else if (f && f->type == EF_STR) {
                v.type = GSVM_MV_STR;
                v.s = ms_mfield_str(f);
                v.len = f->len;
            }
            uint64_t seq, key;
            if (ms_value_u64(&v, &seq) && mapi_channel_applied(ms_from_L(L), e->slot_row, c, seq, &key)) {
                ms_push_key(L, key);
                lua_pushboolean(L, 1);
            } else {
                lua_pushnil(L);
                lua_pushboolean(L, 0);
            }
            return 2;
        }
    }
    return ev_lookup(L, "applied_request", "channel");
}

static int ev_index(lua_State *L)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_EVENT);
    if (mapi_method(L))
        return 1;
    const mevent *e = live_event(L, h);
    if (!e || lua_type(L, 2) != LUA_TSTRING)
        return 0;
    const char *k = lua_tostring(L, 2);
    if (strcmp(k, "kind") == 0) {
        lua_pushinteger(L, e->kind);
        return 1;
    }
    if (strcmp(k, "slot") == 0) {
        /* squad_provoked names its slot by registry key, type and index only. */
        if (e->slot_row > 0 && e->kind != EV_squad_provoked)
            mapi_push_world_handle(L, H_SLOT, e->slot_row);
        else
            lua_pushnil(L);
        return 1;
    }
    const mfield *f = ms_mevent_get(e, k);
    if (!f)
        return 0;
    push_field(L, f);
    return 1;
}

void ms_push_event(lua_State *L, gsvm_mission *m, const mevent *e)
{
    mapi_hud *h = mapi_new_handle(L, H_EVENT);
    h->gen = m->event_gen;
    (void)e;
}

void ms_push_context(lua_State *L, gsvm_mission *m)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, m->ref_context);
}

void ms_push_state(lua_State *L, gsvm_mission *m)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, m->ref_state);
}

/* ---- registration ---- */


void ms_api_register(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    static const luaL_Reg ctx_methods[] = {
        {"set_variable", ctx_set_variable},
        {"clear_variable", ctx_clear_variable},
        {"start_timer", ctx_start_timer},
        {"cancel_timer", ctx_cancel_timer},
        {"set_phase", ctx_set_phase},
        {"select_state", ctx_select_state},
        {"activate_objects", mapi_ctx_activate_objects},
        {"complete_mission", ctx_complete_mission},
        {"hold_spawn", ctx_hold_spawn},
        {"restart_checkpoint", ctx_restart_checkpoint},
        {"slot", mapi_ctx_slot},
        {"squad", mapi_ctx_squad},
        {"scene", mapi_ctx_scene},
        {"cohort", mapi_ctx_cohort},
        {NULL, NULL},
    };
    static const luaL_Reg st_methods[] = {
        {"variable", st_variable}, {"has_variable", st_has_variable}, {"timer", st_timer}, {NULL, NULL}};
    static const luaL_Reg ev_methods[] = {{"task_cost", ev_task_cost},
                                          {"task_group", ev_task_group},
                                          {"applied_request", ev_applied_request},
                                          {NULL, NULL}};
    static const luaL_Reg key_methods[] = {{"matches", mapi_key_matches}, {NULL, NULL}};
    static const luaL_Reg lifetime_methods[] = {{"set", lifetime_set}, {NULL, NULL}};
    static const luaL_Reg peers_methods[] = {{"at", peers_at}, {NULL, NULL}};
    static const luaL_Reg timers_methods[] = {{"resolve", timers_resolve}, {NULL, NULL}};
    static const luaL_Reg variables_methods[] = {{"resolve", variables_resolve}, {NULL, NULL}};

    mapi_define(L, H_CONTEXT, ctx_index, ctx_methods);
    mapi_define(L, H_STATE, st_index, st_methods);
    mapi_define(L, H_EVENT, ev_index, ev_methods);
    mapi_define(L, H_KEY, mapi_key_index, key_methods);
    mapi_define(L, H_SDK, sdk_index, NULL);
    mapi_define(L, H_LIFETIME, lifetime_index, lifetime_methods);
    mapi_define(L, H_PEERS, peers_index, peers_methods);
    mapi_define(L, H_TIMERS, timers_index, timers_methods);
    mapi_define(L, H_VARIABLES, variables_index, variables_methods);
    mapi_define(L, H_NAME, name_index, NULL);

    mapi_register_world(L);

    mapi_new_handle(L, H_CONTEXT);
    m->ref_context = luaL_ref(L, LUA_REGISTRYINDEX);
    mapi_new_handle(L, H_STATE);
    m->ref_state = luaL_ref(L, LUA_REGISTRYINDEX);
}
