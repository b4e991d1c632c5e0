/* Loading and dumping HavokScript chunks, keeping every byte.
 *
 * Layout (after "\x1bLua"): version 0x51 | format 13/14 | endianness (0 big,
 * 1 little) | sizeof int | sizeof size_t | sizeof Instruction | sizeof
 * lua_Number | integral flag | build flags | referenced flag; the type table;
 * the main function; the structure block when build flag 2 is set; then
 * whatever follows (kept as trailing bytes).  Code is aligned to 4 bytes
 * counted from the chunk's first byte, and the alignment bytes are kept as
 * found because real compilers leave garbage there. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "hks/internal.h"

enum { MAX_DEPTH = 128, MAX_TYPES = 64, MAX_TYPE_NAME = 256 };

typedef struct loader {
    gsvm_reader r;
    size_t start; /* offset of the chunk in the input */
    uint8_t size_size, size_number;
    uint8_t format;
    bool hash14; /* format 14, debug flag 1 = only a hash (Black Ops 3) */
} loader;

/* ---------------------------------------------------------------- reading */

/* Fixed-width fields with the bounds check and byte order inline: a chunk
 * has a few fields per constant and local, and a call into the shared
 * reader for each cost more than the rest of the loading.  The shared
 * reader still handles (and words) every failure. */
static inline bool have(const loader *L, size_t n)
{
    return !L->r.failed && L->r.len - L->r.pos >= n;
}

static inline uint64_t get_n(loader *L, int n)
{
    const uint8_t *p = L->r.data + L->r.pos;
    uint64_t v = 0;
    if (L->r.big_endian)
        for (int i = 0; i < n; i++)
            v = v << 8 | p[i];
    else
        for (int i = n - 1; i >= 0; i--)
            v = v << 8 | p[i];
    L->r.pos += (size_t)n;
    return v;
}

static inline bool rd_u8(loader *L, uint8_t *out, const char *what)
{
    if (!have(L, 1))
        return gsvm_read_u8(&L->r, out, what);
    *out = L->r.data[L->r.pos++];
    return true;
}

static inline bool rd_int(loader *L, uint32_t *out, const char *what)
{
    if (!have(L, 4))
        return gsvm_read_u32(&L->r, out, what);
    *out = (uint32_t)get_n(L, 4);
    return true;
}

static inline bool rd_u64(loader *L, uint64_t *out, const char *what)
{
    if (!have(L, 8))
        return gsvm_read_u64(&L->r, out, what);
    *out = get_n(L, 8);
    return true;
}

static inline bool rd_size(loader *L, uint64_t *out, const char *what)
{
    if (L->size_size == 8)
        return rd_u64(L, out, what);
    uint32_t v;
    if (!rd_int(L, &v, what))
        return false;
    *out = v;
    return true;
}

/* A count of items each at least `min_bytes` long must fit in what is left. */
static bool check_count(loader *L, uint64_t n, size_t min_bytes, const char *what)
{
    if (L->r.failed)
        return false;
    if (n > gsvm_reader_left(&L->r) / (min_bytes ? min_bytes : 1))
        return gsvm_reader_fail(&L->r, "truncated: %s %llu is more than the %zu bytes left hold", what,
                                (unsigned long long)n, gsvm_reader_left(&L->r));
    return true;
}

static bool rd_str(loader *L, gsvm_hks_str *s, const char *what)
{
    if (!rd_size(L, &s->size, what))
        return false;
    if (s->size == 0)
        return true;
    if (!check_count(L, s->size, 1, what))
        return false;
    const uint8_t *p = L->r.data + L->r.pos; /* check_count: the bytes are there */
    L->r.pos += (size_t)s->size;
    s->data = malloc((size_t)s->size + 1);
    if (!s->data)
        return gsvm_reader_fail(&L->r, "out of memory reading %s", what);
    memcpy(s->data, p, (size_t)s->size);
    s->data[s->size] = 0;
    return true;
}

