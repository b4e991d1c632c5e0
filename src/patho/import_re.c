/* Importer for the listing syntax of the community disassembler
 * (gr0grig/pathologic_re, PathologicScript.py), so the thousands of `.asm`
 * listings modders already have can be assembled with gsvm.
 *
 * That syntax prints each instruction as pseudo-code ("Stack[-1] = (int) 5",
 * "Pop(2); Push(Stack[-1] + Stack[-2]);", "@ Trace(Stack[-1])").  Here each
 * form is one template in a table; a template's captures are mapped onto the
 * operand letters of the opcode's isa.def row by a permutation string, so the
 * operand encoding itself still comes from isa.def.
 *
 * Written from the syntax as it appears in the listings and the tool's
 * documented format; no code of that project is used. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "patho/internal.h"
#include "patho/import_re.h"
#include "patho/isa.h"
#include "patho/text.h"

/* ---- the importer -------------------------------------------------------- */

typedef struct importer {
    const char *file;
    gsvm_error *err;
    long line;
    gsvm_patho_program *p;
    gsvm_buf pool;
    bool have_raw_pool;
    uint32_t cap_globals, cap_imports, cap_tasks, cap_events, cap_insns, cap_args, cap_vtypes;
    uint32_t *cap_task_events;
    int64_t global_count;
    long global_count_line;
    size_t search_budget;
    patho_import_index import_index;
    const gsvm_patho_import_opts *opts;
    bool release2;          /* the listing is in the lossy release-2 syntax */
    bool lost[8];           /* which kinds of loss were reported */
} importer;

/* The kinds of information a release-2 listing lost, and what the import
 * puts in their place (what the community's assembler does). */
enum {
    LOSS_WIDTH, LOSS_JUMPB, LOSS_FLOAT, LOSS_TASKFLAG, LOSS_OBJSLOT, LOSS_TOBJ, LOSS_NULLEQ
};
static const char *const loss_text[] = {
    [LOSS_WIDTH] = "strings carry no A:/W: width; every string is assembled as UTF-16",
    [LOSS_JUMPB] = "the IF compare byte is misread in this syntax; assembled with the value shown",
    [LOSS_FLOAT] = "floats are rounded to 5 digits in this syntax; assembled from the digits shown",
    [LOSS_TASKFLAG] = "call arguments lost their task flags; assembled as stack arguments (mode 0)",
    [LOSS_OBJSLOT] = "the method call's object slot is not shown; assembled as 0",
    [LOSS_TOBJ] = "TObjFunc prints as ObjFunc in this syntax; assembled as ObjFunc",
    [LOSS_NULLEQ] = "NullEq prints as Not in this syntax; assembled as Not",
};

/* Reports one kind of loss (once per listing) at the current line: a
 * warning, or with opts->strict an error. */
static gsvm_status lost(importer *I, int kind, long col)
{
    if (I->lost[kind])
        return GSVM_OK;
    I->lost[kind] = true;
    gsvm_error w;
    gsvm_error_at_line(&w, GSVM_ERR_INPUT, I->file, I->line, col, "release-2 listing: %s%s",
                       loss_text[kind],
                       I->opts && I->opts->strict ? " (refused: --strict)" : "");
    if (I->opts && I->opts->strict) {
        *I->err = w;
        return GSVM_ERR_INPUT;
    }
    if (I->opts && I->opts->warn)
        I->opts->warn(I->opts->user, &w);
    return GSVM_OK;
}

static gsvm_status fail_at(importer *I, long col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gsvm_status fail_at(importer *I, long col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gsvm_error_at_line(I->err, GSVM_ERR_INPUT, I->file, I->line, col, "%s", msg);
}

static bool grow(void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    if (need > UINT32_MAX / 2)
        return false;
    uint32_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, (size_t)ncap * elem);
    if (!n)
        return false;
    *arr = n;
    *cap = ncap;
    return true;
}

static gsvm_status nomem(importer *I)
{
    return gsvm_error_set(I->err, GSVM_ERR_NOMEM, I->file, "out of memory");
}

