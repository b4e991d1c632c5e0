/* The LSL value model of the next Falcon ABI: integer, float, string, key,
 * vector, rotation and list, with Second Life's conversions.
 *
 * Representation
 *   A value is a small tagged struct passed by value.  Integers, floats,
 *   vectors and rotations live inline.  Strings, keys and lists point at an
 *   immutable, reference-counted heap object; a NULL pointer is the empty
 *   string / empty key / empty list, so "" and [] never allocate.  Copying
 *   a value is `lsl_value_retain` (shares the object), dropping it is
 *   `lsl_value_release`.  Because objects are immutable, sharing is never
 *   observable to a script: every "modification" builds a new object.
 *
 * Memory accounting (the script's 64 KiB limit)
 *   Every heap object is charged to an `lsl_heap` (one per script) when it is
 *   created and credited back when its last reference goes.  Creating an
 *   object that would take the heap over its limit fails with a
 *   "Stack-Heap Collision" fault instead.  The charges follow the way Mono-era
 *   Second Life memory use is commonly predicted (UTF-16 strings, boxed list
 *   elements), so a script author can work them out by hand:
 *     string or key object   LSL_MEM_STRING_HEADER + 2 bytes per UTF-16 unit
 *                            (1 unit per character, 2 beyond U+FFFF)
 *     list object            LSL_MEM_LIST_HEADER + per element:
 *                            integer/float/string/key 16, vector 24, rotation 28
 *                            (a string element's own string object is charged
 *                            separately, once, however many lists share it)
 *   A value held in a variable or on the stack costs `lsl_value_slot_size`:
 *   integer/float 4, vector 12, rotation 16, string/key/list 4 (a reference);
 *   the VM adds those for its slots, this module charges the objects.
 *   A heap may be NULL: the object is then unaccounted (tests, host-side
 *   values such as JSON read by the CLI).  An object remembers its heap, so
 *   releasing needs no heap argument.  Values of one heap must not be handed
 *   to a script with another heap without `lsl_value_copy_to`.
 *   Because a shared object is charged once, the figure depends on sharing:
 *   a snapshot must write each object once (e.g. keyed by its address) and
 *   restore the references to it, or a restored script would report more
 *   memory in use (llGetUsedMemory) than the original.
 *
 * Errors
 *   Functions that can fail return gsvm_status and fill a gsvm_error:
 *   GSVM_ERR_FAULT with the message "Stack-Heap Collision" when the heap
 *   limit is exceeded, GSVM_ERR_LIMIT when a size bound (LSL_MAX_STRING_BYTES,
 *   LSL_MAX_LIST_LENGTH) is exceeded, GSVM_ERR_NOMEM when malloc fails.
 *   Conversions of values never fail except through allocation. */
#ifndef GSVM_LSL_VALUE_H
#define GSVM_LSL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/gsvm.h"

/* Type codes; the numbers of the scalar types are LSL's TYPE_* constants
 * (llGetListEntryType returns them). */
typedef enum lsl_type {
    LSL_TYPE_VOID = 0, /* TYPE_INVALID: no value (void functions) */
    LSL_TYPE_INTEGER = 1,
    LSL_TYPE_FLOAT = 2,
    LSL_TYPE_STRING = 3,
    LSL_TYPE_KEY = 4,
    LSL_TYPE_VECTOR = 5,
    LSL_TYPE_ROTATION = 6,
    LSL_TYPE_LIST = 7
} lsl_type;
#define LSL_TYPE_COUNT 8

/* Bounds no script can exceed whatever its memory limit (they keep a host
 * that raised the limit safe, and every length fits an int32). */
#define LSL_MAX_STRING_BYTES (16u * 1024u * 1024u)
#define LSL_MAX_LIST_LENGTH (1u * 1024u * 1024u)

#define LSL_MEM_STRING_HEADER 16u
#define LSL_MEM_LIST_HEADER 16u
/* Second Life's per-script memory under Mono. */
#define LSL_DEFAULT_MEMORY_LIMIT 65536u

/* A host's allocator (gsvm_lsl_realloc_fn): ptr NULL allocates, size 0
 * frees (returning NULL), else resizes; NULL on failure. */