static bool rd_consts(loader *L, gsvm_hks_proto *f)
{
    if (!rd_int(L, &f->nk, "constant count") || !check_count(L, f->nk, 1, "constant count"))
        return false;
    f->k = calloc(f->nk ? f->nk : 1, sizeof *f->k);
    if (!f->k)
        return gsvm_reader_fail(&L->r, "out of memory");
    for (uint32_t i = 0; i < f->nk; i++) {
        gsvm_hks_const *k = &f->k[i];
        if (!rd_u8(L, &k->type, "constant type"))
            return false;
        switch (k->type) {
        case GSVM_HKS_K_NIL: break;
        case GSVM_HKS_K_BOOL:
            if (!rd_u8(L, &k->b, "boolean constant"))
                return false;
            break;
        case GSVM_HKS_K_LUD:
            if (!rd_size(L, &k->bits, "light userdata constant"))
                return false;
            break;
        case GSVM_HKS_K_NUMBER:
            if (L->size_number == 8) {
                if (!rd_u64(L, &k->bits, "number constant"))
                    return false;
            } else {
                uint32_t v;
                if (!rd_int(L, &v, "number constant"))
                    return false;
                k->bits = v;
            }
            break;
        case GSVM_HKS_K_STRING:
            if (!rd_str(L, &k->s, "string constant"))
                return false;
            break;
        case GSVM_HKS_K_UI64:
            if (!rd_u64(L, &k->bits, "64-bit integer constant"))
                return false;
            break;
        default:
            L->r.pos--;
            return gsvm_reader_fail(&L->r,
                                    "constant %u of %u has type %u; expected 0 nil, 1 boolean, "
                                    "2 light userdata, 3 number, 4 string or 11 ui64",
                                    i, f->nk, k->type);
        }
    }
    return true;
}

