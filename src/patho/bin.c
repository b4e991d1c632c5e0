/* Loading and saving `.bin` files (the section layout is described in
 * include/gsvm/patho.h; the instruction encodings in isa.def).
 *
 * The loader checks every count against the bytes left before allocating,
 * so a corrupted count is an error naming its offset, never a huge
 * allocation; and it fails whole: on error nothing is returned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/reader.h"
#include "patho/internal.h"
#include "patho/isa.h"

/* free(), unless `ptr` was carved out of the program's block */
static void free_part(const gsvm_patho_program *p, void *ptr)
{
    uintptr_t a = (uintptr_t)ptr, lo = (uintptr_t)p->block;
    if (p->block && a >= lo && a <= lo + p->block_size)
        return;
    free(ptr);
}

void gsvm_patho_free(gsvm_patho_program *p)
{
    if (!p)
        return;
    /* Counts may have been read before their arrays were allocated. */
    for (uint32_t i = 0; p->globals && i < p->nglobals; i++)
        free_part(p, p->globals[i].name.str);
    free_part(p, p->globals);
    free_part(p, p->pool);
    for (uint32_t i = 0; p->imports && i < p->nimports; i++)
        free_part(p, p->imports[i].name.str);
    free_part(p, p->imports);
    for (uint32_t i = 0; p->tasks && i < p->ntasks; i++) {
        free_part(p, p->tasks[i].var_types);
        for (uint32_t e = 0; p->tasks[i].events && e < p->tasks[i].nevents; e++)
            free_part(p, p->tasks[i].events[e].arg_types);
        free_part(p, p->tasks[i].events);
    }
    free_part(p, p->tasks);
    for (uint32_t e = 0; p->events && e < p->nevents; e++)
        free_part(p, p->events[e].arg_types);
    free_part(p, p->events);
    free_part(p, p->insns);
    free_part(p, p->args);
    free_part(p, p->vtypes);
    free(p->block);
    free(p);
}

/* ---- reading ------------------------------------------------------------ */

typedef struct loader {
    gsvm_reader r;
    gsvm_patho_program *p;
    uint32_t args_cap, vtypes_cap;
    size_t block_used;
    bool oom;
} loader;

/* `n` bytes (zeroed when `zero`) from the program's block, 8-byte aligned;
 * from malloc once the block is full (gsvm_patho_free tells them apart by
 * address).  One block per program instead of an allocation per name,
 * type list and event array. */
static void *part_alloc(loader *L, size_t n, bool zero)
{
    gsvm_patho_program *p = L->p;
    size_t at = (L->block_used + 7) & ~(size_t)7;
    if (p->block && at <= p->block_size && n <= p->block_size - at) {
        L->block_used = at + n;
        void *q = p->block + at;
        if (zero)
            memset(q, 0, n);
        return q;
    }
    void *q = zero ? calloc(n ? n : 1, 1) : malloc(n ? n : 1);
    if (!q) {
        L->oom = true;
        gsvm_reader_fail(&L->r, "out of memory");
    }
    return q;
}

/* `n` bytes (8-byte aligned) from the block when they fit, else NULL (the
 * caller then allocates as it would without a block). */
static void *part_try(loader *L, size_t n)
{
    gsvm_patho_program *p = L->p;
    size_t at = (L->block_used + 7) & ~(size_t)7;
    if (!p->block || at > p->block_size || n > p->block_size - at)
        return NULL;
    L->block_used = at + n;
    return p->block + at;
}

/* A count read from the file, checked against the bytes left: each item
 * takes at least `min_item` bytes. */
static bool read_count(loader *L, uint32_t *n, size_t min_item, const char *what)
{
    size_t at = L->r.pos;
    if (!gsvm_read_u32(&L->r, n, what))
        return false;
    if (min_item && (size_t)*n > gsvm_reader_left(&L->r) / min_item) {
        L->r.pos = at;
        return gsvm_reader_fail(&L->r, "%s %u is larger than the %zu bytes left allow", what, *n,
                                gsvm_reader_left(&L->r) - 4);
    }
    return true;
}