typedef void *(*lsl_realloc_fn)(void *user, void *ptr, size_t size);

typedef struct lsl_heap {
    /* where this heap's objects (and the memory of the VM that owns it) come
     * from: NULL = the C library */
    lsl_realloc_fn realloc;
    void *alloc_user;
    size_t used;  /* bytes charged by live objects */
    size_t limit; /* 0 = unlimited */
    size_t peak;  /* highest used + extra seen (llGetSPMaxMemory); a snapshot saves it */
    size_t extra; /* bytes the VM charges for its own slots/code (added to used checks) */
    /* Freed short strings' blocks kept for the next ones (a script's words
     * come and go by the hundred, and the C library's allocator is slow at
     * that), linked through their first word.  Only when keep_small is set:
     * its owner (the ABI-3 VM) gives them back with lsl_heap_drain.  What a
     * string is charged does not depend on it. */
    void *small;
    uint32_t nsmall;
    bool keep_small;
} lsl_heap;

typedef struct lsl_str lsl_str;   /* immutable UTF-8 bytes, NUL-terminated */
typedef struct lsl_list lsl_list; /* immutable array of non-list values */

typedef struct lsl_value {
    lsl_type type;
    union {
        int32_t i;
        float f;
        float v[4]; /* vector x,y,z; rotation x,y,z,s */
        /* A float on the ABI-3 operand stack also carries its value in
         * double precision (d), as Mono keeps an expression's temporaries;
         * f is that value rounded to float32, what every consumer other than
         * the VM's float arithmetic reads (vm3_exec.c). */
        struct { float f; float unused; double d; } t;
        lsl_str *s; /* string and key; NULL = "" */
        lsl_list *l; /* NULL = [] */
    } u;
} lsl_value;

struct lsl_str {
    lsl_heap *heap;
    uint32_t refs;
    uint32_t len;    /* bytes, excluding the NUL */
    uint32_t charge; /* bytes charged to heap */
    char data[];
};

struct lsl_list {
    lsl_heap *heap;
    uint32_t refs;
    uint32_t len;
    uint32_t charge;
    uint32_t cap; /* items allocated (>= len): in-place appends grow it geometrically */
    lsl_value items[];
};

/* ---- heap ---------------------------------------------------------------- */

/* Empty, with `limit` (0 = none) and the C library's allocator. */
void lsl_heap_init(lsl_heap *h, size_t limit);
/* Memory through heap h's allocator (h may be NULL: the C library's). */
void *lsl_heap_realloc(const lsl_heap *h, void *p, size_t size);
void lsl_heap_free(const lsl_heap *h, void *p);
/* Gives back the short strings' blocks h keeps (see keep_small). */
void lsl_heap_drain(lsl_heap *h);
/* Would charging `bytes` more stay within the limit? */
bool lsl_heap_fits(const lsl_heap *h, size_t bytes);
/* Charges `bytes` for something the VM owns (fails with Stack-Heap Collision). */
gsvm_status lsl_heap_charge(lsl_heap *h, size_t bytes, gsvm_error *err);
void lsl_heap_credit(lsl_heap *h, size_t bytes);

/* ---- constructors (scalars never fail) ----------------------------------- */

static inline lsl_value lsl_int(int32_t i) { lsl_value v = {.type = LSL_TYPE_INTEGER}; v.u.i = i; return v; }
static inline lsl_value lsl_float(float f) { lsl_value v = {.type = LSL_TYPE_FLOAT}; v.u.f = f; return v; }
static inline lsl_value lsl_vector(float x, float y, float z)
{
    lsl_value v = {.type = LSL_TYPE_VECTOR};
    v.u.v[0] = x; v.u.v[1] = y; v.u.v[2] = z; v.u.v[3] = 0;
    return v;
}
static inline lsl_value lsl_rotation(float x, float y, float z, float s)
{
    lsl_value v = {.type = LSL_TYPE_ROTATION};
    v.u.v[0] = x; v.u.v[1] = y; v.u.v[2] = z; v.u.v[3] = s;
    return v;
}
static inline lsl_value lsl_empty(lsl_type t) { lsl_value v = {.type = t}; return v; }
/* *v = lsl_empty(t), written in place: `*out = lsl_empty(t)` has GCC build
 * the value in narrow stack stores and copy it in one wide load, which
 * waits for them (a failed store-to-load forward, a tenth of the time of
 * making a short string). */
