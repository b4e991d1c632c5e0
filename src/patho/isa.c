/* Lookups over the instruction table (isa.def). */
#include "patho/isa.h"

#include <string.h>

#define CLS(c) GSVM_PATHO_C_##c

const gsvm_patho_opinfo gsvm_patho_ops[GSVM_PATHO_OP_COUNT] = {
#define OP(name, alpha, hd, operands, cls, meaning) \
    {#name, alpha, hd, operands, CLS(cls), meaning, (uint8_t)(sizeof(operands) - 1),         \
     (uint8_t)(sizeof(#name) - 1)},
#include "patho/isa.def"
#undef OP
};

const gsvm_patho_op_name16 gsvm_patho_op_words[GSVM_PATHO_OP_COUNT] = {
#define OP(name, alpha, hd, operands, cls, meaning) {.c = #name},
#include "patho/isa.def"
#undef OP
};

/* Opcode -> op + 1 (0: none) per layout, as designated initializers from
 * isa.def: an op absent from a layout goes to a slot past 255 of its own,
 * and two ops with one code would initialize one entry twice, which the
 * compiler rejects (-Werror=override-init). */
const uint8_t gsvm_patho_op_of_hd[256 + GSVM_PATHO_OP_COUNT] = {
#define OP(name, alpha, hd, operands, cls, meaning) \
    [(hd) < 0 ? 256 + GSVM_PATHO_OP_##name : (hd)] = GSVM_PATHO_OP_##name + 1,
#include "patho/isa.def"
#undef OP
};
const uint8_t gsvm_patho_op_of_alpha[256 + GSVM_PATHO_OP_COUNT] = {
#define OP(name, alpha, hd, operands, cls, meaning) \
    [(alpha) < 0 ? 256 + GSVM_PATHO_OP_##name : (alpha)] = GSVM_PATHO_OP_##name + 1,
#include "patho/isa.def"
#undef OP
};

/* The shapes are derived from the operand letters, so the table stays a
 * pure expansion of isa.def; the compiler folds the letters of each string
 * literal (an operand string has at most GSVM_PATHO_MAX_OPERANDS letters,
 * checked below), and nothing is computed at run time. */
#define LETTER(s, i) ((i) < sizeof(s) - 1 ? (s)[(i) < sizeof(s) ? (i) : 0] : 0)
#define EACH(s, F) F(LETTER(s, 0)), F(LETTER(s, 1)), F(LETTER(s, 2)), F(LETTER(s, 3)), F(LETTER(s, 4))
#define SUM5(a, b, c, d, e) ((a) + (b) + (c) + (d) + (e))
#define CALL(M, ...) M(__VA_ARGS__) /* expands EACH before M sees its commas */
#define SUM(s, F) CALL(SUM5, EACH(s, F))
#define FIRST5(a, b, c, d, e) ((a) ? 0 : (b) ? 1 : (c) ? 2 : (d) ? 3 : (e) ? 4 : -1)
#define FIRST(s, F) CALL(FIRST5, EACH(s, F))
#define MASK5(a, b, c, d, e) ((a) | (b) << 1 | (c) << 2 | (d) << 3 | (e) << 4)
#define MASK(s, F) CALL(MASK5, EACH(s, F))
#define SIZE_OF(c)                                                                              \
    ((c) == 0 ? 0                                                                               \
     : ((c) == 'b' || (c) == 'x' || (c) == 'T' || (c) == 'f' || (c) == 'Q' || (c) == 'G') ? 1  \
     : (c) == 'h' ? 2 : (c) == 'P' ? 3 : 4)
#define IS_M(c) ((c) == 'm')
#define IS_F(c) ((c) == 'f')
#define IS_LIST(c) ((c) == 'F' || (c) == 'R' || (c) == 'L')
#define IS_S(c) ((c) == 's')
#define IS_N(c) ((c) == 'n')
#define IS_J(c) ((c) == 'j')
#define IS_K(c) ((c) == 'k')
#define SIZE2(s, k) ((unsigned)(LETTER(s, k) ? SIZE_OF(LETTER(s, k)) - 1 : 0) << (2 * (k)))
#define SIZES(s) (SIZE2(s, 0) | SIZE2(s, 1) | SIZE2(s, 2) | SIZE2(s, 3) | SIZE2(s, 4))
#define SHAPE(ops)                                                                              \
    {(uint8_t)SUM(ops, IS_M), (uint8_t)(FIRST(ops, IS_F) >= 0 ? 0xFFu >> SUM(ops, IS_M) : 0), \
     (int8_t)FIRST(ops, IS_F), (int8_t)FIRST(ops, IS_LIST), (uint8_t)(2 + SUM(ops, SIZE_OF)),  \
     (uint8_t)MASK(ops, IS_S), (uint8_t)MASK(ops, IS_N), (uint8_t)MASK(ops, IS_J),             \
     (uint8_t)MASK(ops, IS_K),                                                                  \
     (uint8_t)(MASK(ops, IS_S) | MASK(ops, IS_N) | MASK(ops, IS_J) | MASK(ops, IS_K)),           \
     (uint16_t)SIZES(ops)},

const gsvm_patho_shape gsvm_patho_shapes[GSVM_PATHO_OP_COUNT] = {
#define OP(name, alpha, hd, operands, cls, meaning) SHAPE(operands)
#include "patho/isa.def"
#undef OP
};

/* every operand string fits the 5 letters SHAPE looks at */
#define OP(name, alpha, hd, operands, cls, meaning)                                      \
    _Static_assert(sizeof(operands) - 1 <= GSVM_PATHO_MAX_OPERANDS && GSVM_PATHO_MAX_OPERANDS == 5, \
                   #name ": too many operand letters for SHAPE");
#include "patho/isa.def"
#undef OP

gsvm_patho_shape gsvm_patho_op_shape(unsigned op)
{
    if (op >= GSVM_PATHO_OP_COUNT) {
        gsvm_patho_shape none = {0, 0, -1, -1, 2, 0, 0, 0, 0, 0, 0};
        return none;
    }
    return gsvm_patho_shapes[op];
}

unsigned gsvm_patho_op_count(void) { return GSVM_PATHO_OP_COUNT; }

const char *gsvm_patho_op_name(unsigned op)
{
    return op < GSVM_PATHO_OP_COUNT ? gsvm_patho_ops[op].name : NULL;
}

const char *gsvm_patho_op_meaning(unsigned op)
{
    return op < GSVM_PATHO_OP_COUNT ? gsvm_patho_ops[op].meaning : NULL;
}

const char *gsvm_patho_op_operands(unsigned op)
{
    return op < GSVM_PATHO_OP_COUNT ? gsvm_patho_ops[op].operands : NULL;
}

int gsvm_patho_op_code(unsigned op, gsvm_patho_layout layout)
{
    if (op >= GSVM_PATHO_OP_COUNT)
        return -1;
    return layout == GSVM_PATHO_LAYOUT_ALPHA ? gsvm_patho_ops[op].alpha : gsvm_patho_ops[op].hd;
}

int gsvm_patho_op_from_code(unsigned code, gsvm_patho_layout layout)
{
    if (code > 0xFF)
        return -1;
    return (layout == GSVM_PATHO_LAYOUT_ALPHA ? gsvm_patho_op_of_alpha : gsvm_patho_op_of_hd)[code] - 1;
}

int gsvm_patho_op_by_name(const char *name, size_t len)
{
    for (unsigned op = 0; op < GSVM_PATHO_OP_COUNT; op++) {
        const gsvm_patho_opinfo *o = &gsvm_patho_ops[op];
        if (o->name_len == len && o->name[0] == name[0] && memcmp(o->name, name, len) == 0)
            return (int)op;
    }
    return -1;
}

int gsvm_patho_operand_size(char c)
{
    switch (c) {
    case 'b': case 'x': case 'T': case 'f': case 'Q': case 'G': return 1;
    case 'h': return 2;
    case 'P': return 3;
    default: return 4;
    }
}

const char *gsvm_patho_layout_name(gsvm_patho_layout layout)
{
    switch (layout) {
    case GSVM_PATHO_LAYOUT_ALPHA: return "alpha";
    case GSVM_PATHO_LAYOUT_HD: return "hd";
    default: return "auto";
    }
}

bool gsvm_patho_layout_parse(const char *s, gsvm_patho_layout *out)
{
    if (strcmp(s, "alpha") == 0)
        *out = GSVM_PATHO_LAYOUT_ALPHA;
    else if (strcmp(s, "hd") == 0 || strcmp(s, "2005") == 0 || strcmp(s, "retail") == 0 ||
             strcmp(s, "demo") == 0)
        *out = GSVM_PATHO_LAYOUT_HD;
    else if (strcmp(s, "auto") == 0)
        *out = GSVM_PATHO_LAYOUT_AUTO;
    else
        return false;
    return true;
}

const char *gsvm_patho_type_name(unsigned type)
{
    static const char *const names[] = {NULL, "bool", "int", "float", "string", "object", "cvector"};
    return type >= 1 && type <= 6 ? names[type] : NULL;
}

float gsvm_patho_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint32_t gsvm_patho_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

void gsvm_patho_stack_operands(const gsvm_patho_program *p, const gsvm_patho_insn *in,
                               gsvm_patho_operand_fn fn, void *user)
{
    const char *ops = gsvm_patho_ops[in->op].operands;
    gsvm_patho_shape shape = gsvm_patho_op_shape(in->op);
    uint32_t flag = shape.flag_at >= 0 ? in->a[shape.flag_at] : 0;
    unsigned mi = 0;
    for (unsigned k = 0; ops[k]; k++) {
        switch (ops[k]) {
        case 'v': fn(user, in->a[k]); break;
        case 'm':
            if (!(flag & gsvm_patho_mode_bit(mi++)))
                fn(user, in->a[k]);
            break;
        case 'a':
            if (ops[k + 1] == 'T' ? in->a[k + 1] == 0 : !(in->a[k + 2] & 1))
                fn(user, in->a[k]);
            break;
        case 'F':
        case 'R':
            for (uint32_t a = 0; a < in->list_len && (uint64_t)in->list + a < p->nargs; a++)
                if (p->args[in->list + a].mode == 0)
                    fn(user, p->args[in->list + a].var);
            break;
        }
    }
    if (in->op == GSVM_PATHO_OP_PopE || in->op == GSVM_PATHO_OP_PopGE)
        fn(user, 1); /* the value they store is the top */
}

void gsvm_patho_task_operands(const gsvm_patho_program *p, const gsvm_patho_insn *in,
                              void (*fn)(void *user, uint32_t t), void *user)
{
    const char *ops = gsvm_patho_ops[in->op].operands;
    gsvm_patho_shape shape = gsvm_patho_op_shape(in->op);
    uint32_t flag = shape.flag_at >= 0 ? in->a[shape.flag_at] : 0;
    unsigned mi = 0;
    for (unsigned k = 0; ops[k]; k++) {
        switch (ops[k]) {
        case 't': fn(user, in->a[k]); break;
        case 'm':
            if (flag & gsvm_patho_mode_bit(mi++))
                fn(user, in->a[k]);
            break;
        case 'a':
            if (ops[k + 1] == 'T' ? in->a[k + 1] == 1 : (in->a[k + 2] & 1))
                fn(user, in->a[k]);
            break;
        case 'F':
        case 'R':
            for (uint32_t a = 0; a < in->list_len && (uint64_t)in->list + a < p->nargs; a++)
                if (p->args[in->list + a].mode == 1)
                    fn(user, p->args[in->list + a].var);
            break;
        }
    }
}
