/* The lossless listing: reads like `luac -l`, and `gsvm hks asm` turns it
 * back into the same bytes.  Directives start with '.', instruction and
 * constant lines with a tab, comments with ';'.  Everything after ';' is
 * decoration (constant values, jump targets, owners of DATA words). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "hks/isa.h"
#include "hks/internal.h"
#include "hks/text.h"

/* The per-function annotation text of each constant (as shown in comments),
 * computed once per function so that the code loop only copies bytes.  Its
 * buffers live in the printer and are reused from function to function. */
typedef struct kcache {
    gsvm_buf text;
    size_t *at; /* nk + 1 offsets into text */
    size_t cap_at;
} kcache;

/* An opcode's column as printed: the name padded to 14 columns, then a tab. */
typedef struct padded_name {
    char text[32]; /* the longest name (INTRINSIC_INDEX_LITERAL) has 23 */
    uint8_t len;
} padded_name;

typedef struct printer {
    gsvm_buf b;
    const gsvm_hks_chunk *c;
    kcache kc;
    uint8_t iop_of[128];                /* encoded opcode -> internal id, for the profile */
    padded_name names[HKS_I_COUNT];
    char path[2048]; /* 129 levels of "/" + 10 digits fit */
} printer;

/* Appends with the room check inline: the listing makes millions of small
 * appends, and a call into buf.c for each costs more than the copy. */
static inline void put_n(printer *P, const char *s, size_t n)
{
    if (P->b.cap - P->b.len <= n && !gsvm_buf_reserve(&P->b, n))
        return;
    memcpy(P->b.data + P->b.len, s, n);
    P->b.len += n;
}
/* strlen of a literal folds to a constant once this is inlined */
static inline void puts_(printer *P, const char *s) { put_n(P, s, strlen(s)); }
static inline void putc_(printer *P, int ch)
{
    if (P->b.len + 1 < P->b.cap)
        P->b.data[P->b.len++] = (uint8_t)ch;
    else
        gsvm_buf_putc(&P->b, ch);
}
static inline void putu(printer *P, uint64_t v)
{
    if (v > UINT32_MAX || (P->b.cap - P->b.len <= 10 && !gsvm_buf_reserve(&P->b, 10))) {
        hks_put_u(&P->b, v); /* (or it sets the buffer's oom) */
        return;
    }
    P->b.len = (size_t)(gsvm_decimal_u32((char *)P->b.data + P->b.len, (uint32_t)v) - (char *)P->b.data);
}

static void put_hex32(printer *P, uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[8];
    for (int i = 7; i >= 0; i--, v >>= 4)
        tmp[i] = hex[v & 15];
    put_n(P, tmp, 8);
}

static void hexlines(printer *P, const char *directive, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 32) {
        puts_(P, directive);
        putc_(P, ' ');
        hks_put_hex(&P->b, p + i, n - i < 32 ? n - i : 32);
        putc_(P, '\n');
    }
}

/* Bytes that print as they are on one line of a listing (no control bytes). */
static bool plain_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

const char *const hks_std_types[13] = {"TNIL",      "TBOOLEAN",  "TLIGHTUSERDATA", "TNUMBER",
                                          "TSTRING",   "TTABLE",    "TFUNCTION",      "TUSERDATA",
                                          "TTHREAD",   "TIFUNCTION", "TCFUNCTION",    "TUI64",
                                          "TSTRUCT"};

bool hks_types_standard(const gsvm_hks_chunk *c)
{
    if (c->ntypes != 13)
        return false;
    for (uint32_t i = 0; i < 13; i++) {
        const gsvm_hks_type_entry *t = &c->types[i];
        if (t->id != i || t->len != strlen(hks_std_types[i]) + 1 ||
            memcmp(t->name, hks_std_types[i], t->len) != 0)
            return false;
    }
    return true;
}

static void put_const_value(printer *P, const gsvm_hks_const *k, size_t limit)
{
    switch (k->type) {
    case GSVM_HKS_K_NIL: puts_(P, "nil"); break;
    case GSVM_HKS_K_BOOL:
        puts_(P, k->b == 0 ? "false" : k->b == 1 ? "true" : "");
        if (k->b > 1)
            putu(P, k->b);
        break;
    case GSVM_HKS_K_LUD: {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "0x%llxhi", (unsigned long long)k->bits);
        puts_(P, tmp);
        break;
    }
    case GSVM_HKS_K_NUMBER:
        hks_put_number(&P->b, k->bits, P->c->size_number, P->c->integral);
        break;
    case GSVM_HKS_K_STRING: hks_put_str(&P->b, &k->s, limit); break;
    case GSVM_HKS_K_UI64: {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "0x%llxull", (unsigned long long)k->bits);
        puts_(P, tmp);
        break;
    }
    }
}

