/* The LSL builtin table (functions, constants, events), expanded from the
 * generated src/lsl/builtins.def, and the dispatch from a builtin to its
 * native implementation.
 *
 * A compiler resolves names with lsl_builtin_by_name / lsl_constant_by_name /
 * lsl_event_by_name; a VM calls by func-id (LSL_ID_llAbs ... are the
 * definitions' stable ids) with lsl_builtin_by_id, then:
 *   - native != NULL: call it with a lsl_call_ctx (never leaves the script);
 *   - flags & LSL_FN_VM: the VM services it itself (timers, sleep, listens,
 *     time, reset, memory);
 *   - otherwise: the call crosses the host boundary; check the arguments
 *     with lsl_builtin_check_args and let the host answer, or fill a
 *     type-correct default with lsl_builtin_default_result.
 * After any call the script sleeps `sleep` seconds (the forced delay).
 *
 * All tables are const: nothing here has mutable global state. */
#ifndef GSVM_LSL_BUILTINS_H
#define GSVM_LSL_BUILTINS_H

#include <stdbool.h>
#include <stdint.h>

#include "lsl/value.h"

/* Function flags (the .def's LSL_FN_*). */
enum {
    LSL_FN_PURE = 1u << 0,             /* the definitions mark it pure */
    LSL_FN_NATIVE_HINT = 1u << 1,      /* the definitions mark it native */
    LSL_FN_GOD_MODE = 1u << 2,
    LSL_FN_DEPRECATED = 1u << 3,
    LSL_FN_PRIVATE = 1u << 4,
    LSL_FN_EXPERIENCE = 1u << 5,
    LSL_FN_MUST_USE = 1u << 6,         /* result must be used */
    LSL_FN_NEEDS_PERMISSION = 1u << 7, /* needs a run-time permission */
    LSL_FN_WORLDLESS = 1u << 8,        /* gsvm implements it natively */
    LSL_FN_VM = 1u << 9                /* serviced by the script VM */
};
enum { LSL_CONST_DEPRECATED = 1u << 0, LSL_CONST_PRIVATE = 1u << 1 };

/* LSL_ID_<name> = the definitions' func-id. */
enum lsl_func_id {
#define LSL_FUNCTION(name, id, ...) LSL_ID_##name = id,
#include "lsl/builtins.def"
    LSL_ID_END_
};

#define LSL_MAX_ARGS 12

/* Runtime state the library functions keep per script; the VM owns it,
 * snapshots its three fields and seeds it reproducibly. */
typedef struct lsl_lib_state {
    uint64_t rng[2];  /* xoroshiro128+ state for llFrand / llListRandomize */
    uint64_t key_seq; /* llGenerateKey counter */
    uint64_t key_seed;
} lsl_lib_state;

/* Seeds both streams from one number (e.g. a hash of the script identity). */
void lsl_lib_state_init(lsl_lib_state *st, uint64_t seed);
/* A float uniformly in [0, 1). */
double lsl_lib_random(lsl_lib_state *st);

/* What a native function may use. */
typedef struct lsl_call_ctx {
    lsl_heap *heap;       /* where results are charged (may be NULL) */
    lsl_lib_state *state; /* PRNG and key stream (required by llFrand, llGenerateKey, llListRandomize) */
    gsvm_error *err;      /* filled when a function raises */
} lsl_call_ctx;

/* Every native function: reads args (typed as the builtin's signature; the
 * callee never releases them), writes *ret (a new reference; VOID type for
 * void functions).  Returns GSVM_OK, or GSVM_ERR_FAULT with a Second Life
 * runtime error message ("Math Error", "Stack-Heap Collision") in ctx->err,
 * leaving *ret empty. */
typedef gsvm_status (*lsl_native_fn)(lsl_call_ctx *ctx, const lsl_value *args, lsl_value *ret);

typedef struct lsl_builtin {
    const char *name;
    int32_t id;
    lsl_type ret;
    uint8_t nargs;
    const char *argtypes; /* one letter per argument: i f s k v r l */
    const char *argnames; /* comma separated */
    float sleep;          /* forced delay, seconds */
    float energy;
    uint32_t flags;
} lsl_builtin;

typedef struct lsl_constant {
    const char *name;
    lsl_type type; /* INTEGER, FLOAT, STRING, VECTOR or ROTATION */
    int32_t i;
    float v[4];      /* float in v[0]; vector x,y,z; rotation x,y,z,s */
    const char *str; /* strings: UTF-8 bytes, NUL-terminated */
    uint32_t len;
    uint32_t flags;
} lsl_constant;

typedef struct lsl_event_def {
    const char *name;
    int index; /* position in name order */
    uint8_t nargs;
    const char *argtypes;
    const char *argnames;
} lsl_event_def;

/* Whole tables (functions in func-id order; constants and events in name order). */
const lsl_builtin *lsl_builtins(size_t *count);
const lsl_constant *lsl_constants(size_t *count);
const lsl_event_def *lsl_events(size_t *count);

const lsl_builtin *lsl_builtin_by_id(int32_t id);
/* The same as tables indexed by func-id (LSL_ID_END_ entries, NULL where no
 * builtin / no native implementation has the id): one copy for the process,
 * which every program points at. */
const lsl_builtin *const *lsl_builtin_index(void);
const lsl_builtin *lsl_builtin_by_name(const char *name, size_t len);
const lsl_constant *lsl_constant_by_name(const char *name, size_t len);
const lsl_event_def *lsl_event_by_name(const char *name, size_t len);

/* The type of argument `i` of a builtin or event signature letter. */
lsl_type lsl_type_from_letter(char c);
static inline lsl_type lsl_builtin_arg_type(const lsl_builtin *b, unsigned i)
{
    return i < b->nargs ? lsl_type_from_letter(b->argtypes[i]) : LSL_TYPE_VOID;
}

/* The native implementation, or NULL (VM-serviced or host function). */
lsl_native_fn lsl_builtin_native(const lsl_builtin *b);
/* func-id -> native implementation (LSL_ID_END_ entries, NULL for none). */
const lsl_native_fn *lsl_native_index(void);

/* Checks `n` arguments against the signature (exact types; a key where a
 * string is expected and vice versa are accepted since LSL converts them
 * implicitly).  GSVM_ERR_USAGE with a message naming the argument. */
gsvm_status lsl_builtin_check_args(const lsl_builtin *b, const lsl_value *args, size_t n,
                                   gsvm_error *err);
/* Calls a builtin that has a native implementation (args checked first). */
gsvm_status lsl_builtin_call(const lsl_builtin *b, lsl_call_ctx *ctx, const lsl_value *args,
                             size_t n, lsl_value *ret);
/* The type-correct default a host that does not implement `b` returns:
 * 0, 0.0, "" (string and key: no allocation), ZERO_VECTOR, ZERO_ROTATION,
 * []; a VOID value for void functions. */
lsl_value lsl_builtin_default_result(const lsl_builtin *b);

/* The constant's value (strings allocated on `h`). */
gsvm_status lsl_constant_value(lsl_heap *h, const lsl_constant *c, lsl_value *out, gsvm_error *err);

#endif
