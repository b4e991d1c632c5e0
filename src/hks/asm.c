/* The assembler: reads a listing (see listing.c) back into a chunk.  Every
 * error names the listing's line:column and what was expected there. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/asm.h"

/* ------------------------------------------------------------ sections */

static fbuild *cur(parser *P) { return P->depth ? &P->stack[P->depth - 1] : NULL; }

static bool need_function(parser *P, const char *directive)
{
    if (!cur(P))
        return asm_fail(P, NULL, "%s outside a .function", directive);
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
        while (P->p < P->end && asm_hexval(*P->p) >= 0 && digits < 16) {
            v = v * 16 + (uint64_t)asm_hexval(*P->p++);
            digits++;
        }
        if (digits != c->size_number * 2)
            return asm_fail(P, s, "expected %d hex digits after bits:", c->size_number * 2);
        *bits = v;
        return true;
    }
    if (c->integral) {
        int64_t v = 0;
        if (!asm_integer(P, &v, "an integer number"))
            return false;
        if (c->size_number == 4 && (v < INT32_MIN || v > INT32_MAX))
            return asm_fail(P, s, "number %lld does not fit 4 bytes", (long long)v);
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
        return asm_fail(P, s, "expected a number");
    return true;
}

static bool const_line(parser *P, fbuild *fb)
{
    const char *w;
    size_t n;
    skip_ws(P);
    if (P->p < P->end && *P->p >= '0' && *P->p <= '9') {
        int64_t idx;
        if (!asm_integer(P, &idx, "constant index"))
            return false;
    }
    if (!asm_word(P, &w, &n))
        return asm_fail(P, NULL, "expected a constant type");
    if (!asm_grow(P, (void **)&fb->f.k, &fb->cap_k, fb->f.nk, sizeof(gsvm_hks_const)))
        return false;
    if (fb->f.nk == UINT32_MAX)
        return asm_fail(P, w, "too many constants");
    gsvm_hks_const *k = &fb->f.k[fb->f.nk];
    memset(k, 0, sizeof *k);
    const char *vs;
    if (asm_word_is(w, n, "nil")) {
        k->type = GSVM_HKS_K_NIL;
        if (!asm_at_end(P)) {
            if (!asm_word(P, &vs, &n) || !asm_word_is(vs, n, "nil"))
                return asm_fail(P, vs, "expected nil");
        }
    } else if (asm_word_is(w, n, "boolean")) {
        k->type = GSVM_HKS_K_BOOL;
        skip_ws(P);
        const char *save = P->p;
        if (!asm_word(P, &vs, &n))
            return asm_fail(P, NULL, "expected true, false or a byte");
        if (asm_word_is(vs, n, "true")) {
            k->b = 1;
        } else if (asm_word_is(vs, n, "false")) {
            k->b = 0;
        } else {
            uint64_t v = 0;
            P->p = save;
            if (!asm_unsigned_in(P, &v, 255, "a boolean byte"))
                return false;
            k->b = (uint8_t)v;
        }
    } else if (asm_word_is(w, n, "lightuserdata") || asm_word_is(w, n, "ui64")) {
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
            while (P->p < P->end && asm_hexval(*P->p) >= 0 && d < 17)
                u = u * 16 + (uint64_t)asm_hexval(*P->p++), d++;
            if (d == 0 || d > 16)
                return asm_fail(P, s, "expected up to 16 hex digits");
            k->bits = u;
        } else {
            if (!asm_integer(P, &v, "a value"))
                return false;
            k->bits = (uint64_t)v;
        }
        const char *suffix = lud ? "hi" : "ull";
        size_t sl = strlen(suffix);
        if ((size_t)(P->end - P->p) >= sl && memcmp(P->p, suffix, sl) == 0)
            P->p += sl;
        if (lud && P->c->size_size == 4 && k->bits > UINT32_MAX)
            return asm_fail(P, s, "light userdata does not fit a 4-byte size_t");
    } else if (asm_word_is(w, n, "number")) {
        k->type = GSVM_HKS_K_NUMBER;
        if (!number_value(P, &k->bits))
            return false;
    } else if (asm_word_is(w, n, "string")) {
        k->type = GSVM_HKS_K_STRING;
        if (!asm_string(P, &k->s, "a string constant"))
            return false;
    } else {
        return asm_fail(P, w, "unknown constant type '%.*s'; expected nil, boolean, lightuserdata, "
                          "number, string or ui64",
                    (int)(n > 40 ? 40 : n), w);
    }
    fb->f.nk++;
    return asm_expect_end(P);
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
    while (!asm_at_end(P)) {
        const char *k = P->p;
        while (P->p < P->end && *P->p != '=' && *P->p != ' ' && *P->p != '\t')
            P->p++;
        size_t kl = (size_t)(P->p - k);
        if (P->p >= P->end || *P->p != '=')
            return asm_fail(P, k, "expected key=value");
        P->p++;
        int i;
        for (i = 0; i < 10; i++)
            if (asm_word_is(k, kl, keys[i]))
                break;
        if (i == 10 && asm_word_is(k, kl, "debug")) { /* optional: the format-14 hash form */
            const char *w;
            size_t n;
            asm_word(P, &w, &n);
            if (!asm_word_is(w, n, "hash"))
                return asm_fail(P, w, "debug= must be hash (debug flag 1 is only a hash)");
            c->debug_hash = true;
            continue;
        }
        if (i == 10)
            return asm_fail(P, k, "unknown header key '%.*s'", (int)(kl > 20 ? 20 : kl), k);
        if (i == 2) {
            const char *w;
            size_t n;
            asm_word(P, &w, &n);
            if (asm_word_is(w, n, "big"))
                c->endian = 0;
            else if (asm_word_is(w, n, "little"))
                c->endian = 1;
            else
                return asm_fail(P, w, "endian must be big or little");
        } else {
            uint64_t v = 0;
            if (!asm_unsigned_in(P, &v, 255, keys[i]))
                return false;
            *fields[i] = (uint8_t)v;
        }
        seen[i] = true;
    }
    for (int i = 0; i < 10; i++)
        if (!seen[i])
            return asm_fail(P, NULL, ".header lacks %s=", keys[i]);
    if (c->version != 0x51)
        return asm_fail(P, NULL, "version must be 0x51 (Lua 5.1)");
    if (c->format != 13 && c->format != 14)
        return asm_fail(P, NULL, "format must be 13 or 14");
    if (c->size_int != 4 || c->size_instr != 4)
        return asm_fail(P, NULL, "int and instruction sizes must be 4");
    if (c->size_size != 4 && c->size_size != 8)
        return asm_fail(P, NULL, "size_t must be 4 or 8");
    if (c->size_number != 4 && c->size_number != 8)
        return asm_fail(P, NULL, "number must be 4 or 8");
    if (c->integral > 1)
        return asm_fail(P, NULL, "integral must be 0 or 1");
    if (c->debug_hash && c->format != 14)
        return asm_fail(P, NULL, "debug=hash is for format 14 (format 13 always reads it so)");
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
        return asm_fail(P, NULL, "debug info given but .debug is 0 or missing");
    if (kind == HKS_DBG_HASH && (arrays || names))
        return asm_fail(P, NULL, "in format 13 (or 14 with debug=hash), .debug 1 holds only a .hash");
    if (kind == HKS_DBG_PROFILE && arrays)
        return asm_fail(P, NULL, "in format 13, .debug 40 holds no lines, locals or upvalue names");
    if (kind != HKS_DBG_HASH && d->hash)
        return asm_fail(P, NULL, ".hash needs .debug 1 in format 13 (or 14 with debug=hash)");
    P->depth--;
    if (P->depth == 0) {
        P->c->main = fb->f;
        P->have_main = true;
    } else {
        fbuild *parent = cur(P);
        if (!asm_grow(P, (void **)&parent->f.p, &parent->cap_p, parent->f.np, sizeof(gsvm_hks_proto)))
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
    asm_word(P, &w, &n);
    fbuild *fb = cur(P);
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(w, lit, sizeof(lit) - 1) == 0)
    if (IS(".header")) {
        if (P->have_header)
            return asm_fail(P, w, "a second .header");
        return header_line(P);
    }
    if (!P->have_header)
        return asm_fail(P, w, "expected .header first");
    if (IS(".profile")) {
        const char *v;
        size_t vn;
        char tmp[16];
        if (!asm_word(P, &v, &vn) || vn >= sizeof tmp)
            return asm_fail(P, v, "expected a profile name");
        memcpy(tmp, v, vn);
        tmp[vn] = 0;
        if (!gsvm_hks_profile_parse(tmp, &c->profile) || c->profile == GSVM_HKS_PROFILE_AUTO)
            return asm_fail(P, v, "unknown profile '%s' (base, bo3 or ghosts)", tmp);
        return asm_expect_end(P);
    }
    if (IS(".prefix")) {
        if (P->have_main || P->depth)
            return asm_fail(P, w, ".prefix after the main function");
        return asm_hexbytes(P, &c->prefix, &c->nprefix, &P->cap_prefix);
    }
    if (IS(".trailing")) {
        if (!P->have_main)
            return asm_fail(P, w, ".trailing before the end of the main function");
        return asm_hexbytes(P, &c->trailing, &c->ntrailing, &P->cap_trailing);
    }
    if (IS(".types")) {
        if (c->types)
            return asm_fail(P, w, "a second .types");
        const char *v;
        size_t vn;
        skip_ws(P);
        const char *save = P->p;
        if (asm_word(P, &v, &vn) && asm_word_is(v, vn, "standard")) {
            c->ntypes = 13;
            c->types = calloc(13, sizeof *c->types);
            if (!c->types)
                return asm_fail(P, v, "out of memory");
            for (uint32_t i = 0; i < 13; i++) {
                c->types[i].id = i;
                c->types[i].len = (uint32_t)strlen(hks_std_types[i]) + 1;
                c->types[i].name = malloc(c->types[i].len + 1u);
                if (!c->types[i].name)
                    return asm_fail(P, v, "out of memory");
                memcpy(c->types[i].name, hks_std_types[i], c->types[i].len);
                c->types[i].name[c->types[i].len] = 0;
            }
            return asm_expect_end(P);
        }
        P->p = save;
        uint64_t nt = 0;
        if (!asm_unsigned_in(P, &nt, 64, "type count"))
            return false;
        c->types = calloc(nt ? (size_t)nt : 1, sizeof *c->types);
        if (!c->types)
            return asm_fail(P, NULL, "out of memory");
        c->ntypes = 0;
        /* the count is checked when the .type lines are in */
        c->struct_marker = (uint32_t)nt; /* temporarily: the announced count */
        return asm_expect_end(P);
    }
    if (IS(".type")) {
        if (!c->types || c->ntypes >= c->struct_marker)
            return asm_fail(P, w, ".type beyond the count given by .types");
        gsvm_hks_type_entry *t = &c->types[c->ntypes];
        gsvm_hks_str s;
        if (!asm_u32(P, &t->id, "type id") || !asm_string(P, &s, "type name"))
            return false;
        if (s.size > 256) {
            free(s.data);
            return asm_fail(P, NULL, "type name longer than 256 bytes");
        }
        t->len = (uint32_t)s.size;
        t->name = s.data ? s.data : calloc(1, 1);
        c->ntypes++;
        return asm_expect_end(P);
    }
    if (IS(".function")) {
        if (!c->types)
            return asm_fail(P, w, "expected .types before the first .function");
        if (c->ntypes != c->struct_marker && !types_standard(P))
            return asm_fail(P, w, ".types announced %u entries but %u .type lines follow",
                        c->struct_marker, c->ntypes);
        if (P->have_main && P->depth == 0)
            return asm_fail(P, w, "a second main function");
        if (fb && fb->section == SEC_NONE && fb->f.ncode == 0 && fb->f.nk == 0 && false)
            return false;
        if (P->depth > MAX_DEPTH)
            return asm_fail(P, w, "functions nested deeper than %d", MAX_DEPTH);
        P->depth++;
        memset(cur(P), 0, sizeof *cur(P));
        while (!asm_at_end(P))
            P->p++; /* the path is informative */
        return true;
    }
    if (IS(".structs")) {
        if (!P->have_main || P->depth)
            return asm_fail(P, w, ".structs before the end of the main function");
        if (!c->has_structs)
            return asm_fail(P, w, ".structs but the header's build flags lack 2 (structures)");
        if (P->in_structs || P->structs_done)
            return asm_fail(P, w, "a second .structs");
        const char *v;
        size_t vn;
        if (!asm_u32(P, &c->struct_marker, "structure block marker"))
            return false;
        if (!asm_word(P, &v, &vn) || !(asm_word_is(v, vn, "plain") || asm_word_is(v, vn, "halo")))
            return asm_fail(P, v, "expected plain or halo");
        c->struct_layout = v[0] == 'h' ? GSVM_HKS_STRUCTS_HALO : GSVM_HKS_STRUCTS_PLAIN;
        P->in_structs = true;
        return asm_expect_end(P);
    }
    if (IS(".struct") || IS(".base") || IS(".slot")) {
        if (!P->in_structs)
            return asm_fail(P, w, "%.*s outside .structs", (int)n, w);
        if (c->struct_marker != 1)
            return asm_fail(P, w, "structures need the block marker 1");
        if (IS(".struct")) {
            if (!asm_grow(P, (void **)&c->structs, &P->cap_structs, c->nstructs, sizeof *c->structs))
                return false;
            gsvm_hks_struct *s = &c->structs[c->nstructs++];
            memset(s, 0, sizeof *s);
            P->cap_slots = P->cap_bases = 0;
            uint64_t maxs = c->size_size == 8 ? UINT64_MAX : UINT32_MAX;
            if (!asm_string(P, &s->name, "structure name") || !asm_unsigned_in(P, &s->id, maxs, "id") ||
                !asm_u32(P, &s->x, "field") || !asm_u32(P, &s->y, "field"))
                return false;
            if (s->name.size == 0)
                return asm_fail(P, NULL, "a structure name cannot be null (null ends the list)");
            return asm_expect_end(P);
        }
        if (!c->nstructs)
            return asm_fail(P, w, "%.*s before the first .struct", (int)n, w);
        gsvm_hks_struct *s = &c->structs[c->nstructs - 1];
        if (IS(".base")) {
            if (c->struct_layout != GSVM_HKS_STRUCTS_HALO)
                return asm_fail(P, w, ".base needs the halo layout");
            if (s->nslots)
                return asm_fail(P, w, ".base after .slot");
            if (!asm_grow(P, (void **)&s->bases, &P->cap_bases, s->nbases, sizeof *s->bases))
                return false;
            if (!asm_string(P, &s->bases[s->nbases], "base structure name"))
                return false;
            s->nbases++;
            return asm_expect_end(P);
        }
        if (!asm_grow(P, (void **)&s->slots, &P->cap_slots, (size_t)s->nslots, sizeof *s->slots))
            return false;
        gsvm_hks_slot *sl = &s->slots[s->nslots];
        memset(sl, 0, sizeof *sl);
        uint64_t maxs = c->size_size == 8 ? UINT64_MAX : UINT32_MAX;
        if (!asm_string(P, &sl->name, "slot name")) 
            return false;
        s->nslots++;
        if (!asm_unsigned_in(P, &sl->a, maxs, "slot field") || !asm_u32(P, &sl->b, "slot field") ||
            !asm_u32(P, &sl->c, "slot field") || !asm_unsigned_in(P, &sl->d, maxs, "slot field"))
            return false;
        return asm_expect_end(P);
    }
    if (IS(".endstructs")) {
        if (!P->in_structs)
            return asm_fail(P, w, ".endstructs without .structs");
        P->in_structs = false;
        P->structs_done = true;
        return asm_expect_end(P);
    }
    /* everything below belongs to a function */
    if (!need_function(P, "this directive"))
        return false;
    gsvm_hks_proto *f = &fb->f;
    gsvm_hks_debug *d = &f->debug;
    if (IS(".end")) {
        if (!asm_expect_end(P))
            return false;
        return finish_function(P);
    }
    if (IS(".upvalues"))
        return asm_u32(P, &f->nups, "upvalue count") && asm_expect_end(P);
    if (IS(".params"))
        return asm_u32(P, &f->nparams, "parameter count") && asm_expect_end(P);
    if (IS(".maxstack"))
        return asm_u32(P, &f->maxstack, "max stack size") && asm_expect_end(P);
    if (IS(".vararg")) {
        uint64_t v = 0;
        if (!asm_unsigned_in(P, &v, 255, "vararg flags"))
            return false;
        f->flags = (uint8_t)v;
        return asm_expect_end(P);
    }
    if (IS(".pad")) {
        uint8_t *tmp = NULL;
        size_t np = 0, cap = 0;
        bool ok = asm_hexbytes(P, &tmp, &np, &cap);
        if (ok && np > 3)
            ok = asm_fail(P, w, "at most 3 alignment bytes");
        if (ok) {
            memcpy(f->pad, tmp, np);
            f->npad = (uint8_t)np;
        }
        free(tmp);
        return ok;
    }
    if (IS(".code")) {
        fb->section = SEC_CODE;
        return asm_expect_end(P);
    }
    if (IS(".constants")) {
        fb->section = SEC_CONSTS;
        return asm_expect_end(P);
    }
    if (IS(".debug")) {
        fb->section = SEC_NONE;
        if (!asm_u32(P, &d->flag, "debug flag"))
            return false;
        if (d->flag == 0)
            return asm_fail(P, NULL, ".debug 0 is written by leaving .debug out");
        return asm_expect_end(P);
    }
    if (!(IS(".linedefined") || IS(".source") || IS(".name") || IS(".lines") || IS(".local") ||
          IS(".upvalname") || IS(".hash")))
        return asm_fail(P, w, "unknown directive '%.*s'", (int)(n > 40 ? 40 : n), w);
    if (!d->flag)
        return asm_fail(P, w, "%.*s needs .debug first", (int)(n > 20 ? 20 : n), w);
    if (IS(".hash"))
        return asm_u32(P, &d->hash, "debug hash") && asm_expect_end(P);
    if (IS(".linedefined"))
        return asm_u32(P, &d->linedefined, "line defined") &&
               asm_u32(P, &d->lastlinedefined, "last line defined") && asm_expect_end(P);
    if (IS(".source")) {
        free(d->source.data);
        return asm_string(P, &d->source, "source name") && asm_expect_end(P);
    }
    if (IS(".name")) {
        free(d->name.data);
        return asm_string(P, &d->name, "function name") && asm_expect_end(P);
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
            if (!asm_grow(P, (void **)&d->lines, &fb->cap_lines, (size_t)d->nlines, 4))
                return false;
            d->lines[d->nlines++] = v;
        }
        P->p = q;
        while (!asm_at_end(P)) {
            if (!asm_grow(P, (void **)&d->lines, &fb->cap_lines, (size_t)d->nlines, 4))
                return false;
            if (!asm_u32(P, &d->lines[d->nlines], "line number"))
                return false;
            d->nlines++;
        }
        return true;
    }
    if (IS(".local")) {
        if (!asm_grow(P, (void **)&d->locals, &fb->cap_locals, d->nlocals, sizeof *d->locals))
            return false;
        gsvm_hks_local *l = &d->locals[d->nlocals];
        memset(l, 0, sizeof *l);
        if (!asm_string(P, &l->name, "local name"))
            return false;
        d->nlocals++;
        return asm_u32(P, &l->startpc, "start pc") && asm_u32(P, &l->endpc, "end pc") && asm_expect_end(P);
    }
    if (IS(".upvalname")) {
        if (!asm_grow(P, (void **)&d->upnames, &fb->cap_up, d->nupnames, sizeof *d->upnames))
            return false;
        if (!asm_string(P, &d->upnames[d->nupnames], "upvalue name"))
            return false;
        d->nupnames++;
        return asm_expect_end(P);
    }
#undef IS
    return asm_fail(P, w, "unknown directive '%.*s'", (int)(n > 40 ? 40 : n), w);
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
    asm_ophash_build(P);
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
                    ok = asm_fail(P, NULL, "an instruction or constant line outside .code / .constants");
                else if (fb->section == SEC_CODE)
                    ok = asm_code_line(P, fb);
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
            ok = asm_fail(P, NULL, "expected .header");
        else if (P->depth)
            ok = asm_fail(P, NULL, "unexpected end of listing: %d function(s) lack .end", P->depth);
        else if (!P->have_main)
            ok = asm_fail(P, NULL, "the listing has no .function");
        else if (P->in_structs)
            ok = asm_fail(P, NULL, "unexpected end of listing: .structs lacks .endstructs");
        else if (P->c->has_structs && !P->structs_done)
            ok = asm_fail(P, NULL, "the build flags include structures but no .structs block follows");
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
