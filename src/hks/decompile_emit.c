/* The HavokScript decompiler, output: blocks and lines, pending values, closures, calls and lists. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

void dc_fail(fn *F, const char *why)
{
    if (!F->fail) {
        F->why = why;
        F->why_pc = F->at_pc;
    }
    F->fail = true;
}
/* ---------------------------------------------------------------- output */

void dc_line(fn *F, const char *fmt, ...)
{
    region *R = cur(F);
    for (int i = 0; i < F->base + F->nr - 2 + F->extra; i++)
        gsvm_buf_puts(&R->body, "  ");
    va_list ap;
    va_start(ap, fmt);
    gsvm_buf_vprintf(&R->body, fmt, ap);
    va_end(ap);
    gsvm_buf_putc(&R->body, '\n');
}

/* Gives variable v to the block at nesting level lvl. */
void dc_set_owner(fn *F, int v, int lvl)
{
    F->vars[v].owner = lvl;
    if (lvl >= 0 && lvl < F->nr) {
        int32_t x = v;
        gsvm_buf_append(&F->R[lvl].owned, &x, sizeof x);
    }
}

bool dc_open_region(fn *F, int64_t from, int64_t to)
{
    if (F->nr >= MAX_NEST) {
        dc_fail(F, "blocks nested too deep");
        return false;
    }
    region *R = &F->R[F->nr++];
    gsvm_buf_init(&R->body);
    gsvm_buf_init(&R->decl);
    gsvm_buf_init(&R->owned);
    R->from = from;
    R->to = to;
    R->ndecl = 0;
    /* the variables whose every access is inside: declared in this block
     * (those whose first access is inside, found in bylo) */
    int lo = 0, hi = F->nbylo;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (F->vars[F->bylo[mid]].lo < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < F->nbylo && F->vars[F->bylo[i]].lo < to; i++) {
        int v = F->bylo[i];
        dvar *dv = &F->vars[v];
        /* (an outer block's claim moves in: the innermost one declares it) */
        if (!dv->declared && dv->hi >= 0 && dv->lo >= from && dv->hi < to)
            dc_set_owner(F, v, F->nr - 1);
    }
    return true;
}

/* Closes the innermost block into its parent (its declarations first). */
void dc_close_region(fn *F)
{
    region *R = cur(F);
    region *P = &F->R[F->nr - 2];
    if (R->ndecl) {
        for (int i = 0; i < F->base + F->nr - 2; i++)
            gsvm_buf_puts(&P->body, "  ");
        gsvm_buf_puts(&P->body, "local ");
        gsvm_buf_append(&P->body, R->decl.data, R->decl.len);
        gsvm_buf_putc(&P->body, '\n');
    }
    gsvm_buf_append(&P->body, R->body.data, R->body.len);
    gsvm_buf_free(&R->body);
    gsvm_buf_free(&R->decl);
    for (size_t i = 0; i + sizeof(int32_t) <= R->owned.len; i += sizeof(int32_t)) {
        int32_t v;
        memcpy(&v, R->owned.data + i, sizeof v);
        if (v >= 0 && v < F->nvars && F->vars[v].owner == F->nr - 1) {
            F->vars[v].owner = -1;
            F->vars[v].declared = false;
        }
    }
    gsvm_buf_free(&R->owned);
    F->nr--;
}

/* The name as a declaration prints it: with its HKS type when the code
 * checks one (`local n:number`). */
const char *dc_dname(const fn *F, int v)
{
    const dvar *dv = &F->vars[v];
    return dv->decl[0] && !dv->untyped ? dv->decl : dv->name;
}

void dc_predeclare(fn *F, int v)
{
    dvar *dv = &F->vars[v];
    int lvl = dv->owner >= 0 ? dv->owner : F->nr - 1;
    region *R = &F->R[lvl];
    if (R->ndecl)
        gsvm_buf_puts(&R->decl, ", ");
    gsvm_buf_puts(&R->decl, dc_dname(F, v));
    R->ndecl++;
    dc_set_owner(F, v, lvl);
    dv->declared = true;
}

/* A variable read: declared somewhere above if nobody declared it yet. */
const char *dc_use_var(fn *F, int v)
{
    dvar *dv = &F->vars[v];
    if (!dv->declared)
        dc_predeclare(F, v);
    return dv->name;
}

/* ---------------------------------------------------------------- pending values */

static void flush_some(fn *F, bool final, uint32_t upto);

