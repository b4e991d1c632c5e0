/* The corpus test: every chunk of ../shared/corpus/hks (313 files from four
 * games and builds) loads, lists, reassembles byte for byte and verifies with
 * 0 violations; the hypotheses of the document find violations. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "gsvm/hks.h"
#include "test.h"

static unsigned long long swap_total, low_total, instructions;
static int files, halo_structs;

static void one(const char *path)
{
    gsvm_buf b;
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_file_read(path, &b, &err) != GSVM_OK) {
        gsvm_buf_free(&b);
        CHECK(!"cannot read");
        return;
    }
    files++;
    gsvm_hks_load_options o = {0, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, true};
    gsvm_hks_chunk *c = NULL, *c2 = NULL;
    char *text = NULL;
    uint8_t *out = NULL;
    size_t tlen = 0, olen = 0;
    bool ok = gsvm_hks_chunk_load(b.data, b.len, &o, path, &c, &err) == GSVM_OK &&
              gsvm_hks_list(c, &text, &tlen, &err) == GSVM_OK &&
              gsvm_hks_asm(text, tlen, path, &c2, &err) == GSVM_OK &&
              gsvm_hks_chunk_dump(c2, &out, &olen, &err) == GSVM_OK;
    if (!ok) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
    }
    CHECK(ok);
    if (ok) {
        if (olen != b.len || memcmp(out, b.data, olen) != 0) {
            fprintf(stderr, "%s: list -> asm does not reproduce the file\n", path);
            test_failed++;
        } else {
            test_passed++;
        }
        gsvm_hks_verify_result r;
        CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, NULL, NULL, &r, &err) == GSVM_OK);
        if (r.violations)
            fprintf(stderr, "%s: %llu violations\n", path, (unsigned long long)r.violations);
        CHECK_INT(r.violations, 0);
        instructions += r.instructions;
        CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_SWAP_AB, NULL, NULL, &r, &err) == GSVM_OK);
        swap_total += r.violations;
        CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_OP_LOW_BIT, NULL, NULL, &r, &err) == GSVM_OK);
        low_total += r.violations;
        if (c->struct_layout == GSVM_HKS_STRUCTS_HALO)
            halo_structs += (int)c->nstructs;
    }
    free(out);
    free(text);
    gsvm_hks_chunk_free(c);
    gsvm_hks_chunk_free(c2);
    gsvm_buf_free(&b);
}

int main(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        TEST_MAIN_END();
    static const char *dirs[] = {"sekiro", "iw6", "halo", "havok-doubles"};
    for (int d = 0; d < 4; d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/corpus/hks/%s", shared, dirs[d]);
        struct dirent **names;
        int n = scandir(dir, &names, NULL, alphasort);
        CHECK(n > 2);
        for (int i = 0; i < n; i++) {
            if (names[i]->d_name[0] != '.') {
                char path[8192];
                snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
                one(path);
            }
            free(names[i]);
        }
        if (n >= 0)
            free(names);
    }
    CHECK_INT(files, 313);
    CHECK(halo_structs > 0);
    CHECK(swap_total > 0);
    CHECK(low_total > 0);
    printf("%d files, %llu instructions; hypotheses: swap-ab %llu, op-low-bit %llu violations\n",
           files, instructions, swap_total, low_total);
    TEST_MAIN_END();
}