static inline void lsl_set_empty(lsl_value *v, lsl_type t)
{
    memset(v, 0, sizeof *v);
    v->type = t;
}

/* A new string (or key, with type LSL_TYPE_KEY) holding a copy of `len`
 * bytes.  Invalid UTF-8 is kept as is (SL strings may carry any bytes a
 * function produced); accounting counts each byte that is not part of a
 * valid sequence as one unit. */
gsvm_status lsl_string_new(lsl_heap *h, lsl_type type, const char *data, size_t len,
                           lsl_value *out, gsvm_error *err);
gsvm_status lsl_string_cstr(lsl_heap *h, const char *s, lsl_value *out, gsvm_error *err);
/* Takes a buffer's bytes (the buffer is left empty). */
gsvm_status lsl_string_from_buf(lsl_heap *h, lsl_type type, gsvm_buf *b, lsl_value *out,
                                gsvm_error *err);
/* a + b for strings (or keys: the result is a string), in one allocation;
 * an empty side shares the other's object. */
gsvm_status lsl_string_concat(lsl_heap *h, const lsl_value *a, const lsl_value *b, lsl_value *out,
                              gsvm_error *err);
/* A new list holding retained copies of `n` values (none of them a list).
 * `n` may be 0 (the empty list). */
gsvm_status lsl_list_new(lsl_heap *h, const lsl_value *items, size_t n, lsl_value *out,
                         gsvm_error *err);
/* As lsl_list_new, but the list takes over the callers' references to the
 * items instead of adding its own (no retain/release round trip).  On
 * failure the items are untouched and still the caller's. */
gsvm_status lsl_list_adopt(lsl_heap *h, const lsl_value *items, size_t n, lsl_value *out,
                           gsvm_error *err);
/* The concatenation of two lists (either may be empty). */
gsvm_status lsl_list_concat(lsl_heap *h, const lsl_value *a, const lsl_value *b, lsl_value *out,
                            gsvm_error *err);
/* A list with one more element at the end (or front: `prepend`); `item` may
 * itself be a list, whose elements are spliced in, as LSL's `list + x`. */
gsvm_status lsl_list_append(lsl_heap *h, const lsl_value *list, const lsl_value *item,
                            bool prepend, lsl_value *out, gsvm_error *err);

/* In-place forms for a VM's `x += y` and `x = llListReplaceList(x, [v], i, i)`:
 * when *a's object is held only by *a (refs == 1) and charged to `h`, it
 * grows or changes in place (amortized O(length of y)); otherwise they fall
 * back to the copying operations above and replace *a.  Either way the
 * result, its sharing-visible value and its memory charge are exactly those
 * of the copying form.  On error *a is unchanged. */
gsvm_status lsl_string_append_inplace(lsl_heap *h, lsl_value *a, const lsl_value *b, gsvm_error *err);
/* `item` may be a list (spliced) or a scalar, as lsl_list_append. */
gsvm_status lsl_list_append_inplace(lsl_heap *h, lsl_value *list, const lsl_value *item, gsvm_error *err);
/* Replaces element `index` (0 <= index < length) with the scalar `item`. */
gsvm_status lsl_list_set_inplace(lsl_heap *h, lsl_value *list, size_t index, const lsl_value *item,
                                 gsvm_error *err);

/* ---- references ---------------------------------------------------------- */

void lsl_value_retain(const lsl_value *v);
void lsl_value_release(lsl_value *v); /* resets *v to an empty value of its type */
/* A deep copy charged to `h` (for moving a value between scripts). */
gsvm_status lsl_value_copy_to(lsl_heap *h, const lsl_value *v, lsl_value *out, gsvm_error *err);

/* ---- accessors ----------------------------------------------------------- */

static inline const char *lsl_str_data(const lsl_value *v) { return v->u.s ? v->u.s->data : ""; }
static inline size_t lsl_str_len(const lsl_value *v) { return v->u.s ? v->u.s->len : 0; }
static inline size_t lsl_list_len(const lsl_value *v) { return v->u.l ? v->u.l->len : 0; }
static inline const lsl_value *lsl_list_items(const lsl_value *v) { return v->u.l ? v->u.l->items : NULL; }

