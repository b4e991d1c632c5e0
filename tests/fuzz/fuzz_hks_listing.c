/* Fuzz target: the HavokScript listing parser (gsvm hks asm).  Whatever
 * assembles must dump, load back and list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_error err;
    gsvm_hks_chunk *c = NULL;
    if (gsvm_hks_asm((const char *)data, size, "fuzz.hksl", &c, &err) != GSVM_OK)
        return 0;
    uint8_t *out = NULL;
    size_t len = 0;
    if (gsvm_hks_chunk_dump(c, &out, &len, &err) == GSVM_OK) {
        gsvm_hks_load_options o;
        memset(&o, 0, sizeof o);
        o.offset = c->nprefix;
        o.profile = c->profile;
        o.structs = c->struct_layout;
        gsvm_hks_chunk *l = NULL;
        /* The dump of an assembled chunk loads, unless the listing asked
         * for impossible counts (e.g. more slots than the structure holds
         * is not expressible, so loading must succeed). */
        if (gsvm_hks_chunk_load(out, len, &o, "fuzz", &l, &err) == GSVM_OK) {
            char *text = NULL;
            size_t tlen = 0;
            if (gsvm_hks_list(l, &text, &tlen, &err) == GSVM_OK)
                free(text);
            gsvm_hks_chunk_free(l);
        }
        free(out);
    }
    gsvm_hks_chunk_free(c);
    return 0;
}