void dc_pend_clear(pend *p)
{
    dx_free(&p->e);
    if (p->kind == PK_TABLE)
        gsvm_buf_free(&p->items);
    memset(p, 0, sizeof *p);
}

static dx table_text(pend *p)
{
    dx e;
    if (p->hmake)
        e = dx_make(DX_ATOM, "hmake %s {%.*s}", p->hmake, (int)p->items.len,
                    p->nitems ? (const char *)p->items.data : "");
    else if (p->nitems == 0)
        e = dx_make(DX_ATOM, "{}");
    else
        e = dx_make(DX_ATOM, "{%.*s}", (int)p->items.len, (const char *)p->items.data);
    return e;
}

/* The value of register r as an expression (a folded value is used up). */
dx dc_get(fn *F, int r, int64_t pc)
{
    if (r < 0 || r >= MAX_REGS) {
        dc_fail(F, "register out of range");
        return dx_make(DX_ATOM, "nil");
    }
    pend *p = &F->P[r];
    switch (p->kind) {
    case PK_EXPR: {
        dx e = p->e;
        p->e.s = NULL;
        dc_pend_clear(p);
        return e;
    }
    case PK_MULTI: {
        dx e = dx_wrap(p->e, DX_PREFIX);
        p->e.s = NULL;
        /* one value of a call: Lua truncates with parentheses */
        if (e.s && e.s[0] != '(') {
            dx w = dx_make(DX_PREFIX, "(%s)", e.s);
            dx_free(&e);
            e = w;
        }
        dc_pend_clear(p);
        return e;
    }
    case PK_TABLE:
        if (!p->table_local) {
            dx e = table_text(p);
            dc_pend_clear(p);
            return e;
        }
        /* the constructor becomes its variable; values built after it
         * stay pending (they are read after it) */
        flush_some(F, false, p->def_pc);
        break;
    case PK_SELFFN: case PK_SELFOBJ:
        dc_fail(F, "method value used outside a call");
        dc_pend_clear(p);
        break;
    default: break;
    }
    int v = dc_var_of(F, r, pc, false);
    return dx_make(DX_PREFIX, "%s", dc_use_var(F, v));
}

/* An RK operand. */
dx dc_get_rk(fn *F, uint32_t v, int64_t pc)
{
    if (v >= 256) {
        if (v - 256 >= F->f->nk) {
            dc_fail(F, "constant out of range");
            return dx_make(DX_ATOM, "nil");
        }
        return dx_const(F->D->c, &F->f->k[v - 256]);
    }
    return dc_get(F, (int)v, pc);
}

dx dc_get_k(fn *F, uint32_t k)
{
    if (k >= F->f->nk) {
        dc_fail(F, "constant out of range");
        return dx_make(DX_ATOM, "nil");
    }
    return dx_const(F->D->c, &F->f->k[k]);
}

const gsvm_hks_const *dc_kptr(fn *F, uint32_t v)
{
    return v < F->f->nk ? &F->f->k[v] : NULL;
}

/* `name = e` for variable v, `local name = e` where it is first set at the
 * top level of the block that owns it. */
/* Stripped code: a web first written where an older web of the same
 * register is still a declared local of this block or one around it is
 * that older local assigned again (`local z = a or b; if c then z = 1 else
 * z = 2 end`; `local f, g; f = function ... end`): a new local takes the
 * register above every active one, so a `local` of its own would move it.
 * Two webs of one register are never live at once, so the older one's name
 * stands for both.  Not a call's result nor a table constructor (their
 * values go to a free register, then MOVE down to a local), not across a CLOSE of the register (the older local's
 * block ended there, a closure keeping its value) nor between two HKS
 * types.  The variable is renamed to the older one's name (-1: no such
 * web). */
static bool closed_between(const fn *F, int reg, int64_t from, int64_t to)
{
    for (int64_t q = from + 1; q < to && q < F->n; q++)
        if (OPAT(F, q) == HKS_I_CLOSE && (int)A_(W(F, q)) <= reg)
            return true;
    return false;
}

static int dead_twin(fn *F, int v)
{
    const dvar *dv = &F->vars[v];
    int lvl = dv->owner >= 0 ? dv->owner : F->nr - 1, best = -1;
    if (!F->wstate || (dv->lo >= 0 && dv->lo < F->n && dc_fresh_write(F, dv->lo)))
        return -1;
    for (int u = 0; u < F->nvars; u++) {
        const dvar *du = &F->vars[u];
        if (u != v && du->reg == dv->reg && du->declared && du->owner >= 0 &&
            du->owner <= lvl && du->hi >= 0 && du->lo < dv->lo &&
            strcmp(du->decl, dv->decl) == 0 &&
            (best < 0 || du->lo > F->vars[best].lo))
            best = u;
    }
    if (best >= 0 && closed_between(F, dv->reg, F->vars[best].lo, dv->lo))
        return -1;
    return best;
}

