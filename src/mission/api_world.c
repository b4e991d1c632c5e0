/* World handles: slots (and their request methods), squads, scenes, and
 * the context methods about world objects (slot/squad/scene lookups,
 * activate_objects, cohort).  What exists comes from the host's world model. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mission/api.h"

/* ---- world handles ---- */

const char *mapi_handle_id(gsvm_mission *m, const mapi_hud *h)
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

void mapi_push_world_handle(lua_State *L, int kind, int row)
{
    mapi_hud *h = mapi_new_handle(L, kind);
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

const char *const ms_channel_names[CH_COUNT] = {"position", "power", "lock"};

/* A device channel: "position", "power" or "lock", or its number 1..3.
 * Returns 0..2; raises otherwise. */
static int check_channel(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *s = lua_tostring(L, idx);
        for (int c = 0; c < CH_COUNT; c++)
            if (strcmp(s, ms_channel_names[c]) == 0)
                return c;
    } else {
        lua_Integer n;
        if (mapi_int_in(L, idx, 1, CH_COUNT, &n))
            return (int)n - 1;
    }
    return luaL_error(L, "device channel must be position, power or lock");
}

static const wslot *slot_of(lua_State *L, gsvm_mission *m, int idx)
{
    mapi_hud *h = mapi_check_handle(L, idx, H_SLOT);
    const wslot *ws = ms_world_slot(m, h->row);
    if (!ws)
        luaL_error(L, "activity slot is stale");
    return ws;
}

static int slot_request(lua_State *L)
{
    const slot_method *sm = &slot_methods[lua_tointeger(L, lua_upvalueindex(1))];
    gsvm_mission *m = mapi_active(L);
    const wslot *ws = slot_of(L, m, 1);
    if (ws->type != sm->type)
        return luaL_error(L, "%s requires a slot of type %d", sm->name, sm->type);
    mapi_args_table(L, 2, sm->args);
    if (strcmp(sm->name, "run_atoms") == 0) {
        if (mapi_rawfield(L, 2, "atoms") != LUA_TTABLE || lua_rawlen(L, -1) < 1 || lua_rawlen(L, -1) > 32)
            return luaL_error(L, "run_atoms takes 1 to 32 atoms");
        lua_pop(L, 1);
    }
    if (strcmp(sm->name, "bind_combatant_to_squad") == 0) {
        mapi_rawfield(L, 2, "squad");
        if (!luaL_testudata(L, -1, mapi_tname[H_SQUAD]))
            return luaL_error(L, "squad must be a %s", mapi_tname[H_SQUAD]);
        lua_pop(L, 1);
    }
    /* Device requests name their channel (transition moves the position);
     * the commit records them for slot:applied{channel}. */
    int channel = -1;
    if (strcmp(sm->name, "set_channel") == 0) {
        mapi_rawfield(L, 2, "channel");
        channel = check_channel(L, -1);
        lua_pop(L, 1);
    } else if (strcmp(sm->name, "transition") == 0) {
        channel = CH_POSITION;
    }
    char call[48];
    snprintf(call, sizeof call, "slot:%s", sm->name);
    mapi_hud *h = lua_touserdata(L, 1);
    int row = h->row;
    mreq *r = mapi_emit_request(L, m, OP_HOST, call, sm->effect, mapi_args_json(L, 2, ws->id));
    if (channel >= 0) {
        r->p2 = row;
        r->p3 = channel + 1;
    }
    return 1;
}

/* The key of the last request on a device channel: this callback's own
 * requests first (the newest), then the committed record. */
static uint64_t last_channel_request(gsvm_mission *m, int row, int channel)
{
    for (int i = m->txn.active ? m->txn.nreqs - 1 : -1; i >= 0; i--) {
        const mreq *r = m->txn.reqs[i];
        if (r->op == OP_HOST && r->p2 == row && r->p3 == channel + 1)
            return r->key;
    }
    return m->slotrec ? m->slotrec[row - 1].req_key[channel] : 0;
}

bool mapi_channel_applied(gsvm_mission *m, int row, int channel, uint64_t reported, uint64_t *key)
{
    *key = last_channel_request(m, row, channel);
    return *key && reported >= *key;
}

/* The reads check the slot type like the requests do. */
static const wslot *typed_slot(lua_State *L, gsvm_mission *m, const char *what, int type)
{
    const wslot *ws = slot_of(L, m, 1);
    if (ws->type != type)
        luaL_error(L, "%s requires a slot of type %d", what, type);
    return ws;
}

