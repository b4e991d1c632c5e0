/* Fuzz target: the region's world and timeline readers
 * (gsvm_lsl_region_load_world_json, gsvm_lsl_region_apply).  The input is
 * JSON Lines: the first line a world whose scripts are the examples'
 * (examples/lsl/region, run from the source directory), the others timeline
 * lines.  Whatever is rejected, the region must stay usable: it runs on
 * for a simulated second and is freed without a leak. */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "base/jsonl.h"
#include "gsvm/lsl_region.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *lines = NULL;
    long *linenos = NULL;
    gsvm_error err;
    if (gsvm_jsonl_parse_lines((const char *)data, size, "fuzz", &lines, &linenos, &err) != GSVM_OK)
        return 0;
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.slice_guard_us = o.frame_guard_us = 0;
    gsvm_lsl_region *r;
    if (json_array_size(lines) > 0 && gsvm_lsl_region_new(&o, &r, &err) == GSVM_OK) {
        if (gsvm_lsl_region_load_world_json(r, json_array_get(lines, 0), "examples/lsl/region", "fuzz", &err) ==
            GSVM_OK) {
            gsvm_lsl_region_advance(r, 0, &err);
            for (size_t i = 1; i < json_array_size(lines) && i < 64; i++) {
                const json_t *l = json_array_get(lines, i);
                const json_t *adv = json_object_get(l, "advance_ms");
                if (json_is_integer(adv) && json_integer_value(adv) > 5000)
                    continue; /* keep a run short */
                gsvm_lsl_region_apply(r, l, "fuzz", linenos[i], &err);
            }
            bool idle;
            gsvm_lsl_region_settle(r, 1000, &idle, &err);
        }
        gsvm_lsl_region_free(r);
    }
    json_decref(lines);
    free(linenos);
    return 0;
}
