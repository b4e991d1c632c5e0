/* LSL values: construction, reference counting, memory accounting, equality,
 * truthiness, operators and in-place forms (text and casts are
 * value_text.c's, JSON value_json.c's).  See value.h for the model. */
#include "lsl/value.h"

#include "base/decimal.h"
#include "lsl/lib_math.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- heap ---------------------------------------------------------------- */

void lsl_heap_init(lsl_heap *h, size_t limit)
{
    memset(h, 0, sizeof *h);
    h->limit = limit;
}

void lsl_heap_free(const lsl_heap *h, void *p);

void *lsl_heap_realloc(const lsl_heap *h, void *p, size_t size)
{
    if (size == 0) {
        lsl_heap_free(h, p);
        return NULL;
    }
    if (h && h->realloc)
        return h->realloc(h->alloc_user, p, size);
    return realloc(p, size);
}

void lsl_heap_free(const lsl_heap *h, void *p)
{
    if (!p)
        return;
    if (h && h->realloc)
        h->realloc(h->alloc_user, p, 0);
    else
        free(p);
}

bool lsl_heap_fits(const lsl_heap *h, size_t bytes)
{
    if (!h || h->limit == 0)
        return true;
    size_t used = h->used + h->extra;
    return used <= h->limit && bytes <= h->limit - used;
}

static gsvm_status collision(gsvm_error *err)
{
    return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "Stack-Heap Collision");
}

gsvm_status lsl_heap_charge(lsl_heap *h, size_t bytes, gsvm_error *err)
{
    if (!h)
        return GSVM_OK;
    if (!lsl_heap_fits(h, bytes))
        return collision(err);
    h->extra += bytes;
    if (h->used + h->extra > h->peak)
        h->peak = h->used + h->extra;
    return GSVM_OK;
}

void lsl_heap_credit(lsl_heap *h, size_t bytes)
{
    if (h)
        h->extra = bytes > h->extra ? 0 : h->extra - bytes;
}

static gsvm_status heap_take(lsl_heap *h, size_t bytes, gsvm_error *err)
{
    if (!h)
        return GSVM_OK;
    if (!lsl_heap_fits(h, bytes))
        return collision(err);
    h->used += bytes;
    if (h->used + h->extra > h->peak)
        h->peak = h->used + h->extra;
    return GSVM_OK;
}

static void heap_give(lsl_heap *h, size_t bytes)
{
    if (h)
        h->used = bytes > h->used ? 0 : h->used - bytes;
}

/* ---- strings ------------------------------------------------------------- */

/* Every string's block is at least STR_BLOCK bytes, so that a freed short
 * one can serve any later short one; a heap that keeps them keeps up to
 * STR_KEEP (48 KiB): a list of a thousand short strings freed at once. */
enum { STR_BLOCK = 48, STR_KEEP = 1024 };

static size_t str_bytes(size_t len)
{
    size_t n = sizeof(lsl_str) + len + 1;
    return n < STR_BLOCK ? STR_BLOCK : n;
}

static lsl_str *str_alloc(lsl_heap *h, size_t len)
{
    size_t n = str_bytes(len);
    if (n == STR_BLOCK && h && h->small) {
        lsl_str *s = h->small;
        memcpy(&h->small, s, sizeof h->small);
        h->nsmall--;
        return s;
    }
    return lsl_heap_realloc(h, NULL, n);
}

static void str_free(lsl_heap *h, lsl_str *s)
{
    if (h && h->keep_small && str_bytes(s->len) == STR_BLOCK && h->nsmall < STR_KEEP) {
        memcpy(s, &h->small, sizeof h->small);
        h->small = s;
        h->nsmall++;
        return;
    }
    lsl_heap_free(h, s);
}

void lsl_heap_drain(lsl_heap *h)
{
    while (h->small) {
        void *b = h->small;
        memcpy(&h->small, b, sizeof h->small);
        lsl_heap_free(h, b);
    }
    h->nsmall = 0;
}

/* UTF-16 code units of UTF-8 text (what Mono would store).  A byte that does
 * not start a well-formed sequence counts as one unit. */
