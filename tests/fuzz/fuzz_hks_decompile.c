/* Fuzz target: the HavokScript decompiler on whatever chunk loads (mutated
 * corpus chunks).  It must never crash or hang, and every function must
 * come out (structured, as a block loop, or as a stub that says why). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_hks_load_options o;
    memset(&o, 0, sizeof o);
    o.scan = true;
    gsvm_error err;
    gsvm_hks_chunk *c = NULL;
    if (gsvm_hks_chunk_load(data, size, &o, "fuzz", &c, &err) != GSVM_OK)
        return 0;
    char *text = NULL;
    size_t len = 0;
    gsvm_hks_decompile_result r;
    gsvm_hks_decompile_options d = {NULL, false};
    if (gsvm_hks_decompile(c, &d, &text, &len, &r, &err) == GSVM_OK) {
        if (strlen(text) != len)
            abort(); /* the source is text */
        free(text);
    }
    /* one function, and --strict */
    gsvm_hks_decompile_options one = {c->main.np ? "0/0" : "0", true};
    if (gsvm_hks_decompile(c, &one, &text, &len, &r, &err) == GSVM_OK)
        free(text);
    gsvm_hks_chunk_free(c);
    return 0;
}
