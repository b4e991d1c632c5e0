/* The assembler's instruction lines: opcode lookup, operands checked
 * against isa.def's fields, the encoded instruction. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/asm.h"

/* An operand's field value from its listed value, in luac's convention
 * (constants as -1-index); false if it does not fit. */
static inline bool operand_field(unsigned kind, bool is_c, uint32_t width_max, int64_t v,
                                 uint32_t *out)
{
    if (v < 0) {
        if (kind == HKS_K)
            v = -1 - v;
        else if (kind == HKS_RK && is_c && -1 - v <= 255)
            v = 256 + (-1 - v);
        else
            return false;
    }
    if ((uint64_t)v > width_max)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* One operand (read, then checked by operand_field; the checks are
 * repeated here only to say what is wrong). */
static bool operand(parser *P, unsigned kind, bool is_c, uint32_t width_max, uint32_t *out)
{
    const char *s = (skip_ws(P), P->p);
    int64_t v = 0;
    if (!asm_integer(P, &v, "an operand"))
        return false;
    if (operand_field(kind, is_c, width_max, v, out))
        return true;
    if (v < 0 && kind == HKS_RK && is_c)
        return asm_fail(P, s, "constant operand %lld is out of range -1..-256", (long long)v);
    if (v < 0 && kind != HKS_K)
        return asm_fail(P, s, "operand %lld must not be negative", (long long)v);
    return asm_fail(P, s, "operand %lld does not fit its field (max %u)", (long long)v, width_max);
}

/* From the length and three of the letters: enough to spread the ~100
 * names over 256 slots (op_lookup compares the whole name anyway), and no
 * loop over every letter of every mnemonic of the listing. */
static unsigned name_hash(const char *w, size_t n)
{
    if (n == 0)
        return 0;
    unsigned h = (unsigned)n * 131u + (unsigned char)w[0] * 31u;
    h = h * 31u + (unsigned char)w[n / 2];
    h = h * 31u + (unsigned char)w[n - 1];
    return (h ^ h >> 8) & 255u;
}

/* Open addressing over 256 slots for the ~100 opcode names. */
void asm_ophash_build(parser *P)
{
    for (unsigned i = 0; i < HKS_I_COUNT; i++) {
        unsigned h = name_hash(hks_ops[i].name, hks_ops[i].namelen);
        while (P->ophash[h])
            h = (h + 1) & 255u;
        P->ophash[h] = (uint8_t)(i + 1);
    }
}

static unsigned op_lookup(parser *P, const char *w, size_t n)
{
    for (unsigned h = name_hash(w, n);; h = (h + 1) & 255u) {
        unsigned e = P->ophash[h];
        if (!e)
            return HKS_NO_OP;
        const hks_opinfo *o = &hks_ops[e - 1];
        if (o->namelen == n && memcmp(o->name, w, n) == 0)
            return e - 1;
    }
}

/* The widest field an operand may fill: A and B 8 bits, C 9, Bx 17. */
static inline uint32_t field_max(unsigned mode, int field)
{
    if (mode == HKS_ABC)
        return field == 2 ? 0x1FF : 0xFF;
    return field == 1 ? 0x1FFFF : 0xFF;
}

/* Assembles one instruction from its operand values, as listed; false if
 * they do not fit (the general path then says why). */
static bool encode_fast(const hks_opinfo *o, unsigned op, const int64_t *v, int nv, uint32_t *insn)
{
    uint32_t f[3] = {0, 0, 0};
    int first = 0; /* the field the first value fills */
    if (o->mode == HKS_ASBX && o->a == HKS_N && nv == 1)
        first = 1; /* JMP sBx: A omitted */
    else if (o->mode == HKS_ABC ? nv < 1 : nv != 2)
        return false;
    for (int i = 0; i < nv; i++) {
        int fi = first + i;
        if (o->mode == HKS_ASBX && fi == 1) {
            if (v[i] < -0xFFFF || v[i] > 0x10000)
                return false;
            f[1] = (uint32_t)(v[i] + 0xFFFF);
            continue;
        }
        unsigned kind = fi == 0 ? o->a : fi == 1 ? o->b : o->c;
        if (!operand_field(kind, fi == 2, field_max(o->mode, fi), v[i], &f[fi]))
            return false;
    }
    *insn = (uint32_t)op << 25 | f[0];
    if (o->mode == HKS_ABC)
        *insn |= f[1] << 17 | f[2] << 8;
    else
        *insn |= f[1] << 8;
    return true;
}

/* The fast path for code lines as the listing printer writes them,
 *     <pc> [<line>] NAME <decimal operands>
 * (one per instruction: millions for the corpus).  It reads the line in one
 * pass and returns false, having changed nothing, on anything it does not
 * take as is (hex, .word, long numbers, out-of-range values...); code_line
 * then reads the line with the general helpers and words any error.  Both
 * build the same word from what the fast path accepts. */
static bool code_line_fast(parser *P, fbuild *fb)
{
    const char *p = P->p, *e = P->end, *s = p;
    while (p < e && is_digit(*p)) /* pc, informative */
        p++;
    if (p - s > 18)
        return false;
    while (p < e && is_ws(*p))
        p++;
    if (p < e && *p == '[') { /* source line, informative */
        const char *r = memchr(p, ']', (size_t)(e - p));
        if (!r)
            return false;
        p = r + 1;
    }
    while (p < e && is_ws(*p))
        p++;
    const char *w = p;
    while (p < e && !is_ws(*p))
        p++;
    unsigned iop = p > w ? op_lookup(P, w, (size_t)(p - w)) : HKS_NO_OP;
    /* the printer pads names to 14 columns: skip the spaces 8 at a time */
    while (e - p >= 8 && memcmp(p, "        ", 8) == 0)
        p += 8;
    if (iop == HKS_NO_OP)
        return false;
    unsigned op = hks_encode_op(P->c->profile, iop);
    if (op == HKS_NO_OP)
        return false;
    int64_t v[3];
    int nv = 0;
    for (;;) {
        while (p < e && is_ws(*p))
            p++;
        if (p >= e)
            break;
        if (nv == 3)
            return false;
        bool neg = *p == '-';
        p += neg;
        const char *d = p;
        int64_t x = 0;
        while (p < e && is_digit(*p) && p - d < 10)
            x = x * 10 + (*p++ - '0');
        if (p == d || (p < e && !is_ws(*p)))
            return false; /* no digits, too many, or not a plain decimal */
        v[nv++] = neg ? -x : x;
    }
    uint32_t insn;
    if (!encode_fast(&hks_ops[iop], op, v, nv, &insn))
        return false;
    if (!asm_grow(P, (void **)&fb->f.code, &fb->cap_code, (size_t)fb->f.ncode, 4))
        return false;
    fb->f.code[fb->f.ncode++] = insn;
    P->p = p;
    return true;
}

bool asm_code_line(parser *P, fbuild *fb)
{
    if (code_line_fast(P, fb))
        return true;
    if (P->failed)
        return false; /* out of memory in the fast path */
    gsvm_hks_chunk *c = P->c;
    const char *w;
    size_t n;
    skip_ws(P);
    if (P->p < P->end && ((*P->p >= '0' && *P->p <= '9'))) { /* pc, informative */
        int64_t pc;
        if (!asm_integer(P, &pc, "pc"))
            return false;
        skip_ws(P);
    }
    if (P->p < P->end && *P->p == '[') { /* source line, informative */
        while (P->p < P->end && *P->p != ']')
            P->p++;
        if (P->p >= P->end)
            return asm_fail(P, NULL, "expected ']'");
        P->p++;
    }
    if (!asm_word(P, &w, &n))
        return asm_fail(P, NULL, "expected an opcode name");
    if (!asm_grow(P, (void **)&fb->f.code, &fb->cap_code, (size_t)fb->f.ncode, 4))
        return false;
    uint32_t insn;
    if (asm_word_is(w, n, ".word")) {
        uint64_t v = 0;
        if (!asm_unsigned_in(P, &v, UINT32_MAX, "an instruction word"))
            return false;
        insn = (uint32_t)v;
    } else {
        unsigned iop = op_lookup(P, w, n);
        if (iop == HKS_NO_OP)
            return asm_fail(P, w, "unknown opcode '%.*s'", (int)(n > 40 ? 40 : n), w);
        unsigned op = hks_encode_op(c->profile, iop);
        if (op == HKS_NO_OP)
            return asm_fail(P, w, "opcode %s is not in the %s table (see .profile)", hks_ops[iop].name,
                        gsvm_hks_profile_name(c->profile));
        const hks_opinfo *o = &hks_ops[iop];
        uint32_t f[3] = {0, 0, 0};
        int nf = 0, ntok = 0;
        for (const char *q = P->p; o->mode == HKS_ASBX && o->a == HKS_N && q < P->end;) {
            /* JMP may omit A: count the operands */
            while (q < P->end && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q < P->end)
                ntok++;
            while (q < P->end && *q != ' ' && *q != '\t' && *q != '\r')
                q++;
        }
        int want = o->mode == HKS_ABC ? 3 : 2;
        if (o->mode == HKS_ASBX && o->a == HKS_N && ntok == 1)
            nf = 1; /* JMP sBx: A omitted */
        while (!asm_at_end(P) && nf < want) {
            unsigned kind = nf == 0 ? o->a : nf == 1 ? o->b : o->c;
            uint32_t max = 0xFF;
            if (o->mode == HKS_ABC && nf == 2)
                max = 0x1FF;
            if (o->mode != HKS_ABC && nf == 1)
                max = 0x1FFFF;
            if (o->mode == HKS_ASBX && nf == 1) {
                int64_t v = 0;
                const char *vs = (skip_ws(P), P->p);
                if (!asm_integer(P, &v, "a jump offset"))
                    return false;
                if (v < -0xFFFF || v > 0x10000)
                    return asm_fail(P, vs, "jump offset %lld is out of range", (long long)v);
                f[nf++] = (uint32_t)(v + 0xFFFF);
                continue;
            }
            if (!operand(P, kind, nf == 2, max, &f[nf]))
                return false;
            nf++;
        }
        if (!asm_at_end(P))
            return asm_fail(P, NULL, "too many operands for %s", o->name);
        if (nf < want && o->mode != HKS_ABC)
            return asm_fail(P, NULL, "%s needs %d operands", o->name, want);
        if (nf < 1)
            return asm_fail(P, NULL, "%s needs operands", o->name);
        insn = (uint32_t)op << 25 | f[0];
        if (o->mode == HKS_ABC)
            insn |= f[1] << 17 | f[2] << 8;
        else
            insn |= f[1] << 8;
    }
    if (!asm_expect_end(P))
        return false;
    fb->f.code[fb->f.ncode++] = insn;
    return true;
}
