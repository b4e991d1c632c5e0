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
            id = dc_web_find(F, id);
            /* a parameter's register is the parameter all through the
             * function: a new value there is the parameter assigned */
            if (F->wvar[id] < 0 && reg < (int)F->f->nparams)
                F->wvar[id] = reg;
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
        dc_find_webs(F, (int)nregs);
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
