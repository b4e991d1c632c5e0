/* The compiler's parser: Lua 5.1's grammar plus HavokScript's additions,
 * generating code as it reads (compile_code.c).  Nesting is bounded by
 * HC_MAXLEVELS, so no input recurses without limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/compile.h"

#define TOK (C->t.tok)

static void expr(hc_compiler *C, hc_exp *v);
static void block(hc_compiler *C);
static bool statement(hc_compiler *C);

/* ---- errors and token helpers ---- */
static const char *near_text(hc_compiler *C, char *buf, size_t n)
{
    switch (TOK) {
    case TK_NAME:
    case TK_STRING: snprintf(buf, n, "%.*s", (int)(C->t.len > 60 ? 60 : C->t.len), C->t.s); return buf;
    case TK_NUMBER:
    case TK_LUD:
    case TK_UI64: {
        /* the numeral as written */
        const char *s = C->linestart + C->t.col - 1;
        size_t len = 0;
        if (C->t.line == C->line) {
            while (s + len < C->p && len < 60)
                len++;
        } else {
            s = "<number>";
            len = 8;
        }
        snprintf(buf, n, "%.*s", (int)len, s);
        return buf;
    }
    default: return hc_token_text(C, TOK, buf, n);
    }
}

_Noreturn void hc_syntax_error(hc_compiler *C, const char *msg)
{
    char buf[80];
    hc_error_at(C, C->t.line, C->t.col, "%s near '%s'", msg, near_text(C, buf, sizeof buf));
}

static _Noreturn void error_expected(hc_compiler *C, int tok)
{
    char buf[40], msg[80];
    snprintf(msg, sizeof msg, "'%s' expected", hc_token_text(C, tok, buf, sizeof buf));
    hc_syntax_error(C, msg);
}

static bool testnext(hc_compiler *C, int tok)
{
    if (TOK == tok) {
        hc_next(C);
        return true;
    }
    return false;
}

static void check(hc_compiler *C, int tok)
{
    if (TOK != tok)
        error_expected(C, tok);
}

static void checknext(hc_compiler *C, int tok)
{
    check(C, tok);
    hc_next(C);
}

static void check_match(hc_compiler *C, int what, int who, int where)
{
    if (TOK == what) {
        hc_next(C);
        return;
    }
    char a[40], b[40], msg[160];
    if (where == C->t.line)
        error_expected(C, what);
    snprintf(msg, sizeof msg, "'%s' expected (to close '%s' at line %d)",
             hc_token_text(C, what, a, sizeof a), hc_token_text(C, who, b, sizeof b), where);
    hc_syntax_error(C, msg);
}

static const hc_str *str_checkname(hc_compiler *C)
{
    check(C, TK_NAME);
    const hc_str *s = C->t.str;
    hc_next(C);
    return s;
}

static void enterlevel(hc_compiler *C)
{
    if (++C->depth > HC_MAXLEVELS)
        hc_error_at(C, C->t.line, C->t.col,
                    "chunk has too many syntax levels (nesting deeper than %d)", HC_MAXLEVELS);
}
static void leavelevel(hc_compiler *C) { C->depth--; }

static void codestring(hc_compiler *C, hc_exp *e, const hc_str *s)
{
    hc_init_exp(e, E_K, hc_k_string(C->fs, s));
}

static void checkname(hc_compiler *C, hc_exp *e) { codestring(C, e, str_checkname(C)); }

/* ---- variables ---- */
static int registerlocalvar(hc_compiler *C, const hc_str *name)
{
    hc_func *fs = C->fs;
    fs->vars = hc_grow(C, fs->vars, &fs->cap_vars, (size_t)fs->nvars + 1, sizeof *fs->vars);
    fs->vars[fs->nvars].name = name;
    fs->vars[fs->nvars].startpc = 0;
    fs->vars[fs->nvars].endpc = 0;
    fs->vars[fs->nvars].stype = -1;
    return fs->nvars++;
}

static void new_localvar(hc_compiler *C, const hc_str *name, int n)
{
    hc_func *fs = C->fs;
    if (fs->nactvar + n + 1 > HC_MAXVARS) /* at the name that is one too many */
        hc_error_at(C, C->prevline, C->prevcol, "too many local variables (limit is %d)",
                    HC_MAXVARS);
    fs->actvar[fs->nactvar + n] = (uint16_t)registerlocalvar(C, name);
}

static hc_var *getlocvar(hc_func *fs, int i) { return &fs->vars[fs->actvar[i]]; }

static void adjustlocalvars(hc_compiler *C, int nvars)
{
    hc_func *fs = C->fs;
    fs->nactvar += nvars;
    for (; nvars; nvars--)
        getlocvar(fs, fs->nactvar - nvars)->startpc = fs->pc;
}

static void removevars(hc_compiler *C, int tolevel)
{
    hc_func *fs = C->fs;
    while (fs->nactvar > tolevel)
        getlocvar(fs, --fs->nactvar)->endpc = fs->pc;
}

static int indexupvalue(hc_compiler *C, hc_func *fs, const hc_str *name, const hc_exp *v)
{
    for (int i = 0; i < fs->nups; i++)
        if (fs->ups[i].kind == (int)v->k && fs->ups[i].index == v->info)
            return i;
    if (fs->nups + 1 > HC_MAXUPVALS)
        hc_error_at(C, C->t.line, C->t.col, "too many upvalues (limit is %d)", HC_MAXUPVALS);
    fs->ups[fs->nups].name = name;
    fs->ups[fs->nups].kind = (int)v->k;
    fs->ups[fs->nups].index = v->info;
    return fs->nups++;
}

static int searchvar(hc_func *fs, const hc_str *n)
{
    for (int i = fs->nactvar - 1; i >= 0; i--)
        if (getlocvar(fs, i)->name == n)
            return i;
    return -1;
}

static void markupval(hc_func *fs, int level)
{
    hc_block *bl = fs->bl;
    while (bl && bl->nactvar > level)
        bl = bl->prev;
    if (bl)
        bl->upval = true;
}

static hc_ekind singlevaraux(hc_compiler *C, hc_func *fs, const hc_str *n, hc_exp *var, bool base)
{
    if (!fs) {
        hc_init_exp(var, E_GLOBAL, 0);
        return E_GLOBAL;
    }
    int v = searchvar(fs, n);
    if (v >= 0) {
        hc_init_exp(var, E_LOCAL, v);
        var->stype = getlocvar(fs, v)->stype;
        var->etype = var->stype >= 0 ? var->stype : -1; /* checked on entry or store */
        if (!base)
            markupval(fs, v);
        return E_LOCAL;
    }
    if (singlevaraux(C, fs->prev, n, var, false) == E_GLOBAL)
        return E_GLOBAL;
    int st = var->stype, et = var->etype;
    var->info = indexupvalue(C, fs, n, var);
    var->k = E_UPVAL;
    var->stype = st;
    var->etype = et;
    return E_UPVAL;
}

static void singlevar(hc_compiler *C, hc_exp *var)
{
    const hc_str *name = str_checkname(C);
    if (singlevaraux(C, C->fs, name, var, true) == E_GLOBAL)
        var->info = hc_k_string(C->fs, name);
}

static bool hasmultret(hc_ekind k) { return k == E_CALL || k == E_VARARG; }

static void adjust_assign(hc_compiler *C, int nvars, int nexps, hc_exp *e)
{
    hc_func *fs = C->fs;
    int extra = nvars - nexps;
    if (hasmultret(e->k)) {
        extra++;
        if (extra < 0)
            extra = 0;
        hc_setreturns(fs, e, extra);
        if (extra > 1)
            hc_reserve(fs, extra - 1);
    } else {
        if (e->k != E_VOID)
            hc_exp2nextreg(fs, e);
        if (extra > 0) {
            int reg = fs->freereg;
            hc_reserve(fs, extra);
            hc_nil(fs, reg, extra);
        }
    }
}

