/* Native JSON functions (llList2Json, llJson2List, llJsonGetValue,
 * llJsonSetValue, llJsonValueType).  JSON text is parsed by jansson; the
 * compact text scripts get back is written here from jansson's tree so that
 * numbers follow LSL's float formatting.
 *
 * Conventions (SL wiki, "Json usage in LSL" and the function pages):
 *   - the special strings JSON_INVALID ... JSON_DELETE are U+FDD0 ... U+FDD8;
 *   - LSL integers become JSON integers, LSL floats numbers with 6 decimals
 *     (3.14 -> 3.140000, as SL); a number read from JSON text is written
 *     back in its shortest exact form (1.5 stays 1.5, 1e3 becomes 1000.0):
 *     SL copies number text verbatim, jansson keeps only the value;
 *   - strings are escaped as SL does, "/" included (\/);
 *   - SL's own JSON reader is lenient in ways not reproduced here (numbers
 *     such as 01.5 or 1E, unquoted words): gsvm reads standard JSON, so
 *     such text is JSON_INVALID; integers beyond 64 bits too;
 *   - in llList2Json a string element that is "true"/"false"/"null" (or
 *     JSON_TRUE/JSON_FALSE/JSON_NULL), or a well-formed JSON object, array
 *     or quoted string, is inserted as that JSON value; any other string
 *     (numbers included: SL's BUG-6284) becomes a JSON string after being
 *     trimmed of white space; in llJsonSetValue a string holding a JSON
 *     number becomes that number;
 *   - keys, vectors and rotations become JSON strings of their text, vector
 *     components with 6 decimals ("<1.000000, 2.000000, 3.000000>"); NaN and
 *     infinite floats become null (SL writes the invalid nan / inf). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lsl/lib.h"

/* U+FDD0 + n in UTF-8: EF B7 (90 + n). */
enum { J_INVALID, J_OBJECT, J_ARRAY, J_NUMBER, J_STRING, J_NULL, J_TRUE, J_FALSE, J_DELETE };

static void special(int n, char out[4])
{
    out[0] = (char)0xEF;
    out[1] = (char)0xB7;
    out[2] = (char)(0x90 + n);
    out[3] = 0;
}

static bool is_special(const lsl_value *v, int n)
{
    char s[4];
    special(n, s);
    return (v->type == LSL_TYPE_STRING || v->type == LSL_TYPE_KEY) && lsl_str_len(v) == 3 &&
           memcmp(lsl_str_data(v), s, 3) == 0;
}