/* slot:ghost_link() -> {generation, progress, active} of the last
 * ghost_link_state report of this Ghost link slot (type 7), or nil before
 * the first one. */
static int slot_ghost_link(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    typed_slot(L, m, "ghost_link", 7);
    const mslotrec *r = m->slotrec ? &m->slotrec[((mapi_hud *)lua_touserdata(L, 1))->row - 1] : NULL;
    if (!r || !r->gl_known) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, r->gl_generation);
    lua_setfield(L, -2, "generation");
    lua_pushnumber(L, r->gl_progress);
    lua_setfield(L, -2, "progress");
    lua_pushboolean(L, r->gl_active);
    lua_setfield(L, -2, "active");
    return 1;
}

/* slot:applied{channel} -> applied, key: the key of the last request on the
 * device channel in this attempt (nil when none) and whether the device has
 * reported applying it (its <channel>_sequence reached the key). */
static int slot_applied(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    typed_slot(L, m, "applied", 3);
    static const char *const a[] = {"channel", NULL};
    mapi_args_table(L, 2, a);
    mapi_rawfield(L, 2, "channel");
    int c = check_channel(L, -1);
    int row = ((mapi_hud *)lua_touserdata(L, 1))->row;
    const mslotrec *r = &m->slotrec[row - 1];
    uint64_t key;
    bool applied = mapi_channel_applied(m, row, c, r->rep_known[c] ? r->rep_seq[c] : 0, &key);
    lua_pushboolean(L, applied);
    if (key)
        ms_push_key(L, key);
    else
        lua_pushnil(L);
    return 2;
}

/* slot:sequences() -> {position=, power=, lock=}: the sequences the device
 * last reported per channel in this attempt, as decimal strings (a channel
 * never reported is absent). */
static int slot_sequences(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    typed_slot(L, m, "sequences", 3);
    const mslotrec *r = &m->slotrec[((mapi_hud *)lua_touserdata(L, 1))->row - 1];
    lua_createtable(L, 0, CH_COUNT);
    for (int c = 0; c < CH_COUNT; c++)
        if (r->rep_known[c]) {
            mapi_push_u64(L, r->rep_seq[c]);
            lua_setfield(L, -2, ms_channel_names[c]);
        }
    return 1;
}

static int slot_index(lua_State *L)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_SLOT);
    if (mapi_method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    const wslot *ws = ms_world_slot(m, h->row);
    if (!ws)
        return luaL_error(L, "activity slot is stale");
    if (mapi_key_is(L, "id"))
        lua_pushstring(L, ws->id);
    else if (mapi_key_is(L, "slot_type"))
        lua_pushinteger(L, ws->type);
    else if (mapi_key_is(L, "slot_index"))
        lua_pushinteger(L, h->row);
    else if (mapi_key_is(L, "object_tag"))
        lua_pushinteger(L, ws->tag);
    else if (mapi_key_is(L, "registry_key"))
        lua_pushstring(L, ws->registry_key);
    else
        lua_pushnil(L);
    return 1;
}