/* ---- blocks and functions ---- */
static void enterblock(hc_func *fs, hc_block *bl, bool isloop)
{
    bl->breaklist = HC_NOJUMP;
    bl->isloop = isloop;
    bl->nactvar = fs->nactvar;
    bl->upval = false;
    bl->prev = fs->bl;
    fs->bl = bl;
}

static void leaveblock(hc_compiler *C)
{
    hc_func *fs = C->fs;
    hc_block *bl = fs->bl;
    fs->bl = bl->prev;
    removevars(C, bl->nactvar);
    if (bl->upval)
        hc_code(fs, HKS_I_CLOSE, (uint32_t)bl->nactvar, 0, 0);
    fs->freereg = fs->nactvar;
    hc_patchtohere(fs, bl->breaklist);
}

/* A function state: a spare one (its scratch arrays kept, emptied) or a new
 * one from the arena. */
static hc_func *open_func(hc_compiler *C)
{
    hc_func *fs = C->spare, keep;
    if (fs) {
        C->spare = fs->prev;
        keep = *fs;
        if (keep.khash)
            memset(keep.khash, 0, keep.khash_cap * sizeof *keep.khash);
    } else {
        fs = hc_arena(C, sizeof *fs);
        memset(&keep, 0, sizeof keep);
    }
    memset(fs, 0, sizeof *fs);
    fs->lines = keep.lines;
    fs->cap_lines = keep.cap_lines;
    fs->cap_code = keep.cap_code;
    fs->cap_k = keep.cap_k;
    fs->cap_p = keep.cap_p;
    fs->r1reg = keep.r1reg;
    fs->cap_r1 = keep.cap_r1;
    fs->vars = keep.vars;
    fs->cap_vars = keep.cap_vars;
    fs->khash = keep.khash;
    fs->khash_cap = keep.khash_cap;
    fs->memo = keep.memo;
    fs->cap_memo = keep.cap_memo;
    fs->fname = NULL;
    fs->f = calloc(1, sizeof *fs->f);
    if (!fs->f) {
        free(keep.scode);
        free(keep.sk);
        free(keep.sp);
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    }
    fs->f->code = keep.scode; /* the open proto owns them (freed with it on error) */
    fs->f->k = keep.sk;
    fs->f->p = keep.sp;
    fs->C = C;
    fs->prev = C->fs;
    C->fs = fs;
    fs->lasttarget = -1;
    fs->jpc = HC_NOJUMP;
    fs->maxstack = 2;
    fs->nilk = fs->truek = fs->falsek = -1;
    return fs;
}

void hc_func_release(hc_func *fs);

/* Keeps a closed function's state for the next function opened. */
static void spare_func(hc_compiler *C, hc_func *fs)
{
    free((void *)fs->fname);
    fs->fname = NULL;
    if (fs->khash_cap > 1024) { /* clearing it for each small function would cost more */
        free(fs->khash);
        fs->khash = NULL;
        fs->khash_cap = 0;
    }
    fs->prev = C->spare;
    C->spare = fs;
}

/* An exact copy of the first n bytes of a scratch array (NULL for none). */
static void *exact(hc_compiler *C, const void *p, size_t n)
{
    if (!n)
        return NULL;
    void *q = malloc(n);
    if (!q)
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    return memcpy(q, p, n);
}

/* Moves the finished function's tables into its proto. */
static void close_func(hc_compiler *C)
{
    hc_func *fs = C->fs;
    removevars(C, 0);
    hc_ret(fs, 0, 0);
    hc_finish_code(fs);
    gsvm_hks_proto *f = fs->f;
    /* the proto gets exact copies; the scratch arrays stay with the state */
    fs->scode = f->code;
    fs->sk = f->k;
    fs->sp = f->p;
    f->code = NULL;
    f->k = NULL;
    f->p = NULL;
    f->code = exact(C, fs->scode, (size_t)f->ncode * sizeof *f->code);
    f->k = exact(C, fs->sk, (size_t)f->nk * sizeof *f->k);
    f->p = exact(C, fs->sp, (size_t)f->np * sizeof *f->p);
    f->nups = (uint32_t)fs->nups;
    f->maxstack = (uint32_t)fs->maxstack;
    f->npad = 4;
    memcpy(f->pad, "____", 4);
    gsvm_hks_debug *d = &f->debug;
    if (C->hash_debug || C->o.debug != GSVM_HKS_DEBUG_NONE) {
        d->flag = 1;
        d->linedefined = (uint32_t)fs->linedefined;
        if (!fs->prev) {
            const char *cn = C->o.chunkname ? C->o.chunkname : "=?";
            size_t n = strlen(cn);
            d->source.data = malloc(n + 2);
            if (!d->source.data)
                hc_error_at(C, C->t.line, C->t.col, "out of memory");
            memcpy(d->source.data, cn, n + 1);
            d->source.data[n + 1] = 0;
            d->source.size = n + 1;
        }
        const char *nm = fs->fname;
        if (nm) {
            size_t n = strlen(nm);
            d->name.data = malloc(n + 2);
            if (!d->name.data)
                hc_error_at(C, C->t.line, C->t.col, "out of memory");
            memcpy(d->name.data, nm, n + 1);
            d->name.data[n + 1] = 0;
            d->name.size = n + 1;
        }
        if (C->o.debug == GSVM_HKS_DEBUG_FULL && !C->hash_debug) {
            d->nlines = f->ncode;
            d->lines = exact(C, fs->lines, (size_t)f->ncode * sizeof *fs->lines);
            d->nlocals = (uint32_t)fs->nvars;
            d->locals = calloc(fs->nvars ? (size_t)fs->nvars : 1, sizeof *d->locals);
            d->nupnames = (uint32_t)fs->nups;
            d->upnames = calloc(fs->nups ? (size_t)fs->nups : 1, sizeof *d->upnames);
            if (!d->locals || !d->upnames)
                hc_error_at(C, C->t.line, C->t.col, "out of memory");
            for (int i = 0; i < fs->nvars; i++) {
                const hc_str *s = fs->vars[i].name;
                d->locals[i].name.data = malloc(s->len + 2);
                if (!d->locals[i].name.data)
                    hc_error_at(C, C->t.line, C->t.col, "out of memory");
                memcpy(d->locals[i].name.data, s->data, s->len + 1);
                d->locals[i].name.data[s->len + 1] = 0;
                d->locals[i].name.size = s->len + 1;
                d->locals[i].startpc = (uint32_t)fs->vars[i].startpc;
                d->locals[i].endpc = (uint32_t)fs->vars[i].endpc;
            }
            for (int i = 0; i < fs->nups; i++) {
                const hc_str *s = fs->ups[i].name;
                d->upnames[i].data = malloc(s->len + 2);
                if (!d->upnames[i].data)
                    hc_error_at(C, C->t.line, C->t.col, "out of memory");
                memcpy(d->upnames[i].data, s->data, s->len + 1);
                d->upnames[i].data[s->len + 1] = 0;
                d->upnames[i].size = s->len + 1;
            }
        }
    }
    C->fs = fs->prev;
}

/* Frees what the function state owns besides its proto. */
void hc_func_release(hc_func *fs)
{
    free(fs->lines);
    free(fs->scode);
    free(fs->sk);
    free(fs->sp);
    fs->scode = NULL;
    fs->sk = NULL;
    fs->sp = NULL;
    free(fs->r1reg);
    fs->r1reg = NULL;
    free(fs->vars);
    free(fs->khash);
    free(fs->memo);
    free((void *)fs->fname);
    fs->lines = NULL;
    fs->vars = NULL;
    fs->khash = NULL;
    fs->memo = NULL;
    fs->fname = NULL;
}

static void pushclosure(hc_compiler *C, hc_func *func, hc_exp *v)
{
    hc_func *fs = C->fs;
    gsvm_hks_proto *f = fs->f;
    if (f->np >= (1u << 17) - 1)
        hc_error_at(C, C->t.line, C->t.col, "function has too many child functions");
    f->p = hc_grow(C, f->p, &fs->cap_p, (size_t)f->np + 1, sizeof *f->p);
    f->p[f->np] = *func->f;
    free(func->f);
    func->f = NULL;
    int idx = (int)f->np++;
    hc_init_exp(v, E_RELOC, hc_code_bx(fs, HKS_I_CLOSURE, 0, (uint32_t)idx));
    for (int i = 0; i < func->nups; i++)
        hc_code_data(fs, func->ups[i].kind == E_LOCAL ? 1 : 2, (uint32_t)func->ups[i].index);
}