static int type_code(const char *s, size_t n)
{
    for (unsigned c = 1; c <= 6; c++) {
        const char *name = gsvm_patho_type_name(c);
        if (strlen(name) == n && memcmp(name, s, n) == 0)
            return (int)c;
    }
    return -1;
}

/* "bool, int" -> type bytes appended to out */
static gsvm_status parse_types(importer *I, const char *s, size_t n, long col, gsvm_buf *out)
{
    const char *end = s + n;
    s = re_skip_spaces(s, end);
    while (s < end) {
        const char *q = s;
        while (q < end && *q != ',')
            q++;
        const char *e = q;
        while (e > s && e[-1] == ' ')
            e--;
        int t = type_code(s, (size_t)(e - s));
        if (t < 0)
            return fail_at(I, col, "unknown type '%.*s'", (int)(e - s), s);
        gsvm_buf_u8(out, (uint8_t)t);
        s = q < end ? re_skip_spaces(q + 1, end) : end;
    }
    return out->oom ? nomem(I) : GSVM_OK;
}

static gsvm_status copy_types(importer *I, gsvm_buf *b, uint8_t **out, uint32_t *n)
{
    *n = (uint32_t)b->len;
    *out = malloc(b->len ? b->len : 1);
    if (!*out)
        return nomem(I);
    if (b->len)
        memcpy(*out, b->data, b->len);
    return GSVM_OK;
}

static gsvm_status set_name(importer *I, gsvm_patho_name *nm, const char *s, size_t n)
{
    if (n > 0x7FFF)
        return fail_at(I, 1, "name longer than 32767 bytes");
    nm->str = gsvm_dup_bytes(s, n);
    if (!nm->str)
        return nomem(I);
    nm->len = (uint32_t)n;
    return GSVM_OK;
}

/* "EVENT_5 Op = 0x8 Vars = (bool)" */
static gsvm_status parse_event(importer *I, const char *s, const char *end, gsvm_patho_event *e)
{
    capture caps[MAX_CAPS];
    int nc;
    memset(e, 0, sizeof *e);
    if (!re_match("EVENT_%u Op = %x Vars = (%y)", s, end, caps, &nc))
        return fail_at(I, 1, "expected EVENT_N Op = 0xN Vars = (types)");
    e->id = (uint32_t)caps[0].v;
    e->op = (uint32_t)caps[1].v;
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_status st = parse_types(I, caps[2].s, caps[2].n, 1, &b);
    if (st == GSVM_OK)
        st = copy_types(I, &b, &e->arg_types, &e->nargs);
    gsvm_buf_free(&b);
    return st;
}

/* Finds (or appends) an encoded string in the pool; wide strings stay aligned. */
static uint32_t pool_find(importer *I, const uint8_t *bytes, size_t n, bool wide)
{
    /* the scans' total work is bounded; past it, strings are appended */
    if (I->search_budget >= I->pool.len) {
        I->search_budget -= I->pool.len;
        for (size_t at = 0; at + n <= I->pool.len; at += wide ? 2 : 1)
            if (memcmp(I->pool.data + at, bytes, n) == 0)
                return (uint32_t)at;
    }
    uint32_t at = (uint32_t)I->pool.len;
    gsvm_buf_append(&I->pool, bytes, n);
    return at;
}

/* UTF-8 text to the pool's encoding, with a terminator. */
static void encode_text(gsvm_buf *out, const char *s, size_t n, bool wide)
{
    if (!wide) {
        gsvm_buf_append(out, s, n);
        gsvm_buf_u8(out, 0);
        return;
    }
    for (size_t i = 0; i < n;) {
        uint32_t c = (uint8_t)s[i];
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (i + (size_t)more >= n + (more ? 0 : 1))
            more = 0;
        if (more) {
            c &= 0x3Fu >> more;
            for (int k = 1; k <= more; k++)
                c = c << 6 | ((uint8_t)s[i + (size_t)k] & 0x3F);
        }
        i += (size_t)more + 1;
        if (c >= 0x10000) {
            c -= 0x10000;
            gsvm_buf_u16(out, (uint16_t)(0xD800 + (c >> 10)), false);
            c = 0xDC00 + (c & 0x3FF);
        }
        gsvm_buf_u16(out, (uint16_t)c, false);
    }
    gsvm_buf_u16(out, 0, false);
}