static const char *const kind_type[] = {"nil", "boolean", "lightuserdata", "number", "string"};
static const uint8_t kind_type_len[] = {3, 7, 13, 6, 6};


/* String constants longer than this are cut in annotations.  (A stored
 * string of KC_LIMIT bytes or fewer is never cut: its text serves the
 * .constants section as well.) */
enum { KC_LIMIT = 40, KC_COPY = 64 };

static bool kcache_build(printer *P, const gsvm_hks_proto *f, kcache *kc)
{
    kc->text.len = 0;
    if ((size_t)f->nk + 1 > kc->cap_at) {
        size_t *at = realloc(kc->at, ((size_t)f->nk + 1) * sizeof *kc->at);
        if (!at)
            return false;
        kc->at = at;
        kc->cap_at = (size_t)f->nk + 1;
    }
    gsvm_buf saved = P->b;
    P->b = kc->text;
    for (uint32_t i = 0; i < f->nk; i++) {
        kc->at[i] = P->b.len;
        put_const_value(P, &f->k[i], KC_LIMIT);
    }
    kc->at[f->nk] = P->b.len;
    /* slack after the last text, so that w_k may copy a fixed KC_COPY bytes */
    if (P->b.cap - P->b.len <= KC_COPY)
        gsvm_buf_reserve(&P->b, KC_COPY);
    kc->text = P->b;
    P->b = saved;
    return !kc->text.oom;
}

/* Writers on a pointer into space already reserved. */
static inline char *w_u(char *o, uint32_t v) { return gsvm_decimal_u32(o, v); }

static inline char *w_i(char *o, int64_t v)
{
    if (v < 0) {
        *o++ = '-';
        return w_u(o, (uint32_t)(-v));
    }
    return w_u(o, (uint32_t)v);
}

static inline char *w_s(char *o, const char *s, size_t n)
{
    memcpy(o, s, n);
    return o + n;
}

/* One operand field, in luac's convention: constants as -1-index. */
static inline char *w_field(char *o, unsigned kind, uint32_t v, bool is_c)
{
    if (kind == HKS_K)
        return w_i(o, -1 - (int64_t)v);
    if (kind == HKS_RK && is_c && v >= 256)
        return w_i(o, -1 - (int64_t)(v - 256));
    return w_u(o, v);
}

static char *w_k(char *o, const kcache *kc, const gsvm_hks_proto *f, uint32_t idx, bool *first)
{
    o = *first ? w_s(o, "\t; ", 3) : w_s(o, " ", 1);
    *first = false;
    if (idx >= f->nk)
        return w_s(o, "<no such constant>", 18);
    const char *t = (const char *)kc->text.data + kc->at[idx];
    size_t n = kc->at[idx + 1] - kc->at[idx];
    if (n > KC_COPY)
        return w_s(o, t, n);
    memcpy(o, t, KC_COPY); /* a fixed size copies inline; the line has room for it */
    return o + n;
}

/* Room for one line: operands and at most two constant annotations of up to
 * 40 escaped bytes (4 bytes each) plus "...". */
enum { LINE_ROOM = 1024 };

