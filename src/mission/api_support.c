/* Helpers of the script API: handles, name and value checks, effect
 * argument tables, requests handed to the transaction, and RequestKeys. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mission/api.h"

const char *const mapi_tname[H_COUNT] = {
    "mission.context", "mission.state",     "mission.event", "mission.key",  "mission.sdk",
    "mission.lifetime", "mission.peers",    "mission.timers", "mission.variables",
    "mission.name",    "mission.slot",      "mission.squad", "mission.scene",
};

mapi_hud *mapi_new_handle(lua_State *L, int kind)
{
    mapi_hud *h = lua_newuserdatauv(L, sizeof *h, 0);
    memset(h, 0, sizeof *h);
    h->kind = kind;
    luaL_setmetatable(L, mapi_tname[kind]);
    return h;
}

mapi_hud *mapi_check_handle(lua_State *L, int idx, int kind)
{
    return luaL_checkudata(L, idx, mapi_tname[kind]);
}

/* Decimal text of `v` in `out` (at least 21 bytes); returns its length.
 * Every dispatched event carries four such numbers, and snprintf was a fifth
 * of a no-op callback's cost. */
size_t ms_u64_text(uint64_t v, char *out)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = 0;
    return n;
}

void mapi_push_u64(lua_State *L, uint64_t v)
{
    char buf[24];
    lua_pushlstring(L, buf, ms_u64_text(v, buf));
}

int mapi_raise_oom(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    if (!m->lim.tripped)
        m->lim.tripped = LIM_MEMORY;
    return ms_raise_limit(L);
}

gsvm_mission *mapi_active(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    ms_check_tripped(L);
    if (!m->txn.active)
        luaL_error(L, "mission context is not active");
    return m;
}

/* True when the __index key is a method of this kind (pushed). */
bool mapi_method(lua_State *L)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return true;
    lua_pop(L, 1);
    return false;
}

bool mapi_key_is(lua_State *L, const char *k)
{
    const char *s = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    return s && strcmp(s, k) == 0;
}

/* ---- names and values ---- */

bool ms_name_ok(const char *s, size_t n)
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

const char *mapi_check_var_name(lua_State *L, int idx, size_t *n)
{
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, n) : NULL;
    if (!s || !ms_name_ok(s, *n))
        luaL_argerror(L, idx, "mission variable name is invalid");
    return s;
}

const char *mapi_check_timer_name(lua_State *L, int idx, size_t *n)
{
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, n) : NULL;
    if (!s || !ms_name_ok(s, *n) || (*n >= 8 && memcmp(s, "sunrise/", 8) == 0))
        luaL_argerror(L, idx, "mission timer name is invalid or reserved");
    return s;
}

bool mapi_to_mval(lua_State *L, int idx, mval *v)
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

void mapi_push_mval(lua_State *L, const mval *v)
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
bool mapi_int_in(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *out)
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

int mapi_rawfield(lua_State *L, int idx, const char *k)
{
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

/* Normalizes argument `idx` to a table whose keys are all declared. */
void mapi_args_table(lua_State *L, int idx, const char *const *declared)
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

/* A request's arguments must be carried byte for byte: strings and keys are
 * UTF-8 (JSON text; a NUL travels as \u0000 in values), nothing else is
 * turned into "(binary)" or dropped, and two keys that JSON would merge (the
 * integer 1 and the string "1") are refused.  Their bytes are bounded
 * (GSVM_MISSION_MAX_REQUEST_ARGS) before anything is built, so a 24 MiB
 * argument costs a Lua error, not 24 MiB of C memory per request. */
static void check_text(lua_State *L, const char *s, size_t n, bool key, size_t *bytes)
{
    *bytes += n;
    if (*bytes > GSVM_MISSION_MAX_REQUEST_ARGS)
        luaL_error(L, "effect arguments exceed %d bytes", (int)GSVM_MISSION_MAX_REQUEST_ARGS);
    if (key && memchr(s, 0, n))
        luaL_error(L, "effect argument key holds a NUL byte");
    json_t *probe = json_stringn(s, n); /* jansson's own UTF-8 rule */
    if (!probe)
        luaL_error(L, "effect argument %s is not valid UTF-8", key ? "key" : "string");
    json_decref(probe);
}

/* Checks that the value at idx can become JSON (plain values, handles,
 * tables of them; bounded). Raises otherwise. */
static void check_plain(lua_State *L, int idx, int depth, int *budget, size_t *bytes)
{
    idx = lua_absindex(L, idx);
    if (--*budget < 0 || depth > 8)
        luaL_error(L, "effect argument is too large");
    ms_charge(L, 1);
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN: return;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        check_text(L, s, n, false, bytes);
        return;
    }
    case LUA_TNUMBER:
        if (!lua_isinteger(L, idx) && !isfinite(lua_tonumber(L, idx)))
            luaL_error(L, "effect argument is not a finite number");
        *bytes += 8;
        return;
    case LUA_TUSERDATA:
        /* Handles and keys travel as their id / value. */
        if (luaL_testudata(L, idx, mapi_tname[H_SLOT]) || luaL_testudata(L, idx, mapi_tname[H_SQUAD]) ||
            luaL_testudata(L, idx, mapi_tname[H_SCENE]) || luaL_testudata(L, idx, mapi_tname[H_KEY]))
            return;
        break;
    case LUA_TTABLE:
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            if (lua_type(L, -2) == LUA_TSTRING) {
                size_t n;
                const char *k = lua_tolstring(L, -2, &n);
                check_text(L, k, n, true, bytes);
            } else if (lua_isinteger(L, -2)) {
                char kb[32];
                snprintf(kb, sizeof kb, "%lld", (long long)lua_tointeger(L, -2));
                lua_pushstring(L, kb);
                bool clash = lua_rawget(L, idx) != LUA_TNIL;
                lua_pop(L, 1);
                if (clash)
                    luaL_error(L, "effect argument keys %s and '%s' would be one JSON key", kb, kb);
                *bytes += strlen(kb);
            } else {
                luaL_error(L, "effect argument keys must be strings or integers");
            }
            check_plain(L, -1, depth + 1, budget, bytes);
            lua_pop(L, 1);
        }
        return;
    default: break;
    }
    luaL_error(L, "effect argument is not a plain value");
}

