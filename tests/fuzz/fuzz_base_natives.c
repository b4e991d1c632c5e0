/* Fuzz target: the native-declaration reader (src/base/natives.c) that the
 * patho and hks hosts load a user's declarations with.  Accepted
 * declarations must answer lookups consistently with what they declare. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/natives.h"

static const char *const words[] = {"int", "float", "string", "bool", "object", "vector", "any",
                                    NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_natives n;
    gsvm_error err;
    if (gsvm_natives_parse((const char *)data, size, "fuzz", words, &n, &err) != GSVM_OK) {
        if (n.count != 0 || n.decls != NULL || err.line < 1)
            abort();
        return 0;
    }
    for (uint32_t i = 0; i < n.count; i++) {
        const gsvm_native_decl *d = &n.decls[i];
        if (d->min_args > d->nargs || d->line < 1 || d->column < 1)
            abort();
        if (gsvm_natives_find(&n, d->name, d->min_args) != d)
            abort();
    }
    gsvm_natives_free(&n);
    return 0;
}
