/* gsvm — game-script virtual machines.
 *
 * This header holds what every engine shares: the version, the status codes
 * every library call returns, and the error record that says what went wrong
 * and where.  Library functions never exit, abort or print: they return a
 * gsvm_status and, on failure, fill a gsvm_error the caller owns.
 *
 * Threads: the library keeps no mutable global state (the one shared piece,
 * the mission runtime's wall-clock watchdog thread, is internal and locked).
 * Distinct objects may be used from different threads at the same time; one
 * object is used by one thread at a time, except where an engine's header
 * says an object is immutable and may be shared (programs, loaded chunks).
 * Host callbacks run on the thread that called into the library. */
#ifndef GSVM_GSVM_H
#define GSVM_GSVM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSVM_VERSION_STRING "0.1.0"

/* Status codes.  The CLI maps them to exit codes: INPUT -> 1, USAGE -> 2,
 * FAULT -> 3, LIMIT -> 4, anything else -> 1. */
typedef enum gsvm_status {
    GSVM_OK = 0,
    GSVM_ERR_INPUT,  /* outside bytes or text were rejected */
    GSVM_ERR_USAGE,  /* the caller asked for something impossible */
    GSVM_ERR_FAULT,  /* a script faulted at run time */
    GSVM_ERR_LIMIT,  /* an instruction, time or memory limit was reached */
    GSVM_ERR_NOMEM,  /* the process ran out of memory */
    GSVM_ERR_IO      /* reading or writing a file failed */
} gsvm_status;

/* Where and what.  `line`/`column` are 1-based and 0 when unknown; `offset`
 * is a byte offset and -1 when unknown.  `file` may be empty. */
typedef struct gsvm_error {
    gsvm_status status;
    char file[256];
    long line, column;
    long long offset;
    char message[512];
} gsvm_error;

/* Resets `err` to "no error". */
void gsvm_error_clear(gsvm_error *err);

/* Fills `err` and returns `status`, so that `return gsvm_error_set(...)` reads
 * naturally.  Any of file may be NULL. */
gsvm_status gsvm_error_set(gsvm_error *err, gsvm_status status, const char *file,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));
gsvm_status gsvm_error_at_offset(gsvm_error *err, gsvm_status status, const char *file,
                                 long long offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
gsvm_status gsvm_error_at_line(gsvm_error *err, gsvm_status status, const char *file,
                               long line, long column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Renders `err` as "FILE:LINE:COL: error: MESSAGE", "FILE: byte N: error: MESSAGE"
 * or "FILE: error: MESSAGE" into `out` (always NUL-terminated). */
void gsvm_error_format(const gsvm_error *err, char *out, size_t size);

/* A short name for a status code ("input", "fault", ...). */
const char *gsvm_status_name(gsvm_status status);

#ifdef __cplusplus
}
#endif
#endif