/* A typed local whose value is not known to have its type is checked at
 * run time (CHECKTYPE, or CHECKTYPES for a structure). */
static void checktype(hc_compiler *C, int reg, int declared, int known)
{
    if (declared == HC_T_NONE || declared == HC_T_ANY || declared == known)
        return;
    if (known > GSVM_HKS_K_NIL) {
        /* a value known to have another type: refused, as hksc does */
        char h[80];
        bool st = declared >= HC_T_STRUCT0;
        hc_error_at(C, C->t.line, C->t.col, "cannot set a local variable of type %s%s%s to %s",
                    st ? "'" : "", hc_type_name(C, declared), st ? "'" : "",
                    hc_type_phrase(C, known, h, sizeof h));
    }
    if (declared >= HC_T_STRUCT0)
        hc_code_bx(C->fs, HKS_I_CHECKTYPES, (uint32_t)reg, (uint32_t)(declared - HC_T_STRUCT0 + 1));
    else
        hc_code_bx(C->fs, HKS_I_CHECKTYPE, (uint32_t)reg, (uint32_t)declared);
}

static void setvartype(hc_compiler *C, int n, int type)
{
    hc_func *fs = C->fs;
    fs->vars[fs->actvar[fs->nactvar + n]].stype = type;
}

static int parse_type(hc_compiler *C, const char *what);

static void parlist(hc_compiler *C)
{
    hc_func *fs = C->fs;
    int nparams = 0;
    fs->f->flags = 0;
    if (TOK != ')') {
        do {
            switch (TOK) {
            case TK_NAME: {
                new_localvar(C, str_checkname(C), nparams);
                if (TOK == ':') {
                    hc_next(C);
                    setvartype(C, nparams, parse_type(C, "parameters"));
                }
                nparams++;
                break;
            }
            case TK_DOTS:
                /* Lua 5.0's `arg` table, as hksc keeps it: a hidden local */
                hc_next(C);
                if (!C->o.no_arg_table) {
                    new_localvar(C, hc_intern(C, "arg", 3), nparams++);
                    fs->f->flags = 1 | 4;
                }
                fs->f->flags |= 2;
                fs->is_vararg = true;
                break;
            default: hc_syntax_error(C, "<name> or '...' expected");
            }
        } while (!fs->is_vararg && testnext(C, ','));
    }
    adjustlocalvars(C, nparams);
    fs->f->nparams = (uint32_t)(fs->nactvar - (fs->f->flags & 1));
    hc_reserve(fs, fs->nactvar);
}

static char *dupname(hc_compiler *C, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d)
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    memcpy(d, s, n + 1);
    return d;
}

static void chunk(hc_compiler *C);

static void body(hc_compiler *C, hc_exp *e, bool needself, int line, const char *name)
{
    hc_func *nfs = open_func(C);
    nfs->fname = dupname(C, name);
    nfs->linedefined = line;
    checknext(C, '(');
    if (needself) {
        new_localvar(C, hc_intern(C, "self", 4), 0);
        adjustlocalvars(C, 1);
    }
    parlist(C);
    checknext(C, ')');
    for (int i = 0; i < nfs->nactvar; i++)
        checktype(C, i, getlocvar(nfs, i)->stype, -1);
    chunk(C);
    nfs->f->debug.lastlinedefined = (uint32_t)C->line;
    check_match(C, TK_END, TK_FUNCTION, line);
    close_func(C);
    pushclosure(C, nfs, e);
    spare_func(C, nfs);
}

/* ---- expressions ---- */
static int explist1(hc_compiler *C, hc_exp *v)
{
    int n = 1;
    expr(C, v);
    while (testnext(C, ',')) {
        hc_exp2nextreg(C->fs, v);
        expr(C, v);
        n++;
    }
    return n;
}

static void constructor(hc_compiler *C, hc_exp *t);

static void funcargs(hc_compiler *C, hc_exp *f)
{
    hc_func *fs = C->fs;
    hc_exp args;
    int line = C->t.line;
    switch (TOK) {
    case '(':
        if (line != C->lastline)
            hc_syntax_error(C, "ambiguous syntax (function call x new statement)");
        hc_next(C);
        if (TOK == ')')
            hc_init_exp(&args, E_VOID, 0);
        else {
            explist1(C, &args);
            hc_setreturns(fs, &args, -1);
        }
        check_match(C, ')', '(', line);
        break;
    case '{': constructor(C, &args); break;
    case TK_STRING:
        codestring(C, &args, C->t.str);
        hc_next(C);
        break;
    default: hc_syntax_error(C, "function arguments expected");
    }
    int base = f->info, nparams;
    if (hasmultret(args.k))
        nparams = -1;
    else {
        if (args.k != E_VOID)
            hc_exp2nextreg(fs, &args);
        nparams = fs->freereg - (base + 1);
    }
    hc_init_exp(f, E_CALL, hc_code(fs, HKS_I_CALL_I, (uint32_t)base, (uint32_t)(nparams + 1), 2));
    hc_fixline(fs, line);
    fs->freereg = base + 1;
}

static void primaryexp(hc_compiler *C, hc_exp *v)
{
    switch (TOK) {
    case '(': {
        int line = C->t.line;
        hc_next(C);
        expr(C, v);
        check_match(C, ')', '(', line);
        hc_dischargevars(C->fs, v);
        return;
    }
    case TK_NAME: singlevar(C, v); return;
    default:
        if (!C->bitops && (TOK == '&' || TOK == '|' ||
                           ((TOK == '<' || TOK == '>') && C->p - 2 >= C->src && C->p[-2] == TOK)))
            hc_error_at(C, C->t.line, C->t.col,
                        "unexpected symbol near '%c' (the bit operators << >> & | exist only "
                        "in the Black Ops 3 target)",
                        TOK);
        hc_syntax_error(C, "unexpected symbol");
    }
}

static void yindex(hc_compiler *C, hc_exp *v)
{
    hc_next(C);
    expr(C, v);
    hc_exp2val(C->fs, v);
    checknext(C, ']');
}

/* The structure a value is known to be, -1 none. */
static int struct_of(const hc_exp *v) { return v->etype >= HC_T_STRUCT0 ? v->etype - HC_T_STRUCT0 : -1; }

static int slot_etype(const hc_slotdef *d)
{
    return d->type == HC_TSTRUCT ? HC_T_STRUCT0 + d->sid : d->type == 0 ? -1 : d->type;
}

/* `t.name` on a value of structure `sid`, t in a register: its own slot, or
 * a slot of the structures its meta's __index leads to (aux -1), or one
 * only its meta's __newindex leads to (aux -2: a store).  False when the
 * name is left to the table behind the structure (proxytable, or a meta
 * that is not a structure); an error when there is nowhere else to look. */
static bool slot_access(hc_compiler *C, hc_exp *v, int sid, const hc_str *name, int line, int col)
{
    const hc_struct *s = &C->sdefs[sid];
    const hc_slotdef *d = hc_find_slot(s, name);
    uint32_t words[2 * HC_MAX_CHAIN];
    if (d) {
        v->aux = d->pos;
    } else if (hc_slot_chain(C, sid, name, words, HC_MAX_CHAIN) > 0) {
        v->aux = -1;
        d = hc_chain_end(C, sid, name);
    } else if (hc_store_chain(C, sid, name, words, HC_MAX_CHAIN, &d) > 0) {
        v->aux = -2; /* only a store reaches it (through __newindex) */
    } else if (s->proxy || s->meta_type >= 0) {
        return false;
    } else {
        hc_error_at(C, line, col,
                    "structure '%s' has no slot '%s' (and no proxytable or meta to look in)",
                    s->name->data, name->data);
    }
    v->k = E_SLOT;
    v->slot = sid;
    v->key = name;
    v->kline = line;
    v->kcol = col;
    v->etype = slot_etype(d);
    v->stype = HC_T_NONE;
    return true;
}

