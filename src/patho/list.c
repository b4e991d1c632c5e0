/* The listing printer: a readable text form of a program that the
 * assembler (asm.c) turns back into the same bytes.
 *
 * Every field of the file appears: globals with their name flags, the pool
 * as a sequence of items (W wide strings, A 8-bit strings, B raw bytes) that
 * concatenate to the exact pool bytes, imports, tasks and their events, the
 * global events, and the code.  Operands show their addressing mode (s3 is
 * Stack[-3], t3 is task variable 3), the pop count encoded in a flag byte
 * (pop=N), pool references as @offset plus the decoded text, targets as
 * labels and natives by name.  Columns after ';' are comments. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/decimal.h"
#include "patho/isa.h"
#include "patho/internal.h"
#include "patho/text.h"

#define COMMENT_COL 44

/* Most of a line is written through a cursor `w` into room reserved
 * beforehand, not through gsvm_buf calls: a byte stored through b->data
 * may alias b->len as far as the compiler knows, so every pb_putc reloads
 * and stores the length, where a cursor stays in a register. */

/* The code section's loop runs once per instruction: the parts of a line
 * are inlined into it (put_code), which is kept out of gsvm_patho_list. */
#if defined(__GNUC__)
#define LIST_INLINE inline __attribute__((always_inline))
#define LIST_LOOP __attribute__((noinline))
#else
#define LIST_INLINE inline
#define LIST_LOOP
#endif

/* Room for one fixed-width operand: its separator and the widest number. */
#define OPERAND_ROOM 32

/* Unsigned decimal at w; returns the end. */
static inline uint8_t *w_u(uint8_t *w, uint32_t v)
{
    if (v < 10) {
        *w = (uint8_t)('0' + v);
        return w + 1;
    }
    return (uint8_t *)gsvm_decimal_u32((char *)w, v);
}

static inline uint8_t *w_d(uint8_t *w, int32_t v)
{
    if (v < 0) {
        *w++ = '-';
        return w_u(w, (uint32_t)0 - (uint32_t)v);
    }
    return w_u(w, (uint32_t)v);
}

/* sN, tN, or N:MODE for an unusual mode byte */
static inline uint8_t *w_var(uint8_t *w, uint32_t var, unsigned mode)
{
    if (mode <= 1) {
        *w++ = mode ? 't' : 's';
        return w_u(w, var);
    }
    w = w_u(w, var);
    *w++ = ':';
    return w_u(w, mode);
}

/* " " before the first operand, ", " before the others (two bytes stored
 * either way) */
static inline uint8_t *w_sep(uint8_t *w, unsigned *printed)
{
    bool first = (*printed)++ == 0;
    w[0] = first ? ' ' : ',';
    w[1] = ' ';
    return w + (first ? 1 : 2);
}

typedef struct lister {
    const gsvm_patho_program *p;
    gsvm_buf *b;
    uint8_t *is_label; /* per instruction: a target of something */
    uint8_t *pool_ref; /* per pool byte: 1 wide ref, 2 narrow ref */
    const uint8_t *imflags; /* per import (patho_import_flags), or NULL (checked on the spot) */
    bool comments;            /* the comment columns (not with GSVM_PATHO_LIST_COMPACT) */
} lister;

static void pad_to(gsvm_buf *b, size_t line_start, size_t col) { patho_pad(b, line_start, col); }

/* The comment columns of a code line, "; INDEX @0xOFFSET" at COMMENT_COL:
 * one room check and straight-line stores, as every code line has them. */
