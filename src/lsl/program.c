/* Building, freeing, saving and loading Falcon programs (.fpc).
 *
 * The .fpc layout (all integers little-endian, no padding, nothing after):
 *   4  magic "HWZP"            2  file format version (1, or 2 with lines)
 *   4  compiler version        4  ABI version (must be 2)
 *   4  constant count, then each constant as a tagged value
 *   4  host-name count, then each name as u32 length + bytes
 *   4  global count, then each: tagged default value, u32 name length + name
 *   4  event count, then each: u32 name length + name, u32 entry_ip,
 *      u32 local_count, u32 parameter count, one u8 type per parameter
 *   4  instruction count, then each: u8 op, i32 a, i32 b
 * Format 2 only, after the instructions: the line table, as runs
 *   4  run count, then each: u32 first ip, u32 line, u32 column
 *      (ips strictly increasing and inside the code; a run holds until the
 *      next; 0:0 is "unknown"; before the first run every ip is unknown)
 * Everything before it is format 1 byte for byte; a program without a line
 * table (hand-built, or loaded from a format-1 file) is saved as format 1.
 * A tagged value is the snapshot's: u8 tag (1 integer, 2 string), then the
 * i32 value or u32 length + bytes.
 *
 * The loader checks structure (every length, tag, opcode number, event entry
 * and that nothing is missing or left over).  Operand ranges are deliberately
 * the VM's business: the document makes bad indexes run-time faults, and a
 * program built by a different compiler must fault cleanly, not be guessed at. */
#include "lsl/abi2.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "lsl/names.h"

const fal_op_info fal_ops[FOP_COUNT] = {
#define FALCON_OP(name, mnem, kind, pops, pushes, meaning) {mnem, kind, pops, pushes, meaning},
#include "lsl/isa.def"
#undef FALCON_OP
};

#define FPC_MAGIC "HWZP"
#define FPC_FORMAT_VERSION 1       /* the document's program, nothing more */
#define FPC_FORMAT_LINES 2         /* ... followed by its line table */

gsvm_lsl_program *fal_program_new(void)
{
    gsvm_lsl_program *p = calloc(1, sizeof *p);
    if (p) {
        p->abi = 2;
        atomic_init(&p->refs, 1);
        p->compiler_version = GSVM_LSL_COMPILER_VERSION;
        p->abi_version = GSVM_LSL_ABI_VERSION;
    }
    return p;
}

void fal2_program_free(gsvm_lsl_program *p)
{
    if (!p)
        return;
    free(p->code);
    free(p->lines);
    for (size_t i = 0; i < p->nconst; i++)
        free(p->consts[i].s);
    free(p->consts);
    free(p->const_index);
    for (size_t i = 0; i < p->nhost; i++)
        free(p->host_names[i]);
    free(p->host_names);
    for (size_t i = 0; i < p->nglobal; i++) {
        free(p->globals[i].s);
        free(p->global_names[i]);
    }
    free(p->globals);
    free(p->global_names);
    for (size_t i = 0; i < p->nevent; i++) {
        free(p->events[i].name);
        free(p->events[i].param_types);
    }
    free(p->events);
    free(p);
}

/* Grows an array to hold one more element; false (and oom) on failure. */
static bool grow(gsvm_lsl_program *p, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 16;
    void *na = realloc(*arr, nc * elem);
    if (!na) {
        p->oom = true;
        return false;
    }
    *arr = na;
    *cap = nc;
    return true;
}

long fal_program_emit(gsvm_lsl_program *p, fal_op op, int32_t a, int32_t b)
{
    if (!grow(p, (void **)&p->code, &p->capcode, p->ncode, sizeof *p->code))
        return -1;
    p->code[p->ncode] = (fal_insn){(uint8_t)op, a, b};
    if (p->at_line && p->ncode >= p->caplines) {
        size_t nc = p->capcode; /* one entry per instruction; earlier ones without a position are 0:0 */
        void *nl = realloc(p->lines, nc * sizeof *p->lines);
        if (nl) {
            memset((uint32_t(*)[2])nl + p->caplines, 0, (nc - p->caplines) * sizeof *p->lines);
            p->lines = nl;
            p->caplines = nc;
        }
    }
    if (p->at_line && p->ncode < p->caplines) {
        p->lines[p->ncode][0] = p->at_line;
        p->lines[p->ncode][1] = p->at_col;
    }
    return (long)p->ncode++;
}