static void field(hc_compiler *C, hc_exp *v)
{
    hc_func *fs = C->fs;
    hc_exp key;
    int sid = struct_of(v);
    hc_exp2anyreg(fs, v);
    hc_next(C);
    int line = C->t.line, col = C->t.col;
    const hc_str *name = str_checkname(C);
    codestring(C, &key, name);
    if (sid >= 0 && slot_access(C, v, sid, name, line, col))
        return;
    hc_indexed(fs, v, &key);
    v->etype = -1;
}

static void suffixedexp(hc_compiler *C, hc_exp *v)
{
    hc_func *fs = C->fs;
    primaryexp(C, v);
    for (;;) {
        switch (TOK) {
        case '.': field(C, v); break;
        case '[': {
            hc_exp key;
            hc_exp2anyreg(fs, v);
            yindex(C, &key);
            hc_indexed(fs, v, &key);
            v->etype = -1;
            break;
        }
        case ':': {
            hc_exp key;
            hc_next(C);
            int line = C->t.line, col = C->t.col;
            const hc_str *name = str_checkname(C);
            codestring(C, &key, name);
            int sid = struct_of(v);
            hc_exp slot = *v;
            if (sid >= 0 && slot_access(C, &slot, sid, name, line, col))
                hc_selfslot(fs, v, &slot);
            else
                hc_self(fs, v, &key);
            v->etype = -1;
            funcargs(C, v);
            break;
        }
        case '(':
        case TK_STRING:
        case '{':
            hc_exp2nextreg(fs, v);
            v->etype = -1;
            funcargs(C, v);
            break;
        default: return;
        }
    }
}

typedef struct cons {
    hc_exp v;
    hc_exp *t;
    int nh, na, tostore;
} cons;

static void recfield(hc_compiler *C, cons *cc)
{
    hc_func *fs = C->fs;
    int reg = fs->freereg;
    hc_exp key, val;
    if (TOK == TK_NAME) {
        if (cc->nh > 0x7ffffff0)
            hc_error_at(C, C->t.line, C->t.col, "table constructor has too many items");
        checkname(C, &key);
    } else
        yindex(C, &key);
    cc->nh++;
    checknext(C, '=');
    hc_exp tk;
    hc_init_exp(&tk, E_INDEXED, cc->t->info);
    tk.aux = hc_exp2RK(fs, &key);
    expr(C, &val);
    int e = hc_exp2RK(fs, &val);
    int k = tk.aux;
    if (k >= 256 && fs->f->k[k - 256].type == GSVM_HKS_K_STRING)
        hc_code(fs, HKS_I_SETFIELD, (uint32_t)tk.info, (uint32_t)(k - 256), (uint32_t)e);
    else if (k >= 256)
        hc_code(fs, HKS_I_SETTABLE_S_BK, (uint32_t)tk.info, (uint32_t)(k - 256), (uint32_t)e);
    else
        hc_code(fs, HKS_I_SETTABLE_S, (uint32_t)tk.info, (uint32_t)k, (uint32_t)e);
    fs->freereg = reg;
}

static void closelistfield(hc_func *fs, cons *cc)
{
    if (cc->v.k == E_VOID)
        return;
    hc_exp2nextreg(fs, &cc->v);
    cc->v.k = E_VOID;
    if (cc->tostore == HC_FPF) {
        hc_setlist(fs, cc->t->info, cc->na, cc->tostore);
        cc->tostore = 0;
    }
}

static void lastlistfield(hc_func *fs, cons *cc)
{
    if (cc->tostore == 0)
        return;
    if (hasmultret(cc->v.k)) {
        hc_setreturns(fs, &cc->v, -1);
        hc_setlist(fs, cc->t->info, cc->na, -1);
        cc->na--;
    } else {
        if (cc->v.k != E_VOID)
            hc_exp2nextreg(fs, &cc->v);
        hc_setlist(fs, cc->t->info, cc->na, cc->tostore);
    }
}

static void listfield(hc_compiler *C, cons *cc)
{
    expr(C, &cc->v);
    if (cc->na > 0x7ffffff0)
        hc_error_at(C, C->t.line, C->t.col, "table constructor has too many items");
    cc->na++;
    cc->tostore++;
}

static int int2fb(unsigned x)
{
    int e = 0;
    while (x >= 16) {
        x = (x + 1) >> 1;
        e++;
    }
    if (x < 8)
        return (int)x;
    return ((e + 1) << 3) | (int)(x - 8);
}

static void slotfield(hc_compiler *C, cons *cc, const hc_slotdef *d);

/* One size of `{...}:NA,NH`: a constant number expression (folded by
 * expr), as an int (at least 0, at most what a size can say). */
static int size_hint(hc_compiler *C)
{
    int line = C->t.line, col = C->t.col;
    hc_exp e;
    expr(C, &e);
    if (e.k != E_KNUM || e.t != e.f)
        hc_error_at(C, line, col, "a table size after '}:' must be a constant number "
                                  "expression");
    double n = e.nval;
    return n >= 1 ? (n < 1e9 ? (int)n : 1000000000) : 0;
}

/* The FromSoftware builds' table sizes, `{...}:NA`, `{...}:NA,NH` or
 * `{...}:,NH` (hksc's table-size extension): NEWTABLE presizes the array and
 * hash parts to the larger of the given and the counted sizes.  hksc ignores
 * them on an hmake of a structure without proxytable (there is no table).
 * `:` then a name stays a method call (`f{...}:m()`), which hksc's sekiro
 * build refuses but Lua 5.1 and the other targets take. */
static void sizes(hc_compiler *C, cons *cc, int sid)
{
    if (TOK != ':' || hc_lookahead(C) == TK_NAME)
        return;
    if (C->o.profile != GSVM_HKS_PROFILE_BASE || C->o.hash != GSVM_HKS_HASH_NONE)
        hc_error_at(C, C->t.line, C->t.col,
                    "unexpected symbol near ':' (table sizes '{...}:NA,NH' exist only in the "
                    "FromSoftware targets: sekiro, sow, doubles)");
    hc_next(C);
    int na = cc->na, nh = cc->nh;
    if (!testnext(C, ',')) {
        na = size_hint(C);
        if (testnext(C, ','))
            nh = size_hint(C);
    } else {
        nh = size_hint(C);
    }
    if (sid >= 0 && !C->sdefs[sid].proxy)
        return;
    if (na > cc->na)
        cc->na = na;
    if (nh > cc->nh)
        cc->nh = nh;
}

/* The fields of a table constructor (sid < 0) or of an hmake of structure
 * sid, whose NEWTABLE / NEWSTRUCT is at pc.  In an hmake, named fields that
 * are slots go to the slots, everything else to the backing table
 * (proxytable only). */
static void fields(hc_compiler *C, hc_exp *t, int pc, int sid)
{
    hc_func *fs = C->fs;
    int line = C->t.line;
    cons cc;
    cc.na = cc.nh = cc.tostore = 0;
    cc.t = t;
    hc_init_exp(t, E_RELOC, pc);
    hc_init_exp(&cc.v, E_VOID, 0);
    hc_exp2nextreg(fs, t);
    checknext(C, '{');
    do {
        if (TOK == '}')
            break;
        closelistfield(fs, &cc);
        bool named = TOK == TK_NAME && hc_lookahead(C) == '=';
        const hc_slotdef *d = NULL;
        if (sid >= 0) {
            const hc_struct *s = &C->sdefs[sid];
            if (named)
                d = hc_find_slot(s, C->t.str);
            if (!d && !s->proxy)
                hc_error_at(C, C->t.line, C->t.col,
                            named ? "structure '%s' has no slot '%s' (only a proxytable "
                                    "structure takes other fields)"
                                  : "structure '%s' is not a proxytable: its hmake takes only "
                                    "slots%s",
                            s->name->data, named ? C->t.s : "");
        }
        if (d)
            slotfield(C, &cc, d);
        else if (named || TOK == '[')
            recfield(C, &cc);
        else
            listfield(C, &cc);
    } while (testnext(C, ',') || testnext(C, ';'));
    check_match(C, '}', '{', line);
    lastlistfield(fs, &cc);
    sizes(C, &cc, sid);
    uint32_t *w = &fs->f->code[pc];
    *w = (*w & ~(0xFFu << 17) & ~(0x1FFu << 8)) | (uint32_t)int2fb((unsigned)cc.na) << 17 |
         (uint32_t)int2fb((unsigned)cc.nh) << 8;
}

