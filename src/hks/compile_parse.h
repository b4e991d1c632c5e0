/* The parser's internal view, shared by its three files: compile_scope.c
 * (token helpers, variables, blocks and functions), compile_expr.c
 * (expressions, table constructors, hmake) and compile_stat.c (statements,
 * type annotations, the chunk).  Generating code is compile_emit.c's
 * and compile_operand.c's. */
#ifndef GSVM_HKS_COMPILE_PARSE_H
#define GSVM_HKS_COMPILE_PARSE_H

#include "hks/compile.h"

#define TOK (C->t.tok)

/* compile_scope.c */
_Noreturn void hc_error_expected(hc_compiler *C, int tok);
void hc_check_match(hc_compiler *C, int what, int who, int where);
const hc_str *hc_str_checkname(hc_compiler *C);
void hc_codestring(hc_compiler *C, hc_exp *e, const hc_str *s);
void hc_checkname(hc_compiler *C, hc_exp *e);
void hc_new_localvar(hc_compiler *C, const hc_str *name, int n);
void hc_adjustlocalvars(hc_compiler *C, int nvars);
void hc_setvartype(hc_compiler *C, int n, int type);
void hc_singlevar(hc_compiler *C, hc_exp *var);
void hc_adjust_assign(hc_compiler *C, int nvars, int nexps, hc_exp *e);
void hc_checktype(hc_compiler *C, int reg, int declared, int known);
void hc_enterblock(hc_func *fs, hc_block *bl, bool isloop);
void hc_leaveblock(hc_compiler *C);
hc_func *hc_open_func(hc_compiler *C);
void hc_close_func(hc_compiler *C);
void hc_spare_func(hc_compiler *C, hc_func *fs);
void hc_func_release(hc_func *fs);
char *hc_dupname(hc_compiler *C, const char *s);
void hc_body(hc_compiler *C, hc_exp *e, bool needself, int line, const char *name);

/* compile_expr.c */
void hc_expr(hc_compiler *C, hc_exp *v);
int hc_explist1(hc_compiler *C, hc_exp *v);
void hc_suffixedexp(hc_compiler *C, hc_exp *v);
void hc_field_index(hc_compiler *C, hc_exp *v);
_Noreturn void hc_no_structs(hc_compiler *C);
int hc_find_struct(hc_compiler *C, const hc_str *name);
void hc_hmake(hc_compiler *C, hc_exp *t);

/* compile_stat.c */
void hc_block_stat(hc_compiler *C);
bool hc_statement(hc_compiler *C);
void hc_statlist(hc_compiler *C);
int hc_parse_type(hc_compiler *C, const char *what);

/* The token helpers every rule calls: inline, as they were in one file. */
static inline bool hc_testnext(hc_compiler *C, int tok)
{
    if (TOK == tok) {
        hc_next(C);
        return true;
    }
    return false;
}

static inline void hc_check(hc_compiler *C, int tok)
{
    if (TOK != tok)
        hc_error_expected(C, tok);
}

static inline void hc_checknext(hc_compiler *C, int tok)
{
    hc_check(C, tok);
    hc_next(C);
}

static inline void hc_enterlevel(hc_compiler *C)
{
    if (++C->depth > HC_MAXLEVELS)
        hc_error_at(C, C->t.line, C->t.col,
                    "chunk has too many syntax levels (nesting deeper than %d)", HC_MAXLEVELS);
}

static inline void hc_leavelevel(hc_compiler *C) { C->depth--; }

static inline bool hc_hasmultret(hc_ekind k) { return k == E_CALL || k == E_VARARG; }

static inline hc_var *hc_getlocvar(hc_func *fs, int i) { return &fs->vars[fs->actvar[i]]; }

#endif