static uint64_t const_hash(uint8_t type, int32_t i, const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull ^ type;
    if (type == GSVM_LSL_INTEGER) {
        s = (const char *)&i;
        len = sizeof i;
    }
    for (size_t k = 0; k < len; k++)
        h = (h ^ (uint8_t)s[k]) * 1099511628211ull;
    return h;
}

static bool const_equal(const fal_pvalue *v, uint8_t type, int32_t i, const char *s, size_t len)
{
    if (v->type != type)
        return false;
    if (type == GSVM_LSL_INTEGER)
        return v->i == i;
    return v->len == len && (len == 0 || memcmp(v->s, s, len) == 0);
}

static void index_insert(gsvm_lsl_program *p, size_t idx)
{
    const fal_pvalue *v = &p->consts[idx];
    size_t mask = p->const_index_cap - 1;
    size_t at = (size_t)const_hash(v->type, v->i, v->s, v->len) & mask;
    while (p->const_index[at])
        at = (at + 1) & mask;
    p->const_index[at] = (uint32_t)idx + 1;
}

/* Brings the index up to date (room for one more constant); false on OOM. */
static bool index_sync(gsvm_lsl_program *p)
{
    if ((p->nconst + 1) * 2 > p->const_index_cap) {
        size_t cap = p->const_index_cap ? p->const_index_cap : 64;
        while ((p->nconst + 1) * 2 > cap)
            cap *= 2;
        uint32_t *ni = calloc(cap, sizeof *ni);
        if (!ni) {
            p->oom = true;
            return false;
        }
        free(p->const_index);
        p->const_index = ni;
        p->const_index_cap = cap;
        p->const_indexed = 0;
    }
    for (; p->const_indexed < p->nconst; p->const_indexed++)
        index_insert(p, p->const_indexed);
    return true;
}

static long const_find(gsvm_lsl_program *p, uint8_t type, int32_t i, const char *s, size_t len)
{
    if (!index_sync(p))
        return -2;
    size_t mask = p->const_index_cap - 1;
    for (size_t at = (size_t)const_hash(type, i, s, len) & mask; p->const_index[at];
         at = (at + 1) & mask)
        if (const_equal(&p->consts[p->const_index[at] - 1], type, i, s, len))
            return (long)p->const_index[at] - 1;
    return -1;
}

long fal_program_const_int(gsvm_lsl_program *p, int32_t v)
{
    long found = const_find(p, GSVM_LSL_INTEGER, v, NULL, 0);
    if (found != -1)
        return found < 0 ? -1 : found;
    if (!grow(p, (void **)&p->consts, &p->capconst, p->nconst, sizeof *p->consts))
        return -1;
    p->consts[p->nconst] = (fal_pvalue){GSVM_LSL_INTEGER, v, NULL, 0};
    return (long)p->nconst++;
}

long fal_program_const_str(gsvm_lsl_program *p, const char *s, size_t len)
{
    long found = const_find(p, GSVM_LSL_STRING, 0, s, len);
    if (found != -1)
        return found < 0 ? -1 : found;
    if (!grow(p, (void **)&p->consts, &p->capconst, p->nconst, sizeof *p->consts))
        return -1;
    char *d = gsvm_dup_bytes(s, len);
    if (!d) {
        p->oom = true;
        return -1;
    }
    p->consts[p->nconst] = (fal_pvalue){GSVM_LSL_STRING, 0, d, (uint32_t)len};
    return (long)p->nconst++;
}