static void constructor(hc_compiler *C, hc_exp *t)
{
    fields(C, t, hc_code(C->fs, HKS_I_NEWTABLE, 0, 0, 0), -1);
}

static _Noreturn void no_structs(hc_compiler *C)
{
    hc_error_at(C, C->t.line, C->t.col,
                "the reserved words \"hmake\" and \"hstructure\" can only be used when "
                "the virtual machine is built with structure support (this target has "
                "no structures)");
}

static int find_struct(hc_compiler *C, const hc_str *name)
{
    for (int i = 0; i < C->nsdefs; i++)
        if (C->sdefs[i].name == name)
            return i;
    return -1;
}

/* NAME = exp in an hmake: the slot's store, coded as it comes. */
static void slotfield(hc_compiler *C, cons *cc, const hc_slotdef *d)
{
    hc_func *fs = C->fs;
    int reg = fs->freereg;
    hc_exp key, val;
    int line = C->t.line, col = C->t.col;
    checkname(C, &key); /* hksc adds the name to the constants all the same */
    checknext(C, '=');
    expr(C, &val);
    bool isnil = val.k == E_NIL && val.t == val.f;
    int e = hc_exp2RK(fs, &val);
    hc_store_slot(fs, cc->t->info, d, &val, e, isnil, line, col);
    fs->freereg = reg;
}

/* hmake NAME { ... }: a new structure. */
static void hmake(hc_compiler *C, hc_exp *t)
{
    hc_func *fs = C->fs;
    if (!C->structs)
        no_structs(C);
    hc_next(C);
    int nline = C->t.line, ncol = C->t.col;
    const hc_str *name = str_checkname(C);
    int sid = find_struct(C, name);
    if (sid < 0)
        hc_error_at(C, nline, ncol, "hmake of '%s', which is not a declared hstructure",
                    name->data);
    int pc = hc_code(fs, HKS_I_NEWSTRUCT, 0, 0, 0);
    hc_code_data(fs, 0, (uint32_t)sid + 1);
    fields(C, t, pc, sid);
    t->etype = HC_T_STRUCT0 + sid;
}

static void simpleexp(hc_compiler *C, hc_exp *v)
{
    hc_func *fs = C->fs;
    switch (TOK) {
    case TK_NUMBER:
        hc_init_exp(v, E_KNUM, 0);
        v->nval = C->t.num;
        v->etype = GSVM_HKS_K_NUMBER;
        break;
    case TK_LUD:
        hc_init_exp(v, E_K, hc_k_lud(fs, C->t.bits, GSVM_HKS_K_LUD));
        v->etype = GSVM_HKS_K_LUD;
        break;
    case TK_UI64:
        hc_init_exp(v, E_K, hc_k_lud(fs, C->t.bits, GSVM_HKS_K_UI64));
        v->etype = GSVM_HKS_K_UI64;
        break;
    case TK_STRING:
        codestring(C, v, C->t.str);
        v->etype = GSVM_HKS_K_STRING;
        break;
    case TK_NIL: hc_init_exp(v, E_NIL, 0); v->etype = GSVM_HKS_K_NIL; break;
    case TK_TRUE: hc_init_exp(v, E_TRUE, 0); v->etype = GSVM_HKS_K_BOOL; break;
    case TK_FALSE: hc_init_exp(v, E_FALSE, 0); v->etype = GSVM_HKS_K_BOOL; break;
    case TK_DOTS:
        if (!fs->is_vararg)
            hc_syntax_error(C, "cannot use '...' outside a vararg function");
        fs->f->flags &= (uint8_t)~4; /* the function uses ... : no `arg` table needed */
        hc_init_exp(v, E_VARARG, hc_code(fs, HKS_I_VARARG, 0, 1, 0));
        break;
    case '{':
        constructor(C, v);
        v->etype = 5; /* TTABLE */
        return;
    case TK_FUNCTION:
        hc_next(C);
        body(C, v, false, C->line, NULL);
        v->etype = 9; /* TIFUNCTION */
        return;
    case TK_HMAKE: hmake(C, v); return;
    default: suffixedexp(C, v); return;
    }
    hc_next(C);
}

static int getunopr(int tok)
{
    switch (tok) {
    case TK_NOT: return OPR_NOT;
    case '-': return OPR_MINUS;
    case '#': return OPR_LEN;
    default: return OPR_NOUNOPR;
    }
}

static int getbinopr(hc_compiler *C, int tok)
{
    switch (tok) {
    case '+': return OPR_ADD;
    case '-': return OPR_SUB;
    case '*': return OPR_MUL;
    case '/': return OPR_DIV;
    case '%': return OPR_MOD;
    case '^': return OPR_POW;
    case TK_CONCAT: return OPR_CONCAT;
    case TK_SHL: return OPR_SHL;
    case TK_SHR: return OPR_SHR;
    case '&': return C->bitops ? OPR_BAND : OPR_NOBINOPR;
    case '|': return C->bitops ? OPR_BOR : OPR_NOBINOPR;
    case TK_NE: return OPR_NE;
    case TK_EQ: return OPR_EQ;
    case '<': return OPR_LT;
    case TK_LE: return OPR_LE;
    case '>': return OPR_GT;
    case TK_GE: return OPR_GE;
    case TK_AND: return OPR_AND;
    case TK_OR: return OPR_OR;
    default: return OPR_NOBINOPR;
    }
}

/* left and right priorities, indexed by OPR_* */
static const struct {
    uint8_t left, right;
} priority[] = {
    {9, 9}, {9, 9}, {10, 10}, {10, 10}, {10, 10}, {13, 12}, /* + - * / % ^ */
    {8, 7},                                                 /* .. (right associative) */
    {6, 6}, {6, 6}, {5, 5}, {4, 4},                         /* << >> & | */
    {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3},         /* comparisons */
    {2, 2}, {1, 1}                                          /* and or */
};
enum { UNARY_PRIORITY = 11 };

static int subexpr(hc_compiler *C, hc_exp *v, int limit)
{
    enterlevel(C);
    int uop = getunopr(TOK);
    if (uop != OPR_NOUNOPR) {
        hc_next(C);
        subexpr(C, v, UNARY_PRIORITY);
        int et = uop == OPR_MINUS && v->etype == GSVM_HKS_K_NUMBER ? GSVM_HKS_K_NUMBER
                 : uop == OPR_NOT ? GSVM_HKS_K_BOOL : -1;
        hc_prefix(C->fs, uop, v);
        v->etype = et;
    } else
        simpleexp(C, v);
    int op = getbinopr(C, TOK);
    while (op != OPR_NOBINOPR && priority[op].left > limit) {
        hc_exp v2;
        hc_next(C);
        hc_infix(C->fs, op, v);
        int nextop = subexpr(C, &v2, priority[op].right);
        int et = -1;
        if (op <= OPR_POW && v->etype == GSVM_HKS_K_NUMBER && v2.etype == GSVM_HKS_K_NUMBER)
            et = GSVM_HKS_K_NUMBER; /* arithmetic on two numbers needs no metamethod */
        else if (op >= OPR_NE && op <= OPR_GE)
            et = GSVM_HKS_K_BOOL;
        hc_posfix(C->fs, op, v, &v2);
        v->etype = et;
        op = nextop;
    }
    leavelevel(C);
    return op;
}

