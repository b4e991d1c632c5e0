/* Importer for the community listing syntax (gr0grig/pathologic_re). */
#include "patho/internal.h"
#include "patho/isa.h"

gsvm_status gsvm_patho_import_re(const char *text, size_t len, const char *file,
                                 gsvm_patho_layout layout, gsvm_patho_program **out,
                                 gsvm_error *err)
{
    (void)text; (void)len; (void)layout;
    *out = NULL;
    return gsvm_error_set(err, GSVM_ERR_INPUT, file, "not yet");
}
