/* The hksc golden set: every chunk of ../shared/corpus/hks-hksc (557 chunks,
 * six targets, up to three debug variants) loads, lists, reassembles byte for
 * byte and verifies with 0 violations, with the profile and debug form its
 * target implies (PROVENANCE.md there): t7 is Black Ops 3 with hash-only
 * debug info in format 14, iw6's hdelete program is Ghosts in format 14. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "gsvm/hks.h"
#include "test.h"

static int files, hash_form, ghosts_deletes;

static void one(const char *target, const char *variant, const char *name, const char *path)
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
    gsvm_hks_chunk *c = NULL, *c2 = NULL;
    char *text = NULL;
    uint8_t *out = NULL, *out2 = NULL;
    size_t tlen = 0, olen = 0, olen2 = 0;
    bool ok = gsvm_hks_chunk_load(b.data, b.len, NULL, path, &c, &err) == GSVM_OK &&
              gsvm_hks_chunk_dump(c, &out2, &olen2, &err) == GSVM_OK &&
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
        if (olen2 != b.len || memcmp(out2, b.data, olen2) != 0) {
            fprintf(stderr, "%s: load -> dump does not reproduce the file\n", path);
            test_failed++;
        }
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
        bool t7 = strcmp(target, "t7") == 0;
        CHECK_INT(c->debug_hash, t7);
        if (t7) {
            CHECK_INT(c->profile, GSVM_HKS_PROFILE_BO3);
            CHECK_INT(c->main.debug.flag, 1);
            hash_form++;
        }
        if (strcmp(target, "iw6") == 0 && strstr(name, "hdelete")) {
            CHECK_INT(c->profile, GSVM_HKS_PROFILE_GHOSTS);
            ghosts_deletes++;
        }
        (void)variant;
    }
    free(out);
    free(out2);
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
    static const char *targets[] = {"sekiro-be", "sow-le", "iw6", "doubles-be", "t6", "t7"};
    static const char *variants[] = {"debug", "profile", "strip"};
    for (int t = 0; t < 6; t++)
        for (int v = 0; v < 3; v++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/corpus/hks-hksc/%s/%s", shared, targets[t], variants[v]);
            struct dirent **names;
            int n = scandir(dir, &names, NULL, alphasort);
            for (int i = 0; i < n; i++) {
                if (strstr(names[i]->d_name, ".luac")) {
                    char path[8192];
                    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
                    one(targets[t], variants[v], names[i]->d_name, path);
                }
                free(names[i]);
            }
            if (n >= 0)
                free(names);
        }
    CHECK_INT(files, 557);
    CHECK_INT(hash_form, 39);
    CHECK_INT(ghosts_deletes, 3);
    printf("%d hksc chunks: all load, round-trip and verify clean (%d in the t7 hash form)\n",
           files, hash_form);
    TEST_MAIN_END();
}