static void expr(hc_compiler *C, hc_exp *v) { subexpr(C, v, 0); }

/* ---- statements ---- */
static bool block_follow(int tok)
{
    switch (tok) {
    case TK_ELSE:
    case TK_ELSEIF:
    case TK_END:
    case TK_UNTIL:
    case TK_EOS: return true;
    default: return false;
    }
}

static void block(hc_compiler *C)
{
    hc_block bl;
    enterblock(C->fs, &bl, false);
    chunk(C);
    leaveblock(C);
}

typedef struct lhs {
    struct lhs *prev;
    hc_exp v;
} lhs;

static void check_conflict(hc_compiler *C, lhs *lh, const hc_exp *v)
{
    hc_func *fs = C->fs;
    int extra = fs->freereg;
    bool conflict = false;
    for (; lh; lh = lh->prev) {
        if (lh->v.k == E_SLOT && lh->v.info == v->info) {
            conflict = true;
            lh->v.info = extra;
        }
        if (lh->v.k == E_INDEXED) {
            if (lh->v.info == v->info) {
                conflict = true;
                lh->v.info = extra;
            }
            if (lh->v.aux == v->info) {
                conflict = true;
                lh->v.aux = extra;
            }
        }
    }
    if (conflict) {
        hc_code(fs, HKS_I_MOVE, (uint32_t)fs->freereg, (uint32_t)v->info, 0);
        hc_reserve(fs, 1);
    }
}

static void restassign(hc_compiler *C, lhs *lh, int nvars)
{
    hc_exp e;
    if (!(lh->v.k >= E_LOCAL && lh->v.k <= E_INDEXED) && lh->v.k != E_SLOT)
        hc_syntax_error(C, "syntax error");
    if (testnext(C, ',')) {
        lhs nv;
        nv.prev = lh;
        suffixedexp(C, &nv.v);
        if (nv.v.k == E_LOCAL)
            check_conflict(C, lh, &nv.v);
        enterlevel(C);
        restassign(C, &nv, nvars + 1);
        leavelevel(C);
    } else {
        checknext(C, '=');
        int nexps = explist1(C, &e);
        if (nexps != nvars) {
            adjust_assign(C, nvars, nexps, &e);
            if (nexps > nvars)
                C->fs->freereg -= nexps - nvars;
        } else {
            hc_setoneret(C->fs, &e);
            int known = e.etype;
            hc_storevar(C->fs, &lh->v, &e);
            if (lh->v.k == E_LOCAL)
                checktype(C, lh->v.info, lh->v.stype, known);
            return;
        }
    }
    hc_init_exp(&e, E_NONRELOC, C->fs->freereg - 1);
    hc_storevar(C->fs, &lh->v, &e);
    if (lh->v.k == E_LOCAL)
        checktype(C, lh->v.info, lh->v.stype, -1);
}

static int cond(hc_compiler *C)
{
    hc_exp v;
    expr(C, &v);
    if (v.k == E_NIL)
        v.k = E_FALSE;
    hc_goiftrue(C->fs, &v);
    return v.f;
}

static void breakstat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    hc_block *bl = fs->bl;
    bool upval = false;
    while (bl && !bl->isloop) {
        upval |= bl->upval;
        bl = bl->prev;
    }
    if (!bl)
        hc_syntax_error(C, "no loop to break");
    if (upval)
        hc_code(fs, HKS_I_CLOSE, (uint32_t)bl->nactvar, 0, 0);
    hc_concat(fs, &bl->breaklist, hc_jump(fs));
}

static void whilestat(hc_compiler *C, int line)
{
    hc_func *fs = C->fs;
    hc_block bl;
    hc_next(C);
    int whileinit = hc_getlabel(fs);
    int condexit = cond(C);
    enterblock(fs, &bl, true);
    checknext(C, TK_DO);
    block(C);
    hc_patchlist(fs, hc_jump(fs), whileinit);
    hc_fixline(fs, line); /* hksc gives the loop's jump back the line of its while */
    check_match(C, TK_END, TK_WHILE, line);
    leaveblock(C);
    hc_patchtohere(fs, condexit);
}

static void repeatstat(hc_compiler *C, int line)
{
    hc_func *fs = C->fs;
    int repeat_init = hc_getlabel(fs);
    hc_block bl1, bl2;
    enterblock(fs, &bl1, true);
    enterblock(fs, &bl2, false);
    hc_next(C);
    chunk(C);
    check_match(C, TK_UNTIL, TK_REPEAT, line);
    int condexit = cond(C);
    if (!bl2.upval) {
        leaveblock(C);
        hc_patchlist(fs, condexit, repeat_init);
    } else {
        breakstat(C);
        hc_patchtohere(fs, condexit);
        leaveblock(C);
        hc_patchlist(fs, hc_jump(fs), repeat_init);
    }
    leaveblock(C);
}

static void exp1(hc_compiler *C)
{
    hc_exp e;
    expr(C, &e);
    hc_exp2nextreg(C->fs, &e);
}

static void forbody(hc_compiler *C, int base, int line, int nvars, bool isnum)
{
    /* the loop variables' declared types, checked at the top of each pass */
    int types[HC_MAXVARS];
    for (int i = 0; i < nvars; i++)
        types[i] = getlocvar(C->fs, C->fs->nactvar + 3 + i)->stype;
    hc_func *fs = C->fs;
    hc_block bl;
    adjustlocalvars(C, 3);
    checknext(C, TK_DO);
    int prep = isnum ? hc_code_bx(fs, HKS_I_FORPREP, (uint32_t)base, (uint32_t)(HC_NOJUMP + 0xFFFF))
                     : hc_jump(fs);
    enterblock(fs, &bl, false);
    adjustlocalvars(C, nvars);
    hc_reserve(fs, nvars);
    for (int i = 0; i < nvars; i++)
        checktype(C, base + 3 + i, types[i], -1);
    block(C);
    leaveblock(C);
    hc_patchtohere(fs, prep);
    int endfor = isnum ? hc_code_bx(fs, HKS_I_FORLOOP, (uint32_t)base, (uint32_t)(HC_NOJUMP + 0xFFFF))
                       : hc_code(fs, HKS_I_TFORLOOP, (uint32_t)base, 0, (uint32_t)nvars);
    hc_fixline(fs, line);
    hc_patchlist(fs, isnum ? endfor : hc_jump(fs), prep + 1);
}

static void fornum(hc_compiler *C, const hc_str *varname, int vtype, int line)
{
    hc_func *fs = C->fs;
    int base = fs->freereg;
    new_localvar(C, hc_intern(C, "(for index)", 11), 0);
    new_localvar(C, hc_intern(C, "(for limit)", 11), 1);
    new_localvar(C, hc_intern(C, "(for step)", 10), 2);
    new_localvar(C, varname, 3);
    setvartype(C, 3, vtype);
    checknext(C, '=');
    exp1(C);
    checknext(C, ',');
    exp1(C);
    if (testnext(C, ','))
        exp1(C);
    else {
        hc_code_bx(fs, HKS_I_LOADK, (uint32_t)fs->freereg, (uint32_t)hc_k_number(fs, 1));
        hc_reserve(fs, 1);
    }
    forbody(C, base, line, 1, true);
}

static void forlist(hc_compiler *C, const hc_str *indexname, int vtype)
{
    hc_func *fs = C->fs;
    hc_exp e;
    int nvars = 0;
    int base = fs->freereg;
    new_localvar(C, hc_intern(C, "(for generator)", 15), nvars++);
    new_localvar(C, hc_intern(C, "(for state)", 11), nvars++);
    new_localvar(C, hc_intern(C, "(for control)", 13), nvars++);
    new_localvar(C, indexname, nvars);
    setvartype(C, nvars++, vtype);
    while (testnext(C, ',')) {
        new_localvar(C, str_checkname(C), nvars);
        if (TOK == ':') {
            hc_next(C);
            setvartype(C, nvars, parse_type(C, "local variables"));
        }
        nvars++;
    }
    checknext(C, TK_IN);
    int line = C->t.line;
    adjust_assign(C, 3, explist1(C, &e), &e);
    hc_checkstack(fs, 3);
    forbody(C, base, line, nvars - 3, false);
}