bool dc_assignable(fn *F, int v)
{
    dvar *dv = &F->vars[v];
    int twin = dv->declared ? -1 : dead_twin(F, v);
    if (twin >= 0) {
        memcpy(dv->name, F->vars[twin].name, sizeof dv->name);
        dv->declared = true;
        dc_set_owner(F, v, F->vars[twin].owner);
    }
    return dv->declared;
}

void dc_assign_var(fn *F, int v, dx e)
{
    dvar *dv = &F->vars[v];
    dc_assignable(F, v);
    if (!dv->declared && (dv->owner < 0 || dv->owner == F->nr - 1)) {
        dv->declared = true;
        if (dv->owner < 0)
            dc_set_owner(F, v, F->nr - 1);
        dc_line(F, "local %s = %s", dc_dname(F, v), dx_str(&e));
        F->last_local_reg = dv->reg;
        F->last_local_lvl = F->nr - 1;
        F->last_local_len = cur(F)->body.len;
    } else {
        dc_line(F, "%s = %s", dc_use_var(F, v), dx_str(&e));
    }
    dx_free(&e);
}

/* The array items of constructor t built before a keyed entry (registers
 * above t still waiting for their SETLIST) are listed first, where the
 * source had them: `{10, 20, note = "x"}`. */
void dc_table_positional(fn *F, int t, int64_t pc)
{
    pend *p = &F->P[t];
    for (int r = t + 1 + p->npos; r < MAX_REGS; r++) {
        pend *q = &F->P[r];
        if (!((q->kind == PK_EXPR || (q->kind == PK_TABLE && !q->table_local)) &&
              q->def_pc > p->def_pc))
            break;
        dx e = dc_get(F, r, pc);
        if (p->nitems)
            gsvm_buf_puts(&p->items, ", ");
        gsvm_buf_puts(&p->items, dx_str(&e));
        dx_free(&e);
        p->nitems++;
        p->npos++;
    }
}

/* SELF A B C as two assignments: A+1 = the object, A = its method (a
 * method key that is not a name, or a block loop that ends between the
 * SELF and its call). */
void dc_self_registers(fn *F, int a, int64_t pc, dx obj, dx key)
{
    int vo = dc_var_of(F, a + 1, pc, true);
    dc_assign_var(F, vo, obj);
    dx base = dx_make(DX_PREFIX, "%s", dc_use_var(F, vo));
    dc_assign_var(F, dc_var_of(F, a, pc, true), dx_index(base, NULL, key));
}

/* Writes every pending value to its variable, oldest first. */
/* A method or an open call still waiting for its call stays pending (its
 * reader is the next call; writing it out is impossible); at the end of a
 * block (`final`) nothing may stay. */
static void flush_some(fn *F, bool final, uint32_t upto)
{
    for (;;) {
        int best = -1;
        for (int r = 0; r < F->ptop; r++) {
            uint8_t k = F->P[r].kind;
            if (k == PK_NONE || F->P[r].def_pc > upto ||
                (!final && (k == PK_SELFFN || k == PK_SELFOBJ || k == PK_MULTI)))
                continue;
            if (best < 0 || F->P[r].def_pc < F->P[best].def_pc)
                best = r;
        }
        if (best < 0)
            return;
        pend *p = &F->P[best];
        if (p->kind == PK_SELFFN && F->dispatch && best + 1 < MAX_REGS &&
            F->P[best + 1].kind == PK_SELFOBJ && F->P[best + 1].e.s && p->e.s &&
            strrchr(p->e.s, ':')) {
            /* the block loop ends a block between a method and its call:
             * the object and the method become the two registers */
            dx obj = F->P[best + 1].e;
            F->P[best + 1].e.s = NULL;
            char *name = gsvm_dup_bytes(strrchr(p->e.s, ':') + 1, strlen(strrchr(p->e.s, ':') + 1));
            uint32_t dpc = p->def_pc;
            dc_pend_clear(p);
            dc_pend_clear(&F->P[best + 1]);
            dc_self_registers(F, best, dpc, obj, dx_make(DX_ATOM, "\"%s\"", name ? name : "?"));
            free(name);
            continue;
        }
        if (p->kind == PK_SELFFN || p->kind == PK_SELFOBJ || p->kind == PK_MULTI) {
            dc_fail(F, "a value left unused");
            dc_pend_clear(p);
            continue;
        }
        dx e;
        if (p->kind == PK_TABLE) {
            e = table_text(p);
        } else {
            e = p->e;
            p->e.s = NULL;
        }
        uint32_t dpc = p->def_pc;
        dc_pend_clear(p);
        dc_assign_var(F, dc_var_of(F, best, dpc, true), e);
    }
}

