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
#include "mission/internal.h"

enum {
    H_CONTEXT,
    H_STATE,
    H_EVENT,
    H_KEY,
    H_SDK,
    H_LIFETIME,
    H_PEERS,
    H_TIMERS,
    H_VARIABLES,
    H_NAME,
    H_SLOT,
    H_SQUAD,
    H_SCENE,
    H_COUNT
};

static const char *const tname[H_COUNT] = {
    "mission.context", "mission.state",     "mission.event", "mission.key",  "mission.sdk",
    "mission.lifetime", "mission.peers",    "mission.timers", "mission.variables",
    "mission.name",    "mission.slot",      "mission.squad", "mission.scene",
};

typedef struct hud {
    int kind;
    int row;
    uint64_t gen; /* events: the callback they belong to; keys: the key */
    char name[GSVM_MISSION_MAX_NAME + 1];
} hud;

static hud *new_handle(lua_State *L, int kind)
{
    hud *h = lua_newuserdatauv(L, sizeof *h, 0);
    memset(h, 0, sizeof *h);
    h->kind = kind;
    luaL_setmetatable(L, tname[kind]);
    return h;
}

static hud *check_handle(lua_State *L, int idx, int kind)
{
    return luaL_checkudata(L, idx, tname[kind]);
}

static void push_u64(lua_State *L, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    lua_pushstring(L, buf);
}

static int raise_oom(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    if (!m->lim.tripped)
        m->lim.tripped = LIM_MEMORY;
    return ms_raise_limit(L);
}

static gsvm_mission *active(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    if (!m->txn.active)
        luaL_error(L, "mission context is not active");
    return m;
}

/* True when the __index key is a method of this kind (pushed). */
static bool method(lua_State *L)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return true;
    lua_pop(L, 1);
    return false;
}

static bool key_is(lua_State *L, const char *k)
{
    const char *s = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    return s && strcmp(s, k) == 0;
}

/* ---- names and values ---- */

static bool name_chars_ok(const char *s, size_t n)
{
    if (n < 1 || n > GSVM_MISSION_MAX_NAME)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '/'))
            return false;
    }
    return true;
}

static const char *check_var_name(lua_State *L, int idx, size_t *n)
{
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, n) : NULL;
    if (!s || !name_chars_ok(s, *n))
        luaL_argerror(L, idx, "mission variable name is invalid");
    return s;
}

static const char *check_timer_name(lua_State *L, int idx, size_t *n)
{
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, n) : NULL;
    if (!s || !name_chars_ok(s, *n) || (*n >= 8 && memcmp(s, "sunrise/", 8) == 0))
        luaL_argerror(L, idx, "mission timer name is invalid or reserved");
    return s;
}

static bool to_mval(lua_State *L, int idx, mval *v)
{
    memset(v, 0, offsetof(mval, s));
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
        v->type = GSVM_MV_BOOL;
        v->b = lua_toboolean(L, idx);
        return true;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            v->type = GSVM_MV_INT;
            v->i = lua_tointeger(L, idx);
            return true;
        }
        v->type = GSVM_MV_NUM;
        v->n = lua_tonumber(L, idx);
        return isfinite(v->n);
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        if (n > GSVM_MISSION_MAX_STRING)
            return false;
        v->type = GSVM_MV_STR;
        memcpy(v->s, s, n);
        v->len = (uint8_t)n;
        return true;
    }
    default: return false;
    }
}

static void push_mval(lua_State *L, const mval *v)
{
    switch (v->type) {
    case GSVM_MV_BOOL: lua_pushboolean(L, v->b); break;
    case GSVM_MV_INT: lua_pushinteger(L, v->i); break;
    case GSVM_MV_NUM: lua_pushnumber(L, v->n); break;
    case GSVM_MV_STR: lua_pushlstring(L, v->s, v->len); break;
    default: lua_pushnil(L);
    }
}

