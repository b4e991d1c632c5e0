/* The .bin loader and writer over the whole corpus: every file loads in the
 * layout its directory says (detected, and forced), and saves back to the
 * same bytes.  Plus hand-made bad inputs: each is rejected with an offset. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "gsvm/patho.h"
#include "test.h"

static int files;

static void check_file(const char *path, gsvm_patho_layout want)
{
    gsvm_buf b;
    gsvm_error err;
    if (gsvm_file_read(path, &b, &err) != GSVM_OK) {
        CHECK(!"cannot read corpus file");
        return;
    }
    files++;
    gsvm_patho_program *p = NULL;
    gsvm_status st = gsvm_patho_load(b.data, b.len, GSVM_PATHO_LAYOUT_AUTO, path, &p, &err);
    if (st != GSVM_OK)
        fprintf(stderr, "%s: %s (offset %lld)\n", path, err.message, err.offset);
    CHECK_INT(st, GSVM_OK);
    if (p) {
        CHECK_INT(p->layout, want);
        CHECK_INT(p->file_size, b.len);
        uint8_t *out;
        size_t len;
        CHECK_INT(gsvm_patho_save(p, &out, &len, &err), GSVM_OK);
        CHECK(len == b.len && memcmp(out, b.data, len) == 0);
        free(out);
        /* offsets and sizes tile the code section */
        uint32_t at = p->code_offset + 4;
        int tiled = 1;
        for (uint32_t i = 0; i < p->ninsns; i++) {
            if (p->insns[i].offset != at)
                tiled = 0;
            at += p->insns[i].size;
        }
        CHECK(tiled && at == b.len);
        gsvm_patho_free(p);
    }
    /* list -> asm gives the bytes back both through the assembler's fast
     * lane (lines as the lister writes them) and through its general path
     * (the same listing with every indented line tab-indented, which the
     * fast lane leaves alone): the two must agree on every instruction */
    if (gsvm_patho_load(b.data, b.len, GSVM_PATHO_LAYOUT_AUTO, path, &p, &err) == GSVM_OK) {
        char *text = NULL;
        size_t tlen = 0;
        CHECK_INT(gsvm_patho_list(p, 0, &text, &tlen, &err), GSVM_OK);
        gsvm_patho_free(p);
        gsvm_buf tabbed;
        gsvm_buf_init(&tabbed);
        for (size_t i = 0; text && i < tlen; i++) {
            if ((i == 0 || text[i - 1] == '\n') && tlen - i >= 4 && memcmp(text + i, "    ", 4) == 0) {
                gsvm_buf_putc(&tabbed, '\t');
                i += 3;
            } else {
                gsvm_buf_putc(&tabbed, text[i]);
            }
        }
        const char *forms[2] = {text, (const char *)tabbed.data};
        size_t lens[2] = {tlen, tabbed.len};
        for (int f = 0; f < 2 && text; f++) {
            gsvm_patho_program *q = NULL;
            st = gsvm_patho_asm(forms[f], lens[f], path, GSVM_PATHO_LAYOUT_AUTO, &q, &err);
            if (st != GSVM_OK)
                fprintf(stderr, "%s (%s): %ld:%ld %s\n", path, f ? "tabs" : "as listed", err.line,
                        err.column, err.message);
            CHECK_INT(st, GSVM_OK);
            uint8_t *out = NULL;
            size_t len = 0;
            if (q)
                CHECK_INT(gsvm_patho_save(q, &out, &len, &err), GSVM_OK);
            CHECK(out && len == b.len && memcmp(out, b.data, len) == 0);
            free(out);
            gsvm_patho_free(q);
        }
        gsvm_buf_free(&tabbed);
        free(text);
    }
    /* forced layout works too */
    st = gsvm_patho_load(b.data, b.len, want, path, &p, &err);
    CHECK_INT(st, GSVM_OK);
    gsvm_patho_free(p);
    /* every truncation is rejected with an offset inside the file */
    int truncs_ok = 1;
    for (size_t cut = 0; cut < b.len; cut += 1 + b.len / 97) {
        st = gsvm_patho_load(b.data, cut, GSVM_PATHO_LAYOUT_AUTO, path, &p, &err);
        if (st != GSVM_ERR_INPUT || p || err.offset < 0 || (size_t)err.offset > cut)
            truncs_ok = 0;
    }
    CHECK(truncs_ok);
    gsvm_buf_free(&b);
}

static void check_dir(const char *shared, const char *sub, gsvm_patho_layout want)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus/pathologic/bin/%s", shared, sub);
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    CHECK(n > 2);
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t l = strlen(nm);
        if (l > 4 && strcmp(nm + l - 4, ".bin") == 0) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            check_file(path, want);
        }
        free(names[i]);
    }
    free(names);
}

static void check_bad(void)
{
    gsvm_error err;
    gsvm_patho_program *p = (gsvm_patho_program *)1;
    /* a global count far larger than the file */
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0x7f, 1, 0};
    CHECK_INT(gsvm_patho_load(huge, sizeof huge, GSVM_PATHO_LAYOUT_HD, "x", &p, &err), GSVM_ERR_INPUT);
    CHECK(p == NULL);
    CHECK_INT(err.offset, 0);
    /* minimal valid program: no globals, empty pool, no imports, task 0 op 0,
     * no tasks, no events, one TaskReturn (hd 0x52) */
    uint8_t ok[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    0, 0, 0, 0, 1, 0, 0, 0, 0x52, 0};
    CHECK_INT(gsvm_patho_load(ok, sizeof ok, GSVM_PATHO_LAYOUT_HD, "x", &p, &err), GSVM_OK);
    CHECK_INT(p->ninsns, 1);
    gsvm_patho_free(p);
    /* unknown opcode 0x5a: error at its offset (32) */
    ok[32] = 0x5a;
    CHECK_INT(gsvm_patho_load(ok, sizeof ok, GSVM_PATHO_LAYOUT_HD, "x", &p, &err), GSVM_ERR_INPUT);
    CHECK_INT(err.offset, 32);
    CHECK(strstr(err.message, "unknown opcode") != NULL);
    /* alpha 0x58 is unknown too, hd knows it (FuncExist) but it is truncated */
    ok[32] = 0x58;
    CHECK_INT(gsvm_patho_load(ok, sizeof ok, GSVM_PATHO_LAYOUT_AUTO, "x", &p, &err), GSVM_ERR_INPUT);
    CHECK(p == NULL);
    /* trailing bytes */
    uint8_t trail[sizeof ok + 1];
    memcpy(trail, ok, sizeof ok);
    trail[32] = 0x52;
    trail[sizeof ok] = 7;
    CHECK_INT(gsvm_patho_load(trail, sizeof trail, GSVM_PATHO_LAYOUT_HD, "x", &p, &err), GSVM_ERR_INPUT);
    CHECK_INT(err.offset, 34);
    /* Func with no imports */
    uint8_t func[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                      0, 0, 0, 0, 1, 0, 0, 0, 0x53, 0, 0, 0, 0, 0};
    CHECK_INT(gsvm_patho_load(func, sizeof func, GSVM_PATHO_LAYOUT_HD, "x", &p, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "import index") != NULL);
    CHECK_INT(err.offset, 34);
}

int main(void)
{
    check_bad();
    const char *shared = test_shared_dir();
    if (shared) {
        check_dir(shared, "hd", GSVM_PATHO_LAYOUT_HD);
        check_dir(shared, "2005", GSVM_PATHO_LAYOUT_HD);
        check_dir(shared, "alpha", GSVM_PATHO_LAYOUT_ALPHA);
        CHECK_INT(files, 43);
    }
    TEST_MAIN_END();
}