/* n 32-bit words from p (whose bounds the caller checked) into out. */
static void decode_words(const uint8_t *p, uint64_t n, bool big_endian, uint32_t *out)
{
    if (big_endian)
        for (uint64_t i = 0; i < n; i++, p += 4)
            out[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    else
        for (uint64_t i = 0; i < n; i++, p += 4)
            out[i] = (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static bool rd_lines(loader *L, gsvm_hks_debug *d)
{
    if (!check_count(L, d->nlines, 4, "line count"))
        return false;
    d->lines = malloc(d->nlines ? (size_t)d->nlines * 4 : 1);
    if (!d->lines)
        return gsvm_reader_fail(&L->r, "out of memory");
    /* check_count made sure the whole array is there: decode it in one go */
    const uint8_t *p;
    if (!gsvm_read_bytes(&L->r, (size_t)d->nlines * 4, &p, "line numbers"))
        return false;
    decode_words(p, d->nlines, L->r.big_endian, d->lines);
    return true;
}

static bool rd_locals_upnames(loader *L, gsvm_hks_debug *d)
{
    if (!check_count(L, d->nlocals, L->size_size + 8u, "local count"))
        return false;
    d->locals = calloc(d->nlocals ? d->nlocals : 1, sizeof *d->locals);
    if (!d->locals)
        return gsvm_reader_fail(&L->r, "out of memory");
    for (uint32_t i = 0; i < d->nlocals; i++)
        if (!rd_str(L, &d->locals[i].name, "local name") ||
            !rd_int(L, &d->locals[i].startpc, "local start pc") ||
            !rd_int(L, &d->locals[i].endpc, "local end pc"))
            return false;
    if (!check_count(L, d->nupnames, L->size_size, "upvalue name count"))
        return false;
    d->upnames = calloc(d->nupnames ? d->nupnames : 1, sizeof *d->upnames);
    if (!d->upnames)
        return gsvm_reader_fail(&L->r, "out of memory");
    for (uint32_t i = 0; i < d->nupnames; i++)
        if (!rd_str(L, &d->upnames[i], "upvalue name"))
            return false;
    return true;
}

/* Format 14: counts first, then line defined, source, name, the arrays.
 * Format 13: line defined, source and name first, each array behind its own
 * count (the line count is a size_t); flag 1 there is only a hash and flag
 * 40 only the line defined, source and name (as Call of Duty writes them). */
static bool rd_debug(loader *L, gsvm_hks_debug *d)
{
    if (!rd_int(L, &d->flag, "debug flag"))
        return false;
    switch (hks_debug_kind(L->format, L->hash14, d->flag)) {
    case HKS_DBG_NONE: return true;
    case HKS_DBG_HASH: return rd_int(L, &d->hash, "debug hash");
    case HKS_DBG_PROFILE:
        return rd_int(L, &d->linedefined, "line defined") &&
               rd_int(L, &d->lastlinedefined, "last line defined") &&
               rd_str(L, &d->source, "source name") && rd_str(L, &d->name, "function name");
    case HKS_DBG_FULL: break;
    }
    if (L->format == 14) {
        uint32_t nlines;
        if (!rd_int(L, &nlines, "line count") || !rd_int(L, &d->nlocals, "local count") ||
            !rd_int(L, &d->nupnames, "upvalue name count") ||
            !rd_int(L, &d->linedefined, "line defined") ||
            !rd_int(L, &d->lastlinedefined, "last line defined") ||
            !rd_str(L, &d->source, "source name") || !rd_str(L, &d->name, "function name"))
            return false;
        d->nlines = nlines;
        return rd_lines(L, d) && rd_locals_upnames(L, d);
    }
    if (!rd_int(L, &d->linedefined, "line defined") ||
        !rd_int(L, &d->lastlinedefined, "last line defined") ||
        !rd_str(L, &d->source, "source name") || !rd_str(L, &d->name, "function name") ||
        !rd_size(L, &d->nlines, "line count") || !rd_lines(L, d) ||
        !rd_int(L, &d->nlocals, "local count"))
        return false;
    d->locals = NULL;
    /* the upvalue-name count comes after the locals in this layout */
    uint32_t nlocals = d->nlocals;
    if (!check_count(L, nlocals, L->size_size + 8u, "local count"))
        return false;
    d->locals = calloc(nlocals ? nlocals : 1, sizeof *d->locals);
    if (!d->locals)
        return gsvm_reader_fail(&L->r, "out of memory");
    for (uint32_t i = 0; i < nlocals; i++)
        if (!rd_str(L, &d->locals[i].name, "local name") ||
            !rd_int(L, &d->locals[i].startpc, "local start pc") ||
            !rd_int(L, &d->locals[i].endpc, "local end pc"))
            return false;
    if (!rd_int(L, &d->nupnames, "upvalue name count") ||
        !check_count(L, d->nupnames, L->size_size, "upvalue name count"))
        return false;
    d->upnames = calloc(d->nupnames ? d->nupnames : 1, sizeof *d->upnames);
    if (!d->upnames)
        return gsvm_reader_fail(&L->r, "out of memory");
    for (uint32_t i = 0; i < d->nupnames; i++)
        if (!rd_str(L, &d->upnames[i], "upvalue name"))
            return false;
    return true;
}

static bool rd_function(loader *L, gsvm_hks_proto *f, int depth)
{
    if (depth > MAX_DEPTH)
        return gsvm_reader_fail(&L->r, "functions nested deeper than %d (code too deep)",
                                MAX_DEPTH);
    f->offset = L->r.pos;
    if (!rd_int(L, &f->nups, "upvalue count") || !rd_int(L, &f->nparams, "parameter count") ||
        !rd_u8(L, &f->flags, "vararg flags") ||
        !rd_int(L, &f->maxstack, "max stack size") || !rd_size(L, &f->ncode, "code size"))
        return false;
    f->npad = (uint8_t)((4 - (L->r.pos - L->start) % 4) % 4);
    const uint8_t *pad;
    if (!gsvm_read_bytes(&L->r, f->npad, &pad, "code alignment"))
        return false;
    memcpy(f->pad, pad, f->npad);
    if (!check_count(L, f->ncode, 4, "code size"))
        return false;
    f->code_offset = L->r.pos;
    f->code = malloc(f->ncode ? (size_t)f->ncode * 4 : 1);
    if (!f->code)
        return gsvm_reader_fail(&L->r, "out of memory");
    decode_words(L->r.data + L->r.pos, f->ncode, L->r.big_endian, f->code);
    L->r.pos += (size_t)f->ncode * 4;
    if (!rd_consts(L, f) || !rd_debug(L, &f->debug))
        return false;
    if (!rd_int(L, &f->np, "child function count") ||
        !check_count(L, f->np, 21, "child function count"))
        return false;
    f->p = calloc(f->np ? f->np : 1, sizeof *f->p);
    if (!f->p)
        return gsvm_reader_fail(&L->r, "out of memory");
    for (uint32_t i = 0; i < f->np; i++)
        if (!rd_function(L, &f->p[i], depth + 1))
            return false;
    return true;
}

/* The main function and its children.  Format 14 does not say whether
 * debug flag 1 is the full block or (hksc's Black Ops 3) only a hash: the
 * full form is read first, and when it fails the hash form is tried.  The
 * failure reported is that of the reading that got further. */
static bool rd_functions(loader *L, gsvm_hks_chunk *c, gsvm_error *err)
{
    size_t at = L->r.pos;
    if (c->format != 14)
        return rd_function(L, &c->main, 0);
    gsvm_error first;
    gsvm_error_clear(&first);
    L->r.err = &first;
    bool ok = rd_function(L, &c->main, 0);
    L->r.err = err;
    if (ok)
        return true;
    size_t first_pos = L->r.pos;
    hks_proto_free(&c->main);
    L->r.failed = false;
    L->r.pos = at;
    L->hash14 = true;
    gsvm_error second;
    gsvm_error_clear(&second);
    L->r.err = &second;
    ok = rd_function(L, &c->main, 0);
    L->r.err = err;
    if (ok) {
        c->debug_hash = true;
        return true;
    }
    if (err)
        *err = second.offset > first.offset ? second : first;
    L->r.pos = second.offset > first.offset ? L->r.pos : first_pos;
    return false;
}

static void free_structs(gsvm_hks_struct *s, uint32_t n)
{
    for (uint32_t i = 0; s && i < n; i++) {
        free(s[i].name.data);
        for (uint32_t j = 0; s[i].bases && j < s[i].nbases; j++)
            free(s[i].bases[j].data);
        free(s[i].bases);
        for (uint64_t j = 0; s[i].slots && j < s[i].nslots; j++)
            free(s[i].slots[j].name.data);
        free(s[i].slots);
    }
    free(s);
}

static bool rd_structs(loader *L, gsvm_hks_chunk *c, bool halo)
{
    size_t cap = 0;
    for (;;) {
        gsvm_hks_str name = {0, NULL};
        if (!rd_str(L, &name, "structure name"))
            return false;
        if (name.size == 0)
            return true;
        if (c->nstructs == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            gsvm_hks_struct *ns = realloc(c->structs, ncap * sizeof *ns);
            if (!ns) {
                free(name.data);
                return gsvm_reader_fail(&L->r, "out of memory");
            }
            c->structs = ns;
            cap = ncap;
        }
        gsvm_hks_struct *s = &c->structs[c->nstructs++];
        memset(s, 0, sizeof *s);
        s->name = name;
        if (!rd_size(L, &s->id, "structure id") || !rd_int(L, &s->x, "structure field") ||
            !rd_int(L, &s->y, "structure field") || !rd_size(L, &s->nslots, "slot count"))
            return false;
        if (halo) {
            if (!rd_int(L, &s->nbases, "base structure count") ||
                !check_count(L, s->nbases, L->size_size, "base structure count"))
                return false;
            s->bases = calloc(s->nbases ? s->nbases : 1, sizeof *s->bases);
            if (!s->bases)
                return gsvm_reader_fail(&L->r, "out of memory");
            for (uint32_t i = 0; i < s->nbases; i++)
                if (!rd_str(L, &s->bases[i], "base structure name"))
                    return false;
        }
        if (!check_count(L, s->nslots, 8 + 3u * L->size_size, "slot count"))
            return false;
        s->slots = calloc(s->nslots ? (size_t)s->nslots : 1, sizeof *s->slots);
        if (!s->slots)
            return gsvm_reader_fail(&L->r, "out of memory");
        for (uint64_t i = 0; i < s->nslots; i++) {
            gsvm_hks_slot *sl = &s->slots[i];
            if (!rd_str(L, &sl->name, "slot name") || !rd_size(L, &sl->a, "slot field") ||
                !rd_int(L, &sl->b, "slot field") || !rd_int(L, &sl->c, "slot field") ||
                !rd_size(L, &sl->d, "slot field"))
                return false;
        }
    }
}

static bool rd_header(loader *L, gsvm_hks_chunk *c)
{
    gsvm_reader *r = &L->r;
    const uint8_t *sig;
    if (!gsvm_read_bytes(r, 4, &sig, "signature"))
        return false;
    if (memcmp(sig, "\x1bLua", 4) != 0) {
        r->pos -= 4;
        /* A chunk inside a larger file (a tag, an archive entry): say where. */
        for (size_t i = r->pos + 1; i + 5 <= r->len; i++)
            if (memcmp(r->data + i, "\x1bLuaQ", 5) == 0)
                return gsvm_reader_fail(r,
                                        "expected the signature \"\\x1bLua\"; a chunk "
                                        "starts at byte %zu (load it with offset %zu)",
                                        i, i);
        return gsvm_reader_fail(r, "expected the signature \"\\x1bLua\"");
    }
    uint8_t h[10];
    static const char *names[10] = {"version", "format", "endianness", "sizeof(int)",
                                    "sizeof(size_t)", "sizeof(Instruction)", "sizeof(lua_Number)",
                                    "integral flag", "build flags", "referenced flag"};
    for (int i = 0; i < 10; i++)
        if (!gsvm_read_u8(r, &h[i], names[i]))
            return false;
    c->version = h[0], c->format = h[1], c->endian = h[2], c->size_int = h[3];
    c->size_size = h[4], c->size_instr = h[5], c->size_number = h[6], c->integral = h[7];
    c->build_flags = h[8], c->referenced = h[9];
    size_t at = L->start + 4;
#define BAD(i, ...) (r->pos = at + (i), gsvm_reader_fail(r, __VA_ARGS__))
    if (c->version != 0x51)
        return BAD(0, "version is 0x%02x; expected 0x51 (Lua 5.1)", c->version);
    if (c->format != 13 && c->format != 14)
        return BAD(1, "format is %u; expected 13 or 14", c->format);
    if (c->endian > 1)
        return BAD(2, "endianness flag is %u; expected 0 (big) or 1 (little)", c->endian);
    if (c->size_int != 4)
        return BAD(3, "sizeof(int) is %u; expected 4", c->size_int);
    if (c->size_size != 4 && c->size_size != 8)
        return BAD(4, "sizeof(size_t) is %u; expected 4 or 8", c->size_size);
    if (c->size_instr != 4)
        return BAD(5, "sizeof(Instruction) is %u; expected 4", c->size_instr);
    if (c->size_number != 4 && c->size_number != 8)
        return BAD(6, "sizeof(lua_Number) is %u; expected 4 or 8", c->size_number);
    if (c->integral > 1)
        return BAD(7, "integral flag is %u; expected 0 or 1", c->integral);
#undef BAD
    r->big_endian = c->endian == 0;
    L->size_size = c->size_size;
    L->size_number = c->size_number;
    L->format = c->format;
    if (!rd_int(L, &c->ntypes, "type count"))
        return false;
    if (c->ntypes > MAX_TYPES) {
        r->pos -= 4;
        return gsvm_reader_fail(r, "type count %u is more than %d", c->ntypes, MAX_TYPES);
    }
    c->types = calloc(c->ntypes ? c->ntypes : 1, sizeof *c->types);
    if (!c->types)
        return gsvm_reader_fail(r, "out of memory");
    for (uint32_t i = 0; i < c->ntypes; i++) {
        gsvm_hks_type_entry *t = &c->types[i];
        if (!rd_int(L, &t->id, "type id") || !rd_int(L, &t->len, "type name length"))
            return false;
        if (t->len > MAX_TYPE_NAME) {
            r->pos -= 4;
            return gsvm_reader_fail(r, "type name length %u is more than %d", t->len,
                                    MAX_TYPE_NAME);
        }
        const uint8_t *p;
        if (!gsvm_read_bytes(r, t->len, &p, "type name"))
            return false;
        t->name = malloc(t->len + 1u);
        if (!t->name)
            return gsvm_reader_fail(r, "out of memory");
        memcpy(t->name, p, t->len);
        t->name[t->len] = 0;
    }
    return true;
}

/* Format 13 is Ghosts (its table is the base table plus two opcodes).  A
 * format-14 chunk does not say whether it is Black Ops 3 or Ghosts: the
 * operand check tells, since BO3 code read with the base table (or the
 * reverse) breaks operand ranges, DATA ownership and test/JMP pairs all
 * over, and base reads Ghosts' DELETE as unknown opcodes.  Another table is
 * chosen only when it fits strictly better; a Ghosts chunk without DELETE
 * reads the same either way and loads as base. */
static gsvm_hks_profile detect_profile(gsvm_hks_chunk *c)
{
    if (c->format == 13)
        return GSVM_HKS_PROFILE_GHOSTS;
    gsvm_hks_verify_result base, other;
    c->profile = GSVM_HKS_PROFILE_BASE;
    if (gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, NULL, NULL, &base, NULL) != GSVM_OK ||
        base.violations == 0)
        return GSVM_HKS_PROFILE_BASE;
    /* Ghosts built in format 14 (hksc's iw6) differs from base only by
     * DELETE / DELETE_BK at 92-93, which base reads as unknown opcodes. */
    gsvm_hks_profile best = GSVM_HKS_PROFILE_BASE;
    uint64_t best_v = base.violations;
    static const gsvm_hks_profile others[2] = {GSVM_HKS_PROFILE_BO3, GSVM_HKS_PROFILE_GHOSTS};
    for (int i = 0; i < 2; i++) {
        c->profile = others[i];
        if (gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, NULL, NULL, &other, NULL) == GSVM_OK &&
            other.violations < best_v) {
            best = others[i];
            best_v = other.violations;
        }
    }
    return best;
}

gsvm_status gsvm_hks_chunk_load(const uint8_t *data, size_t len, const gsvm_hks_load_options *opts,
                                const char *file, gsvm_hks_chunk **out, gsvm_error *err)
{
    *out = NULL;
    gsvm_error_clear(err);
    gsvm_hks_load_options o = {0, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, false};
    if (opts)
        o = *opts;
    if (o.scan && o.offset == 0 && (len < 4 || memcmp(data, "\x1bLua", 4) != 0)) {
        for (size_t i = 1; i + 5 <= len; i++)
            if (memcmp(data + i, "\x1bLuaQ", 5) == 0) {
                o.offset = i;
                break;
            }
    }
    if (o.offset > len)
        return gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, (long long)len,
                                    "offset %zu is past the end of the %zu-byte input", o.offset,
                                    len);
    gsvm_hks_chunk *c = calloc(1, sizeof *c);
    if (!c)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    loader L;
    memset(&L, 0, sizeof L);
    gsvm_reader_init(&L.r, data, len, file, err);
    L.start = o.offset;
    L.r.pos = o.offset;
    c->nprefix = o.offset;
    c->prefix = malloc(o.offset ? o.offset : 1);
    if (!c->prefix)
        goto nomem;
    memcpy(c->prefix, data, o.offset);
    if (!rd_header(&L, c))
        goto fail;
    if (!rd_functions(&L, c, err))
        goto fail;
    c->has_structs = (c->build_flags & 2) != 0;
    c->struct_layout = GSVM_HKS_STRUCTS_PLAIN;
    if (c->has_structs) {
        if (!rd_int(&L, &c->struct_marker, "structure block marker"))
            goto fail;
        if (c->struct_marker == 1) {
            size_t at = L.r.pos;
            bool ok = false;
            if (o.structs != GSVM_HKS_STRUCTS_PLAIN) {
                /* Try the Halo layout first: a plain block read as Halo fails
                 * quickly (the slot name's size lands in the base count). */
                gsvm_error scratch;
                L.r.err = o.structs == GSVM_HKS_STRUCTS_HALO ? err : &scratch;
                ok = rd_structs(&L, c, true);
                L.r.err = err;
                if (ok && c->nstructs > 0)
                    c->struct_layout = GSVM_HKS_STRUCTS_HALO;
                if (!ok && o.structs == GSVM_HKS_STRUCTS_HALO)
                    goto fail;
            }
            if (!ok) {
                free_structs(c->structs, c->nstructs);
                c->structs = NULL;
                c->nstructs = 0;
                L.r.failed = false;
                L.r.pos = at;
                if (!rd_structs(&L, c, false))
                    goto fail;
            }
        }
    }
    c->ntrailing = len - L.r.pos;
    c->trailing = malloc(c->ntrailing ? c->ntrailing : 1);
    if (!c->trailing)
        goto nomem;
    memcpy(c->trailing, data + L.r.pos, c->ntrailing);
    c->profile = o.profile;
    if (c->profile == GSVM_HKS_PROFILE_AUTO)
        c->profile = detect_profile(c);
    *out = c;
    return GSVM_OK;
nomem:
    gsvm_hks_chunk_free(c);
    return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
fail:
    gsvm_hks_chunk_free(c);
    if (err && err->status == GSVM_OK)
        gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, (long long)L.r.pos, "bad chunk");
    return err && err->status != GSVM_OK ? err->status : GSVM_ERR_INPUT;
}