/* Reads an integer argument in [lo, hi]; false when it is not one. */
static bool int_in(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *out)
{
    int isnum = 0;
    if (lua_type(L, idx) != LUA_TNUMBER)
        return false;
    lua_Integer v = lua_tointegerx(L, idx, &isnum);
    if (!isnum || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* ---- effect argument tables ---- */

static int rawfield(lua_State *L, int idx, const char *k)
{
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

/* Normalizes argument `idx` to a table whose keys are all declared. */
static void args_table(lua_State *L, int idx, const char *const *declared)
{
    if (lua_gettop(L) < idx)
        lua_settop(L, idx);
    if (lua_isnil(L, idx)) {
        lua_newtable(L);
        lua_replace(L, idx);
    }
    if (!lua_istable(L, idx))
        luaL_error(L, "effect arguments must be one table");
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        bool ok = false;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (const char *const *d = declared; *d && !ok; d++)
                ok = strcmp(*d, lua_tostring(L, -1)) == 0;
        if (!ok)
            luaL_error(L, "effect argument is not declared");
    }
}

static const char *handle_id(gsvm_mission *m, const hud *h);

/* Checks that the value at idx can become JSON (plain values, handles,
 * tables of them; bounded). Raises otherwise. */
static void check_plain(lua_State *L, int idx, int depth, int *budget)
{
    idx = lua_absindex(L, idx);
    if (--*budget < 0 || depth > 8)
        luaL_error(L, "effect argument is too large");
    ms_charge(L, 1);
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN:
    case LUA_TSTRING: return;
    case LUA_TNUMBER:
        if (!lua_isinteger(L, idx) && !isfinite(lua_tonumber(L, idx)))
            luaL_error(L, "effect argument is not a finite number");
        return;
    case LUA_TUSERDATA:
        /* Handles and keys travel as their id / value. */
        if (luaL_testudata(L, idx, tname[H_SLOT]) || luaL_testudata(L, idx, tname[H_SQUAD]) ||
            luaL_testudata(L, idx, tname[H_SCENE]) || luaL_testudata(L, idx, tname[H_KEY]))
            return;
        break;
    case LUA_TTABLE:
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            if (lua_type(L, -2) != LUA_TSTRING && !lua_isinteger(L, -2))
                luaL_error(L, "effect argument keys must be strings or integers");
            check_plain(L, -1, depth + 1, budget);
            lua_pop(L, 1);
        }
        return;
    default: break;
    }
    luaL_error(L, "effect argument is not a plain value");
}

/* Converts a checked value to JSON; raises nothing. */
static json_t *to_json(lua_State *L, int idx)
{
    gsvm_mission *m = ms_from_L(L);
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        return lua_isinteger(L, idx) ? json_integer(lua_tointeger(L, idx))
                                     : json_real(lua_tonumber(L, idx));
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        json_t *j = json_stringn(s, n);
        return j ? j : json_string("(binary)");
    }
    case LUA_TUSERDATA: {
        hud *h = lua_touserdata(L, idx);
        if (h->kind == H_KEY) {
            char buf[24];
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)h->gen);
            return json_string(buf);
        }
        return json_string(handle_id(m, h));
    }
    case LUA_TTABLE: {
        /* A dense 1..n array becomes a JSON array, anything else an object. */
        size_t n = lua_rawlen(L, idx), count = 0;
        bool dense = true;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            count++;
            if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 ||
                (size_t)lua_tointeger(L, -2) > n)
                dense = false;
            lua_pop(L, 1);
        }
        if (dense && count == n && n > 0) {
            json_t *a = json_array();
            for (size_t i = 1; i <= n; i++) {
                lua_rawgeti(L, idx, (lua_Integer)i);
                json_array_append_new(a, to_json(L, -1));
                lua_pop(L, 1);
            }
            return a;
        }
        json_t *o = json_object();
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            char kb[32];
            const char *k;
            if (lua_type(L, -2) == LUA_TSTRING) {
                k = lua_tostring(L, -2);
            } else {
                snprintf(kb, sizeof kb, "%lld", (long long)lua_tointeger(L, -2));
                k = kb;
            }
            json_object_set_new(o, k, to_json(L, -1));
            lua_pop(L, 1);
        }
        return o;
    }
    default: return json_null();
    }
}

/* Hands a request to the transaction and pushes its RequestKey. */
static mreq *emit_request(lua_State *L, gsvm_mission *m, int op, const char *call,
                          const char *effect, json_t *args)
{
    mreq *r = mreq_new(m, op, call, effect);
    char *txt = args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(args);
    if (!r || !txt || !txn_add_request(m, r)) {
        free(txt);
        mreq_free(r);
        raise_oom(L);
        return NULL;
    }
    r->args = txt;
    ms_push_key(L, r->key);
    return r;
}

/* Builds {"<what>": id, <declared args>} from the args table at idx
 * (what: "slot", "squad" or "scene"; no id member when id is NULL). */
static json_t *args_json_of(lua_State *L, int idx, const char *what, const char *slot_id)
{
    int budget = 4096;
    check_plain(L, idx, 0, &budget);
    json_t *o = to_json(L, idx);
    if (!json_is_object(o)) {
        json_decref(o);
        o = json_object();
    }
    if (slot_id) {
        json_t *full = json_object();
        json_object_set_new(full, what, json_string(slot_id));
        json_object_update(full, o);
        json_decref(o);
        o = full;
    }
    return o;
}

static json_t *args_json(lua_State *L, int idx, const char *slot_id)
{
    return args_json_of(L, idx, "slot", slot_id);
}

/* ---- RequestKey ---- */

void ms_push_key(lua_State *L, uint64_t key)
{
    hud *h = new_handle(L, H_KEY);
    h->gen = key;
}

static int key_matches(lua_State *L)
{
    hud *a = check_handle(L, 1, H_KEY);
    hud *b = check_handle(L, 2, H_KEY);
    lua_pushboolean(L, a->gen == b->gen);
    return 1;
}

static int key_index(lua_State *L)
{
    hud *h = check_handle(L, 1, H_KEY);
    if (method(L))
        return 1;
    if (key_is(L, "value")) {
        push_u64(L, h->gen);
        return 1;
    }
    return 0;
}

/* ---- world handles ---- */

