/* Helpers for the LSL value and library tests: build values, call builtins
 * by name, render results as compact JSON for comparison.  Every value made
 * here is released by flush(); tests end by checking the heap is empty. */
#ifndef GSVM_TEST_LSL_LIB_H
#define GSVM_TEST_LSL_LIB_H

#include <math.h>
#include <stdarg.h>

#include "lsl/builtins.h"
#include "lsl/value.h"
#include "test.h"

static lsl_heap T_heap;
static lsl_lib_state T_state;
static gsvm_error T_err;
static lsl_call_ctx T_ctx = {&T_heap, &T_state, &T_err};
static lsl_value T_pool[4096];
static size_t T_npool;
static gsvm_status T_last; /* status of the last call() */

static __attribute__((unused)) lsl_value keep(lsl_value v)
{
    if (T_npool < sizeof T_pool / sizeof T_pool[0])
        T_pool[T_npool++] = v;
    else
        lsl_value_release(&v);
    return v;
}

static __attribute__((unused)) void flush(void)
{
    for (size_t i = 0; i < T_npool; i++)
        lsl_value_release(&T_pool[i]);
    T_npool = 0;
}

static __attribute__((unused)) lsl_value I(int32_t i) { return lsl_int(i); }
static __attribute__((unused)) lsl_value F(float f) { return lsl_float(f); }
static __attribute__((unused)) lsl_value V(float x, float y, float z) { return lsl_vector(x, y, z); }
static __attribute__((unused)) lsl_value R(float x, float y, float z, float s) { return lsl_rotation(x, y, z, s); }

static __attribute__((unused)) lsl_value S(const char *s)
{
    lsl_value v;
    if (lsl_string_new(&T_heap, LSL_TYPE_STRING, s, strlen(s), &v, &T_err))
        v = lsl_empty(LSL_TYPE_STRING);
    return keep(v);
}

static __attribute__((unused)) lsl_value K(const char *s)
{
    lsl_value v;
    if (lsl_string_new(&T_heap, LSL_TYPE_KEY, s, strlen(s), &v, &T_err))
        v = lsl_empty(LSL_TYPE_KEY);
    return keep(v);
}

/* L(n, v1, ..., vn): a list. */
static __attribute__((unused)) lsl_value L(int n, ...)
{
    lsl_value items[64], v;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && i < 64; i++)
        items[i] = va_arg(ap, lsl_value);
    va_end(ap);
    if (lsl_list_new(&T_heap, items, (size_t)n, &v, &T_err))
        v = lsl_empty(LSL_TYPE_LIST);
    return keep(v);
}

/* A constant from the generated table. */
static __attribute__((unused)) lsl_value C(const char *name)
{
    const lsl_constant *c = lsl_constant_by_name(name, strlen(name));
    lsl_value v = lsl_empty(LSL_TYPE_VOID);
    if (c && lsl_constant_value(&T_heap, c, &v, &T_err) == GSVM_OK)
        return keep(v);
    fprintf(stderr, "no constant %s\n", name);
    return v;
}

/* call("llName", n, args...): result kept in the pool; T_last is the status. */
static __attribute__((unused)) lsl_value call(const char *name, int n, ...)
{
    lsl_value args[LSL_MAX_ARGS], ret;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && i < LSL_MAX_ARGS; i++)
        args[i] = va_arg(ap, lsl_value);
    va_end(ap);
    const lsl_builtin *b = lsl_builtin_by_name(name, strlen(name));
    if (!b) {
        fprintf(stderr, "no builtin %s\n", name);
        T_last = GSVM_ERR_USAGE;
        return lsl_empty(LSL_TYPE_VOID);
    }
    gsvm_error_clear(&T_err);
    T_last = lsl_builtin_call(b, &T_ctx, args, (size_t)n, &ret);
    return keep(ret);
}

/* Compact JSON of a value (strings quoted, lists as arrays). */
static __attribute__((unused)) const char *J(lsl_value v)
{
    static char out[8192];
    json_t *j = lsl_value_to_json(&v);
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    snprintf(out, sizeof out, "%s", s ? s : "(null)");
    free(s);
    json_decref(j);
    return out;
}

/* The text of a string/key value. */
static __attribute__((unused)) const char *T(lsl_value v)
{
    static char out[8192];
    snprintf(out, sizeof out, "%.*s", (int)lsl_str_len(&v), lsl_str_data(&v));
    return out;
}

#define CHECK_NEAR(got, want, eps)                                                           \
    do {                                                                                     \
        double g_ = (got), w_ = (want);                                                      \
        if (fabs(g_ - w_) <= (eps)) {                                                        \
            test_passed++;                                                                   \
        } else {                                                                             \
            test_failed++;                                                                   \
            fprintf(stderr, "%s:%d: %s is %.9g, want %.9g\n", __FILE__, __LINE__, #got, g_, w_); \
        }                                                                                    \
    } while (0)

#define CHECK_VEC(VAL, X, Y, Z, EPS)          \
    do {                                       \
        lsl_value cv_ = (VAL);                 \
        CHECK_INT(cv_.type, LSL_TYPE_VECTOR);  \
        CHECK_NEAR(cv_.u.v[0], X, EPS);        \
        CHECK_NEAR(cv_.u.v[1], Y, EPS);        \
        CHECK_NEAR(cv_.u.v[2], Z, EPS);        \
    } while (0)

#define CHECK_ROT(VAL, X, Y, Z, S_, EPS)       \
    do {                                       \
        lsl_value cr_ = (VAL);                 \
        CHECK_INT(cr_.type, LSL_TYPE_ROTATION); \
        CHECK_NEAR(cr_.u.v[0], X, EPS);        \
        CHECK_NEAR(cr_.u.v[1], Y, EPS);        \
        CHECK_NEAR(cr_.u.v[2], Z, EPS);        \
        CHECK_NEAR(cr_.u.v[3], S_, EPS);       \
    } while (0)

#endif
