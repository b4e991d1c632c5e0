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

/* The assembler takes lines indented with spaces through its fast lane
 * when it can; the same text with a tab instead of each line's first four
 * spaces goes through its general path only.  Both must accept the same
 * inputs and build the same bytes. */
static void same_both_ways(const uint8_t *data, size_t size, gsvm_status st, gsvm_patho_program *p)
{
    char *tabbed = malloc(size + 1);
    if (!tabbed)
        return;
    size_t n = 0;
    for (size_t i = 0; i < size; i++) {
        if ((i == 0 || data[i - 1] == '\n') && size - i >= 4 && memcmp(data + i, "    ", 4) == 0) {
            tabbed[n++] = '\t';
            i += 3;
        } else {
            tabbed[n++] = (char)data[i];
        }
    }
    gsvm_error err;
    gsvm_patho_program *q = NULL;
    gsvm_status st2 = gsvm_patho_asm(tabbed, n, "fuzz", GSVM_PATHO_LAYOUT_AUTO, &q, &err);
    free(tabbed);
    if ((st == GSVM_OK) != (st2 == GSVM_OK))
        abort();
    if (st == GSVM_OK) {
        uint8_t *a = NULL, *b = NULL;
        size_t alen = 0, blen = 0;
        gsvm_status sa = gsvm_patho_save(p, &a, &alen, &err), sb = gsvm_patho_save(q, &b, &blen, &err);
        if (sa != sb || (sa == GSVM_OK && (alen != blen || memcmp(a, b, alen) != 0)))
            abort();
        free(a);
        free(b);
    }
    gsvm_patho_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_error err;
    gsvm_patho_program *p = NULL;
    gsvm_status st = gsvm_patho_asm((const char *)data, size, "fuzz", GSVM_PATHO_LAYOUT_AUTO, &p, &err);
    same_both_ways(data, size, st, p);
    if (st == GSVM_OK) {
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