static const char *handle_id(gsvm_mission *m, const hud *h)
{
    const gsvm_mission_world *w = m->world;
    if (h->kind == H_SLOT && h->row >= 1 && h->row <= w->nslots)
        return w->slots[h->row - 1].id;
    if (h->kind == H_SQUAD && h->row >= 1 && h->row <= w->nsquads)
        return w->squads[h->row - 1].id;
    if (h->kind == H_SCENE && h->row >= 1 && h->row <= w->nscenes)
        return w->scenes[h->row - 1].id;
    return "";
}

static void push_world_handle(lua_State *L, int kind, int row)
{
    hud *h = new_handle(L, kind);
    h->row = row;
}

/* Slot request methods: the exact slot type each needs, the effect named in
 * effect_result (NULL for the generic slot-authority kinds) and the declared
 * argument keys.  Types: 1 atom runner, 2 trigger, 3 device, 4 object,
 * 5 actor, 6 cinematic, 7 Ghost link, 8 objective, 9 zone. */
typedef struct slot_method {
    const char *name;
    int type;
    const char *effect;
    const char *args[6];
} slot_method;

static const slot_method slot_methods[] = {
    {"set_object_active", 4, "slot.set_object_active", {"active", NULL}},
    {"set_interactable_object", 4, "slot.set_interactable_object", {"interactable", "prompt", NULL}},
    {"watch_damage", 5, "slot.watch_damage", {"active", NULL}},
    {"set_object_filter", 4, NULL, {"filter", NULL}},
    {"set_occupancy_condition", 2, NULL, {"condition", "count", NULL}},
    {"set_darkness_zone", 9, NULL, {"active", NULL}},
    {"set_music_section", 9, NULL, {"section", NULL}},
    {"set_ghost_link", 7, "slot.set_ghost_link", {"active", "progress", NULL}},
    {"transition", 3, "slot.set_channel", {"state", NULL}},
    {"set_channel", 3, "slot.set_channel", {"channel", "value", NULL}},
    {"fire_trigger", 2, "slot.fire_trigger", {NULL}},
    {"disarm_trigger", 2, NULL, {NULL}},
    {"set_directive", 5, NULL, {"directive", "value", NULL}},
    {"clear_directives", 5, NULL, {NULL}},
    {"set_public_event_state", 9, NULL, {"state", NULL}},
    {"play_sequence", 6, "slot.play_sequence", {"sequence", NULL}},
    {"set_cinematic_active", 6, "slot.set_cinematic_active", {"active", NULL}},
    {"reset_objectives", 8, "slot.reset_objectives", {NULL}},
    {"advance_task", 8, "slot.advance_task", {"task", NULL}},
    {"play_performance", 5, "slot.play_performance", {"performance", NULL}},
    {"play_dialogue_cue", 5, "slot.play_dialogue_cue", {"cue", NULL}},
    {"assign_combat_objective", 5, "slot.assign_combat_objective", {"objective", "group", NULL}},
    {"run_atoms", 1, "slot.run_atoms", {"atoms", NULL}},
    {"play_actor_path", 5, NULL, {"path", NULL}},
    {"play_actor_action", 5, NULL, {"action", NULL}},
    {"retire_actor", 5, "slot.retire_actor", {NULL}},
    {"bind_combatant_to_squad", 5, NULL, {"squad", NULL}},
};

static const wslot *slot_of(lua_State *L, gsvm_mission *m, int idx)
{
    hud *h = check_handle(L, idx, H_SLOT);
    const wslot *ws = ms_world_slot(m, h->row);
    if (!ws)
        luaL_error(L, "activity slot is stale");
    return ws;
}

static int slot_request(lua_State *L)
{
    const slot_method *sm = &slot_methods[lua_tointeger(L, lua_upvalueindex(1))];
    gsvm_mission *m = active(L);
    const wslot *ws = slot_of(L, m, 1);
    if (ws->type != sm->type)
        return luaL_error(L, "%s requires a slot of type %d", sm->name, sm->type);
    args_table(L, 2, sm->args);
    if (strcmp(sm->name, "run_atoms") == 0) {
        if (rawfield(L, 2, "atoms") != LUA_TTABLE || lua_rawlen(L, -1) < 1 || lua_rawlen(L, -1) > 32)
            return luaL_error(L, "run_atoms takes 1 to 32 atoms");
        lua_pop(L, 1);
    }
    if (strcmp(sm->name, "bind_combatant_to_squad") == 0) {
        rawfield(L, 2, "squad");
        if (!luaL_testudata(L, -1, tname[H_SQUAD]))
            return luaL_error(L, "squad must be a %s", tname[H_SQUAD]);
        lua_pop(L, 1);
    }
    char call[48];
    snprintf(call, sizeof call, "slot:%s", sm->name);
    emit_request(L, m, OP_HOST, call, sm->effect, args_json(L, 2, ws->id));
    return 1;
}

static int slot_ghost_link(lua_State *L)
{
    gsvm_mission *m = active(L);
    slot_of(L, m, 1);
    lua_pushnil(L);
    return 1;
}

