/* The compiler against hksc, in one process: every program of
 * ../shared/corpus/hks-hksc/src compiled for each golden target and debug
 * variant (557 chunks) with the options `gsvm hks compile --target T --debug D
 * NAME.lua` uses (hksc ran inside src/ with the bare name, so the source name
 * is "@NAME.lua"), and the bytes compared with hksc's chunk.  In one process
 * because 557 CLI runs under the sanitizers took up to 15 minutes on a loaded
 * machine; compile/golden_cli.sh checks that the CLI gives the same bytes.
 * A chunk listed in compile/expected_mismatches.txt must differ (so the list
 * stays exact); any other must match. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "gsvm/hks.h"
#include "test.h"

static gsvm_buf expected; /* expected_mismatches.txt, NUL-terminated */
static int total, matched;

/* Whether "TARGET/VARIANT/NAME " starts a line of expected_mismatches.txt. */
static bool listed(const char *key)
{
    size_t n = strlen(key);
    const char *p = expected.data ? (const char *)expected.data : "";
    for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, key, n) == 0 && p[n] == ' ')
            return true;
    return false;
}

static void one(const char *src_dir, const char *dir, const char *tdir, const char *target,
                gsvm_hks_debug_level debug, const char *variant, const char *file)
{
    char name[256], path[8192], key[512];
    size_t len = strlen(file) - strlen(".luac");
    if (len >= sizeof name)
        return;
    memcpy(name, file, len);
    name[len] = 0;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_buf golden, src;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    bool read = gsvm_file_read(path, &golden, &err) == GSVM_OK;
    snprintf(path, sizeof path, "%s/%s.lua", src_dir, name);
    read = gsvm_file_read(path, &src, &err) == GSVM_OK && read;
    CHECK(read);
    char chunkname[300], shown[300];
    snprintf(chunkname, sizeof chunkname, "@%s.lua", name);
    snprintf(shown, sizeof shown, "%s.lua", name);
    gsvm_hks_compile_options o;
    CHECK(gsvm_hks_compile_preset(target, &o));
    o.debug = debug;
    o.chunkname = chunkname;
    o.file = shown;
    gsvm_hks_chunk *c = NULL;
    uint8_t *out = NULL;
    size_t olen = 0;
    bool ok = read &&
              gsvm_hks_compile(src.data ? (const char *)src.data : "", src.len, &o, &c, &err) ==
                  GSVM_OK &&
              gsvm_hks_chunk_dump(c, &out, &olen, &err) == GSVM_OK;
    bool same = ok && olen == golden.len && memcmp(out, golden.data, olen) == 0;
    total++;
    matched += same;
    char msg[1024] = "";
    if (!ok)
        gsvm_error_format(&err, msg, sizeof msg);
    snprintf(key, sizeof key, "%s/%s/%s", tdir, variant, name);
    if (same && listed(key)) {
        fprintf(stderr, "FAIL: %s matches now: remove it from expected_mismatches.txt\n", key);
        test_failed++;
    } else if (!same && !listed(key)) {
        fprintf(stderr, "FAIL: %s differs from hksc's chunk %s\n", key, msg);
        test_failed++;
    } else {
        test_passed++;
    }
    free(out);
    gsvm_hks_chunk_free(c);
    gsvm_buf_free(&golden);
    gsvm_buf_free(&src);
}

int main(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        TEST_MAIN_END();
    const char *srcdir = getenv("GSVM_SOURCE_DIR");
    char path[8192];
    snprintf(path, sizeof path, "%s/tests/hks/compile/expected_mismatches.txt",
             srcdir ? srcdir : ".");
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK(gsvm_file_read(path, &expected, &err) == GSVM_OK);
    gsvm_buf_cstr(&expected);
    static const struct {
        const char *dir, *target;
    } targets[] = {{"sekiro-be", "sekiro"}, {"sow-le", "sow"}, {"iw6", "ghosts"},
                   {"doubles-be", "doubles"}, {"t6", "bo2"}, {"t7", "bo3"}};
    static const char *variants[] = {"debug", "profile", "strip"};
    static const gsvm_hks_debug_level levels[] = {GSVM_HKS_DEBUG_FULL, GSVM_HKS_DEBUG_PROFILE,
                                                  GSVM_HKS_DEBUG_NONE};
    char src_dir[4096];
    snprintf(src_dir, sizeof src_dir, "%s/corpus/hks-hksc/src", shared);
    for (int t = 0; t < 6; t++)
        for (int v = 0; v < 3; v++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/corpus/hks-hksc/%s/%s", shared, targets[t].dir,
                     variants[v]);
            struct dirent **names;
            int n = scandir(dir, &names, NULL, alphasort);
            int before = total, ok_before = matched;
            for (int i = 0; i < n; i++) {
                const char *f = names[i]->d_name;
                size_t fl = strlen(f);
                if (fl > 5 && strcmp(f + fl - 5, ".luac") == 0)
                    one(src_dir, dir, targets[t].dir, targets[t].target, levels[v], variants[v], f);
                free(names[i]);
            }
            if (n >= 0) {
                free(names);
                printf("%s/%s: %d/%d\n", targets[t].dir, variants[v], matched - ok_before,
                       total - before);
            }
        }
    CHECK_INT(total, 557);
    printf("total: %d/%d byte-identical (the rest listed in expected_mismatches.txt)\n", matched,
           total);
    gsvm_buf_free(&expected);
    TEST_MAIN_END();
}
