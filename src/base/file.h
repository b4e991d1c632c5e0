/* Whole-file reading and writing; "-" means stdin/stdout. */
#ifndef GSVM_BASE_FILE_H
#define GSVM_BASE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "gsvm/gsvm.h"

/* Largest input any loader accepts (a guard against reading a device). */
#define GSVM_MAX_FILE_SIZE ((size_t)256 * 1024 * 1024)

/* Reads `path` ("-" for stdin) into `out` (initialised by the call).  The
 * contents are NUL-terminated beyond `len` so text parsers may rely on it. */
gsvm_status gsvm_file_read(const char *path, gsvm_buf *out, gsvm_error *err);
/* Writes `len` bytes to `path` ("-" for stdout), atomically for real files
 * (a temporary file renamed into place). */
gsvm_status gsvm_file_write(const char *path, const void *data, size_t len, gsvm_error *err);

#endif