static int slot_applied(lua_State *L)
{
    gsvm_mission *m = active(L);
    slot_of(L, m, 1);
    static const char *const a[] = {"channel", NULL};
    args_table(L, 2, a);
    lua_pushboolean(L, 0);
    return 1;
}

static int slot_sequences(lua_State *L)
{
    gsvm_mission *m = active(L);
    slot_of(L, m, 1);
    lua_newtable(L);
    return 1;
}

static int slot_index(lua_State *L)
{
    hud *h = check_handle(L, 1, H_SLOT);
    if (method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    const wslot *ws = ms_world_slot(m, h->row);
    if (!ws)
        return luaL_error(L, "activity slot is stale");
    if (key_is(L, "id"))
        lua_pushstring(L, ws->id);
    else if (key_is(L, "slot_type"))
        lua_pushinteger(L, ws->type);
    else if (key_is(L, "slot_index"))
        lua_pushinteger(L, h->row);
    else if (key_is(L, "object_tag"))
        lua_pushinteger(L, ws->tag);
    else if (key_is(L, "registry_key"))
        lua_pushstring(L, ws->registry_key);
    else
        lua_pushnil(L);
    return 1;
}

static int squad_place(lua_State *L)
{
    gsvm_mission *m = active(L);
    hud *h = check_handle(L, 1, H_SQUAD);
    static const char *const a[] = {"counts", "mode", "spawn_rule", "retire_on_return", NULL};
    args_table(L, 2, a);
    if (rawfield(L, 2, "counts") == LUA_TTABLE) {
        size_t n = lua_rawlen(L, -1), total = 0;
        for (size_t i = 1; i <= n && i <= 64; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            total += lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0 ? (size_t)lua_tointeger(L, -1) : 0;
            lua_pop(L, 1);
        }
        if (total > 15)
            return luaL_error(L, "squad place exceeds 15 members");
    }
    lua_pop(L, 1);
    emit_request(L, m, OP_HOST, "squad:place", "squad.place", args_json_of(L, 2, "squad", handle_id(m, h)));
    return 1;
}

static int squad_actor_command(lua_State *L)
{
    gsvm_mission *m = active(L);
    hud *h = check_handle(L, 1, H_SQUAD);
    static const char *const a[] = {"command", "value", NULL};
    args_table(L, 2, a);
    emit_request(L, m, OP_ACTOR_COMMAND, "squad:actor_command", NULL,
                 args_json_of(L, 2, "squad", handle_id(m, h)));
    return 1;
}

static int squad_index(lua_State *L)
{
    hud *h = check_handle(L, 1, H_SQUAD);
    if (method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    if (key_is(L, "id"))
        lua_pushstring(L, handle_id(m, h));
    else if (key_is(L, "alive_count") && m->squad_alive && m->squad_alive[h->row - 1] >= 0)
        lua_pushinteger(L, m->squad_alive[h->row - 1]);
    else
        lua_pushnil(L);
    return 1;
}

static int scene_request(lua_State *L, const char *call, const char *effect,
                         const char *const *declared)
{
    gsvm_mission *m = active(L);
    hud *h = check_handle(L, 1, H_SCENE);
    args_table(L, 2, declared);
    mreq *r = emit_request(L, m, OP_HOST, call, effect, args_json_of(L, 2, "scene", handle_id(m, h)));
    r->publish = true;
    return 1;
}

static int scene_activate(lua_State *L)
{
    static const char *const a[] = {"spawn", NULL};
    return scene_request(L, "scene:activate", "scene.activate", a);
}
static int scene_stop(lua_State *L)
{
    static const char *const a[] = {NULL};
    return scene_request(L, "scene:stop", "scene.stop", a);
}
static int scene_send_event(lua_State *L)
{
    static const char *const a[] = {"key", NULL};
    return scene_request(L, "scene:send_event", "scene.send_event", a);
}

static int scene_index(lua_State *L)
{
    hud *h = check_handle(L, 1, H_SCENE);
    if (method(L))
        return 1;
    if (key_is(L, "id"))
        lua_pushstring(L, handle_id(ms_from_L(L), h));
    else
        lua_pushnil(L);
    return 1;
}

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
    check_handle(L, 1, H_SDK);
    if (key_is(L, "build_id"))
        push_sdk_build_id(L, ms_from_L(L));
    else
        lua_pushnil(L);
    return 1;
}

static int lifetime_set(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_LIFETIME);
    static const char *const a[] = {"state", NULL};
    args_table(L, 2, a);
    rawfield(L, 2, "state");
    lua_Integer st;
    if (!int_in(L, -1, 0, 10, &st))
        return luaL_error(L, "lifetime state is outside 0..10");
    lua_pop(L, 1);
    mreq *r = emit_request(L, m, OP_HOST, "lifetime:set", "lifetime.set", args_json(L, 2, NULL));
    r->p1 = st;
    return 1;
}

static int lifetime_index(lua_State *L)
{
    check_handle(L, 1, H_LIFETIME);
    if (!method(L))
        lua_pushnil(L);
    return 1;
}