/* Lists the code; the constants' text is in P->kc already. */
static void list_code(printer *P, const gsvm_hks_proto *f)
{
    const gsvm_hks_chunk *c = P->c;
    uint64_t owner_pc = 0, owned_left = 0;
    const hks_opinfo *owner = NULL;
    unsigned owner_iop = 0;
    bool have_lines = hks_debug_kind(c->format, c->debug_hash, f->debug.flag) == HKS_DBG_FULL &&
                      f->debug.nlines == f->ncode;
    const kcache *kc = &P->kc;
    size_t plen = strlen(P->path);
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        /* inline check: the call into buf.c costs more than the rest of a short line */
        if (P->b.cap - P->b.len <= LINE_ROOM + plen && !gsvm_buf_reserve(&P->b, LINE_ROOM + plen))
            break;
        char *o = (char *)P->b.data + P->b.len;
        uint32_t w = f->code[pc];
        unsigned op = GSVM_HKS_OP(w);
        unsigned iop = P->iop_of[op];
        *o++ = '\t';
        o = w_u(o, (uint32_t)pc);
        o = w_s(o, "\t[", 2);
        if (have_lines)
            o = w_u(o, f->debug.lines[pc]);
        else
            *o++ = '-';
        o = w_s(o, "]\t", 2);
        if (iop == HKS_NO_OP) {
            o += snprintf(o, 128, ".word 0x%08x\t; opcode %u is not in the %s table\n", w, op,
                          gsvm_hks_profile_name(c->profile));
            P->b.len = (size_t)(o - (char *)P->b.data);
            continue;
        }
        const hks_opinfo *oi = &hks_ops[iop];
        /* a fixed-size copy of the padded name; only its length counts */
        memcpy(o, P->names[iop].text, sizeof P->names[iop].text);
        o += P->names[iop].len;
        uint32_t A = GSVM_HKS_A(w);
        bool first = true;
        if (oi->mode == HKS_ABC) {
            uint32_t B = GSVM_HKS_B(w), C = GSVM_HKS_C(w);
            int n = 3;
            if (oi->c == HKS_N && C == 0) {
                n = 2;
                if (oi->b == HKS_N && B == 0)
                    n = 1;
            }
            o = w_field(o, oi->a, A, false);
            if (n >= 2) {
                *o++ = ' ';
                o = w_field(o, oi->b, B, false);
            }
            if (n >= 3) {
                *o++ = ' ';
                o = w_field(o, oi->c, C, true);
            }
            if (oi->b == HKS_K)
                o = w_k(o, kc, f, B, &first);
            if (oi->c == HKS_K)
                o = w_k(o, kc, f, C, &first);
            if (oi->c == HKS_RK && C >= 256)
                o = w_k(o, kc, f, C - 256, &first);
            if (oi->b == HKS_V && f->debug.flag && B < f->debug.nupnames) {
                P->b.len = (size_t)(o - (char *)P->b.data);
                puts_(P, "\t; ");
                hks_put_str(&P->b, &f->debug.upnames[B], 40);
                if (!gsvm_buf_reserve(&P->b, LINE_ROOM))
                    break;
                o = (char *)P->b.data + P->b.len;
                first = false;
            }
        } else if (oi->mode == HKS_ABX) {
            uint32_t Bx = GSVM_HKS_BX(w);
            o = w_field(o, oi->a, A, false);
            *o++ = ' ';
            o = w_field(o, oi->b, Bx, false);
            if (oi->b == HKS_K)
                o = w_k(o, kc, f, Bx, &first);
            if (oi->b == HKS_P) {
                o = w_s(o, "\t; function ", 12);
                if (plen <= 32) { /* fixed size again (P->path has room to read) */
                    memcpy(o, P->path, 32);
                    o += plen;
                } else {
                    o = w_s(o, P->path, plen);
                }
                *o++ = '/';
                o = w_u(o, Bx);
                first = false;
            }
        } else {
            int32_t sbx = GSVM_HKS_SBX(w);
            if (!(oi->a == HKS_N && A == 0)) {
                o = w_field(o, oi->a, A, false);
                *o++ = ' ';
            }
            o = w_i(o, sbx);
            o = w_s(o, "\t; to ", 6);
            o = w_i(o, (int64_t)pc + 1 + sbx);
            first = false;
        }
        if (iop == HKS_I_DATA && owned_left > 0) {
            o = first ? w_s(o, "\t; ", 3) : w_s(o, " ", 1);
            o = w_s(o, "of ", 3);
            /* the padded name at a fixed size: a variable-size copy here
             * compiled to `rep movsq`, slow to start for a few bytes */
            memcpy(o, P->names[owner_iop].text, sizeof P->names[owner_iop].text);
            o += owner->namelen;
            o = w_s(o, " at ", 4);
            o = w_u(o, (uint32_t)owner_pc);
            owned_left--;
        } else if (iop != HKS_I_DATA) {
            owned_left = oi->data ? hks_data_words(f, iop, w) : 0;
            owner = oi;
            owner_iop = iop;
            owner_pc = pc;
        }
        *o++ = '\n';
        P->b.len = (size_t)(o - (char *)P->b.data);
    }
}

