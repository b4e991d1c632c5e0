/* Shared pieces of the script API (api.c, api_support.c, api_world.c):
 * the userdata kinds and their metatable names, and helpers that check
 * arguments and hand requests to the transaction. */
#ifndef GSVM_MISSION_API_H
#define GSVM_MISSION_API_H

#include <jansson.h>

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


typedef struct mapi_hud {
    int kind;
    int row;
    uint64_t gen; /* events: the callback they belong to; keys: the key */
    char name[GSVM_MISSION_MAX_NAME + 1];
} mapi_hud;

extern const char *const mapi_tname[H_COUNT];

mapi_hud *mapi_new_handle(lua_State *L, int kind);
mapi_hud *mapi_check_handle(lua_State *L, int idx, int kind);
void mapi_push_u64(lua_State *L, uint64_t v);
int mapi_raise_oom(lua_State *L);
/* The mission, after checking no limit tripped and a callback is running. */
gsvm_mission *mapi_active(lua_State *L);
/* In an __index closure: pushes the method named by key 2 if there is one. */
bool mapi_method(lua_State *L);
bool mapi_key_is(lua_State *L, const char *k);
const char *mapi_check_var_name(lua_State *L, int idx, size_t *n);
const char *mapi_check_timer_name(lua_State *L, int idx, size_t *n);
bool mapi_to_mval(lua_State *L, int idx, mval *v);
void mapi_push_mval(lua_State *L, const mval *v);
bool mapi_int_in(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *out);
int mapi_rawfield(lua_State *L, int idx, const char *k);
void mapi_args_table(lua_State *L, int idx, const char *const *declared);
void mapi_check_plain(lua_State *L, int idx, int depth, int *budget);
json_t *mapi_to_json(lua_State *L, int idx);
mreq *mapi_emit_request(lua_State *L, gsvm_mission *m, int op, const char *call, const char *effect,
                        json_t *args);
json_t *mapi_args_json_of(lua_State *L, int idx, const char *what, const char *id);
json_t *mapi_args_json(lua_State *L, int idx, const char *slot_id);
void mapi_define(lua_State *L, int kind, lua_CFunction index, const luaL_Reg *methods);
int mapi_key_index(lua_State *L);
int mapi_key_matches(lua_State *L);

/* api_world.c */
const char *mapi_handle_id(gsvm_mission *m, const mapi_hud *h);
void mapi_push_world_handle(lua_State *L, int kind, int row);
void mapi_register_world(lua_State *L);
int mapi_ctx_activate_objects(lua_State *L);
int mapi_ctx_slot(lua_State *L);
int mapi_ctx_squad(lua_State *L);
int mapi_ctx_scene(lua_State *L);
int mapi_ctx_cohort(lua_State *L);
/* Whether the last request on a device channel is applied by `reported`
 * (the device's sequence); *key receives that request's key (0: none). */
bool mapi_channel_applied(gsvm_mission *m, int row, int channel, uint64_t reported, uint64_t *key);

#endif