void mapi_check_plain(lua_State *L, int idx, int depth, int *budget)
{
    size_t bytes = 0;
    check_plain(L, idx, depth, budget, &bytes);
}

/* Converts a checked value to JSON; raises nothing. */
json_t *mapi_to_json(lua_State *L, int idx)
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
        return json_stringn(s, n); /* checked UTF-8: NULL only when out of memory */
    }
    case LUA_TUSERDATA: {
        mapi_hud *h = lua_touserdata(L, idx);
        if (h->kind == H_KEY) {
            char buf[24];
            return json_stringn(buf, ms_u64_text(h->gen, buf));
        }
        return json_string(mapi_handle_id(m, h));
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
                json_t *v = mapi_to_json(L, -1);
                if (!v || json_array_append_new(a, v) != 0) {
                    json_decref(a);
                    lua_pop(L, 1);
                    return NULL;
                }
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
            json_t *v = mapi_to_json(L, -1);
            if (!v || json_object_set_new(o, k, v) != 0) {
                json_decref(o);
                lua_pop(L, 2);
                return NULL; /* out of memory: the caller raises */
            }
            lua_pop(L, 1);
        }
        return o;
    }
    default: return json_null();
    }
}

/* Hands a request to the transaction and pushes its RequestKey. */
mreq *mapi_emit_request(lua_State *L, gsvm_mission *m, int op, const char *call,
                          const char *effect, json_t *args)
{
    if (m->txn.nreqs >= (int)GSVM_MISSION_REQUEST_BURST) {
        /* "burst 1+63": the request cannot be allocated; like a memory
         * error it is sticky, so no pcall can swallow it. */
        json_decref(args);
        m->lim.tripped = LIM_BURST;
        ms_raise_limit(L);
        return NULL;
    }
    char *txt = args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(args);
    if (!txt) {
        mapi_raise_oom(L);
        return NULL;
    }
    /* The text as sent and stored: bounded (escapes included), charged one
     * unit per byte, and held against the arena like the script's own memory. */
    size_t len = strlen(txt);
    if (len > GSVM_MISSION_MAX_REQUEST_ARGS) {
        free(txt);
        luaL_error(L, "effect arguments exceed %d bytes", (int)GSVM_MISSION_MAX_REQUEST_ARGS);
        return NULL;
    }
    if (m->lim.arena_used + m->txn.req_bytes + len > m->lim.arena_cap) {
        free(txt);
        mapi_raise_oom(L);
        return NULL;
    }
    mreq *r = ms_mreq_new(m, op, call, effect);
    if (!r || !ms_txn_add_request(m, r)) {
        free(txt);
        ms_mreq_free(r);
        mapi_raise_oom(L);
        return NULL;
    }
    r->args = txt; /* owned by the transaction from here, so the charge may raise */
    m->txn.req_bytes += len;
    ms_charge(L, len);
    ms_push_key(L, r->key);
    return r;
}

/* Builds {"<what>": id, <declared args>} from the args table at idx
 * (what: "slot", "squad" or "scene"; no id member when id is NULL). */
json_t *mapi_args_json_of(lua_State *L, int idx, const char *what, const char *slot_id)
{
    int budget = 4096;
    mapi_check_plain(L, idx, 0, &budget);
    json_t *o = mapi_to_json(L, idx);
    if (!o)
        mapi_raise_oom(L);
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

json_t *mapi_args_json(lua_State *L, int idx, const char *slot_id)
{
    return mapi_args_json_of(L, idx, "slot", slot_id);
}

/* ---- RequestKey ---- */

void ms_push_key(lua_State *L, uint64_t key)
{
    mapi_hud *h = mapi_new_handle(L, H_KEY);
    h->gen = key;
}

int mapi_key_matches(lua_State *L)
{
    mapi_hud *a = mapi_check_handle(L, 1, H_KEY);
    mapi_hud *b = mapi_check_handle(L, 2, H_KEY);
    lua_pushboolean(L, a->gen == b->gen);
    return 1;
}

int mapi_key_index(lua_State *L)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_KEY);
    if (mapi_method(L))
        return 1;
    if (mapi_key_is(L, "value")) {
        mapi_push_u64(L, h->gen);
        return 1;
    }
    return 0;
}


/* A metatable with only __index (a closure over the methods table) and
 * __metatable=false. */
void mapi_define(lua_State *L, int kind, lua_CFunction index, const luaL_Reg *methods)
{
    luaL_newmetatable(L, mapi_tname[kind]);
    lua_newtable(L);
    if (methods)
        luaL_setfuncs(L, methods, 0);
    lua_pushcclosure(L, index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}
