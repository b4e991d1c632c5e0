/* Call of Duty's debug form: each function keeps only a 32-bit hash of its
 * name instead of debug info. */
#include "hks/compile.h"

void hc_assign_hashes(hc_compiler *C, gsvm_hks_proto *f, const char *source);
void hc_assign_hashes(hc_compiler *C, gsvm_hks_proto *f, const char *source)
{
    f->debug.hash = 0;
    for (uint32_t i = 0; i < f->np; i++)
        hc_assign_hashes(C, &f->p[i], source);
}
