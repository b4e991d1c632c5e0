/* The error record shared by every engine: see include/gsvm/gsvm.h. */
#include "gsvm/gsvm.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gsvm_error_clear(gsvm_error *err)
{
    if (!err)
        return;
    /* Field by field, not a memset of the whole struct: hot paths (a
     * mission report per event) clear an error they rarely fill. */
    err->status = GSVM_OK;
    err->file[0] = 0;
    err->line = err->column = 0;
    err->offset = -1;
    err->message[0] = 0;
}

static gsvm_status error_fill(gsvm_error *err, gsvm_status status, const char *file, long line,
                              long column, long long offset, const char *fmt, va_list ap)
{
    if (!err)
        return status;
    gsvm_error_clear(err);
    err->status = status;
    if (file)
        snprintf(err->file, sizeof err->file, "%s", file);
    err->line = line;
    err->column = column;
    err->offset = offset;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return status;
}

gsvm_status gsvm_error_set(gsvm_error *err, gsvm_status status, const char *file,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_fill(err, status, file, 0, 0, -1, fmt, ap);
    va_end(ap);
    return status;
}

gsvm_status gsvm_error_at_offset(gsvm_error *err, gsvm_status status, const char *file,
                                 long long offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_fill(err, status, file, 0, 0, offset, fmt, ap);
    va_end(ap);
    return status;
}

gsvm_status gsvm_error_at_line(gsvm_error *err, gsvm_status status, const char *file,
                               long line, long column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_fill(err, status, file, line, column, -1, fmt, ap);
    va_end(ap);
    return status;
}

void gsvm_error_format(const gsvm_error *err, char *out, size_t size)
{
    const char *file = err->file[0] ? err->file : "<input>";
    if (err->line > 0)
        snprintf(out, size, "%s:%ld:%ld: error: %s", file, err->line, err->column, err->message);
    else if (err->offset >= 0)
        snprintf(out, size, "%s: byte %lld: error: %s", file, err->offset, err->message);
    else
        snprintf(out, size, "%s: error: %s", file, err->message);
}

const char *gsvm_status_name(gsvm_status status)
{
    switch (status) {
    case GSVM_OK: return "ok";
    case GSVM_ERR_INPUT: return "input";
    case GSVM_ERR_USAGE: return "usage";
    case GSVM_ERR_FAULT: return "fault";
    case GSVM_ERR_LIMIT: return "limit";
    case GSVM_ERR_NOMEM: return "out of memory";
    case GSVM_ERR_IO: return "i/o";
    }
    return "unknown";
}
