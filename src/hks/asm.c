/* The assembler: reads a listing (see listing.c) back into a chunk.  Every
 * error names the listing's line:column and what was expected there. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/internal.h"
#include "hks/isa.h"

enum { MAX_DEPTH = 128, SEC_NONE, SEC_CODE, SEC_CONSTS };

typedef struct fbuild {
    gsvm_hks_proto f;
    size_t cap_code, cap_k, cap_lines, cap_locals, cap_up, cap_p;
    int section;
} fbuild;

typedef struct parser {
    const char *p, *end; /* the current line, without its comment */
    const char *line_start;
    long line;
    const char *file;
    gsvm_error *err;
    bool failed;
    gsvm_hks_chunk *c;
    fbuild stack[MAX_DEPTH + 1];
    int depth; /* number of open functions */
    bool have_header, have_main, in_structs, structs_done;
    bool std_types;         /* types_standard's answer ... */
    uint64_t std_types_at;  /* ... for this many types + 1 (0: not asked yet) */
    uint8_t ophash[256]; /* opcode name hash -> internal id + 1 (0 = empty) */
    size_t cap_structs, cap_slots, cap_bases, cap_prefix, cap_trailing;
} parser;

static bool fail(parser *P, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(parser *P, const char *at, const char *fmt, ...)
{
    if (P->failed)
        return false;
    P->failed = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvm_error_at_line(P->err, GSVM_ERR_INPUT, P->file, P->line,
                       (long)((at ? at : P->p) - P->line_start) + 1, "%s", msg);
    return false;
}

/* Grows *arr (of `size`-byte items) to hold n+1 items. */
static bool grow(parser *P, void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *na = realloc(*arr, ncap * size);
    if (!na)
        return fail(P, NULL, "out of memory");
    *arr = na;
    *cap = ncap;
    return true;
}

static inline bool is_ws(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

static inline void skip_ws(parser *P)
{
    const char *p = P->p, *e = P->end;
    while (p < e && is_ws(*p))
        p++;
    P->p = p;
}

static bool at_end(parser *P)
{
    skip_ws(P);
    return P->p >= P->end;
}

static bool expect_end(parser *P)
{
    if (!at_end(P))
        return fail(P, NULL, "unexpected text; expected the end of the line");
    return true;
}

/* A bare word: letters, digits, '_', '.', ':' ... up to white space. */
static bool word(parser *P, const char **w, size_t *n)
{
    skip_ws(P);
    const char *s = P->p;
    while (P->p < P->end && *P->p != ' ' && *P->p != '\t' && *P->p != '\r')
        P->p++;
    *w = s;
    *n = (size_t)(P->p - s);
    return *n > 0;
}

static bool word_is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static int hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

static inline bool is_digit(char ch) { return (unsigned)(ch - '0') < 10u; }

/* Up to 19 decimal digits, which cannot overflow 64 bits and so need no
 * check per digit; the callers go on digit by digit (with checks) after
 * that.  Returns the number of digits read. */
static inline int decimal19(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp, *stop = end - p > 19 ? p + 19 : end;
    uint64_t v = 0;
    while (p < stop && is_digit(*p))
        v = v * 10 + (uint64_t)(*p++ - '0');
    int n = (int)(p - *pp);
    *pp = p;
    *out = v;
    return n;
}

/* Integers: decimal or 0x hex, optionally negative. */
static bool integer(parser *P, int64_t *out, const char *what)
{
    skip_ws(P);
    const char *s = P->p;
    bool neg = false;
    if (P->p < P->end && *P->p == '-') {
        neg = true;
        P->p++;
    }
    uint64_t v = 0;
    int digits = 0;
    if (P->end - P->p > 2 && P->p[0] == '0' && (P->p[1] == 'x' || P->p[1] == 'X')) {
        P->p += 2;
        for (; P->p < P->end; P->p++, digits++) {
            char ch = *P->p;
            int d = ch >= '0' && ch <= '9' ? ch - '0'
                    : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : -1;
            if (d < 0)
                break;
            if (v >> 60)
                return fail(P, s, "%s is too large", what);
            v = v * 16 + (uint64_t)d;
        }
    } else {
        digits = decimal19(&P->p, P->end, &v);
        for (; P->p < P->end && *P->p >= '0' && *P->p <= '9'; P->p++, digits++) {
            if (v > (UINT64_MAX - 9) / 10)
                return fail(P, s, "%s is too large", what);
            v = v * 10 + (uint64_t)(*P->p - '0');
        }
    }
    if (!digits)
        return fail(P, s, "expected %s (a number)", what);
    if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return fail(P, s, "%s is too large", what);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Unsigned integers up to 2^64-1: decimal or 0x hex. */
static bool unsigned_in(parser *P, uint64_t *out, uint64_t max, const char *what)
{
    skip_ws(P);
    const char *s = P->p;
    if (P->p < P->end && *P->p == '-')
        return fail(P, s, "%s must not be negative", what);
    uint64_t v = 0;
    int digits = 0;
    bool hex = P->end - P->p > 2 && P->p[0] == '0' && (P->p[1] == 'x' || P->p[1] == 'X');
    if (hex)
        P->p += 2;
    else
        digits = decimal19(&P->p, P->end, &v); /* the common case, without a division per digit */
    for (; P->p < P->end; P->p++, digits++) {
        int d = hexval(*P->p);
        if (d < 0 || (!hex && d > 9))
            break;
        uint64_t base = hex ? 16 : 10;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return fail(P, s, "%s is too large", what);
        v = v * base + (uint64_t)d;
    }
    if (!digits)
        return fail(P, s, "expected %s (a number)", what);
    if (v > max)
        return fail(P, s, "%s %llu is out of range 0..%llu", what, (unsigned long long)v,
                    (unsigned long long)max);
    *out = v;
    return true;
}

static bool u32(parser *P, uint32_t *out, const char *what)
{
    uint64_t v = 0;
    if (!unsigned_in(P, &v, UINT32_MAX, what))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* null | "text" | nonul"text" */
static bool string(parser *P, gsvm_hks_str *out, const char *what)
{
    skip_ws(P);
    const char *s = P->p;
    out->size = 0;
    out->data = NULL;
    if (P->end - P->p >= 4 && memcmp(P->p, "null", 4) == 0) {
        P->p += 4;
        return true;
    }
    bool nul = true;
    if (P->end - P->p >= 5 && memcmp(P->p, "nonul", 5) == 0) {
        nul = false;
        P->p += 5;
    }
    if (P->p >= P->end || *P->p != '"')
        return fail(P, s, "expected %s (a quoted string or null)", what);
    P->p++;
    /* most strings have no escapes: then they are copied in one go */
    const char *q = memchr(P->p, '"', (size_t)(P->end - P->p));
    if (q && q > P->p && !memchr(P->p, '\\', (size_t)(q - P->p))) {
        size_t n = (size_t)(q - P->p);
        char *buf = malloc(n + 2);
        if (!buf)
            return fail(P, s, "out of memory");
        memcpy(buf, P->p, n);
        if (nul)
            buf[n++] = 0;
        buf[n] = 0;
        out->data = buf;
        out->size = n;
        P->p = q + 1;
        return true;
    }
    size_t cap = (size_t)(P->end - P->p) + 2;
    char *buf = malloc(cap);
    if (!buf)
        return fail(P, s, "out of memory");
    size_t n = 0;
    for (;;) {
        if (P->p >= P->end) {
            free(buf);
            return fail(P, s, "unterminated string");
        }
        char ch = *P->p++;
        if (ch == '"')
            break;
        if (ch == '\\') {
            if (P->p >= P->end) {
                free(buf);
                return fail(P, s, "unterminated string");
            }
            char e = *P->p++;
            switch (e) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case 'x': {
                int h1 = P->end - P->p >= 2 ? hexval(P->p[0]) : -1;
                int h2 = h1 >= 0 ? hexval(P->p[1]) : -1;
                if (h2 < 0) {
                    free(buf);
                    return fail(P, P->p, "expected two hex digits after \\x");
                }
                ch = (char)(h1 * 16 + h2);
                P->p += 2;
                break;
            }
            default:
                free(buf);
                return fail(P, P->p - 2, "unknown escape \\%c", e);
            }
        }
        buf[n++] = ch;
    }
    if (nul)
        buf[n++] = 0;
    if (n == 0) {
        free(buf);
        return fail(P, s, "a string of zero bytes cannot be stored (use null)");
    }
    buf[n] = 0;
    out->data = buf;
    out->size = n;
    return true;
}

static bool hexbytes(parser *P, uint8_t **arr, size_t *n, size_t *cap)
{
    skip_ws(P);
    const char *s = P->p;
    while (P->p < P->end && hexval(*P->p) >= 0) {
        if (P->end - P->p < 2 || hexval(P->p[1]) < 0)
            return fail(P, P->p, "expected an even number of hex digits");
        if (!grow(P, (void **)arr, cap, *n, 1))
            return false;
        (*arr)[(*n)++] = (uint8_t)(hexval(P->p[0]) * 16 + hexval(P->p[1]));
        P->p += 2;
    }
    if (P->p == s)
        return fail(P, s, "expected hex bytes");
    return expect_end(P);
}

/* ------------------------------------------------------------ sections */

static fbuild *cur(parser *P) { return P->depth ? &P->stack[P->depth - 1] : NULL; }

static bool need_function(parser *P, const char *directive)
{
    if (!cur(P))
        return fail(P, NULL, "%s outside a .function", directive);
    return true;
}

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
    if (!integer(P, &v, "an operand"))
        return false;
    if (operand_field(kind, is_c, width_max, v, out))
        return true;
    if (v < 0 && kind == HKS_RK && is_c)
        return fail(P, s, "constant operand %lld is out of range -1..-256", (long long)v);
    if (v < 0 && kind != HKS_K)
        return fail(P, s, "operand %lld must not be negative", (long long)v);
    return fail(P, s, "operand %lld does not fit its field (max %u)", (long long)v, width_max);
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
static void ophash_build(parser *P)
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
    if (!grow(P, (void **)&fb->f.code, &fb->cap_code, (size_t)fb->f.ncode, 4))
        return false;
    fb->f.code[fb->f.ncode++] = insn;
    P->p = p;
    return true;
}

static bool code_line(parser *P, fbuild *fb)
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
        if (!integer(P, &pc, "pc"))
            return false;
        skip_ws(P);
    }
    if (P->p < P->end && *P->p == '[') { /* source line, informative */
        while (P->p < P->end && *P->p != ']')
            P->p++;
        if (P->p >= P->end)
            return fail(P, NULL, "expected ']'");
        P->p++;
    }
    if (!word(P, &w, &n))
        return fail(P, NULL, "expected an opcode name");
    if (!grow(P, (void **)&fb->f.code, &fb->cap_code, (size_t)fb->f.ncode, 4))
        return false;
    uint32_t insn;
    if (word_is(w, n, ".word")) {
        uint64_t v = 0;
        if (!unsigned_in(P, &v, UINT32_MAX, "an instruction word"))
            return false;
        insn = (uint32_t)v;
    } else {
        unsigned iop = op_lookup(P, w, n);
        if (iop == HKS_NO_OP)
            return fail(P, w, "unknown opcode '%.*s'", (int)(n > 40 ? 40 : n), w);
        unsigned op = hks_encode_op(c->profile, iop);
        if (op == HKS_NO_OP)
            return fail(P, w, "opcode %s is not in the %s table (see .profile)", hks_ops[iop].name,
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
        while (!at_end(P) && nf < want) {
            unsigned kind = nf == 0 ? o->a : nf == 1 ? o->b : o->c;
            uint32_t max = 0xFF;
            if (o->mode == HKS_ABC && nf == 2)
                max = 0x1FF;
            if (o->mode != HKS_ABC && nf == 1)
                max = 0x1FFFF;
            if (o->mode == HKS_ASBX && nf == 1) {
                int64_t v = 0;
                const char *vs = (skip_ws(P), P->p);
                if (!integer(P, &v, "a jump offset"))
                    return false;
                if (v < -0xFFFF || v > 0x10000)
                    return fail(P, vs, "jump offset %lld is out of range", (long long)v);
                f[nf++] = (uint32_t)(v + 0xFFFF);
                continue;
            }
            if (!operand(P, kind, nf == 2, max, &f[nf]))
                return false;
            nf++;
        }
        if (!at_end(P))
            return fail(P, NULL, "too many operands for %s", o->name);
        if (nf < want && o->mode != HKS_ABC)
            return fail(P, NULL, "%s needs %d operands", o->name, want);
        if (nf < 1)
            return fail(P, NULL, "%s needs operands", o->name);
        insn = (uint32_t)op << 25 | f[0];
        if (o->mode == HKS_ABC)
            insn |= f[1] << 17 | f[2] << 8;
        else
            insn |= f[1] << 8;
    }
    if (!expect_end(P))
        return false;
    fb->f.code[fb->f.ncode++] = insn;
    return true;
}

static bool number_value(parser *P, uint64_t *bits)
{
    gsvm_hks_chunk *c = P->c;
    skip_ws(P);
    const char *s = P->p;
    if (P->end - P->p > 5 && memcmp(P->p, "bits:", 5) == 0) {
        P->p += 5;
        uint64_t v = 0;
        int digits = 0;
        while (P->p < P->end && hexval(*P->p) >= 0 && digits < 16) {
            v = v * 16 + (uint64_t)hexval(*P->p++);
            digits++;
        }
        if (digits != c->size_number * 2)
            return fail(P, s, "expected %d hex digits after bits:", c->size_number * 2);
        *bits = v;
        return true;
    }
    if (c->integral) {
        int64_t v = 0;
        if (!integer(P, &v, "an integer number"))
            return false;
        if (c->size_number == 4 && (v < INT32_MIN || v > INT32_MAX))
            return fail(P, s, "number %lld does not fit 4 bytes", (long long)v);
        *bits = c->size_number == 4 ? (uint32_t)(int32_t)v : (uint64_t)v;
        return true;
    }
    char tmp[64];
    size_t n = 0;
    while (P->p < P->end && *P->p != ' ' && *P->p != '\t' && *P->p != '\r' && n < sizeof tmp - 1)
        tmp[n++] = *P->p++;
    tmp[n] = 0;
    char *endp;
    if (c->size_number == 4) {
        float f = strtof(tmp, &endp);
        uint32_t u;
        memcpy(&u, &f, 4);
        *bits = u;
    } else {
        double d = strtod(tmp, &endp);
        memcpy(bits, &d, 8);
    }
    if (n == 0 || *endp)
        return fail(P, s, "expected a number");
    return true;
}

static bool const_line(parser *P, fbuild *fb)
{
    const char *w;
    size_t n;
    skip_ws(P);
    if (P->p < P->end && *P->p >= '0' && *P->p <= '9') {
        int64_t idx;
        if (!integer(P, &idx, "constant index"))
            return false;
    }
    if (!word(P, &w, &n))
        return fail(P, NULL, "expected a constant type");
    if (!grow(P, (void **)&fb->f.k, &fb->cap_k, fb->f.nk, sizeof(gsvm_hks_const)))
        return false;
    if (fb->f.nk == UINT32_MAX)
        return fail(P, w, "too many constants");
    gsvm_hks_const *k = &fb->f.k[fb->f.nk];
    memset(k, 0, sizeof *k);
    const char *vs;
    if (word_is(w, n, "nil")) {
        k->type = GSVM_HKS_K_NIL;
        if (!at_end(P)) {
            if (!word(P, &vs, &n) || !word_is(vs, n, "nil"))
                return fail(P, vs, "expected nil");
        }
    } else if (word_is(w, n, "boolean")) {
        k->type = GSVM_HKS_K_BOOL;
        skip_ws(P);
        const char *save = P->p;
        if (!word(P, &vs, &n))
            return fail(P, NULL, "expected true, false or a byte");
        if (word_is(vs, n, "true")) {
            k->b = 1;
        } else if (word_is(vs, n, "false")) {
            k->b = 0;
        } else {
            uint64_t v = 0;
            P->p = save;
            if (!unsigned_in(P, &v, 255, "a boolean byte"))
                return false;
            k->b = (uint8_t)v;
        }
    } else if (word_is(w, n, "lightuserdata") || word_is(w, n, "ui64")) {
        bool lud = w[0] == 'l';
        k->type = lud ? GSVM_HKS_K_LUD : GSVM_HKS_K_UI64;
        int64_t v = 0;
        skip_ws(P);
        const char *s = P->p;
        /* 0x... may exceed INT64_MAX: read hex by hand */
        if (P->end - P->p > 2 && P->p[0] == '0' && P->p[1] == 'x') {
            P->p += 2;
            uint64_t u = 0;
            int d = 0;
            while (P->p < P->end && hexval(*P->p) >= 0 && d < 17)
                u = u * 16 + (uint64_t)hexval(*P->p++), d++;
            if (d == 0 || d > 16)
                return fail(P, s, "expected up to 16 hex digits");
            k->bits = u;
        } else {
            if (!integer(P, &v, "a value"))
                return false;
            k->bits = (uint64_t)v;
        }
        const char *suffix = lud ? "hi" : "ull";
        size_t sl = strlen(suffix);
        if ((size_t)(P->end - P->p) >= sl && memcmp(P->p, suffix, sl) == 0)
            P->p += sl;
        if (lud && P->c->size_size == 4 && k->bits > UINT32_MAX)
            return fail(P, s, "light userdata does not fit a 4-byte size_t");
    } else if (word_is(w, n, "number")) {
        k->type = GSVM_HKS_K_NUMBER;
        if (!number_value(P, &k->bits))
            return false;
    } else if (word_is(w, n, "string")) {
        k->type = GSVM_HKS_K_STRING;
        if (!string(P, &k->s, "a string constant"))
            return false;
    } else {
        return fail(P, w, "unknown constant type '%.*s'; expected nil, boolean, lightuserdata, "
                          "number, string or ui64",
                    (int)(n > 40 ? 40 : n), w);
    }
    fb->f.nk++;
    return expect_end(P);
}

static bool header_line(parser *P)
{
    gsvm_hks_chunk *c = P->c;
    static const char *keys[10] = {"version", "format",      "endian",   "int",   "size_t",
                                   "instruction", "number", "integral", "flags", "referenced"};
    uint8_t *fields[10] = {&c->version,     &c->format,      &c->endian,   &c->size_int,
                           &c->size_size,   &c->size_instr,  &c->size_number, &c->integral,
                           &c->build_flags, &c->referenced};
    bool seen[10] = {false};
    while (!at_end(P)) {
        const char *k = P->p;
        while (P->p < P->end && *P->p != '=' && *P->p != ' ' && *P->p != '\t')
            P->p++;
        size_t kl = (size_t)(P->p - k);
        if (P->p >= P->end || *P->p != '=')
            return fail(P, k, "expected key=value");
        P->p++;
        int i;
        for (i = 0; i < 10; i++)
            if (word_is(k, kl, keys[i]))
                break;
        if (i == 10 && word_is(k, kl, "debug")) { /* optional: the format-14 hash form */
            const char *w;
            size_t n;
            word(P, &w, &n);
            if (!word_is(w, n, "hash"))
                return fail(P, w, "debug= must be hash (debug flag 1 is only a hash)");
            c->debug_hash = true;
            continue;
        }
        if (i == 10)
            return fail(P, k, "unknown header key '%.*s'", (int)(kl > 20 ? 20 : kl), k);
        if (i == 2) {
            const char *w;
            size_t n;
            word(P, &w, &n);
            if (word_is(w, n, "big"))
                c->endian = 0;
            else if (word_is(w, n, "little"))
                c->endian = 1;
            else
                return fail(P, w, "endian must be big or little");
        } else {
            uint64_t v = 0;
            if (!unsigned_in(P, &v, 255, keys[i]))
                return false;
            *fields[i] = (uint8_t)v;
        }
        seen[i] = true;
    }
    for (int i = 0; i < 10; i++)
        if (!seen[i])
            return fail(P, NULL, ".header lacks %s=", keys[i]);
    if (c->version != 0x51)
        return fail(P, NULL, "version must be 0x51 (Lua 5.1)");
    if (c->format != 13 && c->format != 14)
        return fail(P, NULL, "format must be 13 or 14");
    if (c->size_int != 4 || c->size_instr != 4)
        return fail(P, NULL, "int and instruction sizes must be 4");
    if (c->size_size != 4 && c->size_size != 8)
        return fail(P, NULL, "size_t must be 4 or 8");
    if (c->size_number != 4 && c->size_number != 8)
        return fail(P, NULL, "number must be 4 or 8");
    if (c->integral > 1)
        return fail(P, NULL, "integral must be 0 or 1");
    if (c->debug_hash && c->format != 14)
        return fail(P, NULL, "debug=hash is for format 14 (format 13 always reads it so)");
    c->has_structs = (c->build_flags & 2) != 0;
    P->have_header = true;
    return true;
}

static bool finish_function(parser *P)
{
    fbuild *fb = cur(P);
    const gsvm_hks_debug *d = &fb->f.debug;
    hks_dbg_kind kind = hks_debug_kind(P->c->format, P->c->debug_hash, d->flag);
    bool arrays = d->nlines || d->nlocals || d->nupnames;
    bool names = d->source.size || d->name.size || d->linedefined || d->lastlinedefined;
    if (kind == HKS_DBG_NONE && (arrays || names || d->hash))
        return fail(P, NULL, "debug info given but .debug is 0 or missing");
    if (kind == HKS_DBG_HASH && (arrays || names))
        return fail(P, NULL, "in format 13 (or 14 with debug=hash), .debug 1 holds only a .hash");
    if (kind == HKS_DBG_PROFILE && arrays)
        return fail(P, NULL, "in format 13, .debug 40 holds no lines, locals or upvalue names");
    if (kind != HKS_DBG_HASH && d->hash)
        return fail(P, NULL, ".hash needs .debug 1 in format 13 (or 14 with debug=hash)");
    P->depth--;
    if (P->depth == 0) {
        P->c->main = fb->f;
        P->have_main = true;
    } else {
        fbuild *parent = cur(P);
        if (!grow(P, (void **)&parent->f.p, &parent->cap_p, parent->f.np, sizeof(gsvm_hks_proto)))
            return false;
        parent->f.p[parent->f.np++] = fb->f;
    }
    memset(fb, 0, sizeof *fb);
    return true;
}

/* hks_types_standard, remembered: .type lines only ever append entries, so
 * the answer holds while the count stays the same (it is asked at every
 * .function). */
static bool types_standard(parser *P)
{
    if (P->std_types_at != P->c->ntypes + 1u) {
        P->std_types = hks_types_standard(P->c);
        P->std_types_at = P->c->ntypes + 1u;
    }
    return P->std_types;
}

static bool directive(parser *P)
{
    gsvm_hks_chunk *c = P->c;
    const char *w;
    size_t n;
    word(P, &w, &n);
    fbuild *fb = cur(P);
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(w, lit, sizeof(lit) - 1) == 0)
    if (IS(".header")) {
        if (P->have_header)
            return fail(P, w, "a second .header");
        return header_line(P);
    }
    if (!P->have_header)
        return fail(P, w, "expected .header first");
    if (IS(".profile")) {
        const char *v;
        size_t vn;
        char tmp[16];
        if (!word(P, &v, &vn) || vn >= sizeof tmp)
            return fail(P, v, "expected a profile name");
        memcpy(tmp, v, vn);
        tmp[vn] = 0;
        if (!gsvm_hks_profile_parse(tmp, &c->profile) || c->profile == GSVM_HKS_PROFILE_AUTO)
            return fail(P, v, "unknown profile '%s' (base, bo3 or ghosts)", tmp);
        return expect_end(P);
    }
    if (IS(".prefix")) {
        if (P->have_main || P->depth)
            return fail(P, w, ".prefix after the main function");
        return hexbytes(P, &c->prefix, &c->nprefix, &P->cap_prefix);
    }
    if (IS(".trailing")) {
        if (!P->have_main)
            return fail(P, w, ".trailing before the end of the main function");
        return hexbytes(P, &c->trailing, &c->ntrailing, &P->cap_trailing);
    }
    if (IS(".types")) {
        if (c->types)
            return fail(P, w, "a second .types");
        const char *v;
        size_t vn;
        skip_ws(P);
        const char *save = P->p;
        if (word(P, &v, &vn) && word_is(v, vn, "standard")) {
            c->ntypes = 13;
            c->types = calloc(13, sizeof *c->types);
            if (!c->types)
                return fail(P, v, "out of memory");
            for (uint32_t i = 0; i < 13; i++) {
                c->types[i].id = i;
                c->types[i].len = (uint32_t)strlen(hks_std_types[i]) + 1;
                c->types[i].name = malloc(c->types[i].len + 1u);
                if (!c->types[i].name)
                    return fail(P, v, "out of memory");
                memcpy(c->types[i].name, hks_std_types[i], c->types[i].len);
                c->types[i].name[c->types[i].len] = 0;
            }
            return expect_end(P);
        }
        P->p = save;
        uint64_t nt = 0;
        if (!unsigned_in(P, &nt, 64, "type count"))
            return false;
        c->types = calloc(nt ? (size_t)nt : 1, sizeof *c->types);
        if (!c->types)
            return fail(P, NULL, "out of memory");
        c->ntypes = 0;
        /* the count is checked when the .type lines are in */
        c->struct_marker = (uint32_t)nt; /* temporarily: the announced count */
        return expect_end(P);
    }
    if (IS(".type")) {
        if (!c->types || c->ntypes >= c->struct_marker)
            return fail(P, w, ".type beyond the count given by .types");
        gsvm_hks_type_entry *t = &c->types[c->ntypes];
        gsvm_hks_str s;
        if (!u32(P, &t->id, "type id") || !string(P, &s, "type name"))
            return false;
        if (s.size > 256) {
            free(s.data);
            return fail(P, NULL, "type name longer than 256 bytes");
        }
        t->len = (uint32_t)s.size;
        t->name = s.data ? s.data : calloc(1, 1);
        c->ntypes++;
        return expect_end(P);
    }
    if (IS(".function")) {
        if (!c->types)
            return fail(P, w, "expected .types before the first .function");
        if (c->ntypes != c->struct_marker && !types_standard(P))
            return fail(P, w, ".types announced %u entries but %u .type lines follow",
                        c->struct_marker, c->ntypes);
        if (P->have_main && P->depth == 0)
            return fail(P, w, "a second main function");
        if (fb && fb->section == SEC_NONE && fb->f.ncode == 0 && fb->f.nk == 0 && false)
            return false;
        if (P->depth > MAX_DEPTH)
            return fail(P, w, "functions nested deeper than %d", MAX_DEPTH);
        P->depth++;
        memset(cur(P), 0, sizeof *cur(P));
        while (!at_end(P))
            P->p++; /* the path is informative */
        return true;
    }
    if (IS(".structs")) {
        if (!P->have_main || P->depth)
            return fail(P, w, ".structs before the end of the main function");
        if (!c->has_structs)
            return fail(P, w, ".structs but the header's build flags lack 2 (structures)");
        if (P->in_structs || P->structs_done)
            return fail(P, w, "a second .structs");
        const char *v;
        size_t vn;
        if (!u32(P, &c->struct_marker, "structure block marker"))
            return false;
        if (!word(P, &v, &vn) || !(word_is(v, vn, "plain") || word_is(v, vn, "halo")))
            return fail(P, v, "expected plain or halo");
        c->struct_layout = v[0] == 'h' ? GSVM_HKS_STRUCTS_HALO : GSVM_HKS_STRUCTS_PLAIN;
        P->in_structs = true;
        return expect_end(P);
    }
    if (IS(".struct") || IS(".base") || IS(".slot")) {
        if (!P->in_structs)
            return fail(P, w, "%.*s outside .structs", (int)n, w);
        if (c->struct_marker != 1)
            return fail(P, w, "structures need the block marker 1");
        if (IS(".struct")) {
            if (!grow(P, (void **)&c->structs, &P->cap_structs, c->nstructs, sizeof *c->structs))
                return false;
            gsvm_hks_struct *s = &c->structs[c->nstructs++];
            memset(s, 0, sizeof *s);
            P->cap_slots = P->cap_bases = 0;
            uint64_t maxs = c->size_size == 8 ? UINT64_MAX : UINT32_MAX;
            if (!string(P, &s->name, "structure name") || !unsigned_in(P, &s->id, maxs, "id") ||
                !u32(P, &s->x, "field") || !u32(P, &s->y, "field"))
                return false;
            if (s->name.size == 0)
                return fail(P, NULL, "a structure name cannot be null (null ends the list)");
            return expect_end(P);
        }
        if (!c->nstructs)
            return fail(P, w, "%.*s before the first .struct", (int)n, w);
        gsvm_hks_struct *s = &c->structs[c->nstructs - 1];
        if (IS(".base")) {
            if (c->struct_layout != GSVM_HKS_STRUCTS_HALO)
                return fail(P, w, ".base needs the halo layout");
            if (s->nslots)
                return fail(P, w, ".base after .slot");
            if (!grow(P, (void **)&s->bases, &P->cap_bases, s->nbases, sizeof *s->bases))
                return false;
            if (!string(P, &s->bases[s->nbases], "base structure name"))
                return false;
            s->nbases++;
            return expect_end(P);
        }
        if (!grow(P, (void **)&s->slots, &P->cap_slots, (size_t)s->nslots, sizeof *s->slots))
            return false;
        gsvm_hks_slot *sl = &s->slots[s->nslots];
        memset(sl, 0, sizeof *sl);
        uint64_t maxs = c->size_size == 8 ? UINT64_MAX : UINT32_MAX;
        if (!string(P, &sl->name, "slot name")) 
            return false;
        s->nslots++;
        if (!unsigned_in(P, &sl->a, maxs, "slot field") || !u32(P, &sl->b, "slot field") ||
            !u32(P, &sl->c, "slot field") || !unsigned_in(P, &sl->d, maxs, "slot field"))
            return false;
        return expect_end(P);
    }
    if (IS(".endstructs")) {
        if (!P->in_structs)
            return fail(P, w, ".endstructs without .structs");
        P->in_structs = false;
        P->structs_done = true;
        return expect_end(P);
    }
    /* everything below belongs to a function */
    if (!need_function(P, "this directive"))
        return false;
    gsvm_hks_proto *f = &fb->f;
    gsvm_hks_debug *d = &f->debug;
    if (IS(".end")) {
        if (!expect_end(P))
            return false;
        return finish_function(P);
    }
    if (IS(".upvalues"))
        return u32(P, &f->nups, "upvalue count") && expect_end(P);
    if (IS(".params"))
        return u32(P, &f->nparams, "parameter count") && expect_end(P);
    if (IS(".maxstack"))
        return u32(P, &f->maxstack, "max stack size") && expect_end(P);
    if (IS(".vararg")) {
        uint64_t v = 0;
        if (!unsigned_in(P, &v, 255, "vararg flags"))
            return false;
        f->flags = (uint8_t)v;
        return expect_end(P);
    }
    if (IS(".pad")) {
        uint8_t *tmp = NULL;
        size_t np = 0, cap = 0;
        bool ok = hexbytes(P, &tmp, &np, &cap);
        if (ok && np > 3)
            ok = fail(P, w, "at most 3 alignment bytes");
        if (ok) {
            memcpy(f->pad, tmp, np);
            f->npad = (uint8_t)np;
        }
        free(tmp);
        return ok;
    }
    if (IS(".code")) {
        fb->section = SEC_CODE;
        return expect_end(P);
    }
    if (IS(".constants")) {
        fb->section = SEC_CONSTS;
        return expect_end(P);
    }
    if (IS(".debug")) {
        fb->section = SEC_NONE;
        if (!u32(P, &d->flag, "debug flag"))
            return false;
        if (d->flag == 0)
            return fail(P, NULL, ".debug 0 is written by leaving .debug out");
        return expect_end(P);
    }
    if (!(IS(".linedefined") || IS(".source") || IS(".name") || IS(".lines") || IS(".local") ||
          IS(".upvalname") || IS(".hash")))
        return fail(P, w, "unknown directive '%.*s'", (int)(n > 40 ? 40 : n), w);
    if (!d->flag)
        return fail(P, w, "%.*s needs .debug first", (int)(n > 20 ? 20 : n), w);
    if (IS(".hash"))
        return u32(P, &d->hash, "debug hash") && expect_end(P);
    if (IS(".linedefined"))
        return u32(P, &d->linedefined, "line defined") &&
               u32(P, &d->lastlinedefined, "last line defined") && expect_end(P);
    if (IS(".source")) {
        free(d->source.data);
        return string(P, &d->source, "source name") && expect_end(P);
    }
    if (IS(".name")) {
        free(d->name.data);
        return string(P, &d->name, "function name") && expect_end(P);
    }
    if (IS(".lines")) {
        /* the common case, plain decimals of up to 9 digits separated by
         * one space, without the general helpers; anything else (hex, more
         * digits, other spacing) goes on below from where this stopped */
        const char *q = P->p, *e = P->end;
        while (e - q >= 2 && *q == ' ' && is_digit(q[1])) {
            const char *dq = ++q;
            uint32_t v = 0;
            while (q < e && is_digit(*q) && q - dq < 9)
                v = v * 10 + (uint32_t)(*q++ - '0');
            if (q < e && !is_ws(*q)) { /* a 10th digit, or not a plain number */
                q = dq - 1;
                break;
            }
            if (!grow(P, (void **)&d->lines, &fb->cap_lines, (size_t)d->nlines, 4))
                return false;
            d->lines[d->nlines++] = v;
        }
        P->p = q;
        while (!at_end(P)) {
            if (!grow(P, (void **)&d->lines, &fb->cap_lines, (size_t)d->nlines, 4))
                return false;
            if (!u32(P, &d->lines[d->nlines], "line number"))
                return false;
            d->nlines++;
        }
        return true;
    }
    if (IS(".local")) {
        if (!grow(P, (void **)&d->locals, &fb->cap_locals, d->nlocals, sizeof *d->locals))
            return false;
        gsvm_hks_local *l = &d->locals[d->nlocals];
        memset(l, 0, sizeof *l);
        if (!string(P, &l->name, "local name"))
            return false;
        d->nlocals++;
        return u32(P, &l->startpc, "start pc") && u32(P, &l->endpc, "end pc") && expect_end(P);
    }
    if (IS(".upvalname")) {
        if (!grow(P, (void **)&d->upnames, &fb->cap_up, d->nupnames, sizeof *d->upnames))
            return false;
        if (!string(P, &d->upnames[d->nupnames], "upvalue name"))
            return false;
        d->nupnames++;
        return expect_end(P);
    }
#undef IS
    return fail(P, w, "unknown directive '%.*s'", (int)(n > 40 ? 40 : n), w);
}