static void forstat(hc_compiler *C, int line)
{
    hc_func *fs = C->fs;
    hc_block bl;
    enterblock(fs, &bl, true);
    hc_next(C);
    const hc_str *varname = str_checkname(C);
    int vtype = HC_T_NONE;
    if (TOK == ':') {
        hc_next(C);
        vtype = parse_type(C, "local variables");
    }
    switch (TOK) {
    case '=': fornum(C, varname, vtype, line); break;
    case ',':
    case TK_IN: forlist(C, varname, vtype); break;
    default: hc_syntax_error(C, "'=' or 'in' expected");
    }
    check_match(C, TK_END, TK_FOR, line);
    leaveblock(C);
}

static int test_then_block(hc_compiler *C)
{
    hc_next(C);
    int condexit = cond(C);
    checknext(C, TK_THEN);
    block(C);
    return condexit;
}

static void ifstat(hc_compiler *C, int line)
{
    hc_func *fs = C->fs;
    int escapelist = HC_NOJUMP;
    int flist = test_then_block(C);
    while (TOK == TK_ELSEIF) {
        hc_concat(fs, &escapelist, hc_jump(fs));
        hc_patchtohere(fs, flist);
        flist = test_then_block(C);
    }
    if (TOK == TK_ELSE) {
        hc_concat(fs, &escapelist, hc_jump(fs));
        hc_patchtohere(fs, flist);
        hc_next(C);
        block(C);
    } else
        hc_concat(fs, &escapelist, flist);
    hc_patchtohere(fs, escapelist);
    check_match(C, TK_END, TK_IF, line);
}

static void localfunc(hc_compiler *C)
{
    hc_func *fs = C->fs;
    hc_exp v, b;
    const hc_str *name = str_checkname(C);
    new_localvar(C, name, 0);
    hc_init_exp(&v, E_LOCAL, fs->freereg);
    hc_reserve(fs, 1);
    adjustlocalvars(C, 1);
    body(C, &b, false, C->line, name->data);
    hc_storevar(fs, &v, &b);
    getlocvar(fs, fs->nactvar - 1)->startpc = fs->pc;
}

static void localstat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    int nvars = 0, nexps = 0;
    hc_exp e;
    int types[HC_MAXVARS]; /* known value types of the expressions */
    do {
        new_localvar(C, str_checkname(C), nvars);
        if (TOK == ':') {
            hc_next(C);
            setvartype(C, nvars, parse_type(C, "local variables"));
        }
        nvars++;
    } while (testnext(C, ','));
    if (testnext(C, '=')) {
        expr(C, &e);
        nexps = 1;
        while (testnext(C, ',')) {
            if (nexps - 1 < HC_MAXVARS)
                types[nexps - 1] = e.etype;
            hc_exp2nextreg(fs, &e);
            expr(C, &e);
            nexps++;
        }
        if (nexps - 1 < HC_MAXVARS)
            types[nexps - 1] = hasmultret(e.k) ? -1 : e.etype;
        adjust_assign(C, nvars, nexps, &e);
    } else {
        /* hksc gives the LOADNIL of `local x` the line of the token after it */
        hc_init_exp(&e, E_VOID, 0);
        int saved = C->lastline;
        C->lastline = C->t.line;
        adjust_assign(C, nvars, 0, &e);
        C->lastline = saved;
    }
    for (int i = 0; i < nvars; i++) {
        /* values beyond the expressions are nil (no check), except those a
         * last multiple-result expression supplies */
        int known = i < nexps ? types[i] : hasmultret(e.k) ? -1 : GSVM_HKS_K_NIL;
        if (known == GSVM_HKS_K_NIL)
            continue;
        checktype(C, fs->nactvar + i, getlocvar(fs, fs->nactvar + i)->stype, known);
    }
    adjustlocalvars(C, nvars);
}

/* funcname: NAME {'.' NAME} [':' NAME]; also builds the debug name
 * ("a.b:c"), cut at the buffer's size. */
static void addname(char *buf, size_t *len, size_t cap, int sep, const char *s, size_t n)
{
    if (sep && *len + 1 < cap)
        buf[(*len)++] = (char)sep;
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = 0;
}

static bool funcname(hc_compiler *C, hc_exp *v, char *buf, size_t cap)
{
    bool needself = false;
    size_t len = 0;
    buf[0] = 0;
    if (TOK == TK_NAME)
        addname(buf, &len, cap, 0, C->t.s, C->t.len);
    singlevar(C, v);
    while (TOK == '.' || TOK == ':') {
        int sep = TOK;
        hc_next(C);
        if (TOK == TK_NAME)
            addname(buf, &len, cap, sep, C->t.s, C->t.len);
        hc_exp key;
        hc_exp2anyreg(C->fs, v);
        checkname(C, &key);
        hc_indexed(C->fs, v, &key);
        if (sep == ':') {
            needself = true;
            break;
        }
    }
    return needself;
}

static void funcstat(hc_compiler *C, int line)
{
    hc_exp v, b;
    char name[256];
    hc_next(C);
    bool needself = funcname(C, &v, name, sizeof name);
    body(C, &b, needself, line, name);
    hc_storevar(C->fs, &v, &b);
    hc_fixline(C->fs, line);
}

static void exprstat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    lhs v;
    suffixedexp(C, &v.v);
    if (v.v.k == E_CALL) {
        uint32_t *w = &fs->f->code[v.v.info];
        *w = (*w & ~(0x1FFu << 8)) | 1u << 8;
    } else {
        v.prev = NULL;
        restassign(C, &v, 1);
    }
}

static void retstat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    hc_exp e;
    int first, nret;
    hc_next(C);
    if (block_follow(TOK) || TOK == ';')
        first = nret = 0;
    else {
        nret = explist1(C, &e);
        if (hasmultret(e.k)) {
            hc_setreturns(fs, &e, -1);
            if (e.k == E_CALL && nret == 1) {
                uint32_t *w = &fs->f->code[e.info];
                unsigned op = *w >> 25 == HKS_I_CALL_I_R1 ? HKS_I_TAILCALL_I_R1 : HKS_I_TAILCALL_I;
                *w = (*w & 0x1FFFFFFu) | (uint32_t)op << 25;
            }
            first = fs->nactvar;
            nret = -1;
        } else if (nret == 1)
            first = hc_exp2anyreg(fs, &e);
        else {
            hc_exp2nextreg(fs, &e);
            first = fs->nactvar;
        }
    }
    hc_ret(fs, first, nret);
}

/* Ghosts: hdelete(var) removes a local, global, upvalue or field; C of the
 * DELETE says which (0 local, 1 global, 2 upvalue, 3 indexed). */
static void hdeletestat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    int line = C->t.line;
    hc_next(C);
    checknext(C, '(');
    hc_exp v;
    suffixedexp(C, &v);
    switch (v.k) {
    case E_LOCAL: hc_code(fs, HKS_I_DELETE, (uint32_t)v.info, 0, 0); break;
    case E_GLOBAL: hc_code(fs, HKS_I_DELETE_BK, 0, (uint32_t)v.info, 1); break;
    case E_UPVAL: hc_code(fs, HKS_I_DELETE, (uint32_t)v.info, 0, 2); break;
    case E_INDEXED:
        if (v.aux >= 256)
            hc_code(fs, HKS_I_DELETE_BK, (uint32_t)v.info, (uint32_t)(v.aux - 256), 3);
        else
            hc_code(fs, HKS_I_DELETE, (uint32_t)v.info, (uint32_t)v.aux, 3);
        break;
    default:
        hc_error_at(C, line, C->t.col,
                    "hdelete needs a variable or a field (a local, global, upvalue or t[k])");
    }
    check_match(C, ')', '(', line);
}

static int parse_type(hc_compiler *C, const char *what);

