/* Native declarations: the functions a script may call across the host
 * boundary, declared in a JSON file that every VM with natives reads the
 * same way (docs/natives.md):
 *
 *     {"natives": [
 *       {"name": "Sleep", "args": ["float", "bool?"], "latent": "time"},
 *       {"name": "rand", "args": ["float", "float"], "result": "float", "out": 0},
 *       {"name": "Trace", "args": ["varargs"]}
 *     ]}
 *
 * The parser is generic: each engine passes the type words it knows
 * ("int", "float", "object", ...) and gets their indices back, so one engine
 * maps "vector" to its cvector and another to a table.  Every error names
 * the file and the line:column of the offending value. */
#ifndef GSVM_BASE_NATIVES_H
#define GSVM_BASE_NATIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gsvm/gsvm.h"

/* What ends a latent native's wait. */
typedef enum gsvm_native_latent {
    GSVM_NATIVE_NOW = 0,      /* not latent: the call returns at once ("latent": null) */
    GSVM_NATIVE_WAIT_TIME,    /* "time": simulated time has advanced far enough */
    GSVM_NATIVE_WAIT_EVENT,   /* "event": something else happens (a host signal, an event) */
    GSVM_NATIVE_WAIT_FRAME,   /* "frame": the next frame begins */
    GSVM_NATIVE_WAIT_ANIM     /* "anim": the animation it waits for ends */
} gsvm_native_latent;

/* The word of a latent kind ("time", ...; "null" for NOW). */
const char *gsvm_native_latent_name(gsvm_native_latent l);

/* Longest name and most arguments a declaration may have. */
#define GSVM_NATIVE_MAX_NAME 255u
#define GSVM_NATIVE_MAX_ARGS 64u
/* Most declarations one file may hold. */
#define GSVM_NATIVE_MAX_DECLS 65536u

typedef struct gsvm_native_decl {
    char *name;
    uint8_t *arg_types;  /* nargs indices into the engine's type words */
    uint32_t nargs;      /* declared arguments, required and optional */
    uint32_t min_args;   /* the required ones (those before the first "T?") */
    bool varargs;        /* "varargs" last: any number of further arguments */
    int result;          /* index of the result's type word, -1 for none */
    int out;             /* the argument the result is written into, -1 for none */
    gsvm_native_latent latent;
    bool needs_script_stack; /* the native reads or writes the script's stack itself */
    json_t *answer;      /* the value a simulated host answers with (a reference), or NULL */
    long line, column;   /* where the declaration starts */
} gsvm_native_decl;

typedef struct gsvm_natives {
    gsvm_native_decl *decls;
    uint32_t count;
    char file[256]; /* the file they came from, for later messages */
} gsvm_natives;

/* The type words an engine understands, a NULL-terminated list; a word's
 * index in it is what arg_types and result hold (at most 255 words). */
typedef const char *const *gsvm_native_types;

/* Parses declarations from `text` (`len` bytes; `file` names it in errors).
 * On failure nothing is left in `out` and `err` names file:line:column.
 * Two declarations of one name may not accept the same argument count. */
gsvm_status gsvm_natives_parse(const char *text, size_t len, const char *file,
                               gsvm_native_types types, gsvm_natives *out, gsvm_error *err);
/* The same from a file ("-" for stdin). */
gsvm_status gsvm_natives_load(const char *path, gsvm_native_types types, gsvm_natives *out,
                              gsvm_error *err);
void gsvm_natives_free(gsvm_natives *n);

/* Does `d` accept a call with `argc` arguments? */
bool gsvm_native_accepts(const gsvm_native_decl *d, uint32_t argc);
/* The declaration of `name` that accepts `argc` arguments, or NULL. */
const gsvm_native_decl *gsvm_natives_find(const gsvm_natives *n, const char *name, uint32_t argc);
/* Any declaration of `name` (for "declared, but not for N arguments"), or NULL. */
const gsvm_native_decl *gsvm_natives_find_name(const gsvm_natives *n, const char *name);

#endif
