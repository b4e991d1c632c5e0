/* Fuzz target: the SCRI payload reader (and the chunk inside a bytecode
 * payload).  A payload that unpacks must pack back to its first bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_error err;
    gsvm_hks_scri s;
    if (gsvm_hks_scri_unpack(data, size, "fuzz.scri", &s, &err) != GSVM_OK)
        return 0;
    uint8_t *out = NULL;
    size_t len = 0;
    if (gsvm_hks_scri_pack(s.flag, s.body, s.body_len, &out, &len, &err) == GSVM_OK &&
        (len != size - s.trailing || memcmp(out, data, len) != 0))
        abort();
    free(out);
    if (s.flag == 0) {
        gsvm_hks_chunk *c = NULL;
        if (gsvm_hks_chunk_load(s.body, s.body_len, NULL, "body", &c, &err) == GSVM_OK)
            gsvm_hks_chunk_free(c);
    }
    return 0;
}