/* ---------------------------------------------------------------- freeing */

void hks_proto_free(gsvm_hks_proto *f)
{
    free(f->code);
    for (uint32_t i = 0; f->k && i < f->nk; i++)
        free(f->k[i].s.data);
    free(f->k);
    gsvm_hks_debug *d = &f->debug;
    free(d->source.data);
    free(d->name.data);
    free(d->lines);
    for (uint32_t i = 0; d->locals && i < d->nlocals; i++)
        free(d->locals[i].name.data);
    free(d->locals);
    for (uint32_t i = 0; d->upnames && i < d->nupnames; i++)
        free(d->upnames[i].data);
    free(d->upnames);
    for (uint32_t i = 0; f->p && i < f->np; i++)
        hks_proto_free(&f->p[i]);
    free(f->p);
    memset(f, 0, sizeof *f);
}

void gsvm_hks_chunk_free(gsvm_hks_chunk *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->types && i < c->ntypes; i++)
        free(c->types[i].name);
    free(c->types);
    hks_proto_free(&c->main);
    free_structs(c->structs, c->nstructs);
    free(c->prefix);
    free(c->trailing);
    free(c);
}

/* ---------------------------------------------------------------- writing */

typedef struct dumper {
    gsvm_buf b;
    bool be;
    size_t start;
    uint8_t size_size, size_number, format;
    bool hash14;
} dumper;