static void put_code_comment(gsvm_buf *b, size_t line_start, uint32_t index, uint32_t offset)
{
    size_t used = b->len - line_start, n = used < COMMENT_COL ? COMMENT_COL - used : 1;
    if (index > 0xFFFF || offset > 0xFFFF || !pb_room(b, COMMENT_COL + 16)) {
        /* wider than 4 digits (or no memory: the calls below see it) */
        patho_pad(b, line_start, COMMENT_COL);
        pb_put(b, "; ", 2);
        patho_put_hex(b, index, 4);
        pb_put(b, " @0x", 4);
        patho_put_hex(b, offset, 4);
        return;
    }
    /* COMMENT_COL spaces whatever n is (no loop), the excess overwritten */
    static const char spaces[COMMENT_COL + 1] = "                                            ";
    uint8_t *w = b->data + b->len;
    memcpy(w, spaces, COMMENT_COL);
    w += n;
    w[0] = ';';
    w[1] = ' ';
    memcpy(w + 2, patho_hex_pairs[index >> 8], 2);
    memcpy(w + 4, patho_hex_pairs[index & 0xFF], 2);
    memcpy(w + 6, " @0x", 4);
    memcpy(w + 10, patho_hex_pairs[offset >> 8], 2);
    memcpy(w + 12, patho_hex_pairs[offset & 0xFF], 2);
    b->len += n + 14;
}

static void put_target(lister *L, uint32_t t)
{
    gsvm_buf *b = L->b;
    if (t < L->p->ninsns && t <= 0xFFFF && pb_room(b, 5)) {
        /* "L" and 4 hex digits, the usual label */
        uint8_t *w = b->data + b->len;
        w[0] = 'L';
        memcpy(w + 1, patho_hex_pairs[t >> 8], 2);
        memcpy(w + 3, patho_hex_pairs[t & 0xFF], 2);
        b->len += 5;
    } else if (t < L->p->ninsns) {
        pb_putc(L->b, 'L');
        patho_put_hex(L->b, t, 4);
    } else {
        patho_put_u(L->b, t);
    }
}

static void put_args(lister *L, const gsvm_patho_insn *in)
{
    gsvm_buf *b = L->b;
    /* "(" and ", N:M" (at most 2 + 10 + 1 + 3 bytes) an argument, ")" */
    if (!pb_room(b, 2 + 16 * (size_t)in->list_len))
        return;
    uint8_t *w = b->data + b->len;
    *w++ = '(';
    for (uint32_t i = 0; i < in->list_len; i++) {
        const gsvm_patho_arg *a = &L->p->args[in->list + i];
        if (i) {
            w[0] = ',';
            w[1] = ' ';
            w += 2;
        }
        w = w_var(w, a->var, a->mode);
    }
    *w++ = ')';
    b->len = (size_t)(w - b->data);
}

static void put_pool_ref(lister *L, uint32_t off, bool wide)
{
    gsvm_buf *b = L->b;
    if (pb_room(b, 3 + 8)) {
        /* "@0x" and the offset's hex digits (as few as it takes) */
        static const char digits[] = "0123456789abcdef";
        uint8_t *w = b->data + b->len;
        int n = 1;
        while (n < 8 && (off >> (4 * n)))
            n++;
        memcpy(w, "@0x", 3);
        for (int i = n - 1; i >= 0; i--)
            w[3 + i] = (uint8_t)digits[(off >> (4 * (n - 1 - i))) & 15];
        b->len += 3 + (size_t)n;
    }
    size_t at = L->b->len;
    pb_putc(L->b, ' ');
    if (!patho_put_pool_string(L->b, L->p->pool, L->p->pool_size, off, wide))
        L->b->len = at; /* no string there: the verifier says so */
}

/* Is import `idx` the only one with its (name, argc)? */
static bool import_unique(const gsvm_patho_program *p, uint32_t idx)
{
    const gsvm_patho_import *im = &p->imports[idx];
    for (uint32_t i = 0; i < p->nimports; i++)
        if (i != idx && p->imports[i].argc == im->argc && p->imports[i].name.len == im->name.len &&
            memcmp(p->imports[i].name.str, im->name.str, im->name.len) == 0)
            return false;
    return true;
}

/* " " before the first operand, ", " before the others (two bytes
 * stored either way, the length moved by one or two) */