/* Finds where the line's comment starts (a ';' outside a string). */
static const char *comment_start(const char *p, const char *end)
{
    /* the common case: no quote before the first ';' */
    const char *semi = memchr(p, ';', (size_t)(end - p));
    const char *quote = memchr(p, '"', (size_t)((semi ? semi : end) - p));
    if (!quote)
        return semi ? semi : end;
    p = quote;
    bool in_str = false;
    for (; p < end; p++) {
        if (in_str) {
            if (*p == '\\' && p + 1 < end)
                p++;
            else if (*p == '"')
                in_str = false;
        } else if (*p == '"') {
            in_str = true;
        } else if (*p == ';') {
            return p;
        }
    }
    return end;
}

gsvm_status gsvm_hks_asm(const char *text, size_t len, const char *file, gsvm_hks_chunk **out,
                         gsvm_error *err)
{
    *out = NULL;
    gsvm_error_clear(err);
    parser *P = calloc(1, sizeof *P);
    if (!P)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    P->file = file;
    P->err = err;
    P->c = calloc(1, sizeof *P->c);
    if (!P->c) {
        free(P);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    }
    P->c->profile = GSVM_HKS_PROFILE_BASE;
    P->c->struct_layout = GSVM_HKS_STRUCTS_PLAIN;
    ophash_build(P);
    const char *p = text, *tend = text + len;
    bool ok = true;
    while (ok && p < tend) {
        const char *nl = memchr(p, '\n', (size_t)(tend - p));
        const char *lend = nl ? nl : tend;
        P->line++;
        P->line_start = p;
        P->p = p;
        P->end = comment_start(p, lend);
        skip_ws(P);
        if (P->p < P->end) {
            if (*P->p == '.' && P->p == p) {
                ok = directive(P);
            } else {
                fbuild *fb = cur(P);
                if (!fb || fb->section == SEC_NONE)
                    ok = fail(P, NULL, "an instruction or constant line outside .code / .constants");
                else if (fb->section == SEC_CODE)
                    ok = code_line(P, fb);
                else
                    ok = const_line(P, fb);
            }
        }
        p = nl ? nl + 1 : tend;
    }
    if (ok) {
        P->line++;
        P->line_start = P->p = P->end = tend;
        if (!P->have_header)
            ok = fail(P, NULL, "expected .header");
        else if (P->depth)
            ok = fail(P, NULL, "unexpected end of listing: %d function(s) lack .end", P->depth);
        else if (!P->have_main)
            ok = fail(P, NULL, "the listing has no .function");
        else if (P->in_structs)
            ok = fail(P, NULL, "unexpected end of listing: .structs lacks .endstructs");
        else if (P->c->has_structs && !P->structs_done)
            ok = fail(P, NULL, "the build flags include structures but no .structs block follows");
    }
    gsvm_hks_chunk *c = P->c;
    if (!ok) {
        while (P->depth > 0) {
            hks_proto_free(&cur(P)->f);
            P->depth--;
        }
        free(P);
        gsvm_hks_chunk_free(c);
        return err && err->status != GSVM_OK ? err->status : GSVM_ERR_INPUT;
    }
    if (!c->has_structs)
        c->struct_marker = 0;
    free(P);
    *out = c;
    return GSVM_OK;
}
