/* Fuzz target: the .bin loader (both layouts and detection).  Whatever
 * loads must also list, save to the same bytes, verify and produce stats
 * without crashing; the listing must assemble back to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/patho.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const gsvm_patho_layout layouts[] = {GSVM_PATHO_LAYOUT_AUTO, GSVM_PATHO_LAYOUT_ALPHA,
                                                GSVM_PATHO_LAYOUT_HD};
    for (size_t l = 0; l < 3; l++) {
        gsvm_error err;
        gsvm_patho_program *p = NULL;
        if (gsvm_patho_load(data, size, layouts[l], "fuzz", &p, &err) != GSVM_OK)
            continue;
        uint8_t *out;
        size_t len;
        if (gsvm_patho_save(p, &out, &len, &err) == GSVM_OK) {
            if (len != size || memcmp(out, data, size) != 0)
                abort(); /* save must reproduce the input exactly */
            free(out);
        }
        char *text;
        size_t tlen;
        /* the full listing for two layouts, the compact one for the third */
        if (gsvm_patho_list(p, l == 2 ? GSVM_PATHO_LIST_COMPACT : 0, &text, &tlen, &err) == GSVM_OK) {
            gsvm_patho_program *q = NULL;
            if (gsvm_patho_asm(text, tlen, "fuzz.lst", GSVM_PATHO_LAYOUT_AUTO, &q, &err) != GSVM_OK)
                abort(); /* a listing we printed must assemble */
            if (gsvm_patho_save(q, &out, &len, &err) == GSVM_OK) {
                if (len != size || memcmp(out, data, size) != 0)
                    abort();
                free(out);
            }
            gsvm_patho_free(q);
            free(text);
        }
        gsvm_patho_issue *issues;
        size_t n;
        if (gsvm_patho_verify(p, &issues, &n, &err) == GSVM_OK)
            free(issues);
        gsvm_patho_stats s;
        gsvm_patho_stats_compute(p, &s, &err);
        if (p->ntasks && gsvm_patho_cfg_dot(p, 0, &text, &tlen, &err) == GSVM_OK)
            free(text);
        gsvm_patho_free(p);
    }
    return 0;
}