static inline void sep(gsvm_buf *b, unsigned *printed)
{
    if (pb_room(b, 2)) {
        b->data[b->len] = *printed ? ',' : ' ';
        b->data[b->len + 1] = ' ';
        b->len += *printed ? 2 : 1;
    }
    (*printed)++;
}

/* The name of a native: bare or quoted, with #index when another import
 * has the same name and argument count. */
static void put_import(lister *L, uint32_t v)
{
    const gsvm_patho_program *p = L->p;
    gsvm_buf *b = L->b;
    const gsvm_patho_import *im = &p->imports[v];
    unsigned fl = L->imflags ? L->imflags[v]
                             : (patho_name_is_bare(im->name.str, im->name.len) ? PATHO_IMPORT_BARE : 0) |
                                   (import_unique(p, v) ? 0 : PATHO_IMPORT_AMBIGUOUS);
    if (fl & PATHO_IMPORT_BARE)
        pb_put(b, im->name.str, im->name.len);
    else
        patho_put_quoted(b, im->name.str, im->name.len);
    if (fl & PATHO_IMPORT_AMBIGUOUS)
        gsvm_buf_printf(b, "#%u", v);
}

static LIST_INLINE void put_insn(lister *L, const gsvm_patho_insn *in)
{
    const gsvm_patho_program *p = L->p;
    gsvm_buf *b = L->b;
    const gsvm_patho_opinfo *info = &gsvm_patho_ops[in->op];
    const gsvm_patho_shape *shape = &gsvm_patho_shapes[in->op];
    const char *ops = info->operands;
    uint32_t flag = shape->flag_at >= 0 ? in->a[shape->flag_at] : 0;
    /* room for the name and every fixed-width operand, checked once (and
     * again after an operand written through the buffer) */
    const size_t room = 16 + OPERAND_ROOM * GSVM_PATHO_MAX_OPERANDS;
    if (!pb_room(b, room))
        return; /* out of memory: the buffer says so */
    /* the name padded to 16 bytes in one store, the length moved by its own */
    uint8_t *w = b->data + b->len;
    memcpy(w, gsvm_patho_op_words[in->op].c, 16);
    w += info->name_len;
    unsigned mi = 0, printed = 0;
    for (unsigned k = 0; ops[k]; k++) {
        uint32_t v = in->a[k];
        char c = ops[k];
        switch (c) {
        /* keyword operands (the last four printed only when they carry information) */
        case 'f': case 'h':
            w = w_sep(w, &printed);
            memcpy(w, "pop=", 4);
            w = w_u(w + 4, c == 'f' ? v & shape->popmask : v);
            continue;
        case 'v': w = w_var(w_sep(w, &printed), v, 0); continue;
        case 't': w = w_var(w_sep(w, &printed), v, 1); continue;
        case 'm':
            w = w_var(w_sep(w, &printed), v, (flag & gsvm_patho_mode_bit(mi++)) ? 1 : 0);
            continue;
        case 'a': {
            /* mode from the following T byte (PushE) or Q bit 0 (PopE) */
            unsigned mode = ops[k + 1] == 'T' ? (in->a[k + 1] == 1) : (ops[k + 2] == 'Q' ? in->a[k + 2] & 1 : 0);
            w = w_var(w_sep(w, &printed), v, mode);
            continue;
        }
        case 'b': case 'p': case 'k': w = w_u(w_sep(w, &printed), v); continue;
        case 'i': case 'E': w = w_d(w_sep(w, &printed), (int32_t)v); continue;
        case 'x': w = w_d(w_sep(w, &printed), (int8_t)(uint8_t)v); continue;
        case 'g':
            w = w_sep(w, &printed);
            *w++ = 'g';
            w = w_u(w, v);
            continue;
        }
        /* the rest through the buffer (the length handed back and forth) */
        b->len = (size_t)(w - b->data);
        switch (c) {
        case 'T':
            if (v > 1)
                gsvm_buf_printf(b, "%smode=%u", printed++ ? ", " : " ", v);
            break;
        case 'P':
            if (v)
                gsvm_buf_printf(b, "%spad=0x%06x", printed++ ? ", " : " ", v);
            break;
        case 'Q': case 'G': {
            unsigned keep = c == 'Q' ? 2u : 1u, known = c == 'Q' ? 3u : 1u;
            if (v & keep)
                gsvm_buf_printf(b, "%skeep", printed++ ? ", " : " ");
            if (v & ~known & 0xFFu)
                gsvm_buf_printf(b, "%sbits=0x%02x", printed++ ? ", " : " ", v & ~known & 0xFFu);
            break;
        }
        case 'r': sep(b, &printed); patho_put_float(b, v); break;
        case 's': sep(b, &printed); put_pool_ref(L, v, true); break;
        case 'n': sep(b, &printed); put_pool_ref(L, v, false); break;
        case 'j': sep(b, &printed); put_target(L, v); break;
        case 'F': sep(b, &printed); put_import(L, v); put_args(L, in); break;
        case 'R': sep(b, &printed); put_args(L, in); break;
        case 'L': sep(b, &printed); patho_put_types(b, p->vtypes + in->list, in->list_len); break;
        default: sep(b, &printed); gsvm_buf_printf(b, "%u", v); break;
        }
        if (!pb_room(b, room))
            return;
        w = b->data + b->len;
    }
    b->len = (size_t)(w - b->data);
}