static size_t utf16_units(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    /* an ASCII prefix, the common text whole, one unit a byte: 8 bytes at a time, then byte by byte */
    for (uint64_t w; i + 8 <= len && (memcpy(&w, p + i, 8), (w & 0x8080808080808080u) == 0);)
        i += 8;
    while (i < len && p[i] < 0x80)
        i++;
    size_t units = i;
    while (i < len) {
        unsigned c = p[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = n > 0 && i + n <= len;
        for (size_t k = 1; ok && k < n; k++)
            ok = (p[i + k] & 0xC0) == 0x80;
        if (!ok)
            n = 1;
        units += n == 4 ? 2 : 1;
        i += n;
    }
    return units;
}

gsvm_status lsl_string_new(lsl_heap *h, lsl_type type, const char *data, size_t len,
                           lsl_value *out, gsvm_error *err)
{
    lsl_set_empty(out, type == LSL_TYPE_KEY ? LSL_TYPE_KEY : LSL_TYPE_STRING);
    if (len == 0)
        return GSVM_OK;
    if (len > LSL_MAX_STRING_BYTES)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "string of %zu bytes exceeds the %u-byte bound",
                              len, LSL_MAX_STRING_BYTES);
    size_t charge = LSL_MEM_STRING_HEADER + 2 * utf16_units(data, len);
    gsvm_status st = heap_take(h, charge, err);
    if (st)
        return st;
    lsl_str *s = str_alloc(h, len);
    if (!s) {
        heap_give(h, charge);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    s->heap = h;
    s->refs = 1;
    s->len = (uint32_t)len;
    s->charge = (uint32_t)charge;
    memcpy(s->data, data, len);
    s->data[len] = 0;
    out->u.s = s;
    return GSVM_OK;
}

gsvm_status lsl_string_cstr(lsl_heap *h, const char *s, lsl_value *out, gsvm_error *err)
{
    return lsl_string_new(h, LSL_TYPE_STRING, s, strlen(s), out, err);
}

gsvm_status lsl_string_from_buf(lsl_heap *h, lsl_type type, gsvm_buf *b, lsl_value *out,
                                gsvm_error *err)
{
    if (b->oom) {
        gsvm_buf_free(b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    gsvm_status st = lsl_string_new(h, type, (const char *)b->data, b->len, out, err);
    gsvm_buf_free(b);
    return st;
}

/* ---- lists --------------------------------------------------------------- */

static size_t element_charge(const lsl_value *v)
{
    switch (v->type) {
    case LSL_TYPE_VECTOR: return 24;
    case LSL_TYPE_ROTATION: return 28;
    default: return 16;
    }
}

/* Allocates an uninitialised list of n items (n > 0) charged `charge`. */
static gsvm_status list_alloc(lsl_heap *h, size_t n, size_t charge, lsl_list **out, gsvm_error *err)
{
    if (n > LSL_MAX_LIST_LENGTH)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "list of %zu elements exceeds the %u-element bound",
                              n, LSL_MAX_LIST_LENGTH);
    gsvm_status st = heap_take(h, charge, err);
    if (st)
        return st;
    lsl_list *l = lsl_heap_realloc(h, NULL, sizeof *l + n * sizeof(lsl_value));
    if (!l) {
        heap_give(h, charge);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    l->heap = h;
    l->refs = 1;
    l->len = (uint32_t)n;
    l->cap = (uint32_t)n;
    l->charge = (uint32_t)charge;
    *out = l;
    return GSVM_OK;
}

static size_t items_charge(const lsl_value *items, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += element_charge(&items[i]);
    return c;
}

gsvm_status lsl_list_adopt(lsl_heap *h, const lsl_value *items, size_t n, lsl_value *out,
                           gsvm_error *err)
{
    lsl_set_empty(out, LSL_TYPE_LIST);
    if (n == 0)
        return GSVM_OK;
    for (size_t i = 0; i < n; i++)
        if (items[i].type == LSL_TYPE_LIST || items[i].type == LSL_TYPE_VOID)
            return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "a list cannot hold a %s",
                                  lsl_type_name(items[i].type));
    lsl_list *l;
    gsvm_status st = list_alloc(h, n, LSL_MEM_LIST_HEADER + items_charge(items, n), &l, err);
    if (st)
        return st;
    memcpy(l->items, items, n * sizeof *items);
    out->u.l = l;
    return GSVM_OK;
}

gsvm_status lsl_list_new(lsl_heap *h, const lsl_value *items, size_t n, lsl_value *out,
                         gsvm_error *err)
{
    gsvm_status st = lsl_list_adopt(h, items, n, out, err);
    if (st == GSVM_OK) /* the list holds references of its own */
        for (size_t i = 0; i < n; i++)
            lsl_value_retain(&items[i]);
    return st;
}

gsvm_status lsl_list_concat(lsl_heap *h, const lsl_value *a, const lsl_value *b, lsl_value *out,
                            gsvm_error *err)
{
    size_t na = lsl_list_len(a), nb = lsl_list_len(b);
    lsl_set_empty(out, LSL_TYPE_LIST);
    if (na + nb == 0)
        return GSVM_OK;
    lsl_list *l;
    size_t charge = LSL_MEM_LIST_HEADER + items_charge(lsl_list_items(a), na) +
                    items_charge(lsl_list_items(b), nb);
    gsvm_status st = list_alloc(h, na + nb, charge, &l, err);
    if (st)
        return st;
    for (size_t i = 0; i < na; i++) {
        l->items[i] = a->u.l->items[i];
        lsl_value_retain(&l->items[i]);
    }
    for (size_t i = 0; i < nb; i++) {
        l->items[na + i] = b->u.l->items[i];
        lsl_value_retain(&l->items[na + i]);
    }
    out->u.l = l;
    return GSVM_OK;
}

gsvm_status lsl_list_append(lsl_heap *h, const lsl_value *list, const lsl_value *item,
                            bool prepend, lsl_value *out, gsvm_error *err)
{
    if (item->type == LSL_TYPE_LIST)
        return prepend ? lsl_list_concat(h, item, list, out, err)
                       : lsl_list_concat(h, list, item, out, err);
    if (item->type == LSL_TYPE_VOID)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "a list cannot hold a void");
    /* one allocation, no temporary list (which could also touch the limit) */
    size_t n = lsl_list_len(list);
    const lsl_value *it = lsl_list_items(list);
    lsl_list *l;
    size_t charge = LSL_MEM_LIST_HEADER + items_charge(it, n) + element_charge(item);
    lsl_set_empty(out, LSL_TYPE_LIST);
    gsvm_status st = list_alloc(h, n + 1, charge, &l, err);
    if (st)
        return st;
    size_t at = prepend ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        l->items[at + i] = it[i];
        lsl_value_retain(&it[i]);
    }
    l->items[prepend ? 0 : n] = *item;
    lsl_value_retain(item);
    out->u.l = l;
    return GSVM_OK;
}