static void wr_int(dumper *D, uint32_t v) { gsvm_buf_u32(&D->b, v, D->be); }
/* n words at once (the code and its line numbers: one buffer call, not n) */
static void wr_words(dumper *D, const uint32_t *w, uint64_t n)
{
    if (!gsvm_buf_reserve(&D->b, (size_t)n * 4))
        return;
    uint8_t *p = D->b.data + D->b.len;
    for (uint64_t i = 0; i < n; i++, p += 4) {
        uint32_t x = w[i];
        if (D->be)
            p[0] = (uint8_t)(x >> 24), p[1] = (uint8_t)(x >> 16), p[2] = (uint8_t)(x >> 8),
            p[3] = (uint8_t)x;
        else
            p[3] = (uint8_t)(x >> 24), p[2] = (uint8_t)(x >> 16), p[1] = (uint8_t)(x >> 8),
            p[0] = (uint8_t)x;
    }
    D->b.len += (size_t)n * 4;
}
static void wr_size(dumper *D, uint64_t v)
{
    if (D->size_size == 8)
        gsvm_buf_u64(&D->b, v, D->be);
    else
        gsvm_buf_u32(&D->b, (uint32_t)v, D->be);
}
static void wr_str(dumper *D, const gsvm_hks_str *s)
{
    wr_size(D, s->size);
    if (s->size)
        gsvm_buf_append(&D->b, s->data, (size_t)s->size);
}

