/* Fuzz target: the mission script loader (text chunk -> program table ->
 * on_start) and a few callbacks, with small budgets so no input can hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/mission.h"

static gsvm_mission_answer answer(void *ud, const gsvm_mission_request *r)
{
    (void)ud;
    return (gsvm_mission_answer)(r->key % 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char world_json[] =
        "{\"slots\": [{\"id\": \"a\", \"type\": 4}, {\"id\": \"b\", \"type\": 2}], \"squads\": [\"s\"], \"scenes\": [\"c\"]}";
    static gsvm_mission_world *w; /* parsed once: only the script is the input */
    gsvm_error err;
    if (!w && gsvm_mission_world_parse(world_json, sizeof world_json - 1, "w", &w, &err) != GSVM_OK)
        abort();
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    cfg.activity_id = "fuzz";
    cfg.world = w;
    cfg.role = size % 2 ? GSVM_MISSION_PRIVATE : GSVM_MISSION_PUBLIC;
    cfg.open_budget = 500000;
    cfg.callback_budget = 200000;
    cfg.arena_bytes = 8u << 20;
    cfg.callback_wall_ms = 500;
    cfg.open_wall_ms = 1000;
    cfg.host.request = answer;
    gsvm_mission *m = NULL;
    if (gsvm_mission_open(&cfg, (const char *)data, size, &m, &err) == GSVM_OK) {
        static const char *const kinds[] = {"session_joined", "trigger_entered", "device_state",
                                            "fireteam_state", "region_changed", "object_interacted"};
        gsvm_mission_field f[2] = {{"slot", {GSVM_MV_STR, 0, 0, 0, "b", 1}},
                                   {"alive_count", {GSVM_MV_INT, 0, 0, 0, NULL, 0}}};
        for (int i = 0; i < 6; i++) {
            gsvm_mission_report(m, kinds[i], f, 2, &err);
            gsvm_mission_advance(m, 700, &err);
        }
        /* A reopen builds the whole Lua state again (as long as the open
         * itself): one input in four takes it, chosen by the input. */
        if (data[size - 1] % 4 == 0)
            gsvm_mission_reopen(m, &err);
        gsvm_mission_advance(m, 61000, &err);
        gsvm_mission_close(m);
    }
    return 0;
}
