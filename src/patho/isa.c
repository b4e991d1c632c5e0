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

/* The flag layout is derived from the operand letters, so the table stays a
 * pure expansion of isa.def. */
gsvm_patho_shape gsvm_patho_op_shape(unsigned op)
{
    gsvm_patho_shape o = {0, 0, -1, -1, 2};
    if (op >= GSVM_PATHO_OP_COUNT)
        return o;
    /* encoded bytes per operand letter (0 = 4, the common u32), a table
     * lookup since loader, lister and assembler ask for every opcode */
    static const uint8_t size_of[128] = {['b'] = 1, ['x'] = 1, ['T'] = 1, ['f'] = 1, ['Q'] = 1,
                                         ['G'] = 1, ['h'] = 2, ['P'] = 3};
    const char *ops = gsvm_patho_ops[op].operands;
    for (unsigned i = 0; ops[i]; i++) {
        char c = ops[i];
        unsigned sz = size_of[(uint8_t)c & 127];
        o.fixed_size = (uint8_t)(o.fixed_size + (sz ? sz : 4));
        if (c == 'm')
            o.nmodes++;
        else if (c == 'f')
            o.flag_at = (int8_t)i;
        else if (c == 'F' || c == 'R' || c == 'L')
            o.list_at = (int8_t)i;
    }
    o.popmask = o.flag_at >= 0 ? (uint8_t)(0xFFu >> o.nmodes) : 0;
    return o;
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
    /* Small table; a linear scan is clear and the decoder caches by layout. */
    for (unsigned op = 0; op < GSVM_PATHO_OP_COUNT; op++)
        if (gsvm_patho_op_code(op, layout) == (int)code)
            return (int)op;
    return -1;
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
