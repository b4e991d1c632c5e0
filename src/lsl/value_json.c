/* LSL values as JSON (timeline arguments, globals, host answers). */
#include "lsl/value.h"

#include "base/decimal.h"
#include "lsl/lib_math.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ---------------------------------------------------------------- */

static json_t *float_json(float f)
{
    if (isnan(f))
        return json_string("NaN");
    if (isinf(f))
        return json_string(f < 0 ? "-Infinity" : "Infinity");
    return json_real((double)f);
}

json_t *lsl_value_to_json(const lsl_value *v)
{
    switch (v->type) {
    case LSL_TYPE_INTEGER: return json_integer(v->u.i);
    case LSL_TYPE_FLOAT: return float_json(v->u.f);
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY: return json_stringn_nocheck(lsl_str_data(v), lsl_str_len(v));
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: {
        int n = v->type == LSL_TYPE_VECTOR ? 3 : 4;
        json_t *arr = json_array();
        for (int k = 0; arr && k < n; k++)
            if (json_array_append_new(arr, float_json(v->u.v[k]))) {
                json_decref(arr);
                return NULL;
            }
        json_t *obj = json_object();
        if (!arr || !obj || json_object_set_new(obj, n == 3 ? "vector" : "rotation", arr)) {
            json_decref(obj);
            return NULL;
        }
        return obj;
    }
    case LSL_TYPE_LIST: {
        json_t *arr = json_array();
        for (size_t i = 0; arr && i < lsl_list_len(v); i++)
            if (json_array_append_new(arr, lsl_value_to_json(&v->u.l->items[i]))) {
                json_decref(arr);
                return NULL;
            }
        return arr;
    }
    default: return json_null();
    }
}

/* A JSON number, or one of the strings lsl_value_to_json writes for
 * non-finite floats. */
static bool json_float(const json_t *j, float *out)
{
    if (json_is_number(j)) {
        *out = (float)json_number_value(j);
        return true;
    }
    const char *s = json_string_value(j);
    if (!s)
        return false;
    if (strcmp(s, "Infinity") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-Infinity") == 0)
        *out = -INFINITY;
    else if (strcmp(s, "NaN") == 0)
        *out = NAN;
    else
        return false;
    return true;
}

static gsvm_status json_floats(const json_t *arr, int n, float *out, const char *what, gsvm_error *err)
{
    if (!json_is_array(arr) || json_array_size(arr) != (size_t)n)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "a %s needs an array of %d numbers", what, n);
    for (int k = 0; k < n; k++) {
        if (!json_float(json_array_get(arr, (size_t)k), &out[k]))
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "a %s component must be a number", what);
    }
    return GSVM_OK;
}

gsvm_status lsl_value_from_json(lsl_heap *h, const json_t *j, lsl_type want, lsl_value *out,
                                gsvm_error *err)
{
    *out = lsl_empty(want);
    switch (want) {
    case LSL_TYPE_INTEGER: {
        if (json_is_integer(j)) {
            json_int_t x = json_integer_value(j);
            if (x < INT32_MIN || x > INT32_MAX)
                return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "integer %lld is out of range",
                                      (long long)x);
            *out = lsl_int((int32_t)x);
            return GSVM_OK;
        }
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "expected an integer");
    }
    case LSL_TYPE_FLOAT: {
        float f;
        if (!json_float(j, &f))
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "expected a number for a float");
        *out = lsl_float(f);
        return GSVM_OK;
    }
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
        if (json_is_object(j) && want == LSL_TYPE_KEY && json_is_string(json_object_get(j, "key")))
            j = json_object_get(j, "key");
        if (!json_is_string(j))
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "expected a string for a %s",
                                  lsl_type_name(want));
        return lsl_string_new(h, want, json_string_value(j), json_string_length(j), out, err);
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: {
        const char *name = want == LSL_TYPE_VECTOR ? "vector" : "rotation";
        const json_t *arr = json_is_object(j) ? json_object_get(j, name) : NULL;
        float c[4] = {0, 0, 0, 1};
        if (!arr)
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "expected {\"%s\":[...]}", name);
        gsvm_status st = json_floats(arr, want == LSL_TYPE_VECTOR ? 3 : 4, c, name, err);
        if (st)
            return st;
        *out = want == LSL_TYPE_VECTOR ? lsl_vector(c[0], c[1], c[2]) : lsl_rotation(c[0], c[1], c[2], c[3]);
        return GSVM_OK;
    }
    case LSL_TYPE_LIST: {
        if (!json_is_array(j))
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "expected an array for a list");
        size_t n = json_array_size(j);
        if (n > LSL_MAX_LIST_LENGTH)
            return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "list too long");
        lsl_value *items = calloc(n ? n : 1, sizeof *items);
        if (!items)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        gsvm_status st = GSVM_OK;
        size_t done = 0;
        for (; done < n && !st; done++) {
            const json_t *e = json_array_get(j, done);
            lsl_type t;
            if (json_is_integer(e)) {
                json_int_t x = json_integer_value(e);
                t = x >= INT32_MIN && x <= INT32_MAX ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
            } else if (json_is_real(e)) {
                t = LSL_TYPE_FLOAT;
            } else if (json_is_string(e)) {
                t = LSL_TYPE_STRING;
            } else if (json_is_object(e) && json_object_get(e, "key")) {
                t = LSL_TYPE_KEY;
            } else if (json_is_object(e) && json_object_get(e, "vector")) {
                t = LSL_TYPE_VECTOR;
            } else if (json_is_object(e) && json_object_get(e, "rotation")) {
                t = LSL_TYPE_ROTATION;
            } else {
                st = gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "list element %zu has no LSL type", done);
                break;
            }
            st = lsl_value_from_json(h, e, t, &items[done], err);
            if (st)
                break;
        }
        if (!st)
            st = lsl_list_new(h, items, n, out, err);
        for (size_t i = 0; i < n; i++)
            lsl_value_release(&items[i]);
        free(items);
        return st;
    }
    default:
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no JSON form for %s", lsl_type_name(want));
    }
}