void patho_format_insn(const gsvm_patho_program *p, const gsvm_patho_insn *in, gsvm_buf *b)
{
    lister L = {p, b, NULL, NULL, NULL, false};
    put_insn(&L, in);
}

static void mark(lister *L)
{
    const gsvm_patho_program *p = L->p;
    if (p->run_op < p->ninsns)
        L->is_label[p->run_op] = 1;
    for (uint32_t t = 0; t < p->ntasks; t++)
        for (uint32_t e = 0; e < p->tasks[t].nevents; e++)
            if (p->tasks[t].events[e].op < p->ninsns)
                L->is_label[p->tasks[t].events[e].op] = 1;
    for (uint32_t e = 0; e < p->nevents; e++)
        if (p->events[e].op < p->ninsns)
            L->is_label[p->events[e].op] = 1;
    /* jump targets and pool references in one pass over the code (most
     * instructions have neither: one test) */
    for (uint32_t i = 0; i < p->ninsns; i++) {
        const gsvm_patho_insn *in = &p->insns[i];
        const gsvm_patho_shape *sh = &gsvm_patho_shapes[in->op];
        if (!sh->ref_mask)
            continue;
        unsigned jumps = sh->jump_mask, strs = sh->wide_mask | sh->narrow_mask;
        for (unsigned k = 0; jumps >> k; k++)
            if (((jumps >> k) & 1) && in->a[k] < p->ninsns)
                L->is_label[in->a[k]] = 1;
        for (unsigned k = 0; strs >> k; k++)
            if (((strs >> k) & 1) && in->a[k] < p->pool_size)
                L->pool_ref[in->a[k]] |= ((sh->wide_mask >> k) & 1) ? 1 : 2;
    }
}

void patho_pool_refs(const gsvm_patho_program *p, uint8_t *refs)
{
    for (uint32_t i = 0; i < p->ninsns; i++) {
        const gsvm_patho_insn *in = &p->insns[i];
        const gsvm_patho_shape *sh = &gsvm_patho_shapes[in->op];
        unsigned strs = sh->wide_mask | sh->narrow_mask;
        for (unsigned k = 0; strs >> k; k++)
            if (((strs >> k) & 1) && in->a[k] < p->pool_size)
                refs[in->a[k]] |= ((sh->wide_mask >> k) & 1) ? 1 : 2;
    }
}

static void put_event(lister *L, const char *dir, const gsvm_patho_event *e)
{
    pb_puts(L->b, dir);
    pb_putc(L->b, ' ');
    patho_put_u(L->b, e->id);
    pb_putc(L->b, ' ');
    put_target(L, e->op);
    pb_putc(L->b, ' ');
    patho_put_types(L->b, e->arg_types, e->nargs);
    pb_putc(L->b, '\n');
}