long fal_program_host(gsvm_lsl_program *p, const char *name)
{
    for (size_t i = 0; i < p->nhost; i++)
        if (strcmp(p->host_names[i], name) == 0)
            return (long)i;
    if (!grow(p, (void **)&p->host_names, &p->caphost, p->nhost, sizeof *p->host_names))
        return -1;
    char *d = gsvm_dup_bytes(name, strlen(name));
    if (!d) {
        p->oom = true;
        return -1;
    }
    p->host_names[p->nhost] = d;
    return (long)p->nhost++;
}

long fal_program_global(gsvm_lsl_program *p, const char *name, fal_pvalue def)
{
    size_t cap = p->capglobal;
    if (!grow(p, (void **)&p->globals, &p->capglobal, p->nglobal, sizeof *p->globals))
        return -1;
    if (cap != p->capglobal) {
        char **nn = realloc(p->global_names, p->capglobal * sizeof *nn);
        if (!nn) {
            p->oom = true;
            return -1;
        }
        p->global_names = nn;
    }
    fal_pvalue v = def;
    v.s = NULL;
    if (def.type == GSVM_LSL_STRING) {
        v.s = gsvm_dup_bytes(def.s ? def.s : "", def.len);
        if (!v.s) {
            p->oom = true;
            return -1;
        }
    }
    char *n = name ? gsvm_dup_bytes(name, strlen(name)) : NULL;
    if (name && !n) {
        free(v.s);
        p->oom = true;
        return -1;
    }
    p->globals[p->nglobal] = v;
    p->global_names[p->nglobal] = n;
    return (long)p->nglobal++;
}

long fal_program_event(gsvm_lsl_program *p, const char *name, uint32_t entry_ip,
                       const uint8_t *param_types, uint32_t nparams, uint32_t local_count)
{
    if (!grow(p, (void **)&p->events, &p->capevent, p->nevent, sizeof *p->events))
        return -1;
    fal_event e = {gsvm_dup_bytes(name, strlen(name)), entry_ip, malloc(nparams ? nparams : 1), nparams,
                   local_count};
    if (!e.name || !e.param_types) {
        free(e.name);
        free(e.param_types);
        p->oom = true;
        return -1;
    }
    if (nparams)
        memcpy(e.param_types, param_types, nparams);
    p->events[p->nevent] = e;
    return (long)p->nevent++;
}

const fal_event *fal_program_find_event(const gsvm_lsl_program *p, const char *name)
{
    for (size_t i = 0; i < p->nevent; i++)
        if (strcmp(p->events[i].name, name) == 0)
            return &p->events[i];
    return NULL;
}

size_t fal2_program_code_size(const gsvm_lsl_program *p) { return p->ncode; }
size_t fal2_program_global_count(const gsvm_lsl_program *p) { return p->nglobal; }
bool fal2_program_has_event(const gsvm_lsl_program *p, const char *event)
{
    return fal_program_find_event(p, event) != NULL;
}

bool gsvm_lsl_is_program_file(const uint8_t *data, size_t len)
{
    return len >= 4 && memcmp(data, FPC_MAGIC, 4) == 0;
}

/* ---- saving ---------------------------------------------------------------- */

static void put_bytes(gsvm_buf *b, const char *s, size_t len)
{
    gsvm_buf_u32(b, (uint32_t)len, false);
    gsvm_buf_append(b, s, len);
}

static void put_value(gsvm_buf *b, const fal_pvalue *v)
{
    gsvm_buf_u8(b, v->type);
    if (v->type == GSVM_LSL_INTEGER)
        gsvm_buf_u32(b, (uint32_t)v->i, false);
    else
        put_bytes(b, v->s, v->len);
}