static bool read_name(loader *L, gsvm_patho_name *name, const char *what)
{
    uint8_t b0, b1 = 0;
    if (!gsvm_read_u8(&L->r, &b0, what))
        return false;
    uint32_t len = b0;
    if (b0 & 0x80) {
        if (!gsvm_read_u8(&L->r, &b1, what))
            return false;
        len = (uint32_t)(b0 & 0x7F) | ((uint32_t)b1 << 7);
        name->long_prefix = len < 0x80;
    }
    const uint8_t *bytes;
    if (!gsvm_read_bytes(&L->r, len, &bytes, what))
        return false;
    if (!(name->str = part_alloc(L, len + 1, false)))
        return false;
    memcpy(name->str, bytes, len);
    name->str[len] = 0;
    name->len = len;
    return true;
}

static bool read_types(loader *L, uint32_t n, uint8_t **out, const char *what)
{
    const uint8_t *bytes;
    if (!gsvm_read_bytes(&L->r, n, &bytes, what))
        return false;
    if (!(*out = part_alloc(L, n, false)))
        return false;
    memcpy(*out, bytes, n);
    return true;
}

static bool read_events(loader *L, uint32_t n, gsvm_patho_event **out)
{
    if (!(*out = part_alloc(L, (size_t)n * sizeof **out, true)))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        gsvm_patho_event *e = &(*out)[i];
        if (!gsvm_read_u32(&L->r, &e->id, "event id") || !gsvm_read_u32(&L->r, &e->op, "event op") ||
            !read_count(L, &e->nargs, 1, "event argument count") ||
            !read_types(L, e->nargs, &e->arg_types, "event argument types"))
            return false;
    }
    return true;
}

static bool grow_slow(loader *L, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    uint32_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    /* an array in the block is sized to never grow; were it to, it moves
     * out (the block is not realloc'd piecewise) */
    uintptr_t a = (uintptr_t)*arr, lo = (uintptr_t)L->p->block;
    bool in_block = *arr && L->p->block && a >= lo && a < lo + L->p->block_size;
    void *n = in_block ? malloc((size_t)ncap * elem) : realloc(*arr, (size_t)ncap * elem);
    if (!n) {
        L->oom = true;
        return gsvm_reader_fail(&L->r, "out of memory");
    }
    if (in_block)
        memcpy(n, *arr, (size_t)*cap * elem);
    *arr = n;
    *cap = ncap;
    return true;
}

/* grow_slow, with the usual "there is room" answered inline */
static inline bool grow(loader *L, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    return need <= *cap || grow_slow(L, arr, cap, need, elem);
}

static bool read_arg_list(loader *L, gsvm_patho_insn *in, uint32_t n)
{
    gsvm_patho_program *p = L->p;
    if ((size_t)n > gsvm_reader_left(&L->r) / 5)
        return gsvm_reader_fail(&L->r, "argument count %u is larger than the bytes left allow", n);
    if (!grow(L, (void **)&p->args, &L->args_cap, p->nargs + n, sizeof *p->args))
        return false;
    in->list = p->nargs;
    in->list_len = n;
    /* the n * 5 bytes are there (checked above): read in place */
    const uint8_t *d = L->r.data + L->r.pos;
    for (uint32_t i = 0; i < n; i++, d += 5) {
        gsvm_patho_arg *a = &p->args[p->nargs + i];
        a->var = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
        a->mode = d[4];
    }
    L->r.pos += (size_t)n * 5;
    p->nargs += n;
    return true;
}

/* The list after an F, R or L operand whose value v was read at `at`. */
static bool read_list(loader *L, gsvm_patho_insn *in, char c, uint32_t v, size_t at)
{
    gsvm_patho_program *p = L->p;
    if (c == 'F') {
        if (v >= p->nimports) {
            L->r.pos = at;
            return gsvm_reader_fail(&L->r, "Func import index %u out of range (%u imports)", v,
                                    p->nimports);
        }
        if (!read_arg_list(L, in, p->imports[v].argc))
            return false;
    } else if (c == 'R') {
        if (!read_arg_list(L, in, v))
            return false;
    } else {
        if ((size_t)v > gsvm_reader_left(&L->r)) {
            L->r.pos = at;
            return gsvm_reader_fail(&L->r, "PushV count %u is larger than the bytes left", v);
        }
        const uint8_t *types;
        if (!gsvm_read_bytes(&L->r, v, &types, "PushV types") ||
            !grow(L, (void **)&p->vtypes, &L->vtypes_cap, p->nvtypes + v, 1))
            return false;
        if (v)
            memcpy(p->vtypes + p->nvtypes, types, v);
        in->list = p->nvtypes;
        in->list_len = v;
        p->nvtypes += v;
    }
    in->size = (uint32_t)(L->r.pos - in->offset);
    return true;
}