gsvm_status lsl_string_concat(lsl_heap *h, const lsl_value *a, const lsl_value *b, lsl_value *out,
                              gsvm_error *err)
{
    size_t la = lsl_str_len(a), lb = lsl_str_len(b);
    if (lb == 0 || la == 0) {
        *out = lb == 0 ? *a : *b;
        out->type = LSL_TYPE_STRING;
        lsl_value_retain(out);
        return GSVM_OK;
    }
    lsl_set_empty(out, LSL_TYPE_STRING);
    if (la + lb > LSL_MAX_STRING_BYTES)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "string of %zu bytes exceeds the %u-byte bound",
                              la + lb, LSL_MAX_STRING_BYTES);
    const unsigned char *pa = (const unsigned char *)lsl_str_data(a);
    const unsigned char *pb = (const unsigned char *)lsl_str_data(b);
    lsl_str *s = str_alloc(h, la + lb);
    if (!s)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    s->heap = h;
    s->refs = 1;
    s->len = (uint32_t)(la + lb);
    memcpy(s->data, pa, la);
    memcpy(s->data + la, pb, lb);
    s->data[la + lb] = 0;
    /* The UTF-16 units of the parts add up unless a sequence straddles the
     * join (a ends in a lead byte or continuation, b starts with
     * continuations): then count the joined text. */
    size_t units;
    if (pa[la - 1] < 0x80 || (pb[0] & 0xC0) != 0x80)
        units = (a->u.s->charge - LSL_MEM_STRING_HEADER) / 2 + (b->u.s->charge - LSL_MEM_STRING_HEADER) / 2;
    else
        units = utf16_units(s->data, la + lb);
    size_t charge = LSL_MEM_STRING_HEADER + 2 * units;
    gsvm_status st = heap_take(h, charge, err);
    if (st) {
        str_free(h, s);
        return st;
    }
    s->charge = (uint32_t)charge;
    out->u.s = s;
    return GSVM_OK;
}

/* ---- references ---------------------------------------------------------- */

void lsl_value_retain(const lsl_value *v)
{
    if ((v->type == LSL_TYPE_STRING || v->type == LSL_TYPE_KEY) && v->u.s)
        v->u.s->refs++;
    else if (v->type == LSL_TYPE_LIST && v->u.l)
        v->u.l->refs++;
}

void lsl_value_release(lsl_value *v)
{
    if ((v->type == LSL_TYPE_STRING || v->type == LSL_TYPE_KEY) && v->u.s) {
        lsl_str *s = v->u.s;
        if (--s->refs == 0) {
            heap_give(s->heap, s->charge);
            str_free(s->heap, s);
        }
        v->u.s = NULL;
    } else if (v->type == LSL_TYPE_LIST && v->u.l) {
        lsl_list *l = v->u.l;
        if (--l->refs == 0) {
            for (uint32_t i = 0; i < l->len; i++)
                lsl_value_release(&l->items[i]);
            heap_give(l->heap, l->charge);
            lsl_heap_free(l->heap, l);
        }
        v->u.l = NULL;
    }
}