/* The per-instruction table as runs: one where the position changes. */
static void put_lines(gsvm_buf *b, const gsvm_lsl_program *p)
{
    size_t at = b->len;
    uint32_t runs = 0, line = 0, col = 0;
    gsvm_buf_u32(b, 0, false);
    for (size_t i = 0; i < p->ncode; i++) {
        uint32_t l, c;
        gsvm_lsl_program_line(p, i, &l, &c);
        if (l == line && c == col)
            continue;
        line = l;
        col = c;
        gsvm_buf_u32(b, (uint32_t)i, false);
        gsvm_buf_u32(b, line, false);
        gsvm_buf_u32(b, col, false);
        runs++;
    }
    if (!b->oom)
        for (int k = 0; k < 4; k++)
            b->data[at + k] = (uint8_t)(runs >> 8 * k);
}

gsvm_status fal2_program_save(const gsvm_lsl_program *p, uint8_t **out, size_t *len,
                                  gsvm_error *err)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    bool lines = p->lines != NULL;
    gsvm_buf_append(&b, FPC_MAGIC, 4);
    gsvm_buf_u16(&b, lines ? FPC_FORMAT_LINES : FPC_FORMAT_VERSION, false);
    gsvm_buf_u32(&b, p->compiler_version, false);
    gsvm_buf_u32(&b, p->abi_version, false);
    gsvm_buf_u32(&b, (uint32_t)p->nconst, false);
    for (size_t i = 0; i < p->nconst; i++)
        put_value(&b, &p->consts[i]);
    gsvm_buf_u32(&b, (uint32_t)p->nhost, false);
    for (size_t i = 0; i < p->nhost; i++)
        put_bytes(&b, p->host_names[i], strlen(p->host_names[i]));
    gsvm_buf_u32(&b, (uint32_t)p->nglobal, false);
    for (size_t i = 0; i < p->nglobal; i++) {
        put_value(&b, &p->globals[i]);
        const char *n = p->global_names[i] ? p->global_names[i] : "";
        put_bytes(&b, n, strlen(n));
    }
    gsvm_buf_u32(&b, (uint32_t)p->nevent, false);
    for (size_t i = 0; i < p->nevent; i++) {
        const fal_event *e = &p->events[i];
        put_bytes(&b, e->name, strlen(e->name));
        gsvm_buf_u32(&b, e->entry_ip, false);
        gsvm_buf_u32(&b, e->local_count, false);
        gsvm_buf_u32(&b, e->nparams, false);
        gsvm_buf_append(&b, e->param_types, e->nparams);
    }
    gsvm_buf_u32(&b, (uint32_t)p->ncode, false);
    for (size_t i = 0; i < p->ncode; i++) {
        gsvm_buf_u8(&b, p->code[i].op);
        gsvm_buf_u32(&b, (uint32_t)p->code[i].a, false);
        gsvm_buf_u32(&b, (uint32_t)p->code[i].b, false);
    }
    if (lines)
        put_lines(&b, p);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory saving the program");
    }
    *out = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

/* ---- loading ----------------------------------------------------------------- */

/* Reads a u32 count of items each at least `min_size` bytes, refusing counts
 * the remaining bytes cannot hold (so a forged count never allocates). */
static bool read_count(gsvm_reader *r, uint32_t *n, size_t min_size, const char *what)
{
    size_t at = r->pos;
    if (!gsvm_read_u32(r, n, what))
        return false;
    if ((uint64_t)*n * min_size > gsvm_reader_left(r)) {
        r->pos = at;
        return gsvm_reader_fail(r, "%s %u is more than the remaining %zu bytes can hold", what, *n,
                                gsvm_reader_left(r) - 4);
    }
    return true;
}

/* A name: u32 length + bytes, no NUL inside; `allow_empty` for debug names. */
static char *read_name(gsvm_reader *r, bool allow_empty, const char *what)
{
    uint32_t len;
    const uint8_t *bytes;
    size_t at = r->pos;
    if (!gsvm_read_u32(r, &len, what) || !gsvm_read_bytes(r, len, &bytes, what))
        return NULL;
    if ((!allow_empty && len == 0) || memchr(bytes, 0, len)) {
        r->pos = at;
        gsvm_reader_fail(r, "%s is %s", what, len ? "not a valid name (contains NUL)" : "empty");
        return NULL;
    }
    char *s = gsvm_dup_bytes((const char *)bytes, len);
    if (!s)
        gsvm_reader_fail(r, "out of memory reading %s", what);
    return s;
}

