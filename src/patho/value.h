/* The Pathologic VM's operators over typed values (internal).
 *
 * The public value type and its constructors are in gsvm/patho_vm.h.  Here
 * are the operators the instructions apply, with the type rules the game's
 * CVariable classes follow as far as the reverse-engineering work shows:
 *
 *   + - * /    int op int -> int (wrapping; / and % by zero fault);
 *              with a float -> float; cvector +- cvector -> cvector;
 *              cvector * number, number * cvector, cvector / number -> cvector;
 *              string + (string|bool|int|float) and the reverse -> string.
 *   %          int % int -> int; with a float -> fmod.
 *   & | ^      bool op bool -> bool; int (or bool) op int -> int, bitwise;
 *              cvector | cvector -> float (dot product, the compiler's
 *              length-squared idiom); cvector ^ cvector -> cvector (cross).
 *   == !=      numbers (bool, int, float) compare as numbers; strings by
 *              code units; objects by handle; cvectors by component.
 *   < > <= >=  numbers, and strings by code units.
 *   NullEq     objects only: handle == 0.
 *   - (Neg)    int, float, cvector.  ! (Not): bool, int, float -> bool.
 *   Sqrt Sin Cos ASin Pow: numbers -> float.  CString: int -> 1-unit string.
 *
 * Anything else is a script fault "Type mismatch in 'OP' (T1, T2)". */
#ifndef GSVM_PATHO_VALUE_H
#define GSVM_PATHO_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "gsvm/patho_vm.h"

typedef enum patho_binop {
    PATHO_ADD, PATHO_SUB, PATHO_MUL, PATHO_DIV, PATHO_MOD, PATHO_AND, PATHO_OR, PATHO_XOR,
    PATHO_EQ, PATHO_NEQ, PATHO_LT, PATHO_GT, PATHO_LE, PATHO_GE, PATHO_POW
} patho_binop;

typedef enum patho_unop {
    PATHO_NULLEQ, PATHO_NULLNEQ, PATHO_NEG, PATHO_NOT, PATHO_SQRT, PATHO_SIN, PATHO_COS,
    PATHO_ASIN, PATHO_CSTRING
} patho_unop;

const char *patho_binop_symbol(patho_binop op);
const char *patho_unop_name(patho_unop op);

/* Inline constructors for the interpreter's hot paths (the public
 * gsvm_patho_int() etc. are the same, out of line). */
static inline gsvm_patho_value patho_mk_bool(bool b)
{
    return (gsvm_patho_value){.type = GSVM_PATHO_BOOL, .as.b = b};
}
static inline gsvm_patho_value patho_mk_int(int32_t i)
{
    return (gsvm_patho_value){.type = GSVM_PATHO_INT, .as.i = i};
}
static inline gsvm_patho_value patho_mk_float(float f)
{
    return (gsvm_patho_value){.type = GSVM_PATHO_FLOAT, .as.f = f};
}
static inline gsvm_patho_value patho_mk_cvector(float x, float y, float z)
{
    return (gsvm_patho_value){.type = GSVM_PATHO_CVECTOR, .as.v = {x, y, z}};
}

/* Computes `a op b` into the fresh value *out.  GSVM_ERR_FAULT with `msg`
 * filled on a type mismatch or an integer division by zero; GSVM_ERR_LIMIT
 * when a string result would be too long; GSVM_ERR_NOMEM. */
gsvm_status patho_binop_apply(patho_binop op, const gsvm_patho_value *a, const gsvm_patho_value *b,
                              gsvm_patho_value *out, char *msg, size_t msg_size);
gsvm_status patho_unop_apply(patho_unop op, const gsvm_patho_value *a, gsvm_patho_value *out,
                             char *msg, size_t msg_size);

/* The truth of a condition slot (JumpB): bool, int or float; false when the
 * value has another type (the caller faults). */
bool patho_value_truth(const gsvm_patho_value *v, bool *out);

/* The shortest decimal text that reads back as the same float ("0.1",
 * "1.0", "-2.5e-07"); "nan"/"inf"/"-inf" for those. */
void patho_format_float(float f, char *buf, size_t size);

/* Float to int as the game's conversion does (truncation), saturating at
 * the int range and mapping NaN to 0 so that it is never undefined. */
int32_t patho_float_to_int(float f);

#endif