static gsvm_status pool_ref(importer *I, const capture *c, int64_t poff, bool wide, uint32_t *out)
{
    if (poff >= 0) {
        *out = (uint32_t)poff;
        return GSVM_OK;
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    encode_text(&b, c->s, c->n, wide);
    if (b.oom) {
        gsvm_buf_free(&b);
        return nomem(I);
    }
    *out = pool_find(I, b.data, b.len, wide);
    gsvm_buf_free(&b);
    return I->pool.oom ? nomem(I) : GSVM_OK;
}

/* "Stack[-1], Stack[-0]T, Stack[2 + StackPtr]" */
static gsvm_status parse_args(importer *I, const capture *c, gsvm_patho_insn *in, long col)
{
    gsvm_patho_program *p = I->p;
    const char *s = re_skip_spaces(c->s, c->s + c->n), *end = c->s + c->n;
    in->list = p->nargs;
    in->list_len = 0;
    while (s < end) {
        capture r;
        if (!re_match_ref(&s, end, &r, -1))
            return fail_at(I, col, "bad argument '%.*s'", (int)(end - s), s);
        if (s < end && *s == 'T') {
            r.task = 1;
            s++;
        }
        if (!grow((void **)&p->args, &I->cap_args, (uint64_t)p->nargs + 1, sizeof *p->args))
            return nomem(I);
        p->args[p->nargs].var = (uint32_t)r.v;
        p->args[p->nargs].mode = (uint8_t)r.task;
        p->nargs++;
        in->list_len++;
        s = re_skip_spaces(s, end);
        if (s < end) {
            if (*s != ',')
                return fail_at(I, col, "expected ',' between arguments");
            s = re_skip_spaces(s + 1, end);
        }
    }
    return GSVM_OK;
}

static gsvm_status instruction(importer *I, const char *s, const char *end, long col)
{
    gsvm_patho_program *p = I->p;
    /* trailing "// @poff=N" gives the exact pool offset */
    int64_t poff = -1;
    const char *cm = NULL;
    for (const char *q = end; q - s >= 2; q--)
        if (q[-2] == '/' && q[-1] == '/') {
            cm = q - 2;
            break;
        }
    if (cm) {
        const char *q = re_skip_spaces(cm + 2, end);
        if (re_match_lit(&q, end, "@poff=") && re_match_uint(&q, end, &poff, false) &&
            re_skip_spaces(q, end) == end) {
            end = cm;
        } else {
            poff = -1;
        }
    }
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    capture caps[MAX_CAPS];
    int nc = 0;
    const tmpl *t = NULL;
    for (size_t k = 0; k < re_ntemplates; k++)
        if (re_match(re_templates[k].pattern, s, end, caps, &nc)) {
            t = &re_templates[k];
            break;
        }
    if (!t)
        return fail_at(I, col, "cannot read instruction '%.*s'", (int)(end - s), s);
    if (I->release2) {
        gsvm_status ls = GSVM_OK;
        if (t->op == GSVM_PATHO_OP_JumpB)
            ls = lost(I, LOSS_JUMPB, col);
        if (ls == GSVM_OK && t->op == GSVM_PATHO_OP_Not)
            ls = lost(I, LOSS_NULLEQ, col);
        if (ls == GSVM_OK && strstr(t->pattern, "%f"))
            ls = lost(I, LOSS_FLOAT, col);
        if (ls == GSVM_OK && (t->op == GSVM_PATHO_OP_ObjFunc || t->op == GSVM_PATHO_OP_TObjFunc) &&
            !strstr(t->pattern, "Obj="))
            ls = lost(I, LOSS_OBJSLOT, col);
        if (ls == GSVM_OK && t->op == GSVM_PATHO_OP_ObjFunc)
            ls = lost(I, LOSS_TOBJ, col);
        if (ls == GSVM_OK && strstr(t->pattern, "%a") && nc >= 2 &&
            re_skip_spaces(caps[1].s, caps[1].s + caps[1].n) < caps[1].s + caps[1].n)
            ls = lost(I, LOSS_TASKFLAG, col);
        if (ls != GSVM_OK)
            return ls;
    }
    if (gsvm_patho_op_code((unsigned)t->op, p->layout) < 0)
        return fail_at(I, col, "%s does not exist in the %s layout", gsvm_patho_ops[t->op].name,
                       gsvm_patho_layout_name(p->layout));
    if (!grow((void **)&p->insns, &I->cap_insns, (uint64_t)p->ninsns + 1, sizeof *p->insns))
        return nomem(I);
    gsvm_patho_insn *in = &p->insns[p->ninsns];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)t->op;
    const char *ops = gsvm_patho_ops[t->op].operands;
    gsvm_patho_shape shape = gsvm_patho_op_shape((unsigned)t->op);
    uint32_t modes = 0;
    unsigned mi = 0;
    gsvm_status st = GSVM_OK;
    /* Release 2 prints Mov the way it reads, "Stack[-dst] = Stack[-src]";
     * the later syntax (and so the community's assembler) has the source
     * first.  Here the game's order wins: the two samples whose exact .bin
     * is in the corpus have their Movs this way round. */
    const char *perm = I->release2 && t->op == GSVM_PATHO_OP_Mov ? "10" : t->perm;
    for (unsigned k = 0; ops[k]; k++) {
        char pc = perm[k];
        const capture *c = pc >= '0' && pc <= '9' ? &caps[pc - '0'] : NULL;
        uint32_t v = c ? (uint32_t)c->v : 0;
        switch (ops[k]) {
        case 'm':
            if (c && c->task == 1)
                modes |= gsvm_patho_mode_bit(mi);
            mi++;
            break;
        case 'f':
            if (v > shape.popmask)
                return fail_at(I, col, "pop count %u does not fit in the flag byte", v);
            v |= modes;
            break;
        case 'T': case 'Q': v = c ? (uint32_t)c->task : 0; break;
        case 'G': v = v == 1 ? 0 : 1; break;
        case 's': st = pool_ref(I, c, poff, true, &v); break;
        case 'n': st = pool_ref(I, c, poff, false, &v); break;
        case 'R': st = parse_args(I, c, in, col); v = in->list_len; break;
        case 'F': {
            st = parse_args(I, &caps[1], in, col);
            if (st != GSVM_OK)
                return st;
            int64_t found = patho_import_find(&I->import_index, p, c->s, (uint32_t)c->n, in->list_len);
            if (found == -2)
                return nomem(I);
            if (found < 0)
                return fail_at(I, col, "no import %.*s with %u arguments", (int)c->n, c->s,
                               in->list_len);
            v = (uint32_t)found;
            break;
        }
        case 'L': {
            gsvm_buf b;
            gsvm_buf_init(&b);
            st = parse_types(I, c->s, c->n, col, &b);
            if (st == GSVM_OK &&
                !grow((void **)&p->vtypes, &I->cap_vtypes, (uint64_t)p->nvtypes + b.len + 1, 1))
                st = nomem(I);
            if (st == GSVM_OK) {
                if (b.len)
                    memcpy(p->vtypes + p->nvtypes, b.data, b.len);
                in->list = p->nvtypes;
                in->list_len = (uint32_t)b.len;
                p->nvtypes += (uint32_t)b.len;
                v = (uint32_t)b.len;
            }
            gsvm_buf_free(&b);
            break;
        }
        }
        if (st != GSVM_OK)
            return st;
        in->a[k] = v;
    }
    p->ninsns++;
    return GSVM_OK;
}