static bool read_value(gsvm_reader *r, fal_pvalue *v, const char *what)
{
    uint8_t tag;
    size_t at = r->pos;
    memset(v, 0, sizeof *v);
    if (!gsvm_read_u8(r, &tag, what))
        return false;
    if (tag == GSVM_LSL_INTEGER) {
        v->type = GSVM_LSL_INTEGER;
        return gsvm_read_i32(r, &v->i, what);
    }
    if (tag != GSVM_LSL_STRING) {
        r->pos = at;
        return gsvm_reader_fail(r, "%s has unknown value tag %u (1 integer, 2 string)", what, tag);
    }
    uint32_t len;
    const uint8_t *bytes;
    if (!gsvm_read_u32(r, &len, what))
        return false;
    if (len > FAL_MAX_STRING) {
        r->pos -= 4;
        return gsvm_reader_fail(r, "%s: string length %u is over the limit", what, len);
    }
    if (!gsvm_read_bytes(r, len, &bytes, what))
        return false;
    v->type = GSVM_LSL_STRING;
    v->len = len;
    v->s = gsvm_dup_bytes((const char *)bytes, len);
    if (!v->s)
        return gsvm_reader_fail(r, "out of memory reading %s", what);
    return true;
}

/* One event table entry; `seen` holds the names so far (a hash set, so a
 * forged table of many events still loads in linear time). */
static gsvm_status read_event(gsvm_reader *r, gsvm_lsl_program *p, fal_event *e, lsl_names *seen)
{
    size_t at = r->pos;
    if (!(e->name = read_name(r, false, "event name")))
        return GSVM_ERR_INPUT;
    p->nevent++;
    long before;
    if (lsl_names_get(seen, e->name, &before)) {
        r->pos = at;
        gsvm_reader_fail(r, "event '%s' appears twice", e->name);
        return GSVM_ERR_INPUT;
    }
    if (!lsl_names_set(seen, e->name, (long)p->nevent))
        return GSVM_ERR_NOMEM;
    if (!gsvm_read_u32(r, &e->entry_ip, "event entry ip") ||
        !gsvm_read_u32(r, &e->local_count, "event local count"))
        return GSVM_ERR_INPUT;
    if (e->local_count > FAL_MAX_LOCALS) {
        r->pos -= 4;
        gsvm_reader_fail(r, "event '%s' needs %u locals, more than the limit %u", e->name,
                         e->local_count, FAL_MAX_LOCALS);
        return GSVM_ERR_INPUT;
    }
    const uint8_t *types;
    if (!gsvm_read_u32(r, &e->nparams, "event parameter count"))
        return GSVM_ERR_INPUT;
    if (e->nparams > FAL_MAX_PARAMS || e->nparams > e->local_count) {
        r->pos -= 4;
        gsvm_reader_fail(r, "event '%s' has %u parameters but %u locals", e->name, e->nparams,
                         e->local_count);
        return GSVM_ERR_INPUT;
    }
    if (!gsvm_read_bytes(r, e->nparams, &types, "event parameter types"))
        return GSVM_ERR_INPUT;
    e->param_types = malloc(e->nparams ? e->nparams : 1);
    if (!e->param_types)
        return GSVM_ERR_NOMEM;
    for (uint32_t k = 0; k < e->nparams; k++) {
        if (types[k] != GSVM_LSL_INTEGER && types[k] != GSVM_LSL_STRING) {
            r->pos -= e->nparams - k;
            gsvm_reader_fail(r, "event '%s' parameter %u has unknown type %u", e->name, k + 1,
                             types[k]);
            return GSVM_ERR_INPUT;
        }
        e->param_types[k] = types[k];
    }
    return GSVM_OK;
}