/* Bytes a value occupies in a variable or stack slot (see the header comment). */
size_t lsl_value_slot_size(const lsl_value *v);
/* Bytes a value's heap object is charged (0 for inline values and empties). */
size_t lsl_value_object_size(const lsl_value *v);
/* The full cost of a value seen alone: slot + object (the figure a user
 * predicts for one variable holding it). */
size_t lsl_value_mem_size(const lsl_value *v);

const char *lsl_type_name(lsl_type t); /* "integer", "float", ..., "void" */

/* ---- equality and truth -------------------------------------------------- */

/* LSL `==` for two values of the same type: integers and floats compare
 * numerically, strings and keys bytewise, vectors/rotations componentwise,
 * lists BY LENGTH ONLY (as LSL does). */
bool lsl_value_equal(const lsl_value *a, const lsl_value *b);
/* Truthiness as `if (x)` tests it: integer/float nonzero, string non-empty,
 * key a valid UUID other than NULL_KEY, vector != ZERO_VECTOR, rotation !=
 * ZERO_ROTATION, list non-empty. */
bool lsl_value_truthy(const lsl_value *v);
/* Is `s` (len bytes) a UUID in 8-4-4-4-12 hex form (either case)? */
bool lsl_is_uuid(const char *s, size_t len);

/* ---- conversions (LSL casts) --------------------------------------------- */

/* (integer) of a float: truncation toward zero; NaN and anything outside
 * int32 give -2147483648 (what SL's Mono returns). */
int32_t lsl_float_to_int(float f);
/* The same conversion of a double (Mono's conv.i4 of a float temporary);
 * inline: the VM's F2I is this alone. */
static inline int32_t lsl_double_to_int(double d)
{
    if (!(d >= -2147483648.0 && d < 2147483648.0))
        return INT32_MIN;
    return (int32_t)d;
}
/* (integer) of a string: "0x" + hex digits at the very start (no space or
 * sign before it), or optional white space, an optional sign and decimal
 * digits; trailing text ignored; no digits -> 0.  A magnitude beyond
 * 4294967295 gives -1, anything else wraps to 32 bits ("4294967295" -> -1,
 * "2147483648" -> -2147483648). */
int32_t lsl_string_to_int(const char *s, size_t len);
/* (float) of a string: optional white space and sign, then a decimal
 * number (fraction and exponent optional), a C99 hex float, "inf" or "nan";
 * trailing text ignored; no number -> 0.0; denormal results -> 0.0 (Mono). */
float lsl_string_to_float(const char *s, size_t len);
/* (vector)/(rotation) of a string: '<' as the very first character, then
 * numbers as above (denormals kept; "infinity", or "inf" not followed by
 * 'i'), each but the last followed immediately by ','; whatever follows the
 * last is ignored ("<1,2,3" is fine).  Malformed -> ZERO_VECTOR /
 * ZERO_ROTATION and false. */
bool lsl_string_to_vector(const char *s, size_t len, float out[3]);
bool lsl_string_to_rotation(const char *s, size_t len, float out[4]);

/* Appends Second Life's text of a value to `b`:
 *   integer "%d"; float with 6 decimals by lsl_format_float ("1.000000",
 *   "Infinity", "-Infinity", "NaN"); vector/rotation "<x, y, z>" with 5
 *   decimals each, or 6 when `list_style` (llList2String, llDumpList2String,
 *   (string)list); string/key verbatim; list: its elements' list-style
 *   texts concatenated. */
void lsl_value_append_text(gsvm_buf *b, const lsl_value *v, bool list_style);
/* Mono's float text: at most 7 significant digits, padded with zeros to
 * `decimals` places (123456.789 -> "123456.800000", 1e30 ->
 * "1000000000000000000000000000000.000000"); -0.0, and a negative value
 * that rounds to zero, print unsigned ("0.000000"), as in Second Life. */
void lsl_format_float(gsvm_buf *b, float f, int decimals);
/* The float text of llList2CSV and the JSON functions: C's "%.6f"
 * (123456.789 -> "123456.789062"), zero unsigned as above. */