gsvm_status lsl_value_copy_to(lsl_heap *h, const lsl_value *v, lsl_value *out, gsvm_error *err)
{
    switch (v->type) {
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
        return lsl_string_new(h, v->type, lsl_str_data(v), lsl_str_len(v), out, err);
    case LSL_TYPE_LIST: {
        size_t n = lsl_list_len(v);
        lsl_set_empty(out, LSL_TYPE_LIST);
        if (n == 0)
            return GSVM_OK;
        lsl_list *l;
        gsvm_status st = list_alloc(h, n, v->u.l->charge, &l, err);
        if (st)
            return st;
        for (size_t i = 0; i < n; i++) {
            st = lsl_value_copy_to(h, &v->u.l->items[i], &l->items[i], err);
            if (st) {
                for (size_t k = 0; k < i; k++)
                    lsl_value_release(&l->items[k]);
                heap_give(h, l->charge);
                lsl_heap_free(h, l);
                return st;
            }
        }
        out->u.l = l;
        return GSVM_OK;
    }
    default:
        *out = *v;
        return GSVM_OK;
    }
}

/* ---- sizes and names ----------------------------------------------------- */

size_t lsl_value_slot_size(const lsl_value *v)
{
    switch (v->type) {
    case LSL_TYPE_VOID: return 0;
    case LSL_TYPE_VECTOR: return 12;
    case LSL_TYPE_ROTATION: return 16;
    default: return 4;
    }
}

size_t lsl_value_object_size(const lsl_value *v)
{
    if ((v->type == LSL_TYPE_STRING || v->type == LSL_TYPE_KEY) && v->u.s)
        return v->u.s->charge;
    if (v->type == LSL_TYPE_LIST && v->u.l)
        return v->u.l->charge;
    return 0;
}

size_t lsl_value_mem_size(const lsl_value *v)
{
    size_t n = lsl_value_slot_size(v) + lsl_value_object_size(v);
    if (v->type == LSL_TYPE_LIST)
        for (size_t i = 0; i < lsl_list_len(v); i++)
            n += lsl_value_object_size(&v->u.l->items[i]);
    return n;
}

const char *lsl_type_name(lsl_type t)
{
    static const char *const names[LSL_TYPE_COUNT] = {"void", "integer", "float", "string",
                                                      "key", "vector", "rotation", "list"};
    return (unsigned)t < LSL_TYPE_COUNT ? names[t] : "?";
}

/* ---- equality and truth -------------------------------------------------- */

bool lsl_value_equal(const lsl_value *a, const lsl_value *b)
{
    if (a->type == LSL_TYPE_FLOAT || b->type == LSL_TYPE_FLOAT) {
        /* an integer meets a float as a float (16777217 == 16777216.0) */
        float x = a->type == LSL_TYPE_FLOAT ? a->u.f : (float)a->u.i;
        float y = b->type == LSL_TYPE_FLOAT ? b->u.f : (float)b->u.i;
        return x == y;
    }
    switch (a->type) {
    case LSL_TYPE_INTEGER: return a->u.i == b->u.i;
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
        return lsl_str_len(a) == lsl_str_len(b) &&
               memcmp(lsl_str_data(a), lsl_str_data(b), lsl_str_len(a)) == 0;
    case LSL_TYPE_VECTOR:
        return a->u.v[0] == b->u.v[0] && a->u.v[1] == b->u.v[1] && a->u.v[2] == b->u.v[2];
    case LSL_TYPE_ROTATION:
        return a->u.v[0] == b->u.v[0] && a->u.v[1] == b->u.v[1] && a->u.v[2] == b->u.v[2] &&
               a->u.v[3] == b->u.v[3];
    case LSL_TYPE_LIST: return lsl_list_len(a) == lsl_list_len(b);
    default: return true;
    }
}

bool lsl_is_uuid(const char *s, size_t len)
{
    if (len != 36)
        return false;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
        } else if (!isxdigit((unsigned char)s[i])) {
            return false;
        }
    }
    return true;
}

