/* The compiler's parser, part three: statements (assignment, loops, if,
 * local, function, return, hdelete, hstructure), type annotations and the
 * main chunk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/compile_parse.h"

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

void hc_block_stat(hc_compiler *C)
{
    hc_block bl;
    hc_enterblock(C->fs, &bl, false);
    hc_statlist(C);
    hc_leaveblock(C);
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
    if (hc_testnext(C, ',')) {
        lhs nv;
        nv.prev = lh;
        hc_suffixedexp(C, &nv.v);
        if (nv.v.k == E_LOCAL)
            check_conflict(C, lh, &nv.v);
        hc_enterlevel(C);
        restassign(C, &nv, nvars + 1);
        hc_leavelevel(C);
    } else {
        hc_checknext(C, '=');
        int nexps = hc_explist1(C, &e);
        if (nexps != nvars) {
            hc_adjust_assign(C, nvars, nexps, &e);
            if (nexps > nvars)
                C->fs->freereg -= nexps - nvars;
        } else {
            hc_setoneret(C->fs, &e);
            int known = e.etype;
            hc_storevar(C->fs, &lh->v, &e);
            if (lh->v.k == E_LOCAL)
                hc_checktype(C, lh->v.info, lh->v.stype, known);
            return;
        }
    }
    hc_init_exp(&e, E_NONRELOC, C->fs->freereg - 1);
    hc_storevar(C->fs, &lh->v, &e);
    if (lh->v.k == E_LOCAL)
        hc_checktype(C, lh->v.info, lh->v.stype, -1);
}

static int cond(hc_compiler *C)
{
    hc_exp v;
    hc_expr(C, &v);
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
    hc_enterblock(fs, &bl, true);
    hc_checknext(C, TK_DO);
    hc_block_stat(C);
    hc_patchlist(fs, hc_jump(fs), whileinit);
    hc_fixline(fs, line); /* hksc gives the loop's jump back the line of its while */
    hc_check_match(C, TK_END, TK_WHILE, line);
    hc_leaveblock(C);
    hc_patchtohere(fs, condexit);
}

static void repeatstat(hc_compiler *C, int line)
{
    hc_func *fs = C->fs;
    int repeat_init = hc_getlabel(fs);
    hc_block bl1, bl2;
    hc_enterblock(fs, &bl1, true);
    hc_enterblock(fs, &bl2, false);
    hc_next(C);
    hc_statlist(C);
    hc_check_match(C, TK_UNTIL, TK_REPEAT, line);
    int condexit = cond(C);
    if (!bl2.upval) {
        hc_leaveblock(C);
        hc_patchlist(fs, condexit, repeat_init);
    } else {
        breakstat(C);
        hc_patchtohere(fs, condexit);
        hc_leaveblock(C);
        hc_patchlist(fs, hc_jump(fs), repeat_init);
    }
    hc_leaveblock(C);
}

static void exp1(hc_compiler *C)
{
    hc_exp e;
    hc_expr(C, &e);
    hc_exp2nextreg(C->fs, &e);
}

static void forbody(hc_compiler *C, int base, int line, int nvars, bool isnum)
{
    /* the loop variables' declared types, checked at the top of each pass */
    int types[HC_MAXVARS];
    for (int i = 0; i < nvars; i++)
        types[i] = hc_getlocvar(C->fs, C->fs->nactvar + 3 + i)->stype;
    hc_func *fs = C->fs;
    hc_block bl;
    hc_adjustlocalvars(C, 3);
    hc_checknext(C, TK_DO);
    int prep = isnum ? hc_code_bx(fs, HKS_I_FORPREP, (uint32_t)base, (uint32_t)(HC_NOJUMP + 0xFFFF))
                     : hc_jump(fs);
    hc_enterblock(fs, &bl, false);
    hc_adjustlocalvars(C, nvars);
    hc_reserve(fs, nvars);
    for (int i = 0; i < nvars; i++)
        hc_checktype(C, base + 3 + i, types[i], -1);
    hc_block_stat(C);
    hc_leaveblock(C);
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
    hc_new_localvar(C, hc_intern(C, "(for index)", 11), 0);
    hc_new_localvar(C, hc_intern(C, "(for limit)", 11), 1);
    hc_new_localvar(C, hc_intern(C, "(for step)", 10), 2);
    hc_new_localvar(C, varname, 3);
    hc_setvartype(C, 3, vtype);
    hc_checknext(C, '=');
    exp1(C);
    hc_checknext(C, ',');
    exp1(C);
    if (hc_testnext(C, ','))
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
    hc_new_localvar(C, hc_intern(C, "(for generator)", 15), nvars++);
    hc_new_localvar(C, hc_intern(C, "(for state)", 11), nvars++);
    hc_new_localvar(C, hc_intern(C, "(for control)", 13), nvars++);
    hc_new_localvar(C, indexname, nvars);
    hc_setvartype(C, nvars++, vtype);
    while (hc_testnext(C, ',')) {
        hc_new_localvar(C, hc_str_checkname(C), nvars);
        if (TOK == ':') {
            hc_next(C);
            hc_setvartype(C, nvars, hc_parse_type(C, "local variables"));
        }
        nvars++;
    }
    hc_checknext(C, TK_IN);
    int line = C->t.line;
    hc_adjust_assign(C, 3, hc_explist1(C, &e), &e);
    hc_checkstack(fs, 3);
    forbody(C, base, line, nvars - 3, false);
}