static bool read_insn(loader *L, const uint8_t *opmap, gsvm_patho_insn *in)
{
    gsvm_patho_program *p = L->p;
    /* zeroed here, while the line is being written anyway, not by calloc
     * in a separate pass over the whole array */
    memset(in, 0, sizeof *in);
    in->offset = (uint32_t)L->r.pos;
    size_t left = L->r.pos <= L->r.len ? L->r.len - L->r.pos : 0; /* gsvm_reader_left, inlined */
    const uint8_t *q = L->r.data + L->r.pos;
    int known = left >= 2 && q[1] == 0 ? opmap[q[0]] - 1 : -1;
    if (known >= 0 && left >= (size_t)gsvm_patho_shapes[known].fixed_size + 3) {
        /* the common case: a known opcode whose fixed part is there with 3
         * bytes to spare, so each operand is read as 4 bytes and cut to its
         * size (no check, no switch per letter); a list's count is the last
         * operand, the list itself is read checked */
        static const uint32_t keep[4] = {0xFFu, 0xFFFFu, 0xFFFFFFu, 0xFFFFFFFFu};
        const gsvm_patho_shape *sh = &gsvm_patho_shapes[known];
        in->raw = q[0];
        in->op = (uint16_t)known;
        q += 2;
        for (unsigned k = 0, nops = gsvm_patho_ops[known].noperands; k < nops; k++) {
            unsigned sz = (sh->sizes >> (2 * k)) & 3;
            in->a[k] = ((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                        (uint32_t)q[3] << 24) & keep[sz];
            q += sz + 1;
        }
        L->r.pos = (size_t)(q - L->r.data);
        if (sh->list_at < 0) {
            in->size = (uint32_t)(L->r.pos - in->offset);
            return true;
        }
        return read_list(L, in, gsvm_patho_ops[known].operands[sh->list_at], in->a[sh->list_at],
                         L->r.pos - 4);
    }
    uint16_t code;
    if (left >= 2) {
        code = (uint16_t)(L->r.data[L->r.pos] | L->r.data[L->r.pos + 1] << 8);
        L->r.pos += 2;
    } else if (!gsvm_read_u16(&L->r, &code, "opcode")) {
        return false;
    }
    if (code > 0xFF || !opmap[code]) {
        L->r.pos = in->offset;
        return gsvm_reader_fail(&L->r, "unknown opcode 0x%02x in the %s layout", code,
                                gsvm_patho_layout_name(p->layout));
    }
    in->raw = code;
    in->op = (uint16_t)(opmap[code] - 1);
    const char *ops = gsvm_patho_ops[in->op].operands;
    for (unsigned i = 0; ops[i]; i++) {
        uint32_t v = 0;
        uint8_t b;
        uint16_t h;
        size_t at = L->r.pos;
        switch (ops[i]) {
        case 'b': case 'x': case 'T': case 'f': case 'Q': case 'G':
            if (!gsvm_read_u8(&L->r, &b, "operand byte"))
                return false;
            v = b;
            break;
        case 'h':
            if (!gsvm_read_u16(&L->r, &h, "u16 operand"))
                return false;
            v = h;
            break;
        case 'P': {
            const uint8_t *pad;
            if (!gsvm_read_bytes(&L->r, 3, &pad, "padding"))
                return false;
            v = (uint32_t)pad[0] | (uint32_t)pad[1] << 8 | (uint32_t)pad[2] << 16;
            break;
        }
        default:
            if (!gsvm_read_u32(&L->r, &v, "operand"))
                return false;
            break;
        }
        in->a[i] = v;
        if ((ops[i] == 'F' || ops[i] == 'R' || ops[i] == 'L') && !read_list(L, in, ops[i], v, at))
            return false;
    }
    in->size = (uint32_t)(L->r.pos - in->offset);
    return true;
}

/* How many operands of a decoded instruction point nowhere (targets past
 * the code, task ids past the tasks, pool offsets past the pool): summed
 * over a program, the tie-breaker when both layouts decode the bytes. */
static inline unsigned bad_operands(const gsvm_patho_program *p, const gsvm_patho_insn *in)
{
    const gsvm_patho_shape *sh = &gsvm_patho_shapes[in->op];
    /* most instructions have none of these operands: one test */
    unsigned any = sh->ref_mask, bad = 0;
    for (unsigned k = 0; any >> k; k++) {
        if (!((any >> k) & 1))
            continue;
        uint32_t v = in->a[k];
        if ((sh->jump_mask >> k) & 1)
            bad += v >= p->ninsns;
        else if ((sh->task_mask >> k) & 1)
            bad += v >= p->ntasks;
        else
            bad += v >= p->pool_size;
    }
    return bad;
}

/* Decodes the bytes with one layout; *bad (when set) gets the number of
 * references that point nowhere (see bad_operands, plus RunTask and
 * RunOp). */
static gsvm_status decode(const uint8_t *data, size_t len, gsvm_patho_layout layout,
                          const char *file, gsvm_patho_program **out, unsigned *bad,
                          gsvm_error *err)
{
    *out = NULL;
    if (len > UINT32_MAX)
        return gsvm_error_set(err, GSVM_ERR_INPUT, file, "file too large (%zu bytes)", len);
    loader L;
    memset(&L, 0, sizeof L);
    gsvm_reader_init(&L.r, data, len, file, err);
    gsvm_patho_program *p = L.p = calloc(1, sizeof *p);
    if (!p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    p->layout = layout;
    /* room for the parts in most files: names, type lists and the pool take
     * at most the file's bytes, the arrays a few times their share (an
     * instruction ~4 times its bytes, the argument array 1.6 times the
     * code's); beyond, malloc */
    p->block_size = 8 * len + 256;
    if (!(p->block = malloc(p->block_size)))
        goto nomem;
    /* op + 1 by opcode (isa.c) */
    const uint8_t *opmap = layout == GSVM_PATHO_LAYOUT_ALPHA ? gsvm_patho_op_of_alpha : gsvm_patho_op_of_hd;

    gsvm_reader *r = &L.r;
    if (!read_count(&L, &p->nglobals, 2, "global variable count"))
        goto fail;
    if (!(p->globals = part_alloc(&L, (size_t)p->nglobals * sizeof *p->globals, true)))
        goto fail;
    for (uint32_t i = 0; i < p->nglobals; i++) {
        gsvm_patho_global *g = &p->globals[i];
        if (!gsvm_read_u8(r, &g->type, "global type") ||
            !gsvm_read_u8(r, &g->has_name, "global name flag"))
            goto fail;
        if (g->has_name && !read_name(&L, &g->name, "global name"))
            goto fail;
    }

    const uint8_t *pool;
    if (!read_count(&L, &p->pool_size, 1, "pool size") ||
        !gsvm_read_bytes(r, p->pool_size, &pool, "pool"))
        goto fail;
    p->pool = part_try(&L, p->pool_size ? p->pool_size : 1);
    if (!p->pool && !(p->pool = malloc(p->pool_size ? p->pool_size : 1)))
        goto nomem;
    memcpy(p->pool, pool, p->pool_size);

    if (!read_count(&L, &p->nimports, 5, "import count"))
        goto fail;
    if (!(p->imports = part_alloc(&L, (size_t)p->nimports * sizeof *p->imports, true)))
        goto fail;
    for (uint32_t i = 0; i < p->nimports; i++)
        if (!read_name(&L, &p->imports[i].name, "import name") ||
            !gsvm_read_u32(r, &p->imports[i].argc, "import argument count"))
            goto fail;

    if (!gsvm_read_u32(r, &p->run_task, "RunTask") || !gsvm_read_u32(r, &p->run_op, "RunOp") ||
        !read_count(&L, &p->ntasks, 12, "task count"))
        goto fail;
    if (!(p->tasks = part_alloc(&L, (size_t)p->ntasks * sizeof *p->tasks, true)))
        goto fail;
    for (uint32_t i = 0; i < p->ntasks; i++) {
        gsvm_patho_task *t = &p->tasks[i];
        if (!read_count(&L, &t->nvars, 1, "task variable count") ||
            !read_types(&L, t->nvars, &t->var_types, "task variable types") ||
            !gsvm_read_u32(r, &t->nparams, "task parameter count") ||
            !read_count(&L, &t->nevents, 12, "task event count") ||
            !read_events(&L, t->nevents, &t->events))
            goto fail;
    }
    if (!read_count(&L, &p->nevents, 12, "global event count") ||
        !read_events(&L, p->nevents, &p->events))
        goto fail;

    p->code_offset = (uint32_t)r->pos;
    if (!read_count(&L, &p->ninsns, 2, "instruction count"))
        goto fail;
    /* the code's arrays from the block too when they fit: the instructions,
     * and the call arguments and PushV types at the most the code bytes
     * can hold (5 bytes an argument, 1 a type), so they never grow */
    p->insns = part_try(&L, (p->ninsns ? p->ninsns : 1) * sizeof *p->insns);
    if (!p->insns && !(p->insns = malloc((p->ninsns ? p->ninsns : 1) * sizeof *p->insns)))
        goto nomem;
    size_t code_left = gsvm_reader_left(r);
    if ((p->args = part_try(&L, (code_left / 5 + 1) * sizeof *p->args)))
        L.args_cap = (uint32_t)(code_left / 5 + 1);
    if ((p->vtypes = part_try(&L, code_left + 1)))
        L.vtypes_cap = (uint32_t)(code_left + 1);
    unsigned nbad = (p->ntasks && p->run_task >= p->ntasks) + (p->run_op >= p->ninsns);
    for (uint32_t i = 0; i < p->ninsns; i++) {
        if (!read_insn(&L, opmap, &p->insns[i]))
            goto fail;
        nbad += bad_operands(p, &p->insns[i]);
    }
    if (r->pos != len) {
        gsvm_reader_fail(r, "%zu unexpected bytes after the last instruction", len - r->pos);
        goto fail;
    }
    /* never NULL, so `p->vtypes + in->list` is always valid */
    if ((!p->vtypes && !(p->vtypes = malloc(1))) || (!p->args && !(p->args = malloc(sizeof *p->args))))
        goto nomem;
    p->file_size = (uint32_t)len;
    if (bad)
        *bad = nbad;
    *out = p;
    return GSVM_OK;
nomem:
    gsvm_patho_free(p);
    return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
fail:
    gsvm_patho_free(p);
    if (L.oom)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    return GSVM_ERR_INPUT;
}

gsvm_status gsvm_patho_load(const uint8_t *data, size_t len, gsvm_patho_layout layout,
                            const char *file, gsvm_patho_program **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (layout == GSVM_PATHO_LAYOUT_ALPHA || layout == GSVM_PATHO_LAYOUT_HD)
        return decode(data, len, layout, file, out, NULL, err);
    /* Detect: only opcodes 0x4D and up differ, and their operand sizes
     * differ too, so a file decodes exactly to its end in at most one
     * layout unless it uses none of them. */
    gsvm_error ehd, ealpha;
    gsvm_patho_program *hd = NULL, *alpha = NULL;
    unsigned bad_hd = 0, bad_alpha = 0;
    gsvm_status shd = decode(data, len, GSVM_PATHO_LAYOUT_HD, file, &hd, &bad_hd, &ehd);
    /* hd with every reference valid wins whatever alpha would say (ties go
     * to hd), so the second decoding is only needed otherwise */
    if (shd == GSVM_OK && bad_hd == 0) {
        *out = hd;
        return GSVM_OK;
    }
    gsvm_status salpha = decode(data, len, GSVM_PATHO_LAYOUT_ALPHA, file, &alpha, &bad_alpha, &ealpha);
    if (shd == GSVM_OK && salpha == GSVM_OK) {
        if (bad_alpha < bad_hd) {
            gsvm_patho_free(hd);
            *out = alpha;
        } else {
            gsvm_patho_free(alpha);
            *out = hd;
        }
        return GSVM_OK;
    }
    if (shd == GSVM_OK) {
        *out = hd;
        return GSVM_OK;
    }
    if (salpha == GSVM_OK) {
        *out = alpha;
        return GSVM_OK;
    }
    *out = NULL;
    /* Neither: report the decoding that got further (more likely the right layout). */
    const gsvm_error *best = ealpha.offset > ehd.offset ? &ealpha : &ehd;
    if (err) {
        *err = *best;
        if (best->status == GSVM_ERR_INPUT) {
            size_t n = strlen(err->message);
            const char *tail = best == &ealpha ? " (as alpha layout)" : " (as hd layout)";
            if (n + strlen(tail) < sizeof err->message)
                memcpy(err->message + n, tail, strlen(tail) + 1);
        }
    }
    return best->status;
}

gsvm_status gsvm_patho_load_file(const char *path, gsvm_patho_layout layout,
                                 gsvm_patho_program **out, gsvm_error *err)
{
    gsvm_buf b;
    *out = NULL;
    gsvm_status st = gsvm_file_read(path, &b, err);
    if (st != GSVM_OK)
        return st;
    st = gsvm_patho_load(b.data, b.len, layout, path, out, err);
    gsvm_buf_free(&b);
    return st;
}

/* ---- writing ------------------------------------------------------------ */

/* Writers for the saver: the buffer is sized up front, so the common case
 * is a direct store. */
static inline void w8(gsvm_buf *b, uint8_t v)
{
    if (b->len + 2 <= b->cap || gsvm_buf_reserve(b, 1))
        b->data[b->len++] = v;
}
static inline void w16(gsvm_buf *b, uint16_t v)
{
    if (b->len + 3 <= b->cap || gsvm_buf_reserve(b, 2)) {
        b->data[b->len] = (uint8_t)v;
        b->data[b->len + 1] = (uint8_t)(v >> 8);
        b->len += 2;
    }
}
static inline void w32(gsvm_buf *b, uint32_t v)
{
    if (b->len + 5 <= b->cap || gsvm_buf_reserve(b, 4)) {
        uint8_t *d = b->data + b->len;
        d[0] = (uint8_t)v;
        d[1] = (uint8_t)(v >> 8);
        d[2] = (uint8_t)(v >> 16);
        d[3] = (uint8_t)(v >> 24);
        b->len += 4;
    }
}

/* The opcode and the fixed operands at w, each operand stored as 4
 * little-endian bytes and w advanced by its real size (the next store
 * overwrites the rest: the caller has 4 bytes of room past the end).
 * Returns the end. */
static inline uint8_t *put_fixed(uint8_t *w, uint16_t code, const gsvm_patho_insn *in,
                                 const gsvm_patho_shape *sh)
{
    w[0] = (uint8_t)code;
    w[1] = (uint8_t)(code >> 8);
    w += 2;
    for (unsigned k = 0, nops = gsvm_patho_ops[in->op].noperands; k < nops; k++) {
        uint32_t v = in->a[k];
        w[0] = (uint8_t)v;
        w[1] = (uint8_t)(v >> 8);
        w[2] = (uint8_t)(v >> 16);
        w[3] = (uint8_t)(v >> 24);
        w += ((sh->sizes >> (2 * k)) & 3) + 1;
    }
    return w;
}

static void put_name(gsvm_buf *b, const gsvm_patho_name *n)
{
    if (n->len >= 0x80 || n->long_prefix) {
        w8(b, (uint8_t)(0x80 | (n->len & 0x7F)));
        w8(b, (uint8_t)(n->len >> 7));
    } else {
        w8(b, (uint8_t)n->len);
    }
    if (n->len)
        gsvm_buf_append(b, n->str, n->len);
}

static void put_events(gsvm_buf *b, uint32_t n, const gsvm_patho_event *ev)
{
    w32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        w32(b, ev[i].id);
        w32(b, ev[i].op);
        w32(b, ev[i].nargs);
        if (ev[i].nargs)
            gsvm_buf_append(b, ev[i].arg_types, ev[i].nargs);
    }
}

gsvm_status gsvm_patho_save(const gsvm_patho_program *p, uint8_t **data, size_t *len,
                            gsvm_error *err)
{
    *data = NULL;
    *len = 0;
    gsvm_error_clear(err);
    if (p->layout != GSVM_PATHO_LAYOUT_ALPHA && p->layout != GSVM_PATHO_LAYOUT_HD)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "program has no layout (alpha or hd)");
    for (uint32_t i = 0; i < p->nglobals; i++)
        if (p->globals[i].has_name && p->globals[i].name.len > 0x7FFF)
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "global %u: name longer than 32767 bytes", i);
    for (uint32_t i = 0; i < p->nimports; i++)
        if (p->imports[i].name.len > 0x7FFF)
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "import %u: name longer than 32767 bytes", i);
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_reserve(&b, p->file_size ? p->file_size : 4096);
    w32(&b, p->nglobals);
    for (uint32_t i = 0; i < p->nglobals; i++) {
        w8(&b, p->globals[i].type);
        w8(&b, p->globals[i].has_name);
        if (p->globals[i].has_name)
            put_name(&b, &p->globals[i].name);
    }
    w32(&b, p->pool_size);
    if (p->pool_size)
        gsvm_buf_append(&b, p->pool, p->pool_size);
    w32(&b, p->nimports);
    for (uint32_t i = 0; i < p->nimports; i++) {
        put_name(&b, &p->imports[i].name);
        w32(&b, p->imports[i].argc);
    }
    w32(&b, p->run_task);
    w32(&b, p->run_op);
    w32(&b, p->ntasks);
    for (uint32_t i = 0; i < p->ntasks; i++) {
        const gsvm_patho_task *t = &p->tasks[i];
        w32(&b, t->nvars);
        if (t->nvars)
            gsvm_buf_append(&b, t->var_types, t->nvars);
        w32(&b, t->nparams);
        put_events(&b, t->nevents, t->events);
    }
    put_events(&b, p->nevents, p->events);
    w32(&b, p->ninsns);
    for (uint32_t i = 0; i < p->ninsns; i++) {
        const gsvm_patho_insn *in = &p->insns[i];
        int code = in->op < GSVM_PATHO_OP_COUNT ? gsvm_patho_code_of(in->op, p->layout) : -1;
        if (code < 0) {
            gsvm_buf_free(&b);
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                  "instruction %u: %s has no opcode in the %s layout", i,
                                  in->op < GSVM_PATHO_OP_COUNT ? gsvm_patho_ops[in->op].name : "?",
                                  gsvm_patho_layout_name(p->layout));
        }
        const gsvm_patho_shape *sh = &gsvm_patho_shapes[in->op];
        /* the bytes after the fixed part: a list that matches its count
         * (else the checked path below reports it), 5 an argument or 1 a
         * type */
        size_t list_bytes = 0;
        char list_kind = 0;
        if (sh->list_at >= 0) {
            list_kind = gsvm_patho_ops[in->op].operands[sh->list_at];
            uint32_t v = in->a[sh->list_at];
            bool fits = list_kind == 'L' ? (uint64_t)in->list + in->list_len <= p->nvtypes
                                         : (uint64_t)in->list + in->list_len <= p->nargs;
            bool counts = list_kind == 'F' ? v < p->nimports && p->imports[v].argc == in->list_len
                                           : v == in->list_len;
            list_bytes = fits && counts ? (size_t)in->list_len * (list_kind == 'L' ? 1 : 5) : SIZE_MAX / 4;
        }
        size_t room = sh->fixed_size + 4u + list_bytes;
        if (list_bytes < SIZE_MAX / 4 && (b.len + room + 1 <= b.cap || gsvm_buf_reserve(&b, room))) {
            uint8_t *w = put_fixed(b.data + b.len, (uint16_t)code, in, sh);
            if (list_kind == 'L') {
                if (in->list_len)
                    memcpy(w, p->vtypes + in->list, in->list_len);
                w += in->list_len;
            } else if (list_kind) {
                for (uint32_t a = 0; a < in->list_len; a++, w += 5) {
                    const gsvm_patho_arg *arg = &p->args[in->list + a];
                    w[0] = (uint8_t)arg->var;
                    w[1] = (uint8_t)(arg->var >> 8);
                    w[2] = (uint8_t)(arg->var >> 16);
                    w[3] = (uint8_t)(arg->var >> 24);
                    w[4] = arg->mode;
                }
            }
            b.len = (size_t)(w - b.data);
            continue;
        }
        w16(&b, (uint16_t)code);
        const char *ops = gsvm_patho_ops[in->op].operands;
        for (unsigned k = 0; ops[k]; k++) {
            uint32_t v = in->a[k];
            switch (ops[k]) {
            case 'b': case 'x': case 'T': case 'f': case 'Q': case 'G':
                w8(&b, (uint8_t)v);
                break;
            case 'h': w16(&b, (uint16_t)v); break;
            case 'P':
                w8(&b, (uint8_t)v);
                w8(&b, (uint8_t)(v >> 8));
                w8(&b, (uint8_t)(v >> 16));
                break;
            default: w32(&b, v); break;
            }
            if (ops[k] == 'F' || ops[k] == 'R') {
                if ((ops[k] == 'F' && (v >= p->nimports || p->imports[v].argc != in->list_len)) ||
                    (ops[k] == 'R' && v != in->list_len) ||
                    (uint64_t)in->list + in->list_len > p->nargs) {
                    gsvm_buf_free(&b);
                    return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                          "instruction %u: %s argument list does not match", i,
                                          gsvm_patho_ops[in->op].name);
                }
                for (uint32_t a = 0; a < in->list_len; a++) {
                    w32(&b, p->args[in->list + a].var);
                    w8(&b, p->args[in->list + a].mode);
                }
            } else if (ops[k] == 'L') {
                if (v != in->list_len || (uint64_t)in->list + in->list_len > p->nvtypes) {
                    gsvm_buf_free(&b);
                    return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                          "instruction %u: PushV type list does not match", i);
                }
                if (in->list_len)
                    gsvm_buf_append(&b, p->vtypes + in->list, in->list_len);
            }
        }
    }
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *data = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

