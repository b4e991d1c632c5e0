/* The compiled-program cache: p-code is an immutable derived asset, so it is
 * stored under the hash of what it derives from — the source bytes, the
 * compiler version and the ABI version — in DIR/lsl/XX/REST.fpc (ABI 2) or
 * DIR/lsl/XX/REST.fp3 (ABI 3: the key names ABI 3 and compiler3's own
 * version, so the two never share an entry).  Entries
 * are written atomically (temporary file + rename), so concurrent runs
 * never see half an entry; a corrupt entry is simply recompiled. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hash.h"
#include "gsvm/lsl.h"
#include "lsl/program.h"

const char *gsvm_lsl_default_cache_dir(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') {
        if ((size_t)snprintf(buf, size, "%s/gsvm", xdg) < size)
            return buf;
        return NULL;
    }
    const char *home = getenv("HOME");
    if (home && home[0]) {
        if ((size_t)snprintf(buf, size, "%s/.cache/gsvm", home) < size)
            return buf;
    }
    return NULL;
}

/* mkdir -p for the parents of `path` (which ends in a file name). */
static bool make_parents(char *path)
{
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        bool ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *s = '/';
        if (!ok)
            return false;
    }
    return true;
}

static bool entry_path(const char *dir, const char *source, size_t len, int compiler, int abi,
                       const char *ext, char *out, size_t size)
{
    gsvm_buf key;
    gsvm_buf_init(&key);
    gsvm_buf_printf(&key, "falcon compiler %d abi %d\n", compiler, abi);
    gsvm_buf_append(&key, source, len);
    uint8_t digest[GSVM_SHA256_SIZE];
    bool ok = !key.oom && gsvm_sha256(key.data, key.len, digest);
    gsvm_buf_free(&key);
    if (!ok)
        return false;
    char hex[2 * GSVM_SHA256_SIZE + 1];
    gsvm_hex(digest, sizeof digest, hex);
    return (size_t)snprintf(out, size, "%s/lsl/%.2s/%s.%s", dir, hex, hex + 2, ext) < size;
}

/* Reads an entry; false when there is none (or it cannot be read). */
static bool entry_read(const char *path, gsvm_buf *bytes)
{
    gsvm_error ignored;
    return gsvm_file_read(path, bytes, &ignored) == GSVM_OK;
}

/* Writes an entry, best effort (a cache that cannot be written is no error). */
static void entry_write(char *path, uint8_t *data, size_t n)
{
    gsvm_error ignored;
    if (make_parents(path))
        gsvm_file_write(path, data, n, &ignored);
    free(data);
}

gsvm_status gsvm_lsl_compile_cached(const char *source, size_t len, const char *file,
                                    const char *dir, gsvm_lsl_program **out, bool *hit,
                                    gsvm_error *err)
{
    char path[4096];
    if (hit)
        *hit = false;
    bool use = dir && dir[0] &&
               entry_path(dir, source, len, GSVM_LSL_COMPILER_VERSION, GSVM_LSL_ABI_VERSION, "fpc",
                          path, sizeof path);
    if (use) {
        gsvm_buf bytes;
        gsvm_error ignored;
        if (entry_read(path, &bytes)) {
            gsvm_status st = gsvm_lsl_program_load(bytes.data, bytes.len, path, out, &ignored);
            gsvm_buf_free(&bytes);
            /* an entry of format 1 (no line table) is rewritten: faults of
             * its program would not name their line:column */
            if (st == GSVM_OK && !(*out)->lines) {
                gsvm_lsl_program_free(*out);
                *out = NULL;
            } else if (st == GSVM_OK) {
                if (hit)
                    *hit = true;
                return GSVM_OK;
            }
        }
    }
    gsvm_status st = gsvm_lsl_compile(source, len, file, out, err);
    if (st != GSVM_OK || !use)
        return st;
    uint8_t *data;
    size_t n;
    gsvm_error ignored;
    if (gsvm_lsl_program_save(*out, &data, &n, &ignored) == GSVM_OK)
        entry_write(path, data, n);
    return GSVM_OK;
}

gsvm_status gsvm_lsl3_compile_cached(const char *source, size_t len, const char *file,
                                     const char *dir, gsvm_lsl3_program **out, bool *hit,
                                     gsvm_error *err)
{
    char path[4096];
    if (hit)
        *hit = false;
    bool use = dir && dir[0] &&
               entry_path(dir, source, len, GSVM_LSL3_COMPILER_VERSION, GSVM_LSL3_ABI_VERSION,
                          "fp3", path, sizeof path);
    if (use) {
        gsvm_buf bytes;
        gsvm_error ignored;
        if (entry_read(path, &bytes)) {
            /* the loader verifies every field: a corrupt entry is recompiled */
            gsvm_status st = gsvm_lsl3_program_load(bytes.data, bytes.len, path, out, &ignored);
            gsvm_buf_free(&bytes);
            if (st == GSVM_OK) {
                if (hit)
                    *hit = true;
                return GSVM_OK;
            }
        }
    }
    gsvm_status st = gsvm_lsl3_compile(source, len, file, out, err);
    if (st != GSVM_OK || !use)
        return st;
    uint8_t *data;
    size_t n;
    gsvm_error ignored;
    if (gsvm_lsl3_program_save(*out, &data, &n, &ignored) == GSVM_OK)
        entry_write(path, data, n);
    return GSVM_OK;
}