static int peers_at(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    check_handle(L, 1, H_PEERS);
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
    check_handle(L, 1, H_PEERS);
    if (method(L))
        return 1;
    if (key_is(L, "count"))
        lua_pushinteger(L, ms_from_L(L)->world->npeers);
    else
        lua_pushnil(L);
    return 1;
}

static int resolve(lua_State *L, int kind, bool timer)
{
    check_handle(L, 1, kind);
    size_t n;
    const char *s = timer ? check_timer_name(L, 2, &n) : check_var_name(L, 2, &n);
    hud *h = new_handle(L, H_NAME);
    memcpy(h->name, s, n);
    return 1;
}
static int timers_resolve(lua_State *L) { return resolve(L, H_TIMERS, true); }
static int variables_resolve(lua_State *L) { return resolve(L, H_VARIABLES, false); }

static int timers_index(lua_State *L)
{
    check_handle(L, 1, H_TIMERS);
    if (method(L))
        return 1;
    if (key_is(L, "capacity"))
        lua_pushinteger(L, GSVM_MISSION_MAX_TIMERS);
    else
        lua_pushnil(L);
    return 1;
}

static int variables_index(lua_State *L)
{
    check_handle(L, 1, H_VARIABLES);
    if (method(L))
        return 1;
    if (key_is(L, "capacity"))
        lua_pushinteger(L, ms_from_L(L)->cfg.max_variables);
    else
        lua_pushnil(L);
    return 1;
}

static int name_index(lua_State *L)
{
    hud *h = check_handle(L, 1, H_NAME);
    if (key_is(L, "name"))
        lua_pushstring(L, h->name);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- context methods ---- */

static int ctx_set_variable(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = check_var_name(L, 2, &n);
    mval v;
    if (!to_mval(L, 3, &v))
        return luaL_argerror(L, 3, "mission variable value is not a bounded scalar");
    int rc = txn_set_var(m, name, n, &v);
    if (rc == 1)
        return luaL_error(L, "mission variable capacity exceeded");
    if (rc < 0)
        return raise_oom(L);
    return 0;
}

static int ctx_clear_variable(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = check_var_name(L, 2, &n);
    int rc = txn_clear_var(m, name, n);
    if (rc < 0)
        return raise_oom(L);
    lua_pushboolean(L, rc == 1);
    return 1;
}

static int ctx_start_timer(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = check_timer_name(L, 2, &n);
    lua_Integer ms;
    if (!int_in(L, 3, 0, (lua_Integer)UINT32_MAX, &ms))
        return luaL_argerror(L, 3, "mission timer delay is outside u32 milliseconds");
    const mtimers *cur = txn_timers_r(m);
    if (timers_find(cur, name) < 0 && cur->n >= (int)GSVM_MISSION_MAX_TIMERS)
        return luaL_error(L, "mission timer capacity exceeded");
    uint64_t now = m->rec.clock, deadline = now + (uint64_t)ms;
    if (deadline < now)
        deadline = UINT64_MAX;
    uint64_t seq = m->txn.next_timer_seq++;
    timers_set(txn_timers_w(m), name, deadline, seq);
    push_u64(L, seq);
    return 1;
}

static int ctx_cancel_timer(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    size_t n;
    const char *name = check_timer_name(L, 2, &n);
    bool had = timers_find(txn_timers_r(m), name) >= 0;
    if (had)
        timers_remove(txn_timers_w(m), name);
    lua_pushboolean(L, had);
    return 1;
}

static int ctx_set_phase(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    lua_Integer p;
    if (!int_in(L, 2, 0, (lua_Integer)UINT32_MAX, &p))
        return luaL_argerror(L, 2, "mission phase is outside u32");
    m->txn.phase_set = true;
    m->txn.phase = (uint32_t)p;
    return 0;
}

static int ctx_select_state(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer region;
    rawfield(L, 2, "region_index");
    if (!int_in(L, -1, 0, INT32_MAX, &region))
        return luaL_argerror(L, 2, "state must be a generated state with an integer region_index");
    lua_pop(L, 1);
    lua_settop(L, 3);
    if (!lua_isnil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_rawlen(L, 3) > 32)
            return luaL_error(L, "select_state takes at most 32 slot selectors");
        int t = rawfield(L, 3, "retire_placed_props");
        if (t != LUA_TNIL && t != LUA_TBOOLEAN)
            return luaL_error(L, "retire_placed_props must be a boolean");
        lua_pop(L, 1);
    } else {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    int budget = 4096;
    check_plain(L, 3, 0, &budget);
    int retire = rawfield(L, 3, "retire_placed_props") == LUA_TBOOLEAN ? lua_toboolean(L, -1) : -1;
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
            json_array_append_new(omit, to_json(L, -1));
            lua_pop(L, 1);
        }
        json_object_set_new(o, "omit", omit);
    }
    if (retire >= 0)
        json_object_set_new(o, "retire_placed_props", json_boolean(retire));
    mreq *r = emit_request(L, m, OP_SELECT_STATE, "context:select_state", "mission.select_state", o);
    r->publish = true;
    r->p1 = region;
    return 1;
}