static gsvm_status ret_special(lsl_call_ctx *ctx, int n, lsl_value *ret)
{
    char s[4];
    special(n, s);
    return lsl_ret_str(ctx, LSL_TYPE_STRING, s, 3, ret);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* ---- writing ------------------------------------------------------------- */

/* The JSON reals that came from LSL floats (written with 6 decimals). */
typedef struct marks {
    const json_t *items[64];
    size_t n;
    bool all; /* more than fit: every real is an LSL float */
} marks;

static void mark(marks *m, const json_t *j)
{
    if (m->n < sizeof m->items / sizeof m->items[0])
        m->items[m->n++] = j;
    else
        m->all = true;
}

static bool marked(const marks *m, const json_t *j)
{
    if (m->all)
        return true;
    for (size_t i = 0; i < m->n; i++)
        if (m->items[i] == j)
            return true;
    return false;
}

static void write_number(gsvm_buf *b, double d, bool lsl_float)
{
    char tmp[64];
    if (lsl_float) {
        snprintf(tmp, sizeof tmp, "%.6f", d);
        if (strcmp(tmp, "-0.000000") == 0) /* zero prints unsigned, as lsl_format_float_c */
            memmove(tmp, tmp + 1, strlen(tmp));
    } else {
        /* shortest text that reads back as the same double, in positional
         * notation for everyday magnitudes */
        double a = fabs(d);
        if (a >= 1e-5 && a < 1e16) {
            for (int prec = 0; prec <= 20; prec++) {
                snprintf(tmp, sizeof tmp, "%.*f", prec, d);
                if (strtod(tmp, NULL) == d)
                    break;
            }
        } else {
            for (int prec = 1; prec <= 17; prec++) {
                snprintf(tmp, sizeof tmp, "%.*g", prec, d);
                if (strtod(tmp, NULL) == d)
                    break;
            }
        }
        if (!strpbrk(tmp, ".eEn"))
            strcat(tmp, ".0");
    }
    gsvm_buf_puts(b, tmp);
}

static bool write_json(gsvm_buf *b, const json_t *j, const marks *m)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *v;
        bool first = true;
        gsvm_buf_putc(b, '{');
        json_object_foreach((json_t *)j, k, v) {
            if (!first)
                gsvm_buf_putc(b, ',');
            first = false;
            json_t *key = json_string(k);
            char *ks = key ? json_dumps(key, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH) : NULL;
            json_decref(key);
            if (!ks)
                return false;
            gsvm_buf_puts(b, ks);
            free(ks);
            gsvm_buf_putc(b, ':');
            if (!write_json(b, v, m))
                return false;
        }
        gsvm_buf_putc(b, '}');
        return true;
    }
    case JSON_ARRAY: {
        gsvm_buf_putc(b, '[');
        for (size_t i = 0; i < json_array_size(j); i++) {
            if (i)
                gsvm_buf_putc(b, ',');
            if (!write_json(b, json_array_get(j, i), m))
                return false;
        }
        gsvm_buf_putc(b, ']');
        return true;
    }
    case JSON_STRING: {
        char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH);
        if (!s)
            return false; /* not UTF-8 */
        gsvm_buf_puts(b, s);
        free(s);
        return true;
    }
    case JSON_INTEGER: gsvm_buf_printf(b, "%lld", (long long)json_integer_value(j)); return true;
    case JSON_REAL: write_number(b, json_real_value(j), marked(m, j)); return true;
    case JSON_TRUE: gsvm_buf_puts(b, "true"); return true;
    case JSON_FALSE: gsvm_buf_puts(b, "false"); return true;
    default: gsvm_buf_puts(b, "null"); return true;
    }
}

/* Returns the tree's text as an LSL string (JSON_INVALID if it cannot be
 * written, e.g. a string that is not UTF-8). */