static void wr_debug(dumper *D, const gsvm_hks_debug *d)
{
    wr_int(D, d->flag);
    switch (hks_debug_kind(D->format, D->hash14, d->flag)) {
    case HKS_DBG_NONE: return;
    case HKS_DBG_HASH: wr_int(D, d->hash); return;
    case HKS_DBG_PROFILE:
        wr_int(D, d->linedefined);
        wr_int(D, d->lastlinedefined);
        wr_str(D, &d->source);
        wr_str(D, &d->name);
        return;
    case HKS_DBG_FULL: break;
    }
    if (D->format == 14) {
        wr_int(D, (uint32_t)d->nlines);
        wr_int(D, d->nlocals);
        wr_int(D, d->nupnames);
        wr_int(D, d->linedefined);
        wr_int(D, d->lastlinedefined);
        wr_str(D, &d->source);
        wr_str(D, &d->name);
    } else {
        wr_int(D, d->linedefined);
        wr_int(D, d->lastlinedefined);
        wr_str(D, &d->source);
        wr_str(D, &d->name);
        wr_size(D, d->nlines);
    }
    wr_words(D, d->lines, d->nlines);
    if (D->format == 13)
        wr_int(D, d->nlocals);
    for (uint32_t i = 0; i < d->nlocals; i++) {
        wr_str(D, &d->locals[i].name);
        wr_int(D, d->locals[i].startpc);
        wr_int(D, d->locals[i].endpc);
    }
    if (D->format == 13)
        wr_int(D, d->nupnames);
    for (uint32_t i = 0; i < d->nupnames; i++)
        wr_str(D, &d->upnames[i]);
}