/* Format 2's line table, expanded to one line:column per instruction. */
static gsvm_status read_lines(gsvm_reader *r, gsvm_lsl_program *p)
{
    uint32_t n;
    if (!read_count(r, &n, 12, "line-table run count"))
        return GSVM_ERR_INPUT;
    p->lines = calloc(p->ncode ? p->ncode : 1, sizeof *p->lines);
    if (!p->lines)
        return GSVM_ERR_NOMEM;
    p->caplines = p->ncode;
    uint32_t ip = 0, line = 0, col = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t from;
        if (!gsvm_read_u32(r, &from, "line-table ip"))
            return GSVM_ERR_INPUT;
        if (from >= p->ncode || (i && from <= ip)) {
            r->pos -= 4;
            gsvm_reader_fail(r, "line-table run %u starts at ip %u, %s", i, from,
                             from >= p->ncode ? "outside the code" : "not after the run before it");
            return GSVM_ERR_INPUT;
        }
        for (; ip < from; ip++)
            p->lines[ip][0] = line, p->lines[ip][1] = col;
        if (!gsvm_read_u32(r, &line, "line-table line") || !gsvm_read_u32(r, &col, "line-table column"))
            return GSVM_ERR_INPUT;
        if (!line)
            col = 0; /* unknown */
    }
    for (; ip < p->ncode; ip++)
        p->lines[ip][0] = line, p->lines[ip][1] = col;
    return GSVM_OK;
}