static int squad_place(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_hud *h = mapi_check_handle(L, 1, H_SQUAD);
    static const char *const a[] = {"counts", "mode", "spawn_rule", "retire_on_return", NULL};
    mapi_args_table(L, 2, a);
    if (mapi_rawfield(L, 2, "counts") == LUA_TTABLE) {
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
    mapi_emit_request(L, m, OP_HOST, "squad:place", "squad.place", mapi_args_json_of(L, 2, "squad", mapi_handle_id(m, h)));
    return 1;
}

static int squad_actor_command(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_hud *h = mapi_check_handle(L, 1, H_SQUAD);
    static const char *const a[] = {"command", "value", NULL};
    mapi_args_table(L, 2, a);
    mapi_emit_request(L, m, OP_ACTOR_COMMAND, "squad:actor_command", NULL,
                 mapi_args_json_of(L, 2, "squad", mapi_handle_id(m, h)));
    return 1;
}

static int squad_index(lua_State *L)
{
    mapi_hud *h = mapi_check_handle(L, 1, H_SQUAD);
    if (mapi_method(L))
        return 1;
    gsvm_mission *m = ms_from_L(L);
    if (mapi_key_is(L, "id"))
        lua_pushstring(L, mapi_handle_id(m, h));
    else if (mapi_key_is(L, "alive_count") && m->squad_alive && m->squad_alive[h->row - 1] >= 0)
        lua_pushinteger(L, m->squad_alive[h->row - 1]);
    else
        lua_pushnil(L);
    return 1;
}

static int scene_request(lua_State *L, const char *call, const char *effect,
                         const char *const *declared)
{
    gsvm_mission *m = mapi_active(L);
    mapi_hud *h = mapi_check_handle(L, 1, H_SCENE);
    mapi_args_table(L, 2, declared);
    mreq *r = mapi_emit_request(L, m, OP_HOST, call, effect, mapi_args_json_of(L, 2, "scene", mapi_handle_id(m, h)));
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
    mapi_hud *h = mapi_check_handle(L, 1, H_SCENE);
    if (mapi_method(L))
        return 1;
    if (mapi_key_is(L, "id"))
        lua_pushstring(L, mapi_handle_id(ms_from_L(L), h));
    else
        lua_pushnil(L);
    return 1;
}


/* ---- context methods about world objects ---- */

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

int mapi_ctx_activate_objects(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"slots", "active", NULL};
    mapi_args_table(L, 2, a);
    int t = mapi_rawfield(L, 2, "active");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
        return luaL_error(L, "active must be a boolean");
    bool on = t == LUA_TNIL ? true : lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (mapi_rawfield(L, 2, "slots") != LUA_TTABLE)
        return luaL_error(L, "slots must be a list of %s", mapi_tname[H_SLOT]);
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
        mapi_hud *h = luaL_testudata(L, -1, mapi_tname[H_SLOT]);
        if (!h)
            return luaL_error(L, "slots must be a %s", mapi_tname[H_SLOT]);
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
                mapi_emit_request(L, m, OP_HOST, "context:activate_objects", "slot.set_object_active", o);
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

static int find_handle(lua_State *L, int what, int kind, const char *msg)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    int row = ms_world_find(m, what, L, 2);
    if (!row)
        return luaL_error(L, "%s", msg);
    mapi_push_world_handle(L, kind, row);
    return 1;
}
int mapi_ctx_slot(lua_State *L) { return find_handle(L, W_SLOT, H_SLOT, "unknown or ambiguous activity slot"); }
int mapi_ctx_squad(lua_State *L) { return find_handle(L, W_SQUAD, H_SQUAD, "unknown or ambiguous activity squad"); }
int mapi_ctx_scene(lua_State *L) { return find_handle(L, W_SCENE, H_SCENE, "unknown or ambiguous authored scene"); }

int mapi_ctx_cohort(lua_State *L)
{
    gsvm_mission *m = mapi_active(L);
    mapi_check_handle(L, 1, H_CONTEXT);
    static const char *const a[] = {"squads", NULL};
    mapi_args_table(L, 2, a);
    if (mapi_rawfield(L, 2, "squads") != LUA_TTABLE)
        return luaL_error(L, "squads must be a list of %s", mapi_tname[H_SQUAD]);
    size_t n = lua_rawlen(L, -1);
    if (n > 64)
        return luaL_error(L, "cohort takes up to 64 squads");
    bool known = true;
    int64_t alive = 0;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        mapi_hud *h = luaL_testudata(L, -1, mapi_tname[H_SQUAD]);
        if (!h)
            return luaL_error(L, "squads must be a %s", mapi_tname[H_SQUAD]);
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

/* The metatables of slots, squads and scenes. */
void mapi_register_world(lua_State *L)
{
    static const luaL_Reg slot_reads[] = {
        {"ghost_link", slot_ghost_link}, {"applied", slot_applied}, {"sequences", slot_sequences}, {NULL, NULL}};
    static const luaL_Reg scene_methods[] = {
        {"activate", scene_activate}, {"stop", scene_stop}, {"send_event", scene_send_event}, {NULL, NULL}};
    static const luaL_Reg squad_methods[] = {
        {"place", squad_place}, {"actor_command", squad_actor_command}, {NULL, NULL}};
    mapi_define(L, H_SQUAD, squad_index, squad_methods);
    mapi_define(L, H_SCENE, scene_index, scene_methods);
    /* Slots: the read methods plus one closure per request method. */
    luaL_newmetatable(L, mapi_tname[H_SLOT]);
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
}