void dc_flush_all(fn *F) { flush_some(F, false, UINT32_MAX); }
void dc_flush_final(fn *F) { flush_some(F, true, UINT32_MAX); }

/* A statement: pending values go first. */
void dc_stmt(fn *F, dx text)
{
    dc_flush_all(F);
    dc_line(F, "%s", dx_str(&text));
    dx_free(&text);
}

/* Stripped code: whether register r, written at pc and never read, is
 * free again after pc, as the drop of an extra value leaves it: the next
 * write to r comes before anything is written above it, but for more
 * extra values of the same list (values nothing reads, in r + 1, r + 2, ...
 * at the pcs right after). */
static bool dropped(const fn *F, int r, int64_t pc)
{
    rw x;
    int64_t k = 1;
    for (int64_t q = next_pc(F, pc); q < F->n && !F->leader[q]; q = next_pc(F, q), k++) {
        dc_operands(F, q, MAX_REGS, &x);
        for (int i = 0; i < x.nrd; i++)
            if (x.rd[i] == r)
                return false;
        bool again = false;
        for (int i = 0; i < x.nwr; i++) {
            if (x.wr[i] == r)
                again = true;
            else if (x.wr[i] > r && !(x.wr[i] == r + k && q == pc + k && F->use[q] == USE_DEAD))
                return false;
        }
        if (again)
            return true;
    }
    return false;
}

/* A value nothing reads, into the register above the local just declared
 * by the line before: an extra value of that declaration's list, which the
 * compiler evaluates into the next register and drops (`local g, h = 1, 2,
 * 3, 4`), when r is no local (debug info says so, or in stripped code the
 * register is free again right after). */
static bool extra_value(fn *F, int r, int64_t pc, dx *e)
{
    region *R = cur(F);
    if (r != F->last_local_reg + 1 || F->last_local_lvl != F->nr - 1 ||
        R->body.len != F->last_local_len || R->body.len == 0 || F->dispatch)
        return false;
    if (F->debug ? dc_local_at(F, r, pc, true) >= 0 : !dropped(F, r, pc))
        return false;
    for (int q = 0; q < F->ptop; q++)
        if (F->P[q].kind != PK_NONE)
            return false;
    R->body.len--; /* the line's '\n' */
    gsvm_buf_puts(&R->body, ", ");
    gsvm_buf_puts(&R->body, dx_str(e));
    gsvm_buf_putc(&R->body, '\n');
    dx_free(e);
    F->last_local_reg = r;
    F->last_local_len = R->body.len;
    return true;
}

/* The value of a definition at pc into register r. */
void dc_put(fn *F, int r, int64_t pc, dx e)
{
    if (r < 0 || r >= MAX_REGS) {
        dx_free(&e);
        dc_fail(F, "register out of range");
        return;
    }
    if (F->P[r].kind != PK_NONE) {
        dc_flush_all(F);
        dc_pend_clear(&F->P[r]); /* (what a failed flush left) */
    }
    if (F->use[pc] >= 0 || pc == F->force_pc) {
        dc_pend_at(F, r)->kind = PK_EXPR;
        F->P[r].e = e;
        F->P[r].def_pc = (uint32_t)pc;
        return;
    }
    if (F->use[pc] == USE_DEAD && extra_value(F, r, pc, &e))
        return;
    dc_flush_all(F);
    dc_assign_var(F, dc_var_of(F, r, pc, true), e);
}

/* ---------------------------------------------------------------- functions */