typedef struct obj_row {
    int64_t tag;
    char registry_key[32];
    int row;
    char owner[32];
} obj_row;

static int cmp_obj(const void *a, const void *b)
{
    const obj_row *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    int c = strcmp(x->registry_key, y->registry_key);
    if (c)
        return c;
    return x->row - y->row;
}

static int ctx_activate_objects(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"slots", "active", NULL};
    args_table(L, 2, a);
    int t = rawfield(L, 2, "active");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
        return luaL_error(L, "active must be a boolean");
    bool on = t == LUA_TNIL ? true : lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (rawfield(L, 2, "slots") != LUA_TTABLE)
        return luaL_error(L, "slots must be a list of %s", tname[H_SLOT]);
    int slots = lua_gettop(L);
    size_t n = lua_rawlen(L, slots), count = 0;
    lua_pushnil(L);
    while (lua_next(L, slots)) {
        count++;
        lua_pop(L, 1);
    }
    if (count != n || n == 0)
        return luaL_error(L, "slots must be a dense list");
    if (n > 4096)
        return luaL_error(L, "effect argument is too large");
    ms_charge(L, n * 4);
    obj_row *rows = lua_newuserdatauv(L, n * sizeof *rows, 0); /* Lua-owned scratch */
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, slots, (lua_Integer)(i + 1));
        hud *h = luaL_testudata(L, -1, tname[H_SLOT]);
        if (!h)
            return luaL_error(L, "slots must be a %s", tname[H_SLOT]);
        const wslot *ws = ms_world_slot(m, h->row);
        if (!ws)
            return luaL_error(L, "activity slot is stale");
        if (ws->type != 4)
            return luaL_error(L, "activate_objects requires object slots (type 4)");
        for (size_t j = 0; j < i; j++)
            if (rows[j].row == h->row)
                return luaL_error(L, "activate_objects slots repeat");
        rows[i].tag = ws->tag;
        snprintf(rows[i].registry_key, sizeof rows[i].registry_key, "%s", ws->registry_key);
        snprintf(rows[i].owner, sizeof rows[i].owner, "%s", ws->owner);
        rows[i].row = h->row;
        lua_pop(L, 1);
    }
    qsort(rows, n, sizeof *rows, cmp_obj);
    lua_createtable(L, 1, 0);
    int result = lua_gettop(L), nkeys = 0;
    /* Owners in the order they first appear; each owner's slots in batches of 64. */
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(rows[j].owner, rows[i].owner) != 0;
        if (!first)
            continue;
        json_t *batch = NULL;
        int in_batch = 0;
        for (size_t j = i; j <= n; j++) {
            bool flush = j == n || (in_batch == 64);
            if (flush && batch) {
                json_t *o = json_object();
                json_object_set_new(o, "owner", json_string(rows[i].owner));
                json_object_set_new(o, "slots", batch);
                json_object_set_new(o, "active", json_boolean(on));
                emit_request(L, m, OP_HOST, "context:activate_objects", "slot.set_object_active", o);
                lua_rawseti(L, result, ++nkeys);
                batch = NULL;
                in_batch = 0;
            }
            if (j == n)
                break;
            if (strcmp(rows[j].owner, rows[i].owner) != 0)
                continue;
            if (!batch)
                batch = json_array();
            json_array_append_new(batch, json_string(ms_world_slot(m, rows[j].row)->id));
            in_batch++;
        }
    }
    return 1;
}

static int ctx_complete_mission(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {NULL};
    args_table(L, 2, a);
    if (m->rec.complete)
        return luaL_error(L, "mission attempt is already complete");
    mreq *r = emit_request(L, m, OP_HOST, "context:complete_mission", "lifetime.set",
                           json_pack("{s:i}", "state", 6));
    r->p1 = 6;
    r->completes = true;
    m->txn.completes = true;
    return 1;
}

static int ctx_hold_spawn(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"active", NULL};
    args_table(L, 2, a);
    if (rawfield(L, 2, "active") != LUA_TBOOLEAN)
        return luaL_error(L, "hold_spawn requires an active boolean");
    bool on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    mreq *r = emit_request(L, m, OP_HOLD_SPAWN, "context:hold_spawn", "mission.hold_spawn",
                           json_pack("{s:b}", "active", on));
    r->p1 = on;
    return 1;
}

static int ctx_restart_checkpoint(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"region", "spawn_set_hash", "release_request", NULL};
    args_table(L, 2, a);
    lua_Integer region, hash;
    rawfield(L, 2, "region");
    if (!int_in(L, -1, 0, 1022, &region))
        return luaL_error(L, "restart_checkpoint region is outside 0..1022");
    rawfield(L, 2, "spawn_set_hash");
    if (!int_in(L, -1, 1, 0xFFFFFFFEll, &hash))
        return luaL_error(L, "restart_checkpoint spawn_set_hash is outside 1..0xFFFFFFFE");
    uint64_t release = 0;
    int t = rawfield(L, 2, "release_request");
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
    mreq *r = emit_request(L, m, OP_RESTART, "context:restart_checkpoint", "mission.restart_checkpoint", o);
    r->p1 = region;
    r->p2 = hash;
    r->p3 = (int64_t)release;
    return 1;
}