static gsvm_status load_body(gsvm_reader *r, gsvm_lsl_program *p)
{
    const uint8_t *magic;
    uint16_t version;
    uint32_t n;
    if (!gsvm_read_bytes(r, 4, &magic, "magic"))
        return GSVM_ERR_INPUT;
    if (memcmp(magic, FPC_MAGIC, 4) != 0) {
        r->pos = 0;
        gsvm_reader_fail(r, "not a Falcon program (magic is not \"" FPC_MAGIC "\")");
        return GSVM_ERR_INPUT;
    }
    if (!gsvm_read_u16(r, &version, "format version"))
        return GSVM_ERR_INPUT;
    if (version != FPC_FORMAT_VERSION && version != FPC_FORMAT_LINES) {
        r->pos -= 2;
        gsvm_reader_fail(r, "program file format version %u is not %u or %u", version, FPC_FORMAT_VERSION,
                         FPC_FORMAT_LINES);
        return GSVM_ERR_INPUT;
    }
    if (!gsvm_read_u32(r, &p->compiler_version, "compiler version") ||
        !gsvm_read_u32(r, &p->abi_version, "ABI version"))
        return GSVM_ERR_INPUT;
    if (p->abi_version != GSVM_LSL_ABI_VERSION) {
        r->pos -= 4;
        gsvm_reader_fail(r, "program ABI %u is not implemented (this VM runs ABI %d)",
                         p->abi_version, GSVM_LSL_ABI_VERSION);
        return GSVM_ERR_INPUT;
    }

    if (!read_count(r, &n, 5, "constant count"))
        return GSVM_ERR_INPUT;
    p->consts = calloc(n ? n : 1, sizeof *p->consts);
    if (!p->consts)
        return GSVM_ERR_NOMEM;
    p->capconst = n;
    for (uint32_t i = 0; i < n; i++) {
        if (!read_value(r, &p->consts[i], "constant"))
            return GSVM_ERR_INPUT;
        p->nconst++;
    }

    if (!read_count(r, &n, 5, "host-name count"))
        return GSVM_ERR_INPUT;
    p->host_names = calloc(n ? n : 1, sizeof *p->host_names);
    if (!p->host_names)
        return GSVM_ERR_NOMEM;
    p->caphost = n;
    for (uint32_t i = 0; i < n; i++) {
        if (!(p->host_names[i] = read_name(r, false, "host name")))
            return GSVM_ERR_INPUT;
        p->nhost++;
    }

    if (!read_count(r, &n, 9, "global count"))
        return GSVM_ERR_INPUT;
    p->globals = calloc(n ? n : 1, sizeof *p->globals);
    p->global_names = calloc(n ? n : 1, sizeof *p->global_names);
    if (!p->globals || !p->global_names)
        return GSVM_ERR_NOMEM;
    p->capglobal = n;
    for (uint32_t i = 0; i < n; i++) {
        if (!read_value(r, &p->globals[i], "global default"))
            return GSVM_ERR_INPUT;
        p->nglobal++;
        char *name = read_name(r, true, "global name");
        if (!name)
            return GSVM_ERR_INPUT;
        if (!name[0]) {
            free(name);
            name = NULL;
        }
        p->global_names[i] = name;
    }

    if (!read_count(r, &n, 16, "event count"))
        return GSVM_ERR_INPUT;
    p->events = calloc(n ? n : 1, sizeof *p->events);
    if (!p->events)
        return GSVM_ERR_NOMEM;
    p->capevent = n;
    size_t event_table_at = r->pos;
    lsl_names seen = {0};
    gsvm_status est = GSVM_OK;
    for (uint32_t i = 0; i < n && est == GSVM_OK; i++)
        est = read_event(r, p, &p->events[i], &seen);
    lsl_names_free(&seen);
    if (est != GSVM_OK)
        return est;

    if (!read_count(r, &n, 9, "instruction count"))
        return GSVM_ERR_INPUT;
    p->code = calloc(n ? n : 1, sizeof *p->code);
    if (!p->code)
        return GSVM_ERR_NOMEM;
    p->capcode = n;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t op;
        if (!gsvm_read_u8(r, &op, "opcode"))
            return GSVM_ERR_INPUT;
        if (op >= FOP_COUNT) {
            r->pos--;
            gsvm_reader_fail(r, "instruction %u has unknown opcode %u", i, op);
            return GSVM_ERR_INPUT;
        }
        p->code[i].op = op;
        if (!gsvm_read_i32(r, &p->code[i].a, "operand a") ||
            !gsvm_read_i32(r, &p->code[i].b, "operand b"))
            return GSVM_ERR_INPUT;
        p->ncode++;
    }
    for (size_t i = 0; i < p->nevent; i++) {
        if (p->events[i].entry_ip >= p->ncode) {
            r->pos = event_table_at;
            gsvm_reader_fail(r, "event '%s' starts at ip %u, outside the %zu instructions",
                             p->events[i].name, p->events[i].entry_ip, p->ncode);
            return GSVM_ERR_INPUT;
        }
    }
    if (version == FPC_FORMAT_LINES && (est = read_lines(r, p)) != GSVM_OK)
        return est;
    if (gsvm_reader_left(r)) {
        gsvm_reader_fail(r, "%zu bytes of trailing garbage after the program", gsvm_reader_left(r));
        return GSVM_ERR_INPUT;
    }
    return GSVM_OK;
}

gsvm_status fal2_program_load(const uint8_t *data, size_t len, const char *file,
                                  gsvm_lsl_program **out, gsvm_error *err)
{
    *out = NULL;
    gsvm_lsl_program *p = fal_program_new();
    if (!p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, file, err);
    gsvm_status st = load_body(&r, p);
    if (st == GSVM_ERR_NOMEM && !r.failed)
        gsvm_error_at_offset(err, st, file, (long long)r.pos, "out of memory loading the program");
    if (st != GSVM_OK) {
        gsvm_lsl_program_free(p);
        return r.failed ? GSVM_ERR_INPUT : st;
    }
    *out = p;
    return GSVM_OK;
}

bool fal2_program_line(const gsvm_lsl_program *prog, uint64_t ip, uint32_t *line, uint32_t *col)
{
    bool ok = prog->lines && ip < prog->ncode && ip < prog->caplines && prog->lines[ip][0] != 0;
    *line = ok ? prog->lines[ip][0] : 0;
    *col = ok ? prog->lines[ip][1] : 0;
    return ok;
}