static gsvm_status ret_json(lsl_call_ctx *ctx, const json_t *j, const marks *m, lsl_value *ret)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    if (!write_json(&b, j, m)) {
        gsvm_buf_free(&b);
        return ret_special(ctx, J_INVALID, ret);
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

/* ---- reading ------------------------------------------------------------- */

/* Parses JSON text of any type; NULL if malformed (a \u0000 escape
 * included: LSL strings hold no NUL). */
static json_t *parse(const char *s, size_t len)
{
    json_error_t e;
    return json_loadb(s, len, JSON_DECODE_ANY, &e);
}

static bool trimmed_is(const char *s, size_t len, const char *word)
{
    size_t a = 0, b = len;
    while (a < b && is_space(s[a]))
        a++;
    while (b > a && is_space(s[b - 1]))
        b--;
    return b - a == strlen(word) && memcmp(s + a, word, b - a) == 0;
}

/* The JSON value for an LSL value; `numbers` lets a string holding a JSON
 * number become that number (llJsonSetValue) or not (llList2Json). */
static json_t *to_json(const lsl_value *v, bool numbers, marks *m)
{
    switch (v->type) {
    case LSL_TYPE_INTEGER: return json_integer(v->u.i);
    case LSL_TYPE_FLOAT: {
        char tmp[64];
        if (!isfinite(v->u.f))
            return json_null();
        snprintf(tmp, sizeof tmp, "%.6f", (double)v->u.f);
        json_t *j = json_real(strtod(tmp, NULL));
        if (j)
            mark(m, j);
        return j;
    }
    case LSL_TYPE_STRING: {
        const char *s = lsl_str_data(v);
        size_t len = lsl_str_len(v);
        if (is_special(v, J_TRUE) || trimmed_is(s, len, "true"))
            return json_true();
        if (is_special(v, J_FALSE) || trimmed_is(s, len, "false"))
            return json_false();
        if (is_special(v, J_NULL) || trimmed_is(s, len, "null"))
            return json_null();
        size_t a = 0, b = len;
        while (a < b && is_space(s[a]))
            a++;
        while (b > a && is_space(s[b - 1]))
            b--;
        if (b > a && (s[a] == '{' || s[a] == '[' || s[a] == '"' || numbers)) {
            json_t *j = parse(s + a, b - a);
            if (j && (numbers || !json_is_number(j)))
                return j;
            json_decref(j);
        }
        return json_stringn(s + a, b - a);
    }
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: {
        gsvm_buf b;
        gsvm_buf_init(&b);
        gsvm_buf_putc(&b, '<');
        for (int k = 0; k < (v->type == LSL_TYPE_VECTOR ? 3 : 4); k++) {
            if (k)
                gsvm_buf_puts(&b, ", ");
            lsl_format_float_c(&b, v->u.v[k]);
        }
        gsvm_buf_putc(&b, '>');
        json_t *j = b.oom ? NULL : json_stringn((const char *)b.data, b.len);
        gsvm_buf_free(&b);
        return j;
    }
    default: {
        gsvm_buf b;
        gsvm_buf_init(&b);
        lsl_value_append_text(&b, v, true);
        json_t *j = b.oom ? NULL : json_stringn((const char *)b.data, b.len);
        gsvm_buf_free(&b);
        return j;
    }
    }
}

gsvm_status lsl_lib_llList2Json(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* JSON_OBJECT takes key, value pairs (an odd count or a non-string key
     * gives JSON_INVALID); JSON_ARRAY takes values; any other type gives
     * JSON_INVALID. */
    const lsl_value *list = &a[1];
    size_t n = lsl_list_len(list);
    const lsl_value *it = lsl_list_items(list);
    json_t *root = NULL;
    marks m = {.n = 0};
    if (is_special(&a[0], J_ARRAY)) {
        root = json_array();
        for (size_t i = 0; root && i < n; i++)
            if (json_array_append_new(root, to_json(&it[i], false, &m))) {
                json_decref(root);
                root = NULL;
            }
    } else if (is_special(&a[0], J_OBJECT) && n % 2 == 0) {
        root = json_object();
        for (size_t i = 0; root && i < n; i += 2) {
            json_t *v = it[i].type == LSL_TYPE_STRING || it[i].type == LSL_TYPE_KEY ? to_json(&it[i + 1], false, &m) : NULL;
            if (!v || json_object_setn_new(root, lsl_str_data(&it[i]), lsl_str_len(&it[i]), v)) {
                json_decref(root);
                root = NULL;
            }
        }
    }
    if (!root)
        return ret_special(ctx, J_INVALID, ret);
    gsvm_status st = ret_json(ctx, root, &m, ret);
    json_decref(root);
    return st;
}

/* The LSL value of a JSON value inside a list (llJson2List). */
static gsvm_status from_json(lsl_call_ctx *ctx, const json_t *j, lsl_value *out)
{
    switch (json_typeof(j)) {
    case JSON_STRING:
        return lsl_string_new(ctx->heap, LSL_TYPE_STRING, json_string_value(j), json_string_length(j), out, ctx->err);
    case JSON_INTEGER: {
        json_int_t x = json_integer_value(j);
        if (x >= INT32_MIN && x <= INT32_MAX)
            *out = lsl_int((int32_t)x);
        else
            *out = lsl_float((float)x);
        return GSVM_OK;
    }
    case JSON_REAL: *out = lsl_float((float)json_real_value(j)); return GSVM_OK;
    case JSON_TRUE: return ret_special(ctx, J_TRUE, out);
    case JSON_FALSE: return ret_special(ctx, J_FALSE, out);
    case JSON_NULL: return ret_special(ctx, J_NULL, out);
    default: {
        marks none = {.n = 0};
        return ret_json(ctx, j, &none, out);
    }
    }
}

gsvm_status lsl_lib_llJson2List(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* An array gives its elements, an object its key, value pairs, a scalar
     * a one-element list; nested containers stay JSON text.  "" gives [];
     * text that is not JSON gives [JSON_INVALID]. */
    const char *s = lsl_str_data(&a[0]);
    size_t len = lsl_str_len(&a[0]);
    size_t k = 0;
    while (k < len && is_space(s[k]))
        k++;
    if (k == len) {
        *ret = lsl_empty(LSL_TYPE_LIST);
        return GSVM_OK;
    }
    json_t *root = parse(s, len);
    if (!root) {
        lsl_value inv;
        gsvm_status st = ret_special(ctx, J_INVALID, &inv);
        if (st)
            return st;
        st = lsl_list_new(ctx->heap, &inv, 1, ret, ctx->err);
        lsl_value_release(&inv);
        return st;
    }
    size_t n = json_is_array(root) ? json_array_size(root) : json_is_object(root) ? 2 * json_object_size(root) : 1;
    lsl_value *items = calloc(n ? n : 1, sizeof *items);
    gsvm_status st = items ? GSVM_OK : gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    size_t done = 0;
    if (!st && json_is_array(root)) {
        for (; done < n && !st; done++)
            st = from_json(ctx, json_array_get(root, done), &items[done]);
    } else if (!st && json_is_object(root)) {
        const char *key;
        json_t *v;
        json_object_foreach(root, key, v) {
            if (st)
                break;
            st = lsl_string_cstr(ctx->heap, key, &items[done++], ctx->err);
            if (!st)
                st = from_json(ctx, v, &items[done++]);
        }
    } else if (!st) {
        st = from_json(ctx, root, &items[done++]);
    }
    if (!st)
        st = lsl_list_new(ctx->heap, items, n, ret, ctx->err);
    for (size_t i = 0; items && i < n; i++)
        lsl_value_release(&items[i]);
    free(items);
    json_decref(root);
    return st;
}

/* Follows the specifiers (integers index arrays, strings key objects);
 * NULL when the path does not exist. */
static json_t *walk(json_t *j, const lsl_value *specs)
{
    for (size_t i = 0; j && i < lsl_list_len(specs); i++) {
        const lsl_value *s = &lsl_list_items(specs)[i];
        if (s->type == LSL_TYPE_INTEGER && json_is_array(j))
            j = s->u.i >= 0 ? json_array_get(j, (size_t)s->u.i) : NULL;
        else if ((s->type == LSL_TYPE_STRING || s->type == LSL_TYPE_KEY) && json_is_object(j))
            j = json_object_getn(j, lsl_str_data(s), lsl_str_len(s));
        else if ((s->type == LSL_TYPE_STRING || s->type == LSL_TYPE_KEY) && json_is_array(j)) {
            /* SL reads a string's leading digits (up to 9) as an array index */
            const char *d = lsl_str_data(s);
            size_t n = 0, idx = 0;
            while (n < 9 && n < lsl_str_len(s) && d[n] >= '0' && d[n] <= '9')
                idx = idx * 10 + (size_t)(d[n++] - '0');
            j = n ? json_array_get(j, idx) : NULL;
        } else
            j = NULL;
    }
    return j;
}

gsvm_status lsl_lib_llJsonGetValue(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Strings come back unquoted, true/false/null as JSON_TRUE/JSON_FALSE/
     * JSON_NULL, numbers and containers as JSON text; JSON_INVALID when the
     * text is not JSON or the path does not exist. */
    json_t *root = parse(lsl_str_data(&a[0]), lsl_str_len(&a[0]));
    json_t *j = walk(root, &a[1]);
    gsvm_status st;
    if (!j)
        st = ret_special(ctx, J_INVALID, ret);
    else if (json_is_string(j))
        st = lsl_ret_str(ctx, LSL_TYPE_STRING, json_string_value(j), json_string_length(j), ret);
    else if (json_is_true(j))
        st = ret_special(ctx, J_TRUE, ret);
    else if (json_is_false(j))
        st = ret_special(ctx, J_FALSE, ret);
    else if (json_is_null(j))
        st = ret_special(ctx, J_NULL, ret);
    else {
        marks none = {.n = 0};
        st = ret_json(ctx, j, &none, ret);
    }
    json_decref(root);
    return st;
}

gsvm_status lsl_lib_llJsonValueType(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    json_t *root = parse(lsl_str_data(&a[0]), lsl_str_len(&a[0]));
    json_t *j = walk(root, &a[1]);
    int t = J_INVALID;
    if (j) {
        switch (json_typeof(j)) {
        case JSON_OBJECT: t = J_OBJECT; break;
        case JSON_ARRAY: t = J_ARRAY; break;
        case JSON_STRING: t = J_STRING; break;
        case JSON_INTEGER:
        case JSON_REAL: t = J_NUMBER; break;
        case JSON_TRUE: t = J_TRUE; break;
        case JSON_FALSE: t = J_FALSE; break;
        default: t = J_NULL; break;
        }
    }
    json_decref(root);
    return ret_special(ctx, t, ret);
}

/* Sets (or, with value NULL, deletes) the element at specs[i...] under
 * *slot, creating containers on the way.  False when the path is invalid
 * (an array index past the end, a negative index other than JSON_APPEND,
 * a specifier that is neither integer nor string). */
static bool set_path(json_t **slot, const lsl_value *specs, size_t i, json_t *value, bool *changed)
{
    size_t n = lsl_list_len(specs);
    if (i == n) {
        json_decref(*slot);
        *slot = json_incref(value);
        *changed = true;
        return true;
    }
    const lsl_value *s = &lsl_list_items(specs)[i];
    bool last = i + 1 == n;
    if (s->type == LSL_TYPE_INTEGER) {
        if (!json_is_array(*slot)) {
            if (!value)
                return true; /* deleting what is not there */
            json_decref(*slot);
            *slot = json_array();
        }
        size_t size = json_array_size(*slot);
        int32_t idx = s->u.i;
        if (idx == -1) /* JSON_APPEND */
            idx = (int32_t)size;
        if (idx < 0 || (size_t)idx > size)
            return false;
        if (last && !value) {
            if ((size_t)idx < size) {
                json_array_remove(*slot, (size_t)idx);
                *changed = true;
            }
            return true;
        }
        json_t *child = (size_t)idx < size ? json_incref(json_array_get(*slot, (size_t)idx)) : NULL;
        if (!child && !value)
            return true;
        bool ok = set_path(&child, specs, i + 1, value, changed);
        if (ok && child) {
            if ((size_t)idx < size)
                json_array_set(*slot, (size_t)idx, child);
            else
                json_array_append(*slot, child);
        }
        json_decref(child);
        return ok;
    }
    if (s->type != LSL_TYPE_STRING && s->type != LSL_TYPE_KEY)
        return false;
    if (!json_is_object(*slot)) {
        if (!value)
            return true;
        json_decref(*slot);
        *slot = json_object();
    }
    const char *k = lsl_str_data(s);
    size_t kl = lsl_str_len(s);
    if (last && !value) {
        if (json_object_getn(*slot, k, kl)) {
            json_object_deln(*slot, k, kl);
            *changed = true;
        }
        return true;
    }
    json_t *child = json_incref(json_object_getn(*slot, k, kl));
    if (!child && !value)
        return true;
    bool ok = set_path(&child, specs, i + 1, value, changed);
    if (ok && child)
        json_object_setn(*slot, k, kl, child);
    json_decref(child);
    return ok;
}

gsvm_status lsl_lib_llJsonSetValue(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Returns the text with the value at the path set (JSON_DELETE removes
     * it), creating objects and arrays on the way and replacing whatever is
     * in the way that is not the container a specifier needs; "" counts as
     * no value.  Malformed text or an invalid path gives JSON_INVALID. */
    const char *s = lsl_str_data(&a[0]);
    size_t len = lsl_str_len(&a[0]), k = 0;
    while (k < len && is_space(s[k]))
        k++;
    json_t *root = NULL;
    if (k < len) {
        root = parse(s, len);
        if (!root)
            return ret_special(ctx, J_INVALID, ret);
    }
    marks m = {.n = 0};
    json_t *value = is_special(&a[2], J_DELETE) ? NULL : to_json(&a[2], true, &m);
    if (!value && !is_special(&a[2], J_DELETE)) {
        json_decref(root);
        return ret_special(ctx, J_INVALID, ret);
    }
    bool changed = false;
    bool ok = set_path(&root, &a[1], 0, value, &changed);
    json_decref(value);
    gsvm_status st;
    if (!ok)
        st = ret_special(ctx, J_INVALID, ret);
    else if (!root)
        st = lsl_ret_str(ctx, LSL_TYPE_STRING, "", 0, ret);
    else
        st = ret_json(ctx, root, &m, ret);
    json_decref(root);
    return st;
}
