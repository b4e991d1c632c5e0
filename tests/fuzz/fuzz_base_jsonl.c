/* Fuzz target: the JSON Lines reader every `run` verb uses for its timeline. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *all = NULL;
    gsvm_error err;
    if (gsvm_jsonl_parse((const char *)data, size, "fuzz", &all, &err) == GSVM_OK)
        json_decref(all);
    return 0;
}