bool lsl_value_truthy(const lsl_value *v)
{
    switch (v->type) {
    case LSL_TYPE_INTEGER: return v->u.i != 0;
    case LSL_TYPE_FLOAT: return v->u.f != 0.0f;
    case LSL_TYPE_STRING: return lsl_str_len(v) != 0;
    case LSL_TYPE_KEY: {
        const char *s = lsl_str_data(v);
        if (!lsl_is_uuid(s, lsl_str_len(v)))
            return false;
        for (size_t i = 0; i < 36; i++)
            if (s[i] != '-' && s[i] != '0')
                return true;
        return false; /* NULL_KEY */
    }
    case LSL_TYPE_VECTOR: return v->u.v[0] != 0 || v->u.v[1] != 0 || v->u.v[2] != 0;
    case LSL_TYPE_ROTATION:
        return v->u.v[0] != 0 || v->u.v[1] != 0 || v->u.v[2] != 0 || v->u.v[3] != 1;
    case LSL_TYPE_LIST: return lsl_list_len(v) != 0;
    default: return false;
    }
}

/* ---- operators ----------------------------------------------------------- */

static bool is_num(lsl_type t) { return t == LSL_TYPE_INTEGER || t == LSL_TYPE_FLOAT; }
static bool is_text(lsl_type t) { return t == LSL_TYPE_STRING || t == LSL_TYPE_KEY; }

lsl_type lsl_op_result_type(lsl_op op, lsl_type a, lsl_type b)
{
    bool ints = a == LSL_TYPE_INTEGER && b == LSL_TYPE_INTEGER;
    lsl_type num = ints ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
    switch (op) {
    case LSL_OP_ADD:
        if (a == LSL_TYPE_LIST || b == LSL_TYPE_LIST)
            return a == LSL_TYPE_VOID || b == LSL_TYPE_VOID ? LSL_TYPE_VOID : LSL_TYPE_LIST;
        if (is_num(a) && is_num(b))
            return num;
        if (is_text(a) && is_text(b))
            return LSL_TYPE_STRING;
        if (a == b && (a == LSL_TYPE_VECTOR || a == LSL_TYPE_ROTATION))
            return a;
        return LSL_TYPE_VOID;
    case LSL_OP_SUB:
        if (is_num(a) && is_num(b))
            return num;
        if (a == b && (a == LSL_TYPE_VECTOR || a == LSL_TYPE_ROTATION))
            return a;
        return LSL_TYPE_VOID;
    case LSL_OP_MUL:
        if (is_num(a) && is_num(b))
            return num;
        if ((is_num(a) && b == LSL_TYPE_VECTOR) || (a == LSL_TYPE_VECTOR && is_num(b)))
            return LSL_TYPE_VECTOR;
        if (a == LSL_TYPE_VECTOR && b == LSL_TYPE_VECTOR)
            return LSL_TYPE_FLOAT;
        if (a == LSL_TYPE_VECTOR && b == LSL_TYPE_ROTATION)
            return LSL_TYPE_VECTOR;
        if (a == LSL_TYPE_ROTATION && b == LSL_TYPE_ROTATION)
            return LSL_TYPE_ROTATION;
        return LSL_TYPE_VOID;
    case LSL_OP_DIV:
        if (is_num(a) && is_num(b))
            return num;
        if (a == LSL_TYPE_VECTOR && (is_num(b) || b == LSL_TYPE_ROTATION))
            return LSL_TYPE_VECTOR;
        if (a == LSL_TYPE_ROTATION && b == LSL_TYPE_ROTATION)
            return LSL_TYPE_ROTATION;
        return LSL_TYPE_VOID;
    case LSL_OP_MOD:
        if (ints)
            return LSL_TYPE_INTEGER;
        if (a == LSL_TYPE_VECTOR && b == LSL_TYPE_VECTOR)
            return LSL_TYPE_VECTOR;
        return LSL_TYPE_VOID;
    case LSL_OP_EQ:
    case LSL_OP_NE:
        if ((is_num(a) && is_num(b)) || (is_text(a) && is_text(b)) ||
            (a == b && (a == LSL_TYPE_VECTOR || a == LSL_TYPE_ROTATION || a == LSL_TYPE_LIST)))
            return LSL_TYPE_INTEGER;
        return LSL_TYPE_VOID;
    case LSL_OP_LT:
    case LSL_OP_LE:
    case LSL_OP_GT:
    case LSL_OP_GE:
        return is_num(a) && is_num(b) ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
    default:
        return ints ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
    }
}

lsl_type lsl_unop_result_type(lsl_unop op, lsl_type a)
{
    if (op == LSL_UOP_NEG)
        return is_num(a) || a == LSL_TYPE_VECTOR || a == LSL_TYPE_ROTATION ? a : LSL_TYPE_VOID;
    return a == LSL_TYPE_INTEGER ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
}