static void forstat(hc_compiler *C, int line)
{
    hc_func *fs = C->fs;
    hc_block bl;
    hc_enterblock(fs, &bl, true);
    hc_next(C);
    const hc_str *varname = hc_str_checkname(C);
    int vtype = HC_T_NONE;
    if (TOK == ':') {
        hc_next(C);
        vtype = hc_parse_type(C, "local variables");
    }
    switch (TOK) {
    case '=': fornum(C, varname, vtype, line); break;
    case ',':
    case TK_IN: forlist(C, varname, vtype); break;
    default: hc_syntax_error(C, "'=' or 'in' expected");
    }
    hc_check_match(C, TK_END, TK_FOR, line);
    hc_leaveblock(C);
}

static int test_then_block(hc_compiler *C)
{
    hc_next(C);
    int condexit = cond(C);
    hc_checknext(C, TK_THEN);
    hc_block_stat(C);
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
        hc_block_stat(C);
    } else
        hc_concat(fs, &escapelist, flist);
    hc_patchtohere(fs, escapelist);
    hc_check_match(C, TK_END, TK_IF, line);
}

static void localfunc(hc_compiler *C)
{
    hc_func *fs = C->fs;
    hc_exp v, b;
    const hc_str *name = hc_str_checkname(C);
    hc_new_localvar(C, name, 0);
    hc_init_exp(&v, E_LOCAL, fs->freereg);
    hc_reserve(fs, 1);
    hc_adjustlocalvars(C, 1);
    hc_body(C, &b, false, C->line, name->data);
    hc_storevar(fs, &v, &b);
    hc_getlocvar(fs, fs->nactvar - 1)->startpc = fs->pc;
}

static void localstat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    int nvars = 0, nexps = 0;
    hc_exp e;
    int types[HC_MAXVARS]; /* known value types of the expressions */
    do {
        hc_new_localvar(C, hc_str_checkname(C), nvars);
        if (TOK == ':') {
            hc_next(C);
            hc_setvartype(C, nvars, hc_parse_type(C, "local variables"));
        }
        nvars++;
    } while (hc_testnext(C, ','));
    if (hc_testnext(C, '=')) {
        hc_expr(C, &e);
        nexps = 1;
        while (hc_testnext(C, ',')) {
            if (nexps - 1 < HC_MAXVARS)
                types[nexps - 1] = e.etype;
            hc_exp2nextreg(fs, &e);
            hc_expr(C, &e);
            nexps++;
        }
        if (nexps - 1 < HC_MAXVARS)
            types[nexps - 1] = hc_hasmultret(e.k) ? -1 : e.etype;
        hc_adjust_assign(C, nvars, nexps, &e);
    } else {
        /* hksc gives the LOADNIL of `local x` the line of the token after it */
        hc_init_exp(&e, E_VOID, 0);
        int saved = C->lastline;
        C->lastline = C->t.line;
        hc_adjust_assign(C, nvars, 0, &e);
        C->lastline = saved;
    }
    for (int i = 0; i < nvars; i++) {
        /* values beyond the expressions are nil (no check), except those a
         * last multiple-result expression supplies */
        int known = i < nexps ? types[i] : hc_hasmultret(e.k) ? -1 : GSVM_HKS_K_NIL;
        if (known == GSVM_HKS_K_NIL)
            continue;
        hc_checktype(C, fs->nactvar + i, hc_getlocvar(fs, fs->nactvar + i)->stype, known);
    }
    hc_adjustlocalvars(C, nvars);
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
    hc_singlevar(C, v);
    while (TOK == '.' || TOK == ':') {
        int sep = TOK;
        hc_next(C);
        if (TOK == TK_NAME)
            addname(buf, &len, cap, sep, C->t.s, C->t.len);
        hc_exp key;
        hc_exp2anyreg(C->fs, v);
        hc_checkname(C, &key);
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
    hc_body(C, &b, needself, line, name);
    hc_storevar(C->fs, &v, &b);
    hc_fixline(C->fs, line);
}