/* The text of child function `bx` created at pc: `function(params) ... end`. */
dx dc_closure_text(fn *F, int64_t pc, uint32_t bx, const char *fname, bool method)
{
    if (bx >= F->f->np) {
        dc_fail(F, "closure of a missing function");
        return dx_make(DX_ATOM, "nil");
    }
    const gsvm_hks_proto *child = &F->f->p[bx];
    if (child->nups >= F->n - pc) {
        dc_fail(F, "closure upvalues past the code");
        return dx_make(DX_ATOM, "nil");
    }
    const char **names = calloc(child->nups ? child->nups : 1, sizeof *names);
    char (*store)[64] = calloc(child->nups ? child->nups : 1, sizeof *store);
    if (!names || !store) {
        free(names);
        free(store);
        dc_fail(F, "out of memory");
        return dx_make(DX_ATOM, "nil");
    }
    for (uint32_t i = 0; i < child->nups; i++) {
        uint32_t d = pc + 1 + i < F->n ? W(F, pc + 1 + i) : 0;
        uint32_t idx = GSVM_HKS_BX(d);
        if (A_(d) == 1 && idx < MAX_REGS) {
            /* a value still pending for the captured variable is its
             * declaration: written out first, so the capture does not
             * predeclare it */
            if (F->P[idx].kind == PK_TABLE && F->P[idx].table_local)
                flush_some(F, false, F->P[idx].def_pc);
            /* (a local function captures the variable it defines) */
            int v = dc_var_of(F, (int)idx, pc, idx == A_(W(F, pc)));
            snprintf(store[i], 64, "%s", dc_use_var(F, v));
        } else if (A_(d) == 2 && idx < F->nups) {
            snprintf(store[i], 64, "%s", F->upnames[idx]);
        } else {
            dc_fail(F, "closure upvalue not recognised");
            snprintf(store[i], 64, "nil");
        }
        names[i] = store[i];
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/%u", F->path, bx);
    gsvm_buf b;
    gsvm_buf_init(&b);
    (void)fname;
    (void)method;
    if (!dc_decompile_function(F->D, child, path, F->depth + 1, F->base + F->nr - 2 + F->extra,
                            names, child->nups, &b))
        dc_fail(F, "child function");
    free(names);
    free(store);
    /* drop the final newline: the caller places the text */
    if (b.len && b.data[b.len - 1] == '\n')
        b.len--;
    return dx_take(DX_ATOM, &b);
}

/* ---------------------------------------------------------------- instructions */

/* A one-result call that ends a list keeps its parentheses: (f()). */
static dx one_value(dx e)
{
    if (e.prec != DX_CALL)
        return e;
    dx w = dx_make(DX_PREFIX, "(%s)", dx_str(&e));
    dx_free(&e);
    return w;
}

dx dc_call_text(fn *F, int64_t pc, uint32_t a, uint32_t b)
{
    pend *fp = &F->P[a];
    bool method = fp->kind == PK_SELFFN;
    dx callee;
    if (method) {
        callee = fp->e;
        fp->e.s = NULL;
        dc_pend_clear(fp);
        if (F->P[a + 1].kind == PK_SELFOBJ)
            dc_pend_clear(&F->P[a + 1]);
        else
            dc_fail(F, "method call without its object");
    } else {
        callee = dx_wrap(dc_get(F, (int)a, pc), DX_PREFIX);
    }
    int64_t last = b == 0 ? F->multret_top : (int64_t)a + b - 1;
    if (b == 0 && last < 0)
        dc_fail(F, "open call arguments without a value");
    dx args = dc_list_text(F, pc, a + 1 + (method ? 1 : 0), last, b == 0);
    if (b == 0)
        F->multret_top = -1;
    dx r = dx_make(DX_CALL, "%s(%s)", dx_str(&callee), dx_str(&args));
    dx_free(&callee);
    dx_free(&args);
    return r;
}

/* The values of registers a..last (b = 0: to the open multret value). */
dx dc_list_text(fn *F, int64_t pc, int64_t a, int64_t last, bool open)
{
    gsvm_buf out;
    gsvm_buf_init(&out);
    for (int64_t r = a; r <= last; r++) {
        dx e;
        if (open && r == last && r >= 0 && r < MAX_REGS && F->P[r].kind == PK_MULTI) {
            e = F->P[r].e;
            F->P[r].e.s = NULL;
            dc_pend_clear(&F->P[r]);
        } else {
            e = dc_get(F, (int)r, pc);
            if (r == last)
                e = one_value(e);
        }
        if (out.len)
            gsvm_buf_puts(&out, ", ");
        gsvm_buf_puts(&out, dx_str(&e));
        dx_free(&e);
    }
    return dx_take(DX_ATOM, &out);
}

const char *dc_arith_op(unsigned op, int *prec)
{
    switch (op) {
    case HKS_I_ADD: case HKS_I_ADD_BK: *prec = DX_ADD; return "+";
    case HKS_I_SUB: case HKS_I_SUB_BK: *prec = DX_ADD; return "-";
    case HKS_I_MUL: case HKS_I_MUL_BK: *prec = DX_MUL; return "*";
    case HKS_I_DIV: case HKS_I_DIV_BK: *prec = DX_MUL; return "/";
    case HKS_I_MOD: case HKS_I_MOD_BK: *prec = DX_MUL; return "%";
    case HKS_I_POW: case HKS_I_POW_BK: *prec = DX_POW; return "^";
    /* the Black Ops 3 operators: always parenthesised (their precedence is
     * the build's own) */
    case HKS_I_LEFT_SHIFT: case HKS_I_LEFT_SHIFT_BK: *prec = 0; return "<<";
    case HKS_I_RIGHT_SHIFT: case HKS_I_RIGHT_SHIFT_BK: *prec = 0; return ">>";
    case HKS_I_BIT_AND: case HKS_I_BIT_AND_BK: *prec = 0; return "&";
    case HKS_I_BIT_OR: case HKS_I_BIT_OR_BK: *prec = 0; return "|";
    default: return NULL;
    }
}

/* The condition under which the JMP after test instruction pc is taken. */
/* The constant index an instruction's operand names, -1 none. */
static int64_t k_of(unsigned kind, uint32_t v)
{
    if (kind == HKS_RK)
        return v >= 256 ? (int64_t)v - 256 : -1;
    return kind == HKS_K ? (int64_t)v : -1;
}

/* Whether constant k, named at pc, is newer than every constant the
 * instructions before pc name: the compiler added it after them (constants
 * are numbered in the order the compiler first needs them). */
static bool late_constant(fn *F, int64_t pc, uint32_t k)
{
    if (!F->kmax) {
        F->kmax = malloc(sizeof *F->kmax * (F->n + 1));
        if (!F->kmax)
            return false;
        int32_t m = -1;
        for (int64_t q = 0; q < F->n; q++) {
            F->kmax[q] = m;
            unsigned op = F->op[q];
            if (F->isdata[q] || op >= HKS_I_COUNT)
                continue;
            uint32_t w = W(F, q);
            const hks_opinfo *o = &hks_ops[op];
            int64_t kb = o->mode == HKS_ABC ? k_of(o->b, B_(w))
                                            : k_of(o->b, GSVM_HKS_BX(w));
            int64_t kc = o->mode == HKS_ABC ? k_of(o->c, C_(w)) : -1;
            if (kb > m)
                m = (int32_t)kb;
            if (kc > m)
                m = (int32_t)kc;
        }
        F->kmax[F->n] = m;
    }
    return (int64_t)k > F->kmax[pc];
}

dx dc_jump_cond(fn *F, int64_t pc)
{
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc), a = A_(w), b = B_(w), c = C_(w);
    if (op == HKS_I_TEST || op == HKS_I_TEST_R1) {
        dx v = dc_get(F, (int)a, pc);
        return c ? v : dx_not(v);
    }
    if (op == HKS_I_TESTSET) {
        dx v = dc_get(F, (int)b, pc);
        return c ? v : dx_not(v);
    }
    dx l = b_is_k(op) ? dc_get_k(F, b) : dc_get(F, (int)b, pc);
    dx r = dc_get_rk(F, c, pc);
    const char *o = "==";
    bool neg = false;
    switch (op) {
    case HKS_I_EQ: case HKS_I_EQ_BK: o = a ? "==" : "~="; break;
    case HKS_I_LT: case HKS_I_LT_BK: o = "<"; neg = !a; break;
    default: o = "<="; neg = !a; break;
    }
    /* `x > y` is coded as y < x: x is evaluated first, into the lower
     * register, so a higher B than C says the source had the operands the
     * other way round */
    /* `x > 0` is coded 0 < x too, with the constant added after x's: in
     * `0 < x` it comes before them */
    dx e;
    if (o[0] == '<' && ((!b_is_k(op) && c < 256 && b > c) ||
                        (b_is_k(op) && c < 256 && late_constant(F, pc, b))))
        e = dx_binary(r, o[1] ? ">=" : ">", DX_CMP, l);
    else
        e = dx_binary(l, o, DX_CMP, r);
    return neg ? dx_not(e) : e;
}
