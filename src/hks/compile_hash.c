/* Call of Duty's debug form: each function keeps only a 32-bit hash of its
 * source name followed by its own name, so that the game's side files
 * (the debug info hksc writes apart) can be matched to it. */
#include <stdlib.h>
#include <string.h>

#include "hks/compile.h"

static uint32_t cod_hash(uint32_t h, const char *s, size_t n, size_t *i, unsigned step)
{
    /* *i walks the concatenation of the strings hashed so far */
    for (; *i < n; *i += step)
        h = h * 33u + (uint32_t)(int32_t)(signed char)s[*i];
    *i -= n;
    return h;
}

void hc_assign_hashes(gsvm_hks_proto *f, const char *source, unsigned step)
{
    /* hksc keeps the function name in the proto even when the chunk holds no
     * debug info: close_func left it in debug.name for this pass */
    size_t i = 0;
    uint32_t h = cod_hash(5381u, source, strlen(source), &i, step);
    if (f->debug.name.size)
        h = cod_hash(h, f->debug.name.data, (size_t)f->debug.name.size - 1, &i, step);
    f->debug.hash = h;
    /* the chunk holds only the hash: drop what the dumper will not write */
    free(f->debug.name.data);
    free(f->debug.source.data);
    memset(&f->debug.name, 0, sizeof f->debug.name);
    memset(&f->debug.source, 0, sizeof f->debug.source);
    f->debug.linedefined = f->debug.lastlinedefined = 0;
    for (uint32_t k = 0; k < f->np; k++)
        hc_assign_hashes(&f->p[k], source, step);
}