static gsvm_status math_error(gsvm_error *err)
{
    return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "Math Error");
}

static float as_float(const lsl_value *v) { return v->type == LSL_TYPE_FLOAT ? v->u.f : (float)v->u.i; }

gsvm_status lsl_value_binop(lsl_heap *h, lsl_op op, const lsl_value *a, const lsl_value *b,
                            lsl_value *out, gsvm_error *err)
{
    lsl_type rt = lsl_op_result_type(op, a->type, b->type);
    lsl_set_empty(out, rt);
    if (rt == LSL_TYPE_VOID)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no operator %d for %s and %s", (int)op,
                              lsl_type_name(a->type), lsl_type_name(b->type));
    bool ints = a->type == LSL_TYPE_INTEGER && b->type == LSL_TYPE_INTEGER;
    uint32_t x = (uint32_t)a->u.i, y = (uint32_t)b->u.i;
    switch (op) {
    case LSL_OP_ADD:
        if (rt == LSL_TYPE_LIST)
            return a->type == LSL_TYPE_LIST ? lsl_list_append(h, a, b, false, out, err)
                                            : lsl_list_append(h, b, a, true, out, err);
        if (rt == LSL_TYPE_STRING)
            return lsl_string_concat(h, a, b, out, err);
        if (ints) {
            *out = lsl_int((int32_t)(x + y));
        } else if (rt == LSL_TYPE_FLOAT) {
            *out = lsl_float(as_float(a) + as_float(b));
        } else {
            *out = *a;
            for (int k = 0; k < 4; k++)
                out->u.v[k] = a->u.v[k] + b->u.v[k];
        }
        return GSVM_OK;
    case LSL_OP_SUB:
        if (ints) {
            *out = lsl_int((int32_t)(x - y));
        } else if (rt == LSL_TYPE_FLOAT) {
            *out = lsl_float(as_float(a) - as_float(b));
        } else {
            *out = *a;
            for (int k = 0; k < 4; k++)
                out->u.v[k] = a->u.v[k] - b->u.v[k];
        }
        return GSVM_OK;
    case LSL_OP_MUL:
        if (ints) {
            *out = lsl_int((int32_t)(x * y));
        } else if (is_num(a->type) && is_num(b->type)) {
            *out = lsl_float(as_float(a) * as_float(b));
        } else if (a->type == LSL_TYPE_VECTOR && b->type == LSL_TYPE_VECTOR) {
            *out = lsl_float(lsl_vec_dot(a->u.v, b->u.v));
        } else if (a->type == LSL_TYPE_VECTOR && b->type == LSL_TYPE_ROTATION) {
            float r[3];
            lsl_vec_rot(a->u.v, b->u.v, r);
            *out = lsl_vector(r[0], r[1], r[2]);
        } else if (a->type == LSL_TYPE_ROTATION) {
            float r[4];
            lsl_rot_mul(a->u.v, b->u.v, r);
            *out = lsl_rotation(r[0], r[1], r[2], r[3]);
        } else {
            const lsl_value *v = a->type == LSL_TYPE_VECTOR ? a : b, *s = a->type == LSL_TYPE_VECTOR ? b : a;
            float k = as_float(s);
            *out = lsl_vector(v->u.v[0] * k, v->u.v[1] * k, v->u.v[2] * k);
        }
        return GSVM_OK;
    case LSL_OP_DIV:
        if (b->type == LSL_TYPE_ROTATION) {
            if (a->type == LSL_TYPE_VECTOR) {
                float r[3];
                lsl_vec_unrot(a->u.v, b->u.v, r);
                *out = lsl_vector(r[0], r[1], r[2]);
            } else {
                float r[4];
                lsl_rot_div(a->u.v, b->u.v, r);
                *out = lsl_rotation(r[0], r[1], r[2], r[3]);
            }
            return GSVM_OK;
        }
        if (as_float(b) == 0.0f)
            return math_error(err);
        if (ints) {
            if (a->u.i == INT32_MIN && b->u.i == -1)
                *out = lsl_int(INT32_MIN);
            else
                *out = lsl_int(a->u.i / b->u.i);
        } else if (a->type == LSL_TYPE_VECTOR) {
            float k = as_float(b);
            *out = lsl_vector(a->u.v[0] / k, a->u.v[1] / k, a->u.v[2] / k);
        } else {
            float q = as_float(a) / as_float(b);
            if (isnan(q))
                return math_error(err);
            *out = lsl_float(q);
        }
        return GSVM_OK;
    case LSL_OP_MOD:
        if (a->type == LSL_TYPE_VECTOR) {
            float r[3];
            lsl_vec_cross(a->u.v, b->u.v, r);
            *out = lsl_vector(r[0], r[1], r[2]);
            return GSVM_OK;
        }
        if (b->u.i == 0)
            return math_error(err);
        *out = lsl_int(b->u.i == -1 ? 0 : a->u.i % b->u.i);
        return GSVM_OK;
    case LSL_OP_EQ:
    case LSL_OP_NE: {
        bool eq = lsl_value_equal(a, b);
        if (op == LSL_OP_NE && a->type == LSL_TYPE_LIST)
            *out = lsl_int((int32_t)((int64_t)lsl_list_len(a) - (int64_t)lsl_list_len(b)));
        else
            *out = lsl_int(op == LSL_OP_EQ ? eq : !eq);
        return GSVM_OK;
    }
    case LSL_OP_LT:
    case LSL_OP_LE:
    case LSL_OP_GT:
    case LSL_OP_GE: {
        bool r;
        if (ints) {
            int32_t p = a->u.i, q = b->u.i;
            r = op == LSL_OP_LT ? p < q : op == LSL_OP_LE ? p <= q : op == LSL_OP_GT ? p > q : p >= q;
        } else {
            float p = as_float(a), q = as_float(b);
            r = op == LSL_OP_LT ? p < q : op == LSL_OP_LE ? p <= q : op == LSL_OP_GT ? p > q : p >= q;
        }
        *out = lsl_int(r);
        return GSVM_OK;
    }
    case LSL_OP_BITAND: *out = lsl_int((int32_t)(x & y)); return GSVM_OK;
    case LSL_OP_BITOR: *out = lsl_int((int32_t)(x | y)); return GSVM_OK;
    case LSL_OP_BITXOR: *out = lsl_int((int32_t)(x ^ y)); return GSVM_OK;
    case LSL_OP_SHL: *out = lsl_int((int32_t)(x << (y & 31))); return GSVM_OK;
    case LSL_OP_SHR: {
        /* arithmetic shift, written without relying on >> of negatives */
        unsigned n = y & 31;
        uint32_t r = x >> n;
        if (a->u.i < 0 && n)
            r |= ~(UINT32_MAX >> n);
        *out = lsl_int((int32_t)r);
        return GSVM_OK;
    }
    case LSL_OP_AND: *out = lsl_int(a->u.i != 0 && b->u.i != 0); return GSVM_OK;
    case LSL_OP_OR: *out = lsl_int(a->u.i != 0 || b->u.i != 0); return GSVM_OK;
    }
    return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "unknown operator %d", (int)op);
}

