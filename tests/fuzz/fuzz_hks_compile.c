/* Fuzz target: the HavokScript compiler (gsvm hks compile).  Any text either
 * fails with a message or compiles to a chunk that dumps, loads back, lists
 * and verifies; the profile and debug level come from the first byte so
 * that every target's paths are reached. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const targets[] = {"sekiro", "sow", "ghosts", "doubles", "bo2", "bo3"};
    unsigned sel = size ? data[0] : 0;
    gsvm_hks_compile_options o;
    if (!gsvm_hks_compile_preset(targets[sel % 6], &o))
        abort();
    o.debug = (gsvm_hks_debug_level)((sel / 6) % 3);
    o.chunkname = "@fuzz.lua";
    o.file = "fuzz.lua";
    gsvm_error err;
    gsvm_hks_chunk *c = NULL;
    const char *src = size ? (const char *)data + 1 : "";
    if (gsvm_hks_compile(src, size ? size - 1 : 0, &o, &c, &err) != GSVM_OK)
        return 0;
    uint8_t *out = NULL;
    size_t len = 0;
    if (gsvm_hks_chunk_dump(c, &out, &len, &err) != GSVM_OK)
        abort();
    gsvm_hks_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.profile = o.profile;
    gsvm_hks_chunk *l = NULL;
    /* what the compiler makes, the loader reads */
    if (gsvm_hks_chunk_load(out, len, &lo, "fuzz", &l, &err) != GSVM_OK)
        abort();
    char *text = NULL;
    size_t tlen = 0;
    if (gsvm_hks_list(l, &text, &tlen, &err) == GSVM_OK)
        free(text);
    gsvm_hks_verify_result res;
    gsvm_hks_verify(l, GSVM_HKS_HYP_NONE, NULL, NULL, &res, &err);
    gsvm_hks_chunk_free(l);
    free(out);
    gsvm_hks_chunk_free(c);
    return 0;
}