void lsl_format_float_c(gsvm_buf *b, float f);

/* The cast `(to) v` (the compiler only allows LSL's legal casts; anything
 * else is GSVM_ERR_USAGE).  Allocates for string/key/list results. */
gsvm_status lsl_value_cast(lsl_heap *h, const lsl_value *v, lsl_type to, lsl_value *out,
                           gsvm_error *err);
/* Is `(to) from` a legal LSL cast? */
bool lsl_cast_allowed(lsl_type from, lsl_type to);

/* ---- operators ----------------------------------------------------------- */

/* LSL's binary operators, with Second Life's semantics, for constant
 * folding and for a VM's generic (slow) path; typed fast paths must agree
 * with these.  Integer arithmetic wraps at 32 bits; float arithmetic is done
 * in 32-bit floats; division or modulo by zero (integer or float, scalar or
 * vector / scalar) raises "Math Error", as does a float division whose
 * result is NaN; INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0; shifts
 * use the count modulo 32 (Mono), >> is arithmetic; && and || take
 * integers, evaluate both sides (the VM's job) and give 0 or 1.
 * Equality: numbers numerically (integer against float allowed), strings
 * and keys bytewise, vectors/rotations componentwise; list == list compares
 * LENGTHS and list != list gives len(a) - len(b) (an LSL quirk scripts rely
 * on).  Vector products: vector * vector is the dot product (float),
 * vector % vector the cross product, vector * rotation rotates, x /
 * rotation multiplies by the conjugate, rotation * rotation composes (first
 * the left, then the right turn). */
typedef enum lsl_op {
    LSL_OP_ADD, LSL_OP_SUB, LSL_OP_MUL, LSL_OP_DIV, LSL_OP_MOD,
    LSL_OP_EQ, LSL_OP_NE, LSL_OP_LT, LSL_OP_LE, LSL_OP_GT, LSL_OP_GE,
    LSL_OP_BITAND, LSL_OP_BITOR, LSL_OP_BITXOR, LSL_OP_SHL, LSL_OP_SHR,
    LSL_OP_AND, LSL_OP_OR
} lsl_op;
typedef enum lsl_unop { LSL_UOP_NEG, LSL_UOP_NOT, LSL_UOP_BITNOT } lsl_unop;

/* The type of `a op b`, or LSL_TYPE_VOID when LSL rejects the combination
 * (what a compiler's type checker needs). */
lsl_type lsl_op_result_type(lsl_op op, lsl_type a, lsl_type b);
lsl_type lsl_unop_result_type(lsl_unop op, lsl_type a);
/* Computes `a op b` into *out (a new reference).  GSVM_ERR_USAGE for an
 * illegal type combination, GSVM_ERR_FAULT "Math Error", or an allocation
 * error (string/list results are charged to h). */
gsvm_status lsl_value_binop(lsl_heap *h, lsl_op op, const lsl_value *a, const lsl_value *b,
                            lsl_value *out, gsvm_error *err);
gsvm_status lsl_value_unop(lsl_unop op, const lsl_value *a, lsl_value *out, gsvm_error *err);

/* ---- JSON rendering for the CLI ------------------------------------------ */

/* integer and float as numbers (non-finite floats as strings "Infinity",
 * "-Infinity", "NaN", since JSON has no such numbers), string and key as
 * strings, vector {"vector":[x,y,z]}, rotation {"rotation":[x,y,z,s]},
 * list as an array.  NULL on allocation failure. */
json_t *lsl_value_to_json(const lsl_value *v);
/* The reverse, for event arguments: `want` is the expected type (a JSON
 * number for an integer must be integral and in range; a float accepts any
 * number (or "Infinity", "-Infinity", "NaN", as written above); a key
 * accepts any string or {"key":"..."}; a list accepts an array of scalars
 * whose types are inferred: integral numbers -> integer, other numbers ->
 * float, strings -> string, {"key":"..."} -> key, {"vector":..} and
 * {"rotation":..}).  GSVM_ERR_INPUT with a message naming the mismatch. */
gsvm_status lsl_value_from_json(lsl_heap *h, const json_t *j, lsl_type want, lsl_value *out,
                                gsvm_error *err);

#endif