gsvm_status lsl_value_unop(lsl_unop op, const lsl_value *a, lsl_value *out, gsvm_error *err)
{
    lsl_type rt = lsl_unop_result_type(op, a->type);
    lsl_set_empty(out, rt);
    if (rt == LSL_TYPE_VOID)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no unary operator %d for %s", (int)op,
                              lsl_type_name(a->type));
    switch (op) {
    case LSL_UOP_NEG:
        if (a->type == LSL_TYPE_INTEGER) {
            *out = lsl_int((int32_t)(0u - (uint32_t)a->u.i));
        } else if (a->type == LSL_TYPE_FLOAT) {
            *out = lsl_float(-a->u.f);
        } else {
            *out = *a;
            for (int k = 0; k < 4; k++)
                out->u.v[k] = -a->u.v[k];
        }
        return GSVM_OK;
    case LSL_UOP_NOT: *out = lsl_int(a->u.i == 0); return GSVM_OK;
    case LSL_UOP_BITNOT: *out = lsl_int((int32_t)~(uint32_t)a->u.i); return GSVM_OK;
    }
    return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "unknown unary operator %d", (int)op);
}

/* ---- in-place forms (see value.h) ----------------------------------------- */

gsvm_status lsl_string_append_inplace(lsl_heap *h, lsl_value *a, const lsl_value *b, gsvm_error *err)
{
    lsl_str *s = a->u.s;
    size_t la = lsl_str_len(a), lb = lsl_str_len(b);
    if (lb == 0 && a->type == LSL_TYPE_STRING)
        return GSVM_OK;
    if (!s || s->refs != 1 || s->heap != h || a->type != LSL_TYPE_STRING || b->u.s == s ||
        la + lb > LSL_MAX_STRING_BYTES) {
        lsl_value out;
        gsvm_status st = lsl_string_concat(h, a, b, &out, err);
        if (st == GSVM_OK) {
            lsl_value_release(a);
            *a = out;
        }
        return st;
    }
    const unsigned char *pb = (const unsigned char *)lsl_str_data(b);
    bool straddle = (unsigned char)s->data[la - 1] >= 0x80 && (pb[0] & 0xC0) == 0x80;
    size_t units_b = (b->u.s->charge - LSL_MEM_STRING_HEADER) / 2;
    size_t charge = straddle ? 0 : s->charge + 2 * units_b; /* a straddle is counted below */
    lsl_str *n = lsl_heap_realloc(h, s, str_bytes(la + lb));
    if (!n)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    a->u.s = s = n;
    memcpy(s->data + la, pb, lb);
    s->data[la + lb] = 0;
    if (straddle)
        charge = LSL_MEM_STRING_HEADER + 2 * utf16_units(s->data, la + lb);
    if (charge > s->charge) {
        gsvm_status st = heap_take(h, charge - s->charge, err);
        if (st) {
            s->data[la] = 0; /* undo: the old text, its old charge (the block stays larger) */
            return st;
        }
    } else
        heap_give(h, s->charge - charge);
    s->len = (uint32_t)(la + lb);
    s->charge = (uint32_t)charge;
    return GSVM_OK;
}