static void put_pool(lister *L)
{
    const gsvm_patho_program *p = L->p;
    gsvm_buf *b = L->b;
    if (L->comments) {
        pb_puts(b, "\n.pool                                       ; ");
        patho_put_u(b, p->pool_size);
        pb_puts(b, " bytes\n");
    } else {
        pb_puts(b, "\n.pool\n");
    }
    uint32_t pos = 0;
    while (pos < p->pool_size) {
        const uint8_t *d = p->pool + pos;
        bool wide;
        uint32_t n = patho_pool_item(p->pool, p->pool_size, pos, L->pool_ref[pos], &wide);
        size_t line = b->len;
        if (n) {
            pb_puts(b, wide ? "    W " : "    A ");
            patho_put_pool_string(b, p->pool, p->pool_size, pos, wide);
        } else {
            /* no terminator before the end: raw bytes, 16 a line */
            n = p->pool_size - pos < 16 ? p->pool_size - pos : 16;
            pb_puts(b, "    B");
            for (uint32_t i = 0; i < n; i++)
                gsvm_buf_printf(b, " %02x", d[i]);
        }
        if (L->comments) {
            pad_to(b, line, COMMENT_COL);
            pb_put(b, "; @0x", 5);
            patho_put_hex(b, pos, 4);
        }
        pb_putc(b, '\n');
        pos += n;
    }
}

/* The code section, one line per instruction (and its label): one loop
 * with the line's parts inlined, kept out of gsvm_patho_list. */
static LIST_LOOP void put_code(lister *L)
{
    const gsvm_patho_program *p = L->p;
    gsvm_buf *b = L->b;
    for (uint32_t i = 0; i < p->ninsns; i++) {
        const gsvm_patho_insn *in = &p->insns[i];
        if (L->is_label[i]) {
            if (i <= 0xFFFF && pb_room(b, 7)) {
                /* "L0012:\n" in direct stores, as nearly every label */
                uint8_t *w = b->data + b->len;
                w[0] = 'L';
                memcpy(w + 1, patho_hex_pairs[i >> 8], 2);
                memcpy(w + 3, patho_hex_pairs[i & 0xFF], 2);
                w[5] = ':';
                w[6] = '\n';
                b->len += 7;
            } else {
                pb_putc(b, 'L');
                patho_put_hex(b, i, 4);
                pb_put(b, ":\n", 2);
            }
        }
        size_t line = b->len;
        pb_put(b, "    ", 4);
        put_insn(L, in);
        if (!L->comments) {
            pb_putc(b, '\n');
            continue;
        }
        put_code_comment(b, line, i, in->offset);
        if (in->op == GSVM_PATHO_OP_TaskCall && in->a[0] < p->ntasks) {
            pb_puts(b, "  task vars ");
            patho_put_u(b, p->tasks[in->a[0]].nvars);
            pb_puts(b, ", params ");
            patho_put_u(b, p->tasks[in->a[0]].nparams);
        }
        pb_putc(b, '\n');
        gsvm_patho_class c = gsvm_patho_ops[in->op].cls;
        if (c == GSVM_PATHO_C_JUMP || c == GSVM_PATHO_C_RETURN)
            pb_putc(b, '\n');
    }
}