static void list_function(printer *P, const gsvm_hks_proto *f)
{
    const gsvm_hks_debug *d = &f->debug;
    /* the luac-style summary, as comments */
    hks_dbg_kind kind = hks_debug_kind(P->c->format, P->c->debug_hash, d->flag);
    puts_(P, "\n; function ");
    puts_(P, P->path);
    if (kind == HKS_DBG_FULL || kind == HKS_DBG_PROFILE) {
        puts_(P, " <");
        hks_put_str(&P->b, &d->source, 60);
        putc_(P, ':');
        putu(P, d->linedefined);
        putc_(P, ',');
        putu(P, d->lastlinedefined);
        putc_(P, '>');
        if (d->name.size) {
            puts_(P, " ");
            hks_put_str(&P->b, &d->name, 60);
        }
    }
    /* printf costs ~2k instructions a call: plain appends on this path */
    static const char hex[] = "0123456789abcdef";
    char off[20];
    int no = 0;
    uint64_t v = f->code_offset;
    do {
        off[no++] = hex[v & 15];
        v >>= 4;
    } while (v);
    puts_(P, " (");
    putu(P, f->ncode);
    puts_(P, " words at 0x");
    while (no)
        putc_(P, off[--no]);
    puts_(P, ")\n; ");
    putu(P, f->nparams);
    puts_(P, (f->flags & 2) ? "+ params, " : " params, ");
    putu(P, f->maxstack);
    puts_(P, " slots, ");
    putu(P, f->nups);
    puts_(P, " upvalues, ");
    putu(P, d->flag ? d->nlocals : 0);
    puts_(P, " locals, ");
    putu(P, f->nk);
    puts_(P, " constants, ");
    putu(P, f->np);
    puts_(P, " functions\n.function ");
    puts_(P, P->path);
    puts_(P, "\n.upvalues ");
    putu(P, f->nups);
    puts_(P, "\n.params ");
    putu(P, f->nparams);
    puts_(P, "\n.vararg 0x");
    putc_(P, hex[f->flags >> 4]);
    putc_(P, hex[f->flags & 15]);
    puts_(P, "\n.maxstack ");
    putu(P, f->maxstack);
    putc_(P, '\n');
    bool nonzero = false;
    for (int i = 0; i < f->npad; i++)
        nonzero |= f->pad[i] != 0;
    if (nonzero) {
        puts_(P, ".pad ");
        hks_put_hex(&P->b, f->pad, f->npad);
        puts_(P, "\t; alignment bytes as found\n");
    }
    puts_(P, ".code\n");
    /* the code's annotations need the constants' text: made once here */
    bool have_kc = kcache_build(P, f, &P->kc);
    if (!have_kc)
        P->b.oom = true;
    else
        list_code(P, f);
    puts_(P, ".constants\n");
    for (uint32_t i = 0; i < f->nk && have_kc; i++) {
        const gsvm_hks_const *k = &f->k[i];
        putc_(P, '\t');
        putu(P, i);
        putc_(P, '\t');
        if (k->type <= 4)
            put_n(P, kind_type[k->type], kind_type_len[k->type]);
        else
            puts_(P, "ui64");
        if (k->type != GSVM_HKS_K_NIL) {
            putc_(P, '\t');
            if (k->type == GSVM_HKS_K_STRING && k->s.size > KC_LIMIT)
                put_const_value(P, k, 0); /* may have been cut in the annotation text */
            else
                put_n(P, (const char *)P->kc.text.data + P->kc.at[i],
                      P->kc.at[i + 1] - P->kc.at[i]);
        }
        putc_(P, '\n');
    }
    if (kind == HKS_DBG_HASH) {
        puts_(P, ".debug ");
        putu(P, d->flag);
        puts_(P, "\t; only a hash (debug info kept elsewhere)\n.hash 0x");
        put_hex32(P, d->hash);
        putc_(P, '\n');
    } else if (d->flag) {
        puts_(P, ".debug ");
        putu(P, d->flag);
        if (kind == HKS_DBG_PROFILE)
            puts_(P, "\t; names and lines defined only");
        puts_(P, "\n.linedefined ");
        putu(P, d->linedefined);
        putc_(P, ' ');
        putu(P, d->lastlinedefined);
        puts_(P, "\n.source ");
        hks_put_str(&P->b, &d->source, 0);
        puts_(P, "\n.name ");
        hks_put_str(&P->b, &d->name, 0);
        putc_(P, '\n');
        for (uint64_t i = 0; i < d->nlines; i += 16) {
            /* 16 numbers of at most 10 digits per line */
            if (!gsvm_buf_reserve(&P->b, 16 * 11 + 8))
                break;
            char *o = (char *)P->b.data + P->b.len;
            o = w_s(o, ".lines", 6);
            for (uint64_t j = i; j < d->nlines && j < i + 16; j++) {
                *o++ = ' ';
                o = w_u(o, d->lines[j]);
            }
            *o++ = '\n';
            P->b.len = (size_t)(o - (char *)P->b.data);
        }
        for (uint32_t i = 0; i < d->nlocals; i++) {
            puts_(P, ".local ");
            hks_put_str(&P->b, &d->locals[i].name, 0);
            if (!gsvm_buf_reserve(&P->b, 32))
                break;
            char *o = (char *)P->b.data + P->b.len;
            *o++ = ' ';
            o = w_u(o, d->locals[i].startpc);
            *o++ = ' ';
            o = w_u(o, d->locals[i].endpc);
            *o++ = '\n';
            P->b.len = (size_t)(o - (char *)P->b.data);
        }
        for (uint32_t i = 0; i < d->nupnames; i++) {
            puts_(P, ".upvalname ");
            hks_put_str(&P->b, &d->upnames[i], 0);
            putc_(P, '\n');
        }
    }
    size_t plen = strlen(P->path);
    for (uint32_t i = 0; i < f->np; i++) {
        if (plen + 12 >= sizeof P->path)
            break; /* the loader stops nesting long before this */
        char *o = P->path + plen;
        *o++ = '/';
        o = w_u(o, i);
        *o = 0;
        list_function(P, &f->p[i]);
    }
    P->path[plen] = 0;
    puts_(P, ".end\t; function ");
    puts_(P, P->path);
    putc_(P, '\n');
}