gsvm_status lsl_list_append_inplace(lsl_heap *h, lsl_value *list, const lsl_value *item, gsvm_error *err)
{
    lsl_list *l = list->u.l;
    size_t n = lsl_list_len(list);
    size_t add = item->type == LSL_TYPE_LIST ? lsl_list_len(item) : 1;
    if (add == 0)
        return GSVM_OK;
    if (!l || l->refs != 1 || l->heap != h || (item->type == LSL_TYPE_LIST && item->u.l == l) ||
        item->type == LSL_TYPE_VOID || n + add > LSL_MAX_LIST_LENGTH) {
        lsl_value out;
        gsvm_status st = lsl_list_append(h, list, item, false, &out, err);
        if (st == GSVM_OK) {
            lsl_value_release(list);
            *list = out;
        }
        return st;
    }
    const lsl_value *src = item->type == LSL_TYPE_LIST ? lsl_list_items(item) : item;
    size_t more = items_charge(src, add);
    gsvm_status st = heap_take(h, more, err);
    if (st)
        return st;
    if (n + add > l->cap) {
        /* grow by half again so that a loop of appends copies each item a
         * bounded number of times (the script is charged for len, not cap) */
        size_t cap = n + add + (n + add) / 2;
        if (cap > LSL_MAX_LIST_LENGTH)
            cap = n + add;
        lsl_list *nl = lsl_heap_realloc(h, l, sizeof *l + cap * sizeof(lsl_value));
        if (!nl) {
            heap_give(h, more);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        }
        nl->cap = (uint32_t)cap;
        list->u.l = l = nl;
    }
    for (size_t i = 0; i < add; i++) {
        l->items[n + i] = src[i];
        lsl_value_retain(&src[i]);
    }
    l->len = (uint32_t)(n + add);
    l->charge += (uint32_t)more;
    return GSVM_OK;
}

gsvm_status lsl_list_set_inplace(lsl_heap *h, lsl_value *list, size_t index, const lsl_value *item,
                                 gsvm_error *err)
{
    lsl_list *l = list->u.l;
    size_t n = lsl_list_len(list);
    if (index >= n || item->type == LSL_TYPE_LIST || item->type == LSL_TYPE_VOID)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "bad list element replacement");
    size_t old = element_charge(&l->items[index]), neu = element_charge(item);
    if (l->refs != 1 || l->heap != h) {
        /* copy, then change the copy (charged as a new list) */
        lsl_value out;
        gsvm_status st = lsl_list_new(h, l->items, n, &out, err);
        if (st)
            return st;
        if (neu > old && (st = heap_take(h, neu - old, err)) != GSVM_OK) {
            lsl_value_release(&out);
            return st;
        }
        if (neu < old)
            heap_give(h, old - neu);
        out.u.l->charge = (uint32_t)(out.u.l->charge + neu - old);
        lsl_value_release(&out.u.l->items[index]);
        out.u.l->items[index] = *item;
        lsl_value_retain(item);
        lsl_value_release(list);
        *list = out;
        return GSVM_OK;
    }
    if (neu > old) {
        gsvm_status st = heap_take(h, neu - old, err);
        if (st)
            return st;
    } else if (neu < old)
        heap_give(h, old - neu);
    l->charge = (uint32_t)(l->charge + neu - old);
    lsl_value_retain(item);
    lsl_value_release(&l->items[index]);
    l->items[index] = *item;
    return GSVM_OK;
}