static void wr_function(dumper *D, const gsvm_hks_proto *f)
{
    wr_int(D, f->nups);
    wr_int(D, f->nparams);
    gsvm_buf_u8(&D->b, f->flags);
    wr_int(D, f->maxstack);
    wr_size(D, f->ncode);
    size_t npad = (4 - (D->b.len - D->start) % 4) % 4;
    for (size_t i = 0; i < npad; i++)
        gsvm_buf_u8(&D->b, i < f->npad ? f->pad[i] : 0);
    wr_words(D, f->code, f->ncode);
    wr_int(D, f->nk);
    for (uint32_t i = 0; i < f->nk; i++) {
        const gsvm_hks_const *k = &f->k[i];
        gsvm_buf_u8(&D->b, k->type);
        switch (k->type) {
        case GSVM_HKS_K_BOOL: gsvm_buf_u8(&D->b, k->b); break;
        case GSVM_HKS_K_LUD: wr_size(D, k->bits); break;
        case GSVM_HKS_K_NUMBER:
            if (D->size_number == 8)
                gsvm_buf_u64(&D->b, k->bits, D->be);
            else
                gsvm_buf_u32(&D->b, (uint32_t)k->bits, D->be);
            break;
        case GSVM_HKS_K_STRING: wr_str(D, &k->s); break;
        case GSVM_HKS_K_UI64: gsvm_buf_u64(&D->b, k->bits, D->be); break;
        default: break;
        }
    }
    wr_debug(D, &f->debug);
    wr_int(D, f->np);
    for (uint32_t i = 0; i < f->np; i++)
        wr_function(D, &f->p[i]);
}