static void exprstat(hc_compiler *C)
{
    hc_func *fs = C->fs;
    lhs v;
    hc_suffixedexp(C, &v.v);
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
        nret = hc_explist1(C, &e);
        if (hc_hasmultret(e.k)) {
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
    hc_checknext(C, '(');
    hc_exp v;
    hc_suffixedexp(C, &v);
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
    hc_check_match(C, ')', '(', line);
}

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
    const hc_str *name = hc_str_checkname(C);
    if (is_builtin_type(name))
        hc_error_at(C, nline, ncol, "cannot use '%s' as an hstructure name (it names a built-in type)",
                    name->data);
    if (hc_find_struct(C, name) >= 0)
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
        const hc_str *sn = hc_str_checkname(C);
        s = &C->sdefs[sid];
        if (is_word(sn, "proxytable") && TOK != ':') {
            if (s->proxy)
                hc_error_at(C, sline, scol, "hstructure '%s' says proxytable twice", name->data);
            s->proxy = true;
        } else {
            hc_checknext(C, ':');
            int tline = C->t.line, tcol = C->t.col;
            const hc_str *tname = TOK == TK_NAME ? C->t.str : NULL;
            int ty = hc_parse_type(C, "slots");
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
        hc_testnext(C, ';');
    }
    s = &C->sdefs[sid];
    if (s->nslots == 0 && s->meta_type < 0 && !s->proxy && TOK == TK_END)
        hc_error_at(C, C->t.line, C->t.col,
                    "hstructure '%s' is empty (a structure needs a slot, a meta slot or "
                    "proxytable)",
                    name->data);
    hc_check_match(C, TK_END, TK_HSTRUCTURE, line);
}

bool hc_statement(hc_compiler *C)
{
    int line = C->t.line;
    switch (TOK) {
    case TK_IF: ifstat(C, line); return false;
    case TK_WHILE: whilestat(C, line); return false;
    case TK_DO:
        hc_next(C);
        hc_block_stat(C);
        hc_check_match(C, TK_END, TK_DO, line);
        return false;
    case TK_FOR: forstat(C, line); return false;
    case TK_REPEAT: repeatstat(C, line); return false;
    case TK_FUNCTION: funcstat(C, line); return false;
    case TK_LOCAL:
        hc_next(C);
        if (hc_testnext(C, TK_FUNCTION))
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
            hc_no_structs(C);
        hstructstat(C);
        return false;
    case TK_HMAKE:
        if (!C->structs)
            hc_no_structs(C);
        hc_syntax_error(C, "unexpected symbol"); /* hmake makes a value, not a statement */
    default: exprstat(C); return false;
    }
}

void hc_statlist(hc_compiler *C)
{
    bool islast = false;
    hc_enterlevel(C);
    while (!islast && !block_follow(TOK)) {
        islast = hc_statement(C);
        hc_testnext(C, ';');
        C->fs->freereg = C->fs->nactvar;
    }
    hc_leavelevel(C);
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
int hc_parse_type(hc_compiler *C, const char *what)
{
    if (!C->structs)
        hc_error_at(C, C->t.line, C->t.col,
                    "cannot use typed %s when the virtual machine is built "
                    "without structures (this target has none)",
                    what);
    int line = C->t.line, col = C->t.col;
    const hc_str *n = hc_str_checkname(C);
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
    hc_func *fs = hc_open_func(C);
    fs->is_vararg = true;
    fs->f->flags = 2;
    fs->fname = hc_dupname(C, "(main chunk)");
    hc_lex_init(C);
    hc_statlist(C);
    hc_check(C, TK_EOS);
    hc_close_func(C);
    C->chunk->main = *fs->f;
    free(fs->f);
    fs->f = NULL;
    hc_spare_func(C, fs);
}
