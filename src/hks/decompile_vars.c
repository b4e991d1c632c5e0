/* The HavokScript decompiler, variables: names, the webs (live ranges) of stripped registers, types, declaration order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* ---------------------------------------------------------------- variables */

static size_t name_hash(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static bool name_taken(const fn *F, const char *s)
{
    if (!F->captaken)
        return false;
    for (size_t i = name_hash(s) & (F->captaken - 1); F->taken[i];
         i = (i + 1) & (F->captaken - 1))
        if (strcmp(F->taken[i], s) == 0)
            return true;
    return false;
}

static void take_name(fn *F, const char *s)
{
    if (name_taken(F, s))
        return;
    if ((F->ntaken + 1) * 2 > F->captaken) {
        size_t ncap = F->captaken ? F->captaken * 2 : 64;
        char **nt = calloc(ncap, sizeof *nt);
        if (!nt) {
            dc_fail(F, "out of memory");
            return;
        }
        for (size_t i = 0; i < F->captaken; i++)
            if (F->taken[i]) {
                size_t j = name_hash(F->taken[i]) & (ncap - 1);
                while (nt[j])
                    j = (j + 1) & (ncap - 1);
                nt[j] = F->taken[i];
            }
        free(F->taken);
        F->taken = nt;
        F->captaken = ncap;
    }
    char *d = strdup(s);
    if (!d) {
        dc_fail(F, "out of memory");
        return;
    }
    size_t j = name_hash(d) & (F->captaken - 1);
    while (F->taken[j])
        j = (j + 1) & (F->captaken - 1);
    F->taken[j] = d;
    F->ntaken++;
}

/* A name no other variable, upvalue or global of this function uses. */
static void unique_name(fn *F, char *out, size_t cap, const char *base)
{
    snprintf(out, cap, "%s", base);
    for (int k = 2; name_taken(F, out) || !dx_is_name(out, strlen(out)); k++)
        snprintf(out, cap, "%s_%d", dx_is_name(base, strlen(base)) ? base : "var", k);
    take_name(F, out);
}

int dc_new_var(fn *F, const char *base, int reg)
{
    if (F->nvars == F->capvars) {
        int ncap = F->capvars ? F->capvars * 2 : 32;
        dvar *nv = realloc(F->vars, sizeof *nv * (size_t)ncap);
        if (!nv) {
            dc_fail(F, "out of memory");
            return 0;
        }
        F->vars = nv;
        F->capvars = ncap;
    }
    dvar *v = &F->vars[F->nvars];
    memset(v, 0, sizeof *v);
    v->reg = reg;
    v->lo = INT64_MAX;
    v->hi = -1;
    v->owner = -1;
    unique_name(F, v->name, sizeof v->name, base);
    return F->nvars++;
}

/* The variable behind register `reg` at pc.  Strip: var = register (the
 * first MAX_REGS vars).  Debug: the debug local there, else the register's
 * temporary variable. */
static int32_t web_find(fn *F, int32_t id)
{
    while (F->wparent[id] != id) {
        F->wparent[id] = F->wparent[F->wparent[id]];
        id = F->wparent[id];
    }
    return id;
}

int dc_var_of(fn *F, int reg, int64_t pc, bool write)
{
    if (reg < 0 || reg >= F->nregvars) {
        dc_fail(F, "register out of range");
        return 0;
    }
    if (F->override[reg] >= 0)
        return F->override[reg];
    if (F->debug) {
        int l = dc_local_at(F, reg, pc, write);
        if (l >= 0 && F->loc_reg[l] >= 0)
            return F->locbase + l;
    }
    if (F->wstate && reg < F->wn && pc >= 0 && (write ? pc < F->n : pc <= F->n)) {
        int32_t id = write ? (int32_t)(pc * F->wn + reg) : F->wstate[pc * F->wn + reg];
        if (id >= 0) {
            id = web_find(F, id);
            if (F->wvar[id] < 0) {
                char base[40];
                uint32_t k = F->wseq[reg]++;
                if (k == 0)
                    snprintf(base, sizeof base, "loc%d", reg);
                else
                    snprintf(base, sizeof base, "loc%d_%u", reg, k + 1);
                F->wvar[id] = dc_new_var(F, base, reg);
            }
            return F->wvar[id];
        }
    }
    return reg;
}

/* Globals named anywhere in f and its children: generated names avoid them. */
static void collect_globals(fn *F, const gsvm_hks_proto *f, int depth)
{
    if (depth > MAX_FN_DEPTH)
        return;
    for (uint32_t i = 0; i < f->nk; i++)
        if (f->k[i].type == GSVM_HKS_K_STRING && f->k[i].s.size > 1 &&
            dx_is_name(f->k[i].s.data, (size_t)f->k[i].s.size - 1) &&
            !name_taken(F, f->k[i].s.data))
            take_name(F, f->k[i].s.data);
    for (uint32_t i = 0; i < f->np; i++)
        collect_globals(F, &f->p[i], depth + 1);
}

/* The successors of pc in the control flow (at most 2), for the webs. */
static int successors(const fn *F, int64_t pc, int64_t out[2])
{
    unsigned op = F->op[pc];
    int64_t nx = next_pc(F, pc);
    int k = 0;
    if (op == HKS_I_RETURN || is_tailcall(op))
        return 0;
    if (op == HKS_I_JMP || op == HKS_I_FORPREP) {
        out[k++] = jmp_target(F, pc);
        return k;
    }
    if (op == HKS_I_FORLOOP) {
        out[k++] = jmp_target(F, pc);
        out[k++] = nx;
        return k;
    }
    if (is_test(op) || op == HKS_I_TFORLOOP) {
        out[k++] = nx;
        out[k++] = next_pc(F, nx);
        return k;
    }
    if (op == HKS_I_LOADBOOL && C_(W(F, pc))) {
        out[k++] = next_pc(F, nx);
        return k;
    }
    out[k++] = nx;
    return k;
}

/* The webs of a stripped function (see fn.wstate): liveness backward, then
 * the values forward; where paths join with different webs of a live
 * register, the webs are one.  Skipped (wstate NULL) for big functions. */
static void find_webs(fn *F, int wn)
{
    int64_t n = F->n;
    if (F->debug || n == 0 || wn <= 0 || (n + 1) * (int64_t)wn > (1 << 22))
        return;
    size_t cells = (size_t)(n + 1) * (size_t)wn;
    uint64_t *live = calloc((size_t)(n + 1) * 4, sizeof *live);
    int32_t *st = malloc(cells * sizeof *st), *par = malloc(cells * sizeof *par);
    int32_t *wv = malloc(cells * sizeof *wv);
    int32_t *cur = malloc((size_t)wn * sizeof *cur);
    rw *x = malloc(sizeof *x);
    int32_t *top = malloc((size_t)(n + 1) * sizeof *top);
    bool ok = live && st && par && wv && cur && x && top;
    if (ok) {
        int t = -1;
        for (int64_t pc = 0; pc < n; pc++) {
            top[pc] = t;
            if (F->isdata[pc])
                continue;
            if (dc_writes_multret(F, pc))
                t = (int)A_(W(F, pc));
            else if (dc_reads_multret(F, pc))
                t = -1;
        }
        /* liveness: in = reads + (out - killing writes) */
        for (int pass = 0, changed = 1; changed && ok; pass++) {
            changed = 0;
            if (pass > 200)
                ok = false;
            for (int64_t pc = n - 1; pc >= 0; pc--) {
                if (F->isdata[pc] || F->op[pc] == HKS_NO_OP)
                    continue;
                uint64_t in[4] = {0, 0, 0, 0};
                int64_t sc[2];
                int ns = successors(F, pc, sc);
                for (int i = 0; i < ns; i++)
                    if (sc[i] >= 0 && sc[i] < n)
                        for (int w = 0; w < 4; w++)
                            in[w] |= live[sc[i] * 4 + w];
                dc_operands(F, pc, top[pc] < 0 ? MAX_REGS : top[pc], x);
                if (F->op[pc] != HKS_I_TESTSET)
                    for (int i = 0; i < x->nwr; i++)
                        in[x->wr[i] >> 6] &= ~(1ull << (x->wr[i] & 63));
                for (int i = 0; i < x->nrd; i++)
                    in[x->rd[i] >> 6] |= 1ull << (x->rd[i] & 63);
                for (int w = 0; w < 4; w++)
                    if (in[w] != live[pc * 4 + w]) {
                        live[pc * 4 + w] = in[w];
                        changed = 1;
                    }
            }
        }
    }
    if (ok) {
        for (size_t i = 0; i < cells; i++) {
            st[i] = -1;
            par[i] = (int32_t)i;
            wv[i] = -1;
        }
        /* the parameters: their values enter at pc 0 as webs n * wn + r */
        for (int r = 0; r < wn && r < (int)F->f->nparams; r++) {
            st[r] = (int32_t)(n * wn + r);
            wv[n * wn + r] = r;
        }
        F->wparent = par;
        for (int pass = 0, changed = 1; changed && ok; pass++) {
            changed = 0;
            if (pass > 200)
                ok = false;
            for (int64_t pc = 0; pc < n; pc++) {
                if (F->isdata[pc] || F->op[pc] == HKS_NO_OP)
                    continue;
                memcpy(cur, st + pc * wn, (size_t)wn * sizeof *cur);
                dc_operands(F, pc, top[pc] < 0 ? MAX_REGS : top[pc], x);
                int64_t sc[2];
                int ns = successors(F, pc, sc);
                for (int i = 0; i < ns; i++) {
                    int64_t q = sc[i];
                    if (q < 0 || q >= n)
                        continue;
                    /* a TESTSET writes A only on its jump (the JMP after it) */
                    bool writes = F->op[pc] != HKS_I_TESTSET || q == pc + 1;
                    for (int k = 0; k < x->nwr && writes; k++)
                        if (x->wr[k] < wn)
                            cur[x->wr[k]] = (int32_t)(pc * wn + x->wr[k]);
                    for (int r = 0; r < wn; r++) {
                        if (!(live[q * 4 + (r >> 6)] >> (r & 63) & 1) || cur[r] < 0)
                            continue;
                        int32_t *d = &st[q * wn + r];
                        if (*d < 0) {
                            *d = cur[r];
                            changed = 1;
                        } else {
                            int32_t a = web_find(F, *d), b = web_find(F, cur[r]);
                            if (a != b) {
                                /* the parameter's web stays the root */
                                if (b >= n * wn)
                                    par[a] = b;
                                else
                                    par[b] = a;
                            }
                        }
                    }
                    if (F->op[pc] == HKS_I_TESTSET)
                        memcpy(cur, st + pc * wn, (size_t)wn * sizeof *cur);
                }
            }
        }
    }
    /* a register a closure captures is one variable while the upvalue is
     * open: the writes reached from the capture before a CLOSE of it (or
     * the function's end) join the captured web */
    int64_t *stack = ok ? malloc((size_t)(n + 1) * 2 * sizeof *stack) : NULL;
    uint32_t *seen = ok ? calloc((size_t)n + 1, sizeof *seen) : NULL;
    uint32_t gen = 0;
    int64_t budget = 1 << 21; /* steps; past it the function keeps register variables */
    if (ok && (!stack || !seen))
        ok = false;
    for (int64_t pc = 0; pc < n && ok; pc++) {
        if (F->isdata[pc] || F->op[pc] != HKS_I_CLOSURE)
            continue;
        if (!ok)
            break;
        uint32_t bx = GSVM_HKS_BX(W(F, pc));
        if (bx >= F->f->np)
            continue;
        for (uint32_t i = 0; i < F->f->p[bx].nups && pc + 1 + i < n && ok; i++) {
            uint32_t dw = W(F, pc + 1 + i);
            int r = (int)GSVM_HKS_BX(dw);
            if (A_(dw) != 1 || r >= wn)
                continue;
            int32_t rep = r == (int)A_(W(F, pc)) ? (int32_t)(pc * wn + r) : st[pc * wn + r];
            gen++;
            int64_t sp = 0;
            int64_t sc[2];
            int ns = successors(F, pc, sc);
            for (int k = 0; k < ns; k++)
                if (sc[k] >= 0 && sc[k] < n)
                    stack[sp++] = sc[k];
            while (sp > 0) {
                int64_t q = stack[--sp];
                if (seen[q] == gen || F->isdata[q] || F->op[q] == HKS_NO_OP)
                    continue;
                seen[q] = gen;
                if (--budget < 0) {
                    ok = false;
                    break;
                }
                unsigned op = F->op[q];
                if (op == HKS_I_CLOSE && (int)A_(W(F, q)) <= r)
                    continue;
                dc_operands(F, q, top[q] < 0 ? MAX_REGS : top[q], x);
                for (int k = 0; k < x->nwr; k++)
                    if (x->wr[k] == r) {
                        int32_t id = (int32_t)(q * wn + r);
                        if (rep < 0)
                            rep = id;
                        int32_t a = web_find(F, rep), b = web_find(F, id);
                        if (a != b) {
                            if (b >= n * wn)
                                par[a] = b;
                            else
                                par[b] = a;
                        }
                    }
                ns = successors(F, q, sc);
                for (int k = 0; k < ns; k++)
                    if (sc[k] >= 0 && sc[k] < n && seen[sc[k]] != gen && sp < 2 * (n + 1))
                        stack[sp++] = sc[k];
            }
        }
    }
    free(stack);
    free(seen);
    free(live);
    free(cur);
    free(x);
    free(top);
    if (!ok) {
        free(st);
        free(par);
        free(wv);
        F->wparent = NULL;
        return;
    }
    F->wstate = st;
    F->wvar = wv;
    F->wn = wn;
}

/* The HKS type a CHECKTYPE (type code in Bx) or CHECKTYPES (structure id
 * in Bx) names, NULL when it has no source name. */
static const char *check_type_name(const fn *F, uint32_t w, unsigned op)
{
    uint32_t bx = GSVM_HKS_BX(w);
    if (op == HKS_I_CHECKTYPES) {
        const gsvm_hks_chunk *c = F->D->c;
        for (uint32_t i = 0; i < c->nstructs; i++)
            if (c->structs[i].id == bx && c->structs[i].name.size > 1 &&
                dx_is_name(c->structs[i].name.data, (size_t)c->structs[i].name.size - 1))
                return c->structs[i].name.data;
        return NULL;
    }
    static const char *const names[] = {NULL,   "boolean",   "lightuserdata", "number",
                                        "string", "table",   NULL,            "userdata",
                                        "thread", "ifunction", "cfunction",   "ui64"};
    return bx < sizeof names / sizeof *names ? names[bx] : NULL;
}

static void set_type_name(fn *F, int v, const char *t)
{
    dvar *dv = &F->vars[v];
    char d[sizeof dv->decl];
    if (!t) {
        dv->untyped = true;
        return;
    }
    snprintf(d, sizeof d, "%s:%s", dv->name, t);
    if (dv->decl[0] && strcmp(dv->decl, d) != 0)
        dv->untyped = true;
    memcpy(dv->decl, d, sizeof d);
}

void dc_set_type(fn *F, int v, uint32_t w, unsigned op) { set_type_name(F, v, check_type_name(F, w, op)); }

/* Typed locals and parameters: the variables that CHECKTYPE instructions
 * check (a typed for loop's variable is typed where its loop prints). */
void dc_find_types(fn *F)
{
    for (int64_t pc = 0; pc < F->n; pc++) {
        if (F->isdata[pc])
            continue;
        unsigned op = F->op[pc];
        uint32_t w = W(F, pc);
        int r = (int)A_(w);
        if (F->ssid[pc] >= 0 && F->use[pc] < 0 && r < F->nregvars &&
            F->D->c->structs[F->ssid[pc]].name.size > 1) {
            /* a structure in a variable: typed, or its slots read as fields */
            set_type_name(F, dc_var_of(F, r, pc, true), F->D->c->structs[F->ssid[pc]].name.data);
            continue;
        }
        if (op != HKS_I_CHECKTYPE && op != HKS_I_CHECKTYPES)
            continue;
        if (pc > 0 && OPAT(F, pc - 1) == HKS_I_FORPREP && (int)A_(W(F, pc - 1)) + 3 == r)
            continue;
        if (r >= F->nregvars)
            continue;
        dc_set_type(F, dc_var_of(F, r, pc, false), w, op);
    }
}

typedef struct lo_var {
    int64_t lo;
    int v;
} lo_var;
static int by_lo(const void *a, const void *b)
{
    const lo_var *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : (x->v > y->v) - (x->v < y->v);
}

void dc_setup_vars(fn *F)
{
    /* room for variable 0 even in a function without registers: a failed
     * lookup (var_of, new_var) answers 0, and its users may touch it */
    F->vars = calloc(32, sizeof *F->vars);
    if (!F->vars) {
        dc_fail(F, "out of memory");
        return;
    }
    F->capvars = 32;
    snprintf(F->vars[0].name, sizeof F->vars[0].name, "_");
    F->vars[0].owner = -1;
    for (uint32_t i = 0; i < F->nups; i++)
        take_name(F, F->upnames[i]);
    collect_globals(F, F->f, 0);
    take_name(F, "pc");
    take_name(F, "self");
    /* one variable per register, then the debug locals */
    uint32_t nregs = F->f->maxstack > F->f->nparams ? F->f->maxstack : F->f->nparams;
    if (nregs > MAX_REGS)
        nregs = MAX_REGS;
    const gsvm_hks_debug *d = &F->f->debug;
    if (!F->blocks)
        find_webs(F, (int)nregs);
    for (uint32_t r = 0; r < nregs; r++) {
        char base[80];
        if (r < F->f->nparams)
            snprintf(base, sizeof base, "arg%u", r + 1);
        else /* (with webs, a register's name is its first web's) */
            snprintf(base, sizeof base, F->wstate ? "reg%u" : "loc%u", r);
        dc_new_var(F, base, (int)r);
    }
    F->nregvars = F->nvars;
    F->locbase = F->nvars;
    if (F->debug) {
        for (uint32_t i = 0; i < d->nlocals; i++) {
            const char *nm = d->locals[i].name.data ? d->locals[i].name.data : "";
            int v = dc_new_var(F, F->loc_reg[i] >= 0 ? nm : "hidden", F->loc_reg[i]);
            if (v < F->nvars) {
                F->vars[v].lo = (int64_t)d->locals[i].startpc - 1;
                F->vars[v].hi = (int64_t)d->locals[i].endpc - 1;
            }
        }
        for (uint32_t i = 0; i < F->f->nparams && i < d->nlocals; i++)
            if (F->locbase + (int)i < F->nvars)
                F->vars[F->locbase + i].declared = true;
    }
    for (uint32_t r = 0; r < F->f->nparams && r < nregs; r++)
        F->vars[r].declared = true;
    /* access ranges of the register variables: every access not folded */
    rw *x = malloc(sizeof *x);
    if (!x) {
        dc_fail(F, "out of memory");
        return;
    }
    int top = -1;
    for (int64_t pc = 0; pc < F->n; pc++) {
        if (F->isdata[pc] || F->op[pc] == HKS_NO_OP)
            continue;
        dc_operands(F, pc, top, x);
        if (dc_writes_multret(F, pc))
            top = (int)A_(W(F, pc));
        for (int i = 0; i < x->nrd + x->nwr; i++) {
            bool wr = i >= x->nrd;
            int r = wr ? x->wr[i - x->nrd] : x->rd[i];
            if (wr && F->use[pc] >= 0)
                continue;
            if (r >= F->nregvars)
                continue;
            int v = dc_var_of(F, r, pc, wr);
            if (v < F->nregvars || (F->wstate && v >= F->locbase)) {
                dvar *dv = &F->vars[v];
                if (pc < dv->lo)
                    dv->lo = pc;
                if (pc > dv->hi)
                    dv->hi = pc;
            }
        }
    }
    free(x);
    /* by first access, for open_region */
    F->bylo = malloc(sizeof *F->bylo * (size_t)(F->nvars ? F->nvars : 1));
    lo_var *tmp = malloc(sizeof *tmp * (size_t)(F->nvars ? F->nvars : 1));
    if (!F->bylo || !tmp) {
        free(tmp);
        dc_fail(F, "out of memory");
        return;
    }
    int m = 0;
    for (int v = 0; v < F->nvars; v++)
        if (F->vars[v].hi >= 0)
            tmp[m++] = (lo_var){F->vars[v].lo, v};
    qsort(tmp, (size_t)m, sizeof *tmp, by_lo);
    for (int i = 0; i < m; i++)
        F->bylo[i] = tmp[i].v;
    F->nbylo = m;
    free(tmp);
}