/* About how many bytes a function's listing takes (from the corpus: ~40 per
 * instruction line, ~25 per constant, ~7 per line number, ~30 per local). */
static size_t size_guess(const gsvm_hks_proto *f, int depth)
{
    size_t n = 400 + (size_t)f->ncode * 40 + (size_t)f->nk * 25 + (size_t)f->debug.nlines * 7 +
               (size_t)f->debug.nlocals * 30;
    for (uint32_t i = 0; i < f->np && depth < 200; i++)
        n += size_guess(&f->p[i], depth + 1);
    return n;
}

/* Per-listing lookup tables: the profile's opcode map and the padded names. */
static void printer_tables(printer *P)
{
    for (unsigned op = 0; op < 128; op++)
        P->iop_of[op] = (uint8_t)hks_decode_op(P->c->profile, op);
    for (unsigned i = 0; i < HKS_I_COUNT; i++) {
        padded_name *pn = &P->names[i];
        const hks_opinfo *oi = &hks_ops[i];
        _Static_assert(sizeof pn->text > 14 + 1, "room for the padding and the tab");
        size_t n = oi->namelen < sizeof pn->text - 1 ? oi->namelen : sizeof pn->text - 2;
        memset(pn->text, ' ', sizeof pn->text);
        memcpy(pn->text, oi->name, n);
        if (n < 14)
            n = 14;
        pn->text[n] = '\t';
        pn->len = (uint8_t)(n + 1);
    }
}

