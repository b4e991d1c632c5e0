/* Fuzz target: the HavokScript chunk loader.  Whatever loads must dump back
 * to the same bytes, list, reassemble to the same bytes and verify without
 * trouble.  The first byte picks options (offset scan, profile, structure
 * layout) so that every path of the loader is reached. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_hks_load_options o;
    memset(&o, 0, sizeof o);
    /* Corpus seeds start with "\x1bLua": keep those whole; otherwise the
     * first byte chooses the options and the rest is the input. */
    if (size > 0 && data[0] != 0x1b) {
        uint8_t sel = data[0];
        o.scan = (sel & 1) != 0;
        o.profile = (gsvm_hks_profile)((sel >> 1) & 3);
        o.structs = (gsvm_hks_struct_layout)((sel >> 3) % 3);
        data++;
        size--;
    }
    gsvm_error err;
    gsvm_hks_chunk *c = NULL;
    if (gsvm_hks_chunk_load(data, size, &o, "fuzz", &c, &err) != GSVM_OK)
        return 0;
    uint8_t *out = NULL;
    size_t len = 0;
    if (gsvm_hks_chunk_dump(c, &out, &len, &err) == GSVM_OK &&
        (len != size || memcmp(out, data, size) != 0))
        abort(); /* a loaded chunk must dump to the bytes it came from */
    free(out);
    char *text = NULL;
    size_t tlen = 0;
    if (gsvm_hks_list(c, &text, &tlen, &err) == GSVM_OK) {
        gsvm_hks_chunk *c2 = NULL;
        if (gsvm_hks_asm(text, tlen, "fuzz.hksl", &c2, &err) != GSVM_OK)
            abort(); /* every listing we print must assemble */
        if (gsvm_hks_chunk_dump(c2, &out, &len, &err) == GSVM_OK &&
            (len != size || memcmp(out, data, size) != 0))
            abort();
        free(out);
        gsvm_hks_chunk_free(c2);
    }
    free(text);
    gsvm_hks_verify_result r;
    gsvm_hks_verify(c, GSVM_HKS_HYP_SWAP_AB, NULL, NULL, &r, &err);
    gsvm_hks_stats st;
    memset(&st, 0, sizeof st);
    gsvm_hks_stats_add(&st, c);
    char *dot = NULL;
    if (gsvm_hks_cfg_dot(c, &c->main, "0", &dot, &len, &err) == GSVM_OK)
        free(dot);
    gsvm_hks_chunk_free(c);
    return 0;
}
