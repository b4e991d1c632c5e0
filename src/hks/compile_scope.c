/* The compiler's parser, part one: errors and token helpers, local
 * variables and upvalues, blocks, and opening and closing functions (their
 * parameter lists and bodies).  Lua 5.1's grammar plus HavokScript's
 * additions, generating code as it reads (compile_emit.c, compile_operand.c); nesting is
 * bounded by HC_MAXLEVELS, so no input recurses without limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/compile_parse.h"

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

_Noreturn void hc_error_expected(hc_compiler *C, int tok)
{
    char buf[40], msg[80];
    snprintf(msg, sizeof msg, "'%s' expected", hc_token_text(C, tok, buf, sizeof buf));
    hc_syntax_error(C, msg);
}




void hc_check_match(hc_compiler *C, int what, int who, int where)
{
    if (TOK == what) {
        hc_next(C);
        return;
    }
    char a[40], b[40], msg[160];
    if (where == C->t.line)
        hc_error_expected(C, what);
    snprintf(msg, sizeof msg, "'%s' expected (to close '%s' at line %d)",
             hc_token_text(C, what, a, sizeof a), hc_token_text(C, who, b, sizeof b), where);
    hc_syntax_error(C, msg);
}

const hc_str *hc_str_checkname(hc_compiler *C)
{
    hc_check(C, TK_NAME);
    const hc_str *s = C->t.str;
    hc_next(C);
    return s;
}


void hc_codestring(hc_compiler *C, hc_exp *e, const hc_str *s)
{
    hc_init_exp(e, E_K, hc_k_string(C->fs, s));
}

void hc_checkname(hc_compiler *C, hc_exp *e) { hc_codestring(C, e, hc_str_checkname(C)); }

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

void hc_new_localvar(hc_compiler *C, const hc_str *name, int n)
{
    hc_func *fs = C->fs;
    if (fs->nactvar + n + 1 > HC_MAXVARS) /* at the name that is one too many */
        hc_error_at(C, C->prevline, C->prevcol, "too many local variables (limit is %d)",
                    HC_MAXVARS);
    fs->actvar[fs->nactvar + n] = (uint16_t)registerlocalvar(C, name);
}


void hc_adjustlocalvars(hc_compiler *C, int nvars)
{
    hc_func *fs = C->fs;
    fs->nactvar += nvars;
    for (; nvars; nvars--)
        hc_getlocvar(fs, fs->nactvar - nvars)->startpc = fs->pc;
}

static void removevars(hc_compiler *C, int tolevel)
{
    hc_func *fs = C->fs;
    while (fs->nactvar > tolevel)
        hc_getlocvar(fs, --fs->nactvar)->endpc = fs->pc;
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
        if (hc_getlocvar(fs, i)->name == n)
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
        var->stype = hc_getlocvar(fs, v)->stype;
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

void hc_singlevar(hc_compiler *C, hc_exp *var)
{
    const hc_str *name = hc_str_checkname(C);
    if (singlevaraux(C, C->fs, name, var, true) == E_GLOBAL)
        var->info = hc_k_string(C->fs, name);
}


void hc_adjust_assign(hc_compiler *C, int nvars, int nexps, hc_exp *e)
{
    hc_func *fs = C->fs;
    int extra = nvars - nexps;
    if (hc_hasmultret(e->k)) {
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
void hc_enterblock(hc_func *fs, hc_block *bl, bool isloop)
{
    bl->breaklist = HC_NOJUMP;
    bl->isloop = isloop;
    bl->nactvar = fs->nactvar;
    bl->upval = false;
    bl->prev = fs->bl;
    fs->bl = bl;
}

void hc_leaveblock(hc_compiler *C)
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
hc_func *hc_open_func(hc_compiler *C)
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

/* Keeps a closed function's state for the next function opened. */
void hc_spare_func(hc_compiler *C, hc_func *fs)
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
void hc_close_func(hc_compiler *C)
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
void hc_checktype(hc_compiler *C, int reg, int declared, int known)
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

void hc_setvartype(hc_compiler *C, int n, int type)
{
    hc_func *fs = C->fs;
    fs->vars[fs->actvar[fs->nactvar + n]].stype = type;
}

static void parlist(hc_compiler *C)
{
    hc_func *fs = C->fs;
    int nparams = 0;
    fs->f->flags = 0;
    if (TOK != ')') {
        do {
            switch (TOK) {
            case TK_NAME: {
                hc_new_localvar(C, hc_str_checkname(C), nparams);
                if (TOK == ':') {
                    hc_next(C);
                    hc_setvartype(C, nparams, hc_parse_type(C, "parameters"));
                }
                nparams++;
                break;
            }
            case TK_DOTS:
                /* Lua 5.0's `arg` table, as hksc keeps it: a hidden local */
                hc_next(C);
                if (!C->o.no_arg_table) {
                    hc_new_localvar(C, hc_intern(C, "arg", 3), nparams++);
                    fs->f->flags = 1 | 4;
                }
                fs->f->flags |= 2;
                fs->is_vararg = true;
                break;
            default: hc_syntax_error(C, "<name> or '...' expected");
            }
        } while (!fs->is_vararg && hc_testnext(C, ','));
    }
    hc_adjustlocalvars(C, nparams);
    fs->f->nparams = (uint32_t)(fs->nactvar - (fs->f->flags & 1));
    hc_reserve(fs, fs->nactvar);
}

char *hc_dupname(hc_compiler *C, const char *s)
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

void hc_body(hc_compiler *C, hc_exp *e, bool needself, int line, const char *name)
{
    hc_func *nfs = hc_open_func(C);
    nfs->fname = hc_dupname(C, name);
    nfs->linedefined = line;
    hc_checknext(C, '(');
    if (needself) {
        hc_new_localvar(C, hc_intern(C, "self", 4), 0);
        hc_adjustlocalvars(C, 1);
    }
    parlist(C);
    hc_checknext(C, ')');
    for (int i = 0; i < nfs->nactvar; i++)
        hc_checktype(C, i, hc_getlocvar(nfs, i)->stype, -1);
    hc_statlist(C);
    nfs->f->debug.lastlinedefined = (uint32_t)C->line;
    hc_check_match(C, TK_END, TK_FUNCTION, line);
    hc_close_func(C);
    pushclosure(C, nfs, e);
    hc_spare_func(C, nfs);
}