static int find_handle(lua_State *L, int what, int kind, const char *msg)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    int row = ms_world_find(m, what, L, 2);
    if (!row)
        return luaL_error(L, "%s", msg);
    push_world_handle(L, kind, row);
    return 1;
}
static int ctx_slot(lua_State *L) { return find_handle(L, W_SLOT, H_SLOT, "unknown or ambiguous activity slot"); }
static int ctx_squad(lua_State *L) { return find_handle(L, W_SQUAD, H_SQUAD, "unknown or ambiguous activity squad"); }
static int ctx_scene(lua_State *L) { return find_handle(L, W_SCENE, H_SCENE, "unknown or ambiguous authored scene"); }

static int ctx_cohort(lua_State *L)
{
    gsvm_mission *m = active(L);
    check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"squads", NULL};
    args_table(L, 2, a);
    if (rawfield(L, 2, "squads") != LUA_TTABLE)
        return luaL_error(L, "squads must be a list of %s", tname[H_SQUAD]);
    size_t n = lua_rawlen(L, -1);
    if (n > 64)
        return luaL_error(L, "cohort takes up to 64 squads");
    bool known = true;
    int64_t alive = 0;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        hud *h = luaL_testudata(L, -1, tname[H_SQUAD]);
        if (!h)
            return luaL_error(L, "squads must be a %s", tname[H_SQUAD]);
        int64_t a1 = m->squad_alive ? m->squad_alive[h->row - 1] : -1;
        if (a1 < 0)
            known = false;
        else
            alive += a1;
        lua_pop(L, 1);
    }
    lua_createtable(L, 0, 4);
    if (known) {
        lua_pushinteger(L, alive);
        lua_setfield(L, -2, "alive_count");
    }
    lua_pushboolean(L, known);
    lua_setfield(L, -2, "observed_full");
    lua_pushboolean(L, known && alive == 0);
    lua_setfield(L, -2, "cleared");
    lua_pushinteger(L, (lua_Integer)n);
    lua_setfield(L, -2, "size");
    return 1;
}