gsvm_status gsvm_patho_list(const gsvm_patho_program *p, unsigned flags, char **text,
                            size_t *len, gsvm_error *err)
{
    bool comments = !(flags & GSVM_PATHO_LIST_COMPACT);
    gsvm_error_clear(err);
    *text = NULL;
    *len = 0;
    uint8_t *imflags = patho_import_flags(p);
    /* the label and pool-reference marks in one zeroed allocation */
    uint8_t *marks = calloc((size_t)p->ninsns + 1 + (size_t)p->pool_size + 1, 1);
    lister L = {p, NULL, marks, marks ? marks + p->ninsns + 1 : NULL, imflags, comments};
    gsvm_buf buf;
    gsvm_buf_init(&buf);
    L.b = &buf;
    /* Room for the whole listing up front (the corpus averages ~55 bytes
     * an instruction line), so the text is not copied as it grows. */
    gsvm_buf_reserve(&buf, 64 * (size_t)p->ninsns + 2 * (size_t)p->pool_size +
                               64 * ((size_t)p->nimports + p->nglobals + p->ntasks + p->nevents) + 256);
    if (!marks || !imflags) {
        free(marks);
        free(imflags);
        gsvm_buf_free(&buf);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    mark(&L);
    gsvm_buf *b = &buf;
    const char *lay = gsvm_patho_layout_name(p->layout);
    if (comments) {
        pb_puts(b, "; gsvm patho listing: ");
        pb_puts(b, lay);
        pb_puts(b, " layout, ");
        patho_put_u(b, p->file_size);
        pb_puts(b, " bytes, ");
        patho_put_u(b, p->ninsns);
        pb_puts(b, " instructions\n");
    }
    pb_puts(b, ".layout ");
    pb_puts(b, lay);
    pb_putc(b, '\n');

    if (p->nglobals)
        pb_putc(b, '\n');
    for (uint32_t i = 0; i < p->nglobals; i++) {
        const gsvm_patho_global *g = &p->globals[i];
        size_t line = b->len;
        pb_puts(b, ".global ");
        patho_put_type(b, g->type);
        if (g->has_name) {
            pb_putc(b, ' ');
            /* always quoted: an empty name must stay visible */
            patho_put_quoted(b, g->name.str, g->name.len);
            if (g->has_name != 1)
                gsvm_buf_printf(b, " flag=%u", g->has_name);
            if (g->name.long_prefix)
                pb_puts(b, " long");
        }
        if (comments) {
            pad_to(b, line, COMMENT_COL);
            pb_put(b, "; g", 3);
            patho_put_u(b, i);
        }
        pb_putc(b, '\n');
    }

    put_pool(&L);

    if (p->nimports)
        pb_putc(b, '\n');
    for (uint32_t i = 0; i < p->nimports; i++) {
        const gsvm_patho_import *im = &p->imports[i];
        size_t line = b->len;
        pb_puts(b, ".import ");
        if (imflags[i] & PATHO_IMPORT_BARE)
            pb_put(b, im->name.str, im->name.len);
        else
            patho_put_quoted(b, im->name.str, im->name.len);
        pb_putc(b, ' ');
        patho_put_u(b, im->argc);
        if (im->name.long_prefix)
            pb_puts(b, " long");
        if (comments) {
            pad_to(b, line, COMMENT_COL);
            pb_put(b, "; #", 3);
            patho_put_u(b, i);
        }
        pb_putc(b, '\n');
    }

    pb_puts(b, "\n.entry ");
    patho_put_u(b, p->run_task);
    pb_putc(b, ' ');
    put_target(&L, p->run_op);
    pb_puts(b, comments ? "                              ; RunTask, RunOp\n" : "\n");
    for (uint32_t t = 0; t < p->ntasks; t++) {
        const gsvm_patho_task *task = &p->tasks[t];
        pb_put(b, ".task ", 6);
        patho_put_u(b, t);
        pb_put(b, " params=", 8);
        patho_put_u(b, task->nparams);
        pb_put(b, " vars=", 6);
        patho_put_types(b, task->var_types, task->nvars);
        pb_putc(b, '\n');
        for (uint32_t e = 0; e < task->nevents; e++)
            put_event(&L, "    .on", &task->events[e]);
    }
    for (uint32_t e = 0; e < p->nevents; e++)
        put_event(&L, ".event", &p->events[e]);

    pb_puts(b, "\n.code\n");
    put_code(&L);
    free(marks);
    free(imflags);
    if (b->oom) {
        gsvm_buf_free(b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    gsvm_buf_cstr(b);
    *text = (char *)gsvm_buf_take(b, len);
    return GSVM_OK;
}