gsvm_status gsvm_hks_list(const gsvm_hks_chunk *c, char **out, size_t *len, gsvm_error *err)
{
    printer P;
    memset(&P, 0, sizeof P);
    gsvm_buf_init(&P.b);
    P.c = c;
    printer_tables(&P);
    /* one allocation of about the final size, rather than a dozen doublings
     * that copy the text so far each time */
    if (!gsvm_buf_reserve(&P.b, size_guess(&c->main, 0) + c->nprefix * 3 + c->ntrailing * 3 + 4096))
        P.b.oom = false; /* only a hint: the buffer still grows as needed */
    char tmp[256];
    puts_(&P, "; HavokScript chunk, listed by gsvm hks (lossless: gsvm hks asm rebuilds it byte "
              "for byte)\n");
    snprintf(tmp, sizeof tmp,
             ".header version=0x%02x format=%u endian=%s int=%u size_t=%u instruction=%u "
             "number=%u integral=%u flags=0x%02x referenced=%u\n",
             c->version, c->format, c->endian ? "little" : "big", c->size_int, c->size_size,
             c->size_instr, c->size_number, c->integral, c->build_flags, c->referenced);
    if (c->format == 14 && c->debug_hash) /* (the newline goes after the key) */
        snprintf(tmp + strlen(tmp) - 1, 32, " debug=hash\n");
    puts_(&P, tmp);
    snprintf(tmp, sizeof tmp, "; build flags:%s%s%s%s%s\n", (c->build_flags & 1) ? " memoization" : "",
             (c->build_flags & 2) ? " structures" : "", (c->build_flags & 4) ? " self" : "",
             (c->build_flags & 8) ? " doubles" : "", (c->build_flags & 16) ? " native-int" : "");
    puts_(&P, tmp);
    puts_(&P, ".profile ");
    puts_(&P, gsvm_hks_profile_name(c->profile));
    putc_(&P, '\n');
    hexlines(&P, ".prefix", c->prefix, c->nprefix);
    if (hks_types_standard(c)) {
        puts_(&P, ".types standard\t; the 13 types TNIL..TSTRUCT\n");
    } else {
        snprintf(tmp, sizeof tmp, ".types %u\n", c->ntypes);
        puts_(&P, tmp);
        for (uint32_t i = 0; i < c->ntypes; i++) {
            gsvm_hks_str s = {c->types[i].len, c->types[i].name};
            snprintf(tmp, sizeof tmp, ".type %u ", c->types[i].id);
            puts_(&P, tmp);
            hks_put_str(&P.b, &s, 0);
            putc_(&P, '\n');
        }
    }
    strcpy(P.path, "0");
    list_function(&P, &c->main);
    if (c->has_structs) {
        snprintf(tmp, sizeof tmp, "\n.structs %u %s\n", c->struct_marker,
                 c->struct_layout == GSVM_HKS_STRUCTS_HALO ? "halo" : "plain");
        puts_(&P, tmp);
        for (uint32_t i = 0; i < c->nstructs; i++) {
            const gsvm_hks_struct *s = &c->structs[i];
            puts_(&P, ".struct ");
            hks_put_str(&P.b, &s->name, 0);
            snprintf(tmp, sizeof tmp, " %llu %u %u\t; id, two ints; %llu slots (name id type ? position)\n",
                     (unsigned long long)s->id, s->x, s->y, (unsigned long long)s->nslots);
            puts_(&P, tmp);
            for (uint32_t j = 0; j < s->nbases; j++) {
                puts_(&P, ".base ");
                hks_put_str(&P.b, &s->bases[j], 0);
                putc_(&P, '\n');
            }
            for (uint64_t j = 0; j < s->nslots; j++) {
                const gsvm_hks_slot *sl = &s->slots[j];
                puts_(&P, ".slot ");
                hks_put_str(&P.b, &sl->name, 0);
                snprintf(tmp, sizeof tmp, " %llu %u %u %llu", (unsigned long long)sl->a, sl->b,
                         sl->c, (unsigned long long)sl->d);
                puts_(&P, tmp);
                /* the second field reads as a type tag (3 number, 4 string,
                 * 5 table, 11 ui64 in the corpus): name it, when the name
                 * is plain text (a newline in it would end the comment) */
                if (sl->b < c->ntypes && c->types[sl->b].len > 1 &&
                    plain_text(c->types[sl->b].name, c->types[sl->b].len - 1)) {
                    puts_(&P, "\t; ");
                    gsvm_buf_append(&P.b, c->types[sl->b].name, c->types[sl->b].len - 1);
                }
                putc_(&P, '\n');
            }
        }
        puts_(&P, ".endstructs\n");
    }
    if (c->ntrailing) {
        snprintf(tmp, sizeof tmp, "\n; %zu bytes after the chunk\n", c->ntrailing);
        puts_(&P, tmp);
        hexlines(&P, ".trailing", c->trailing, c->ntrailing);
    }
    free(P.kc.at);
    gsvm_buf_free(&P.kc.text);
    if (P.b.oom) {
        gsvm_buf_free(&P.b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    gsvm_buf_cstr(&P.b);
    *out = (char *)gsvm_buf_take(&P.b, len);
    return GSVM_OK;
}