static int ctx_index(lua_State *L)
{
    check_handle(L, 1, H_CONTEXT);
    if (method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    const gsvm_mission_world *w = m->world;
    if (key_is(L, "sdk_build_id"))
        push_sdk_build_id(L, m);
    else if (key_is(L, "activity_id"))
        lua_pushstring(L, m->activity_id);
    else if (key_is(L, "activity_row"))
        lua_pushinteger(L, w->row);
    else if (key_is(L, "definition_hash"))
        lua_pushinteger(L, w->definition_hash);
    else if (key_is(L, "activity_role"))
        lua_pushstring(L, m->cfg.role == GSVM_MISSION_PRIVATE ? "private" : "public");
    else if (key_is(L, "player_key"))
        lua_pushstring(L, w->player_key[0] ? w->player_key : "0");
    else if (key_is(L, "attempt_generation"))
        push_u64(L, m->rec.attempt);
    else if (key_is(L, "mission_complete"))
        lua_pushboolean(L, m->rec.complete);
    else if (key_is(L, "sdk"))
        new_handle(L, H_SDK);
    else if (key_is(L, "lifetime"))
        new_handle(L, H_LIFETIME);
    else if (key_is(L, "peers"))
        new_handle(L, H_PEERS);
    else if (key_is(L, "timers"))
        new_handle(L, H_TIMERS);
    else if (key_is(L, "variables"))
        new_handle(L, H_VARIABLES);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- state ---- */

static int st_variable(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    check_handle(L, 1, H_STATE);
    size_t n;
    const char *name = check_var_name(L, 2, &n);
    const mval *v = txn_get_var(m, name, n);
    if (v)
        push_mval(L, v);
    else
        lua_pushnil(L);
    return 1;
}

static int st_has_variable(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    check_handle(L, 1, H_STATE);
    size_t n;
    const char *name = check_var_name(L, 2, &n);
    lua_pushboolean(L, txn_get_var(m, name, n) != NULL);
    return 1;
}

static int st_timer(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    check_handle(L, 1, H_STATE);
    size_t n;
    const char *name = check_timer_name(L, 2, &n);
    const mtimers *t = txn_timers_r(m);
    int i = timers_find(t, name);
    if (i < 0)
        lua_pushnil(L);
    else
        push_u64(L, t->t[i].deadline);
    return 1;
}

static int st_index(lua_State *L)
{
    check_handle(L, 1, H_STATE);
    if (method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    if (key_is(L, "phase"))
        lua_pushinteger(L, txn_phase(m));
    else if (key_is(L, "revision"))
        push_u64(L, m->rec.revision);
    else
        lua_pushnil(L);
    return 1;
}

/* ---- events ---- */

static const mevent *live_event(lua_State *L, hud *h)
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
    case EF_STR: lua_pushlstring(L, f->s, f->len); break;
    case EF_KEY: ms_push_key(L, (uint64_t)f->i); break;
    default: lua_pushnil(L);
    }
}

/* event:task_cost{group}, event:task_group{objective}, event:applied_request{channel}
 * read the report's "task_cost.<group>", "task_group.<objective>" and
 * "applied_request.<channel>" fields: (value, true) or (nil, false). */
static int ev_lookup(lua_State *L, const char *prefix, const char *arg)
{
    hud *h = check_handle(L, 1, H_EVENT);
    const char *const a[] = {arg, NULL};
    args_table(L, 2, a);
    rawfield(L, 2, arg);
    const char *v = luaL_tolstring(L, -1, NULL);
    char name[40];
    snprintf(name, sizeof name, "%s.%s", prefix, v);
    const mevent *e = live_event(L, h);
    const mfield *f = e ? mevent_get(e, name) : NULL;
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
static int ev_applied_request(lua_State *L) { return ev_lookup(L, "applied_request", "channel"); }

static int ev_index(lua_State *L)
{
    hud *h = check_handle(L, 1, H_EVENT);
    if (method(L))
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
        if (e->slot_row > 0)
            push_world_handle(L, H_SLOT, e->slot_row);
        else
            lua_pushnil(L);
        return 1;
    }
    const mfield *f = mevent_get(e, k);
    if (!f)
        return 0;
    push_field(L, f);
    return 1;
}

void ms_push_event(lua_State *L, gsvm_mission *m, const mevent *e)
{
    hud *h = new_handle(L, H_EVENT);
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

static void define(lua_State *L, int kind, lua_CFunction index, const luaL_Reg *methods)
{
    luaL_newmetatable(L, tname[kind]);
    lua_newtable(L);
    if (methods)
        luaL_setfuncs(L, methods, 0);
    lua_pushcclosure(L, index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

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
        {"activate_objects", ctx_activate_objects},
        {"complete_mission", ctx_complete_mission},
        {"hold_spawn", ctx_hold_spawn},
        {"restart_checkpoint", ctx_restart_checkpoint},
        {"slot", ctx_slot},
        {"squad", ctx_squad},
        {"scene", ctx_scene},
        {"cohort", ctx_cohort},
        {NULL, NULL},
    };
    static const luaL_Reg st_methods[] = {
        {"variable", st_variable}, {"has_variable", st_has_variable}, {"timer", st_timer}, {NULL, NULL}};
    static const luaL_Reg ev_methods[] = {{"task_cost", ev_task_cost},
                                          {"task_group", ev_task_group},
                                          {"applied_request", ev_applied_request},
                                          {NULL, NULL}};
    static const luaL_Reg key_methods[] = {{"matches", key_matches}, {NULL, NULL}};
    static const luaL_Reg lifetime_methods[] = {{"set", lifetime_set}, {NULL, NULL}};
    static const luaL_Reg peers_methods[] = {{"at", peers_at}, {NULL, NULL}};
    static const luaL_Reg timers_methods[] = {{"resolve", timers_resolve}, {NULL, NULL}};
    static const luaL_Reg variables_methods[] = {{"resolve", variables_resolve}, {NULL, NULL}};
    static const luaL_Reg squad_methods[] = {
        {"place", squad_place}, {"actor_command", squad_actor_command}, {NULL, NULL}};
    static const luaL_Reg scene_methods[] = {
        {"activate", scene_activate}, {"stop", scene_stop}, {"send_event", scene_send_event}, {NULL, NULL}};
    static const luaL_Reg slot_reads[] = {
        {"ghost_link", slot_ghost_link}, {"applied", slot_applied}, {"sequences", slot_sequences}, {NULL, NULL}};

    define(L, H_CONTEXT, ctx_index, ctx_methods);
    define(L, H_STATE, st_index, st_methods);
    define(L, H_EVENT, ev_index, ev_methods);
    define(L, H_KEY, key_index, key_methods);
    define(L, H_SDK, sdk_index, NULL);
    define(L, H_LIFETIME, lifetime_index, lifetime_methods);
    define(L, H_PEERS, peers_index, peers_methods);
    define(L, H_TIMERS, timers_index, timers_methods);
    define(L, H_VARIABLES, variables_index, variables_methods);
    define(L, H_NAME, name_index, NULL);
    define(L, H_SQUAD, squad_index, squad_methods);
    define(L, H_SCENE, scene_index, scene_methods);

    /* Slots: the read methods plus one closure per request method. */
    luaL_newmetatable(L, tname[H_SLOT]);
    lua_newtable(L);
    luaL_setfuncs(L, slot_reads, 0);
    for (size_t i = 0; i < sizeof slot_methods / sizeof slot_methods[0]; i++) {
        lua_pushinteger(L, (lua_Integer)i);
        lua_pushcclosure(L, slot_request, 1);
        lua_setfield(L, -2, slot_methods[i].name);
    }
    lua_pushcclosure(L, slot_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    new_handle(L, H_CONTEXT);
    m->ref_context = luaL_ref(L, LUA_REGISTRYINDEX);
    new_handle(L, H_STATE);
    m->ref_state = luaL_ref(L, LUA_REGISTRYINDEX);
}
