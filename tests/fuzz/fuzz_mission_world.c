/* Fuzz target: the world model loader (--world WORLD.json). */
#include <stdint.h>
#include <stdlib.h>

#include "gsvm/mission.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_mission_world *w = NULL;
    gsvm_error err;
    if (gsvm_mission_world_parse((const char *)data, size, "fuzz", &w, &err) == GSVM_OK) {
        (void)gsvm_mission_world_activity_name(w);
        gsvm_mission_world_free(w);
    } else if (w) {
        abort(); /* nothing half-loaded */
    }
    return 0;
}