static bool starts(const char *s, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(end - s) >= n && memcmp(s, lit, n) == 0;
}

static bool contains(const char *s, const char *end, const char *lit)
{
    for (; s < end; s++)
        if (starts(s, end, lit))
            return true;
    return false;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static gsvm_patho_layout detect_layout(const char *text, size_t len, const char *file)
{
    /* hd listings say "Call2" for Call; alpha ones "Call" (CString is hd only).
     * A listing with none of them could be either; then a file name that
     * says "alpha" (the community keeps them in .../alpha/...) decides. */
    bool call = false;
    for (const char *s = text, *end = text + len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        const char *c = memchr(s, ':', (size_t)(le - s));
        if (starts(s, le, "0x") && c) {
            c = re_skip_spaces(c + 1, le);
            if (starts(c, le, "Call2 ") || starts(c, le, "CString") || contains(c, le, "= CString2("))
                return GSVM_PATHO_LAYOUT_HD;
            if (starts(c, le, "Call "))
                call = true;
        }
        s = nl ? nl + 1 : end;
    }
    if (call)
        return GSVM_PATHO_LAYOUT_ALPHA;
    for (const char *f = file; f && *f; f++)
        if ((f[0] | 0x20) == 'a' && (f[1] | 0x20) == 'l' && (f[2] | 0x20) == 'p' &&
            (f[3] | 0x20) == 'h' && (f[4] | 0x20) == 'a')
            return GSVM_PATHO_LAYOUT_ALPHA;
    return GSVM_PATHO_LAYOUT_HD;
}

enum { S_NONE, S_GVARS, S_STRINGS, S_IMPORTS, S_TASKS, S_EVENTS, S_CODE };

/* Release-2 listings are told by what only they write: a string without
 * its A:/W: width, a method call without "; Obj=", or NEW1. */
static bool is_release2(const char *text, size_t len)
{
    bool strings = false;
    for (const char *s = text, *end = text + len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        if (le > s && le[-1] == '\r')
            le--;
        if (starts(s, le, "Strings:"))
            strings = true;
        else if (le > s && *s != '\t')
            strings = false;
        else if (strings && le - s >= 2 && !(le - s >= 3 && s[2] == ':' && (s[1] == 'A' || s[1] == 'W')))
            return true;
        const char *c = memchr(s, ':', (size_t)(le - s));
        if (starts(s, le, "0x") && c) {
            c = re_skip_spaces(c + 1, le);
            if ((starts(c, le, "@@ ") || starts(c, le, "@@@ ")) && !contains(c, le, "; Obj="))
                return true;
            if (contains(c, le, "= NEW1("))
                return true;
        }
        s = nl ? nl + 1 : end;
    }
    return false;
}

gsvm_status gsvm_patho_import_re(const char *text, size_t len, const char *file,
                                 gsvm_patho_layout layout, gsvm_patho_program **out,
                                 gsvm_error *err)
{
    gsvm_patho_import_opts o = {layout, false, NULL, NULL};
    return gsvm_patho_import_re_opts(text, len, file, &o, out, err);
}

gsvm_status gsvm_patho_import_re_opts(const char *text, size_t len, const char *file,
                                      const gsvm_patho_import_opts *opts,
                                      gsvm_patho_program **out, gsvm_error *err)
{
    gsvm_patho_layout layout = opts->layout;
    gsvm_error_clear(err);
    *out = NULL;
    importer I;
    memset(&I, 0, sizeof I);
    I.opts = opts;
    I.release2 = is_release2(text, len);
    I.file = file;
    I.err = err;
    I.global_count = -1;
    I.search_budget = 64u * 1024 * 1024;
    gsvm_buf_init(&I.pool);
    gsvm_patho_program *p = I.p = calloc(1, sizeof *p);
    if (!p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    p->layout = layout == GSVM_PATHO_LAYOUT_AUTO ? detect_layout(text, len, file) : layout;
    gsvm_status st = GSVM_OK;
    int sec = S_NONE;
    const char *s = text, *end = text + len;
    /* instruction text may continue on the next lines (strings with newlines) */
    const char *insn_start = NULL, *insn_end = NULL;
    long insn_line = 0, insn_col = 0;
    while (st == GSVM_OK && s < end) {
        const char *nl = s < end ? memchr(s, '\n', (size_t)(end - s)) : NULL;
        const char *le = nl ? nl : end;
        if (s == end)
            break;
        I.line++;
        const char *t = re_skip_spaces(s, le), *te = le;
        while (te > t && (te[-1] == '\r' || te[-1] == ' ' || te[-1] == '\t'))
            te--;
        bool is_insn = starts(t, te, "0x") && memchr(t, ':', (size_t)(te - t));
        bool header = starts(t, te, "GlobalVarCount") || starts(t, te, "Strings:") ||
                      starts(t, te, "Import:") || starts(t, te, "RunOp") || starts(t, te, "RunTask") ||
                      starts(t, te, "GlobalTasks") || starts(t, te, "Events:");
        /* finish a pending instruction when a new one or a header comes */
        if (insn_start && (is_insn || header)) {
            long save = I.line;
            I.line = insn_line;
            st = instruction(&I, insn_start, insn_end, insn_col);
            I.line = save;
            insn_start = NULL;
            if (st != GSVM_OK)
                break;
        }
        if (t == te) {
            /* blank lines inside a string literal belong to the instruction */
            s = nl ? nl + 1 : end + 1;
            continue;
        }
        if (is_insn) {
            sec = S_CODE;
            int64_t idx;
            const char *q = t;
            if (!re_match_uint(&q, te, &idx, false) || idx != p->ninsns) {
                st = fail_at(&I, (long)(t - s) + 1, "instruction index out of sequence (expected 0x%x)",
                             p->ninsns);
                break;
            }
            const char *colon = memchr(t, ':', (size_t)(te - t));
            insn_start = re_skip_spaces(colon + 1, te);
            insn_end = te;
            insn_line = I.line;
            insn_col = (long)(insn_start - s) + 1;
            s = nl ? nl + 1 : end + 1;
            continue;
        }
        if (insn_start) {
            /* a continuation line: extend the instruction text through it */
            insn_end = te;
            s = nl ? nl + 1 : end + 1;
            continue;
        }
        capture caps[MAX_CAPS];
        int nc;
        if (starts(t, te, "//")) {
            const char *q = re_skip_spaces(t + 2, te);
            if (re_match_lit(&q, te, "@pool_raw:")) {
                q = re_skip_spaces(q, te);
                gsvm_buf_free(&I.pool);
                gsvm_buf_init(&I.pool);
                for (; q + 1 < te; q += 2) {
                    int hi = hexval(q[0]), lo = hexval(q[1]);
                    if (hi < 0 || lo < 0) {
                        st = fail_at(&I, (long)(q - s) + 1, "bad hex digit in @pool_raw");
                        break;
                    }
                    gsvm_buf_u8(&I.pool, (uint8_t)(hi * 16 + lo));
                }
                if (st == GSVM_OK && q != te)
                    st = fail_at(&I, (long)(q - s) + 1, "odd number of hex digits in @pool_raw");
                I.have_raw_pool = true;
            }
        } else if (re_match("GlobalVarCount = %u", t, te, caps, &nc)) {
            I.global_count = caps[0].v;
            I.global_count_line = I.line;
            sec = S_GVARS;
        } else if (starts(t, te, "G_VAR_")) {
            const char *q = t + 6;
            int64_t idx;
            if (!re_match_uint(&q, te, &idx, false) || idx != p->nglobals) {
                st = fail_at(&I, (long)(t - s) + 1, "G_VAR index out of sequence (expected %u)", p->nglobals);
                break;
            }
            q = re_skip_spaces(q, te);
            const char *tn = q;
            while (q < te && *q != ' ' && *q != '\t')
                q++;
            int ty = type_code(tn, (size_t)(q - tn));
            if (ty < 0) {
                st = fail_at(&I, (long)(tn - s) + 1, "unknown type '%.*s'", (int)(q - tn), tn);
                break;
            }
            if (!grow((void **)&p->globals, &I.cap_globals, (uint64_t)p->nglobals + 1, sizeof *p->globals)) {
                st = nomem(&I);
                break;
            }
            gsvm_patho_global *g = &p->globals[p->nglobals++];
            memset(g, 0, sizeof *g);
            g->type = (uint8_t)ty;
            /* the name is the rest of the (untrimmed) line after one space */
            const char *nm = q < le && (*q == ' ' || *q == '\t') ? q + 1 : q;
            const char *ne = le;
            if (ne > nm && ne[-1] == '\r')
                ne--;
            /* a trailing space alone means "no name" */
            const char *chk = re_skip_spaces(nm, ne);
            if (chk < ne) {
                g->has_name = 1;
                st = set_name(&I, &g->name, chk, (size_t)(te - chk));
            }
        } else if (starts(t, te, "Strings:")) {
            sec = S_STRINGS;
        } else if (starts(t, te, "Import:")) {
            sec = S_IMPORTS;
        } else if (re_match("RunOp = %x", t, te, caps, &nc)) {
            p->run_op = (uint32_t)caps[0].v;
            sec = S_NONE;
        } else if (re_match("RunTask = %u", t, te, caps, &nc)) {
            p->run_task = (uint32_t)caps[0].v;
        } else if (starts(t, te, "GlobalTasks")) {
            sec = S_TASKS;
        } else if (starts(t, te, "Events:")) {
            sec = S_EVENTS;
        } else if (sec == S_STRINGS) {
            /* "W:text" / "A:text"; only used when there is no @pool_raw */
            const char *raw = s < le && *s == '\t' ? s + 1 : t;
            const char *re = le > raw && le[-1] == '\r' ? le - 1 : le;
            bool wide = true;
            if (re - raw >= 2 && raw[1] == ':' && (raw[0] == 'A' || raw[0] == 'W')) {
                wide = raw[0] == 'W';
                raw += 2;
            } else if (I.release2) {
                st = lost(&I, LOSS_WIDTH, (long)(raw - s) + 1);
            }
            if (!I.have_raw_pool)
                encode_text(&I.pool, raw, (size_t)(re - raw), wide);
        } else if (sec == S_IMPORTS) {
            const char *par = NULL;
            for (const char *q = te; q > t; q--)
                if (*(q - 1) == '(') {
                    par = q - 1;
                    break;
                }
            int64_t argc;
            const char *q = par ? par + 1 : te;
            if (!par || !re_match_uint(&q, te, &argc, false) || !re_match_lit(&q, te, " args)") || q != te) {
                st = fail_at(&I, (long)(t - s) + 1, "expected NAME (N args)");
                break;
            }
            const char *ne = par;
            while (ne > t && ne[-1] == ' ')
                ne--;
            if (!grow((void **)&p->imports, &I.cap_imports, (uint64_t)p->nimports + 1, sizeof *p->imports)) {
                st = nomem(&I);
                break;
            }
            gsvm_patho_import *im = &p->imports[p->nimports++];
            memset(im, 0, sizeof *im);
            im->argc = (uint32_t)argc;
            st = set_name(&I, &im->name, t, (size_t)(ne - t));
        } else if (sec == S_TASKS && starts(t, te, "GTASK_")) {
            const char *q = t + 6;
            int64_t idx;
            if (!re_match_uint(&q, te, &idx, false) || idx != p->ntasks) {
                st = fail_at(&I, (long)(t - s) + 1, "GTASK index out of sequence (expected %u)", p->ntasks);
                break;
            }
            uint32_t old = I.cap_tasks;
            if (!grow((void **)&p->tasks, &I.cap_tasks, (uint64_t)p->ntasks + 1, sizeof *p->tasks)) {
                st = nomem(&I);
                break;
            }
            if (old != I.cap_tasks) {
                uint32_t *n = realloc(I.cap_task_events, I.cap_tasks * sizeof *n);
                if (!n) {
                    st = nomem(&I);
                    break;
                }
                I.cap_task_events = n;
            }
            gsvm_patho_task *task = &p->tasks[p->ntasks++];
            memset(task, 0, sizeof *task);
            I.cap_task_events[p->ntasks - 1] = 0;
            q = re_skip_spaces(q, te);
            gsvm_buf b;
            gsvm_buf_init(&b);
            if (re_match_lit(&q, te, "Vars")) {
                q = re_skip_spaces(q, te);
                const char *open = q;
                if (!re_match_lit(&q, te, "=") || (q = re_skip_spaces(q, te), !re_match_lit(&q, te, "("))) {
                    st = fail_at(&I, (long)(open - s) + 1, "expected Vars = (types)");
                } else {
                    const char *close = memchr(q, ')', (size_t)(te - q));
                    if (!close)
                        st = fail_at(&I, (long)(q - s) + 1, "expected ')'");
                    else {
                        st = parse_types(&I, q, (size_t)(close - q), (long)(q - s) + 1, &b);
                        q = re_skip_spaces(close + 1, te);
                    }
                }
            }
            if (st == GSVM_OK)
                st = copy_types(&I, &b, &task->var_types, &task->nvars);
            gsvm_buf_free(&b);
            if (st == GSVM_OK) {
                if (re_match("Params = %u", q, te, caps, &nc))
                    task->nparams = (uint32_t)caps[0].v;
                else
                    st = fail_at(&I, (long)(q - s) + 1, "expected Params = N");
            }
            if (st == GSVM_OK && !(task->events = calloc(1, sizeof *task->events)))
                st = nomem(&I);
        } else if ((sec == S_TASKS || sec == S_EVENTS) && starts(t, te, "EVENT_")) {
            gsvm_patho_event *e;
            if (sec == S_TASKS) {
                if (!p->ntasks) {
                    st = fail_at(&I, 1, "EVENT before any GTASK");
                    break;
                }
                gsvm_patho_task *task = &p->tasks[p->ntasks - 1];
                if (!grow((void **)&task->events, &I.cap_task_events[p->ntasks - 1],
                          (uint64_t)task->nevents + 1, sizeof *task->events)) {
                    st = nomem(&I);
                    break;
                }
                e = &task->events[task->nevents++];
            } else {
                if (!grow((void **)&p->events, &I.cap_events, (uint64_t)p->nevents + 1, sizeof *p->events)) {
                    st = nomem(&I);
                    break;
                }
                e = &p->events[p->nevents++];
            }
            long save = I.line;
            st = parse_event(&I, t, te, e);
            I.line = save;
        } else if (starts(t, te, "//")) {
            /* other metadata comments */
        } else {
            st = fail_at(&I, (long)(t - s) + 1, "cannot read '%.*s'", (int)(te - t), t);
        }
        s = nl ? nl + 1 : end + 1;
    }
    if (st == GSVM_OK && insn_start) {
        I.line = insn_line;
        st = instruction(&I, insn_start, insn_end, insn_col);
    }
    if (st == GSVM_OK && I.global_count >= 0 && I.global_count != p->nglobals)
        st = gsvm_error_at_line(err, GSVM_ERR_INPUT, file, I.global_count_line, 1,
                                "GlobalVarCount = %lld but %u G_VAR lines follow",
                                (long long)I.global_count, p->nglobals);
    if (st == GSVM_OK) {
        p->pool_size = (uint32_t)I.pool.len;
        p->pool = malloc(I.pool.len ? I.pool.len : 1);
        if (!p->pool || I.pool.oom)
            st = nomem(&I);
        else if (I.pool.len)
            memcpy(p->pool, I.pool.data, I.pool.len);
    }
    if (st == GSVM_OK && ((!p->globals && !(p->globals = calloc(1, sizeof *p->globals))) ||
                          (!p->imports && !(p->imports = calloc(1, sizeof *p->imports))) ||
                          (!p->tasks && !(p->tasks = calloc(1, sizeof *p->tasks))) ||
                          (!p->events && !(p->events = calloc(1, sizeof *p->events))) ||
                          (!p->insns && !(p->insns = calloc(1, sizeof *p->insns))) ||
                          (!p->args && !(p->args = calloc(1, sizeof *p->args))) ||
                          (!p->vtypes && !(p->vtypes = calloc(1, 1)))))
        st = nomem(&I);
    gsvm_buf_free(&I.pool);
    free(I.cap_task_events);
    patho_import_index_free(&I.import_index);
    if (st == GSVM_OK)
        st = gsvm_patho_finish(p, err);
    if (st != GSVM_OK) {
        gsvm_patho_free(p);
        return st;
    }
    *out = p;
    return GSVM_OK;
}
