/* The world model: the game-specific objects a host supplies (the activity's
 * identity, slots, squads, scenes, peers, spawn sets), so the runtime is not
 * tied to one game.  The CLI reads it from --world WORLD.json:
 *
 *   {"activity": {"name": "Mission Deadzone-2", "display_name": "", "index": 12,
 *                 "definition_hash": 3735928559, "row": 3, "player_key": "7",
 *                 "sdk_build_id": "sha256:...", "role": "private"},
 *    "tick_ms": 50,
 *    "slots":  [{"id": "door", "type": 4, "tag": 1, "registry_key": "1001", "owner": "host"}],
 *    "squads": [{"id": "wave1"}], "scenes": [{"id": "intro"}],
 *    "peers":  [{"session_id": "1", "session_generation": "1", "member_key": "7",
 *                "join_identity": "x"}],
 *    "spawn_sets": [305419896]}
 *
 * Every member is optional; unknown members are refused so typos show. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

void gsvm_mission_world_free(gsvm_mission_world *w)
{
    if (!w)
        return;
    free(w->slots);
    free(w->squads);
    free(w->scenes);
    free(w->peers);
    free(w->spawn_sets);
    free(w);
}

const char *gsvm_mission_world_activity_name(const gsvm_mission_world *w) { return w ? w->name : ""; }
const char *gsvm_mission_world_display_name(const gsvm_mission_world *w) { return w ? w->display_name : ""; }
uint32_t gsvm_mission_world_activity_index(const gsvm_mission_world *w) { return w ? w->index : 0; }
uint32_t gsvm_mission_world_definition_hash(const gsvm_mission_world *w) { return w ? w->definition_hash : 0; }

typedef struct wctx {
    const char *name;
    gsvm_error *err;
    bool failed;
} wctx;

static bool fail(wctx *c, const char *fmt, const char *what)
{
    if (!c->failed)
        gsvm_error_set(c->err, GSVM_ERR_INPUT, c->name, fmt, what);
    c->failed = true;
    return false;
}

static bool get_str(wctx *c, json_t *o, const char *key, char *out, size_t size)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return true;
    if (!json_is_string(v) || json_string_length(v) >= size || strlen(json_string_value(v)) != json_string_length(v))
        return fail(c, "world: '%s' must be a short string", key);
    strcpy(out, json_string_value(v));
    return true;
}

static bool get_int(wctx *c, json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return true;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return fail(c, "world: '%s' must be an integer in range", key);
    *out = json_integer_value(v);
    return true;
}

static bool only_keys(wctx *c, json_t *o, const char *const *keys, const char *where)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        bool ok = false;
        for (const char *const *p = keys; *p && !ok; p++)
            ok = strcmp(*p, k) == 0;
        if (!ok) {
            char msg[160];
            snprintf(msg, sizeof msg, "world: unknown member '%.60s' in %s", k, where);
            return fail(c, "%s", msg);
        }
    }
    return true;
}

static bool array_of(wctx *c, json_t *root, const char *key, json_t **out)
{
    *out = json_object_get(root, key);
    if (*out && (!json_is_array(*out) || json_array_size(*out) > 65536))
        return fail(c, "world: '%s' must be an array (at most 65536 entries)", key);
    return true;
}

static bool load_named(wctx *c, json_t *arr, const char *what, wnamed **out, int *n)
{
    if (!arr)
        return true;
    size_t cnt = json_array_size(arr);
    *out = calloc(cnt ? cnt : 1, sizeof **out);
    if (!*out)
        return fail(c, "%s", "out of memory");
    for (size_t i = 0; i < cnt; i++) {
        json_t *e = json_array_get(arr, i);
        if (json_is_string(e)) {
            json_t *o = json_pack("{s:O}", "id", e);
            bool ok = get_str(c, o, "id", (*out)[i].id, sizeof (*out)[i].id);
            json_decref(o);
            if (!ok)
                return false;
            continue;
        }
        static const char *const keys[] = {"id", NULL};
        if (!json_is_object(e) || !only_keys(c, e, keys, what) ||
            !get_str(c, e, "id", (*out)[i].id, sizeof (*out)[i].id))
            return fail(c, "world: bad entry in '%s'", what);
    }
    *n = (int)cnt;
    return true;
}

gsvm_status gsvm_mission_world_parse(const char *text, size_t len, const char *name,
                                     gsvm_mission_world **out, gsvm_error *err)
{
    *out = NULL;
    wctx c = {name ? name : "world", err, false};
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return gsvm_error_at_line(err, GSVM_ERR_INPUT, c.name, je.line, je.column > 0 ? je.column : 1,
                                  "invalid JSON: %s", je.text);
    gsvm_mission_world *w = calloc(1, sizeof *w);
    if (!w) {
        json_decref(root);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, c.name, "out of memory");
    }
    w->role = -1;
    static const char *const top[] = {"activity", "tick_ms", "slots", "squads", "scenes",
                                      "peers", "spawn_sets", "comment", NULL};
    json_t *act, *slots, *squads, *scenes, *peers, *spawn;
    int64_t v;
    if (!json_is_object(root)) {
        fail(&c, "%s", "world: the top level must be an object");
        goto done;
    }
    if (!only_keys(&c, root, top, "the world"))
        goto done;
    act = json_object_get(root, "activity");
    if (act) {
        static const char *const ak[] = {"name", "display_name", "index", "definition_hash", "row",
                                         "player_key", "sdk_build_id", "role", NULL};
        char role[16] = "";
        if (!json_is_object(act)) {
            fail(&c, "%s", "world: 'activity' must be an object");
            goto done;
        }
        if (!only_keys(&c, act, ak, "activity") || !get_str(&c, act, "name", w->name, sizeof w->name) ||
            !get_str(&c, act, "display_name", w->display_name, sizeof w->display_name) ||
            !get_str(&c, act, "player_key", w->player_key, sizeof w->player_key) ||
            !get_str(&c, act, "sdk_build_id", w->sdk_build_id, sizeof w->sdk_build_id) ||
            !get_str(&c, act, "role", role, sizeof role))
            goto done;
        v = 0;
        if (!get_int(&c, act, "index", 0, 9999, &v))
            goto done;
        w->index = (uint32_t)v;
        v = 0;
        if (!get_int(&c, act, "definition_hash", 0, UINT32_MAX, &v))
            goto done;
        w->definition_hash = (uint32_t)v;
        if (!get_int(&c, act, "row", 0, INT32_MAX, &w->row))
            goto done;
        if (role[0]) {
            if (strcmp(role, "public") == 0)
                w->role = GSVM_MISSION_PUBLIC;
            else if (strcmp(role, "private") == 0)
                w->role = GSVM_MISSION_PRIVATE;
            else {
                fail(&c, "%s", "world: activity role must be \"public\" or \"private\"");
                goto done;
            }
        }
    }
    v = 0;
    if (!get_int(&c, root, "tick_ms", 1, 60000, &v))
        goto done;
    w->tick_ms = (uint32_t)v;
    if (!array_of(&c, root, "slots", &slots) || !array_of(&c, root, "squads", &squads) ||
        !array_of(&c, root, "scenes", &scenes) || !array_of(&c, root, "peers", &peers) ||
        !array_of(&c, root, "spawn_sets", &spawn))
        goto done;
    if (slots) {
        size_t n = json_array_size(slots);
        w->slots = calloc(n ? n : 1, sizeof *w->slots);
        if (!w->slots) {
            fail(&c, "%s", "out of memory");
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(slots, i);
            static const char *const sk[] = {"id", "type", "tag", "registry_key", "owner", NULL};
            wslot *s = &w->slots[i];
            int64_t type = 0;
            snprintf(s->owner, sizeof s->owner, "host");
            if (!json_is_object(e)) {
                fail(&c, "%s", "world: each slot must be an object");
                goto done;
            }
            if (!only_keys(&c, e, sk, "a slot") || !get_str(&c, e, "id", s->id, sizeof s->id) ||
                !get_int(&c, e, "type", 0, 255, &type) || !get_int(&c, e, "tag", INT32_MIN, INT32_MAX, &s->tag) ||
                !get_str(&c, e, "registry_key", s->registry_key, sizeof s->registry_key) ||
                !get_str(&c, e, "owner", s->owner, sizeof s->owner))
                goto done;
            s->type = (int)type;
        }
        w->nslots = (int)n;
    }
    if (!load_named(&c, squads, "squads", &w->squads, &w->nsquads) ||
        !load_named(&c, scenes, "scenes", &w->scenes, &w->nscenes))
        goto done;
    if (peers) {
        size_t n = json_array_size(peers);
        w->peers = calloc(n ? n : 1, sizeof *w->peers);
        if (!w->peers) {
            fail(&c, "%s", "out of memory");
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(peers, i);
            static const char *const pk[] = {"session_id", "session_generation", "member_key", "join_identity", NULL};
            wpeer *p = &w->peers[i];
            if (!json_is_object(e)) {
                fail(&c, "%s", "world: each peer must be an object");
                goto done;
            }
            if (!only_keys(&c, e, pk, "a peer") ||
                !get_str(&c, e, "session_id", p->session_id, sizeof p->session_id) ||
                !get_str(&c, e, "session_generation", p->session_generation, sizeof p->session_generation) ||
                !get_str(&c, e, "member_key", p->member_key, sizeof p->member_key) ||
                !get_str(&c, e, "join_identity", p->join_identity, sizeof p->join_identity))
                goto done;
        }
        w->npeers = (int)n;
    }
    if (spawn) {
        size_t n = json_array_size(spawn);
        w->spawn_sets = calloc(n ? n : 1, sizeof *w->spawn_sets);
        if (!w->spawn_sets) {
            fail(&c, "%s", "out of memory");
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(spawn, i);
            if (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > UINT32_MAX) {
                fail(&c, "%s", "world: spawn_sets holds hashes 1..0xFFFFFFFF");
                goto done;
            }
            w->spawn_sets[i] = (uint32_t)json_integer_value(e);
        }
        w->nspawn_sets = (int)n;
    }
done:
    json_decref(root);
    if (c.failed) {
        gsvm_mission_world_free(w);
        return err->status;
    }
    *out = w;
    return GSVM_OK;
}

int gsvm_mission_world_role(const gsvm_mission_world *w) { return w ? w->role : -1; }