/* Bytes of the sections before the code: where the code section starts. */
static uint64_t sections_size(const gsvm_patho_program *p)
{
    uint64_t at = 4; /* globals */
    for (uint32_t i = 0; i < p->nglobals; i++) {
        const gsvm_patho_name *n = &p->globals[i].name;
        at += 2;
        if (p->globals[i].has_name)
            at += (n->len >= 0x80 || n->long_prefix ? 2 : 1) + (uint64_t)n->len;
    }
    at += 4 + (uint64_t)p->pool_size + 4;
    for (uint32_t i = 0; i < p->nimports; i++) {
        const gsvm_patho_name *n = &p->imports[i].name;
        at += (n->len >= 0x80 || n->long_prefix ? 2 : 1) + (uint64_t)n->len + 4;
    }
    at += 12;
    for (uint32_t t = 0; t < p->ntasks; t++) {
        at += 12 + (uint64_t)p->tasks[t].nvars;
        for (uint32_t e = 0; e < p->tasks[t].nevents; e++)
            at += 12 + (uint64_t)p->tasks[t].events[e].nargs;
    }
    at += 4;
    for (uint32_t e = 0; e < p->nevents; e++)
        at += 12 + (uint64_t)p->events[e].nargs;
    return at;
}

gsvm_status gsvm_patho_finish(gsvm_patho_program *p, gsvm_error *err)
{
    gsvm_error_clear(err);
    uint64_t at = sections_size(p);
    p->code_offset = (uint32_t)at;
    at += 4;
    for (uint32_t i = 0; i < p->ninsns; i++) {
        gsvm_patho_insn *in = &p->insns[i];
        int code = in->op < GSVM_PATHO_OP_COUNT ? gsvm_patho_code_of(in->op, p->layout) : -1;
        if (code < 0)
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                  "instruction %u: no opcode for it in the %s layout", i,
                                  gsvm_patho_layout_name(p->layout));
        in->raw = (uint16_t)code;
        const gsvm_patho_shape *shape = &gsvm_patho_shapes[in->op];
        uint64_t size = shape->fixed_size;
        if (shape->list_at >= 0) {
            char c = gsvm_patho_ops[in->op].operands[shape->list_at];
            uint32_t v = in->a[shape->list_at];
            if (c == 'F' && (v >= p->nimports || p->imports[v].argc != in->list_len))
                return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                      "instruction %u: Func import/argument count mismatch", i);
            if (c != 'F' && v != in->list_len)
                return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                      "instruction %u: list count mismatch", i);
            size += (uint64_t)in->list_len * (c == 'L' ? 1 : 5);
        }
        in->offset = (uint32_t)at;
        in->size = (uint32_t)size;
        at += size;
        if (at > UINT32_MAX)
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "program larger than 4 GiB");
    }
    p->file_size = (uint32_t)at;
    return GSVM_OK;
}
