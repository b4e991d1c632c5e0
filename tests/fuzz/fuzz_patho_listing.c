/* Fuzz target: the two listing readers (gsvm syntax and pathologic_re).
 * Whatever assembles must save, and re-listing + re-assembling the result
 * must give the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/patho.h"

static void roundtrip(gsvm_patho_program *p)
{
    gsvm_error err;
    uint8_t *a;
    size_t alen;
    if (gsvm_patho_save(p, &a, &alen, &err) != GSVM_OK)
        return;
    char *text;
    size_t tlen;
    if (gsvm_patho_list(p, 0, &text, &tlen, &err) == GSVM_OK) {
        gsvm_patho_program *q = NULL;
        if (gsvm_patho_asm(text, tlen, "relist", GSVM_PATHO_LAYOUT_AUTO, &q, &err) != GSVM_OK)
            abort();
        uint8_t *b;
        size_t blen;
        if (gsvm_patho_save(q, &b, &blen, &err) == GSVM_OK) {
            if (blen != alen || memcmp(a, b, alen) != 0)
                abort();
            free(b);
        }
        gsvm_patho_free(q);
        free(text);
    }
    /* and the bytes load back */
    gsvm_patho_program *r = NULL;
    if (gsvm_patho_load(a, alen, p->layout, "saved", &r, &err) != GSVM_OK)
        abort();
    gsvm_patho_free(r);
    free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_error err;
    gsvm_patho_program *p = NULL;
    if (gsvm_patho_asm((const char *)data, size, "fuzz", GSVM_PATHO_LAYOUT_AUTO, &p, &err) == GSVM_OK) {
        roundtrip(p);
        gsvm_patho_free(p);
    }
    if (gsvm_patho_import_re((const char *)data, size, "fuzz", GSVM_PATHO_LAYOUT_AUTO, &p, &err) ==
        GSVM_OK) {
        roundtrip(p);
        gsvm_patho_free(p);
    }
    return 0;
}
