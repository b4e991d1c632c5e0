#include "base/file.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gsvm_status gsvm_file_read(const char *path, gsvm_buf *out, gsvm_error *err)
{
    gsvm_buf_init(out);
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return gsvm_error_set(err, GSVM_ERR_IO, path, "cannot open: %s", strerror(errno));
    /* a regular file's size is known: one allocation, no growing copies
     * (+1: the read that finds the end needs room to try) */
    struct stat sb;
    if (f != stdin && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size <= GSVM_MAX_FILE_SIZE)
        gsvm_buf_reserve(out, (size_t)sb.st_size + 1);
    /* straight into the buffer: a big request bypasses stdio's own buffer */
    gsvm_status st = GSVM_OK;
    for (;;) {
        if ((out->cap == 0 || out->len + 1 == out->cap) && !gsvm_buf_reserve(out, 65536))
            break; /* out of memory: reported below */
        size_t room = out->cap - out->len - 1;
        if (room > GSVM_MAX_FILE_SIZE + 1 - out->len)
            room = GSVM_MAX_FILE_SIZE + 1 - out->len; /* one byte too many is enough to know */
        size_t n = fread(out->data + out->len, 1, room, f);
        out->len += n;
        if (out->len > GSVM_MAX_FILE_SIZE) {
            st = gsvm_error_set(err, GSVM_ERR_INPUT, path, "file is larger than %zu bytes",
                                GSVM_MAX_FILE_SIZE);
            break;
        }
        if (n < room)
            break; /* the end, or an error (ferror below) */
    }
    if (st == GSVM_OK && ferror(f))
        st = gsvm_error_set(err, GSVM_ERR_IO, path, "read failed: %s", strerror(errno));
    if (f != stdin)
        fclose(f);
    gsvm_buf_cstr(out);
    if (st == GSVM_OK && out->oom)
        st = gsvm_error_set(err, GSVM_ERR_NOMEM, path, "out of memory reading the file");
    if (st != GSVM_OK)
        gsvm_buf_free(out);
    return st;
}

gsvm_status gsvm_file_write(const char *path, const void *data, size_t len, gsvm_error *err)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return gsvm_error_set(err, GSVM_ERR_IO, "<stdout>", "write failed");
        return GSVM_OK;
    }
    /* A regular file (or a new one) is written to a temporary file renamed
     * over it, so readers never see half of it.  Anything else (/dev/null,
     * /dev/stdout, a FIFO) is written in place: renaming over a device node
     * would replace it with a regular file. */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        FILE *f = fopen(path, "wb");
        if (!f)
            return gsvm_error_set(err, GSVM_ERR_IO, path, "cannot open: %s", strerror(errno));
        bool ok = fwrite(data, 1, len, f) == len;
        int e = errno;
        if (fclose(f) != 0 && ok) {
            ok = false;
            e = errno;
        }
        return ok ? GSVM_OK : gsvm_error_set(err, GSVM_ERR_IO, path, "write failed: %s", strerror(e));
    }
    /* The temporary name is unique per process and per call (threads of one
     * process may write the same path at once, e.g. one cache entry), and
     * "x" refuses to share a file that exists already. */
    static atomic_uint tmp_serial;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld.%u", path, (long)getpid(),
                 atomic_fetch_add(&tmp_serial, 1u)) >= (int)sizeof tmp)
        return gsvm_error_set(err, GSVM_ERR_IO, path, "path too long");
    FILE *f = fopen(tmp, "wbx");
    if (!f)
        return gsvm_error_set(err, GSVM_ERR_IO, path, "cannot create: %s", strerror(errno));
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return gsvm_error_set(err, GSVM_ERR_IO, path, "write failed: %s", strerror(e));
    }
    return GSVM_OK;
}