/* An upper bound of a function's dumped size, strings and structures aside:
 * the buffer is reserved once instead of being grown (and copied) many times
 * for a big chunk. */
static size_t dump_estimate(const gsvm_hks_proto *f, size_t size_size)
{
    size_t n = 64 + 4 * (size_t)f->ncode + (9 + size_size) * (size_t)f->nk +
               4 * (size_t)f->debug.nlines + (8 + size_size) * (size_t)f->debug.nlocals +
               size_size * (size_t)f->debug.nupnames;
    for (uint32_t i = 0; i < f->nk; i++)
        if (f->k[i].type == GSVM_HKS_K_STRING)
            n += (size_t)f->k[i].s.size;
    for (uint32_t i = 0; i < f->np; i++)
        n += dump_estimate(&f->p[i], size_size);
    return n;
}

gsvm_status gsvm_hks_chunk_dump(const gsvm_hks_chunk *c, uint8_t **out, size_t *len,
                                gsvm_error *err)
{
    dumper D;
    memset(&D, 0, sizeof D);
    gsvm_buf_init(&D.b);
    gsvm_buf_reserve(&D.b, c->nprefix + 256 + dump_estimate(&c->main, c->size_size));
    D.be = c->endian == 0;
    D.size_size = c->size_size;
    D.size_number = c->size_number;
    D.format = c->format;
    D.hash14 = c->format == 14 && c->debug_hash;
    gsvm_buf_append(&D.b, c->prefix, c->nprefix);
    D.start = D.b.len;
    gsvm_buf_append(&D.b, "\x1bLua", 4);
    uint8_t h[10] = {c->version,     c->format,      c->endian,      c->size_int,
                     c->size_size,   c->size_instr,  c->size_number, c->integral,
                     c->build_flags, c->referenced};
    gsvm_buf_append(&D.b, h, 10);
    wr_int(&D, c->ntypes);
    for (uint32_t i = 0; i < c->ntypes; i++) {
        wr_int(&D, c->types[i].id);
        wr_int(&D, c->types[i].len);
        gsvm_buf_append(&D.b, c->types[i].name, c->types[i].len);
    }
    wr_function(&D, &c->main);
    if (c->has_structs) {
        wr_int(&D, c->struct_marker);
        if (c->struct_marker == 1) {
            for (uint32_t i = 0; i < c->nstructs; i++) {
                const gsvm_hks_struct *s = &c->structs[i];
                wr_str(&D, &s->name);
                wr_size(&D, s->id);
                wr_int(&D, s->x);
                wr_int(&D, s->y);
                wr_size(&D, s->nslots);
                if (c->struct_layout == GSVM_HKS_STRUCTS_HALO) {
                    wr_int(&D, s->nbases);
                    for (uint32_t j = 0; j < s->nbases; j++)
                        wr_str(&D, &s->bases[j]);
                }
                for (uint64_t j = 0; j < s->nslots; j++) {
                    const gsvm_hks_slot *sl = &s->slots[j];
                    wr_str(&D, &sl->name);
                    wr_size(&D, sl->a);
                    wr_int(&D, sl->b);
                    wr_int(&D, sl->c);
                    wr_size(&D, sl->d);
                }
            }
            wr_size(&D, 0);
        }
    }
    gsvm_buf_append(&D.b, c->trailing, c->ntrailing);
    if (D.b.oom) {
        gsvm_buf_free(&D.b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *out = gsvm_buf_take(&D.b, len);
    return GSVM_OK;
}