static bool is_builtin_type(const hc_str *n);

static bool is_word(const hc_str *s, const char *w)
{
    return s->len == strlen(w) && memcmp(s->data, w, s->len) == 0;
}

/* hstructure NAME { [meta : TYPE] [proxytable] SLOT : TYPE } end, each item
 * optionally ended by ';'.  The structure is known from here on (its own
 * slots may be typed with it). */
static void hstructstat(hc_compiler *C)
{
    int line = C->t.line;
    hc_next(C);
    int nline = C->t.line, ncol = C->t.col;
    const hc_str *name = str_checkname(C);
    if (is_builtin_type(name))
        hc_error_at(C, nline, ncol, "cannot use '%s' as an hstructure name (it names a built-in type)",
                    name->data);
    if (find_struct(C, name) >= 0)
        hc_error_at(C, nline, ncol, "hstructure '%s' is already declared", name->data);
    if (C->nsdefs >= HC_MAX_STRUCTS)
        hc_error_at(C, nline, ncol, "too many hstructure declarations (limit is %d)",
                    HC_MAX_STRUCTS);
    size_t cap = (size_t)C->capsdefs;
    C->sdefs = hc_grow(C, C->sdefs, &cap, (size_t)C->nsdefs + 1, sizeof *C->sdefs);
    C->capsdefs = (int)cap;
    int sid = C->nsdefs++;
    hc_struct *s = &C->sdefs[sid];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->meta_type = -1;
    s->meta_sid = -1;
    while (TOK != TK_END && TOK != TK_EOS) {
        int sline = C->t.line, scol = C->t.col;
        const hc_str *sn = str_checkname(C);
        s = &C->sdefs[sid];
        if (is_word(sn, "proxytable") && TOK != ':') {
            if (s->proxy)
                hc_error_at(C, sline, scol, "hstructure '%s' says proxytable twice", name->data);
            s->proxy = true;
        } else {
            checknext(C, ':');
            int tline = C->t.line, tcol = C->t.col;
            const hc_str *tname = TOK == TK_NAME ? C->t.str : NULL;
            int ty = parse_type(C, "slots");
            int type = ty >= HC_T_STRUCT0 ? HC_TSTRUCT : ty == HC_T_ANY ? 0 : ty;
            int tsid = ty >= HC_T_STRUCT0 ? ty - HC_T_STRUCT0 : -1;
            s = &C->sdefs[sid];
            if (is_word(sn, "meta")) {
                if (s->meta_type >= 0)
                    hc_error_at(C, sline, scol, "hstructure '%s' has two meta slots", name->data);
                if (type != HC_TSTRUCT && type != 0 && type != 5)
                    hc_error_at(C, tline, tcol,
                                "the meta slot of hstructure '%s' cannot be typed '%s' (it holds "
                                "an object, a table or a structure)",
                                name->data, tname->data);
                s->meta_type = type;
                s->meta_sid = tsid;
            } else {
                if (hc_find_slot(s, sn))
                    hc_error_at(C, sline, scol, "hstructure '%s' has two slots named '%s'",
                                name->data, sn->data);
                if (type == 11)
                    hc_error_at(C, tline, tcol,
                                "slot '%s' of hstructure '%s' cannot be typed ui64 (a structure "
                                "cannot hold ui64 values)",
                                sn->data, name->data);
                if (s->nslots >= HC_MAX_SLOTS)
                    hc_error_at(C, sline, scol, "hstructure '%s' has too many slots (limit is %d)",
                                name->data, HC_MAX_SLOTS);
                s->slots = hc_grow(C, s->slots, &s->capslots, (size_t)s->nslots + 1,
                                   sizeof *s->slots);
                hc_slotdef *d = &s->slots[s->nslots];
                d->name = sn;
                d->type = type;
                d->sid = tsid;
                d->pos = hc_slot_position(C, HC_RESERVED_SLOTS + s->nslots);
                s->nslots++;
            }
        }
        testnext(C, ';');
    }
    s = &C->sdefs[sid];
    if (s->nslots == 0 && s->meta_type < 0 && !s->proxy && TOK == TK_END)
        hc_error_at(C, C->t.line, C->t.col,
                    "hstructure '%s' is empty (a structure needs a slot, a meta slot or "
                    "proxytable)",
                    name->data);
    check_match(C, TK_END, TK_HSTRUCTURE, line);
}

static bool statement(hc_compiler *C)
{
    int line = C->t.line;
    switch (TOK) {
    case TK_IF: ifstat(C, line); return false;
    case TK_WHILE: whilestat(C, line); return false;
    case TK_DO:
        hc_next(C);
        block(C);
        check_match(C, TK_END, TK_DO, line);
        return false;
    case TK_FOR: forstat(C, line); return false;
    case TK_REPEAT: repeatstat(C, line); return false;
    case TK_FUNCTION: funcstat(C, line); return false;
    case TK_LOCAL:
        hc_next(C);
        if (testnext(C, TK_FUNCTION))
            localfunc(C);
        else
            localstat(C);
        return false;
    case TK_RETURN: retstat(C); return true;
    case TK_BREAK:
        hc_next(C);
        breakstat(C);
        return true;
    case TK_HDELETE: hdeletestat(C); return false;
    case TK_HSTRUCTURE:
        if (!C->structs)
            no_structs(C);
        hstructstat(C);
        return false;
    case TK_HMAKE:
        if (!C->structs)
            no_structs(C);
        hc_syntax_error(C, "unexpected symbol"); /* hmake makes a value, not a statement */
    default: exprstat(C); return false;
    }
}

static void chunk(hc_compiler *C)
{
    bool islast = false;
    enterlevel(C);
    while (!islast && !block_follow(TOK)) {
        islast = statement(C);
        testnext(C, ';');
        C->fs->freereg = C->fs->nactvar;
    }
    leavelevel(C);
}

/* The built-in type names of annotations ("object": any type). */
static const struct {
    const char *name;
    int type;
} builtin_types[] = {{"number", 3},    {"string", 4},     {"boolean", 1},  {"table", 5},
                     {"ifunction", 9}, {"cfunction", 10}, {"userdata", 7}, {"lightuserdata", 2},
                     {"ui64", 11},     {"thread", 8},     {"object", HC_T_ANY}};

static bool is_builtin_type(const hc_str *n)
{
    for (size_t i = 0; i < sizeof builtin_types / sizeof builtin_types[0]; i++)
        if (strcmp(n->data, builtin_types[i].name) == 0)
            return true;
    return strcmp(n->data, "struct") == 0;
}

/* A type annotation after ':' (typed locals, parameters and slots; `what`
 * names them for the message of a target without structures). */
static int parse_type(hc_compiler *C, const char *what)
{
    if (!C->structs)
        hc_error_at(C, C->t.line, C->t.col,
                    "cannot use typed %s when the virtual machine is built "
                    "without structures (this target has none)",
                    what);
    int line = C->t.line, col = C->t.col;
    const hc_str *n = str_checkname(C);
    for (size_t i = 0; i < sizeof builtin_types / sizeof builtin_types[0]; i++)
        if (strcmp(n->data, builtin_types[i].name) == 0)
            return builtin_types[i].type;
    for (int i = 0; i < C->nsdefs; i++)
        if (C->sdefs[i].name == n)
            return HC_T_STRUCT0 + i;
    if (strcmp(n->data, "struct") == 0)
        hc_error_at(C, line, col,
                    "type 'struct' is not allowed (name the hstructure the value has)");
    hc_error_at(C, line, col, "unknown type '%s' (not a built-in type or a declared hstructure)",
                n->data);
}

void hc_parse_chunk(hc_compiler *C)
{
    hc_func *fs = open_func(C);
    fs->is_vararg = true;
    fs->f->flags = 2;
    fs->fname = dupname(C, "(main chunk)");
    hc_lex_init(C);
    chunk(C);
    check(C, TK_EOS);
    close_func(C);
    C->chunk->main = *fs->f;
    free(fs->f);
    fs->f = NULL;
    spare_func(C, fs);
}
