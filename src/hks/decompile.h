/* Internal to the HavokScript decompiler (decompile*.c). */
#ifndef GSVM_HKS_DECOMPILE_H
#define GSVM_HKS_DECOMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "gsvm/hks.h"
#include "hks/internal.h"
#include "hks/isa.h"

/* Lua 5.1 precedence, low to high; DX_PREFIX is what may be called or
 * indexed (names, calls, fields, parenthesised expressions); DX_CALL is a
 * call (a prefix too) that must be parenthesised when it ends a list and
 * stands for one value. */
enum { DX_OR = 1, DX_AND, DX_CMP, DX_CONCAT, DX_ADD, DX_MUL, DX_UNARY, DX_POW, DX_ATOM,
       DX_PREFIX, DX_CALL };

/* An expression's text (malloc'd) and precedence. */
typedef struct dx {
    char *s;
    int prec;
} dx;

dx dx_make(int prec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
dx dx_take(int prec, gsvm_buf *b);
void dx_free(dx *e);
const char *dx_str(const dx *e);
dx dx_wrap(dx e, int min);
dx dx_const(const gsvm_hks_chunk *c, const gsvm_hks_const *k);
dx dx_index(dx base, const gsvm_hks_const *key, dx keytext);
dx dx_binary(dx a, const char *op, int prec, dx b);
dx dx_unary(const char *op, dx a);
dx dx_not(dx a);
bool dx_is_name(const char *s, size_t n);
void dx_put_string(gsvm_buf *b, const char *s, size_t n);

/* structures (decompile_struct.c): a structure's index by id (-1 none), a
 * slot by position, the structure a slot is typed with (-1 none), the slot
 * a slot instruction names from the base's structure s (-1 unknown) and its
 * tag chain (NULL: the position pos), and the block as declarations */
int dst_find(const gsvm_hks_chunk *c, uint64_t id);
const gsvm_hks_slot *dst_slot_at(const gsvm_hks_chunk *c, int s, uint64_t pos);
int dst_slot_struct(const gsvm_hks_chunk *c, const gsvm_hks_slot *sl);
const gsvm_hks_slot *dst_resolve(const gsvm_hks_chunk *c, int s, const uint32_t *words, int n,
                                 uint64_t pos);
bool dst_declare(const gsvm_hks_chunk *c, gsvm_buf *b);

/* ---------------------------------------------------------------- one function being decompiled */

enum { MAX_NEST = 150, MAX_FN_DEPTH = 140, MAX_REGS = 256, MAX_DISPATCH_VARS = 190 };
enum { USE_DEAD = -2 };
enum { PK_NONE, PK_EXPR, PK_MULTI, PK_TABLE, PK_SELFFN, PK_SELFOBJ };

typedef struct pend {
    uint8_t kind;
    bool table_local; /* a table constructor that is a variable once closed */
    dx e;
    int nres; /* PK_MULTI: 0 all results, else how many */
    uint32_t def_pc;
    gsvm_buf items; /* PK_TABLE: the entries so far, comma separated */
    int nitems;
    const char *hmake; /* PK_TABLE of a structure: its name */
    int npos; /* PK_TABLE: array items already listed (registers above it) */
} pend;

typedef struct dvar {
    char name[64];
    int reg;
    int64_t lo, hi; /* first and last pc that touch it as a variable */
    int owner;      /* nesting level of the block that declares it, -1 none yet */
    bool declared;
    bool untyped;   /* CHECKTYPEs of two different types: no annotation */
    char decl[110]; /* "name:type" for a typed local (HKS), else empty */
} dvar;

typedef struct region {
    gsvm_buf body, decl;
    gsvm_buf owned; /* ints: the variables given to this block (maybe stale) */
    int64_t from, to;
    int ndecl;
} region;

typedef struct dc {
    const gsvm_hks_chunk *c;
    bool strict;
    uint64_t functions, fallbacks;
    gsvm_error *err;
    bool failed;
    /* one function's state per nesting depth, reused by the functions at
     * that depth (nearly 40 KiB each, mostly pending values and blocks) */
    struct fn *fns[MAX_FN_DEPTH + 1];
} dc;

typedef struct fn fn;
struct fn {
    dc *D;
    const gsvm_hks_proto *f;
    int depth;  /* function nesting */
    int base;   /* indentation of the body's statements */
    int extra;  /* more indentation (the block loop's branches) */
    int locbase; /* index of the first debug-local variable */
    int nregvars;
    uint8_t *backt; /* targets of backward jumps */
    char path[1100];
    uint32_t n;
    uint8_t *op, *isdata, *leader, *absorbed, *vjoin;
    uint8_t *jtarget; /* targets of jumps (leaders that are not just fall-throughs) */
    int32_t *use; /* for a folded definition: the pc that reads it; -1 not
                   * folded; USE_DEAD written again before anything reads it */
    bool *folded_read; /* (pc * 3 + slot) not needed: reads resolved by use[] */
    bool debug;       /* local names from debug info */
    /* variables */
    dvar *vars;
    int nvars, capvars;
    int *loc_reg; /* debug: register of each debug local (-1 internal) */
    int64_t *init_pc; /* debug: the write that initialises each local (-1 none) */
    int override[MAX_REGS]; /* loop variables: register -> var (-1 none) */
    const char **upnames;
    uint32_t nups;
    /* names that generated names must avoid */
    char **taken; /* a hash set (open addressing): a chunk may name thousands */
    size_t ntaken, captaken;
    /* emission */
    int nr; /* open blocks (R) */
    bool fail;
    const char *why;
    int64_t at_pc, why_pc; /* the statement being recovered; where it failed */
    bool dispatch;
    bool blocks; /* analysed for the block loop: no value regions (a test there
                  * does not keep the value it tests) */
    int multret_top; /* register of the last multret value, -1 none */
    int64_t force_pc; /* a definition that stays a pending value (-1 none) */
    /* the last `local name = e` line: its register, block and where the
     * block's text ended after it (an extra value of the same list is
     * appended to it: `local g, h = 1, 2, 3`); reg -1 none */
    int last_local_reg, last_local_lvl;
    size_t last_local_len;
    /* value regions (`c and x or y` into one register): at the region's
     * first test, its end, its register and its last definition */
    int32_t *vend, *vtail;
    uint8_t *vreg;
    /* boolean-tailed values (`a == b and not c`): at the first test, the
     * pc of the LOADBOOL pair its false / true exits jump to (0 none) */
    int32_t *bend;
    /* comparison chains as values (decompile_cmpchain.c): in the code
     * after the first test's JMP, the pc of the chain's LOADBOOL pair (0
     * elsewhere) */
    int32_t *cmpend;
    /* stripped code: the live ranges ("webs") of each register, so that a
     * register reused for locals of different blocks gives one variable per
     * use (each declared in its own block).  wstate[pc * wn + r]: the web of
     * the value r holds entering pc (-1 none); a definition (pc, r) is web
     * pc * wn + r; wparent: union-find (-1 a root); wvar: a web's variable (-1 none) */
    int32_t *wstate, *wparent, *wvar;
    int wn;
    /* the variables with accesses, by their first access (open_region) */
    int *bylo;
    int nbylo;
    uint32_t wseq[MAX_REGS]; /* webs named so far per register (loc5, loc5_2, ...) */
    /* structures: the slot each slot instruction names (NULL none), the
     * structure each definition's value is (index in the block, -1 none) */
    const gsvm_hks_slot **slot;
    int32_t *ssid;
    /* every instruction's registers decoded once (dc_decode_operands):
     * opregs[pc * 4 ...] its reads, then its writes; opcount[pc] their
     * numbers (reads | writes << 3), OPS_NOT_KEPT for an instruction with
     * more than 4 or that reads the open multret values (dc_operands decodes
     * those each time) */
    uint8_t *opregs, *opcount;
    /* kmax[pc]: the highest constant index the instructions before pc
     * name, -1 none (dc_late_constant makes it when first asked) */
    int32_t *kmax;
    /* registers below ptop may hold a pending value (dc_pend_at) */
    int ptop;
    /* dc_strip_do_end's last answer: for the first local memo_v + 1 of a
     * range ending at memo_to, where its register next holds a temporary
     * (memo_w, -1 not before memo_to) */
    int memo_v;
    int64_t memo_to, memo_w;
    /* Last, as fn_init clears only what comes before them: the pending
     * values stay zero between functions (fn_free clears those below ptop)
     * and each block is set when it opens. */
    pend P[MAX_REGS];
    region R[MAX_NEST + 2];
};

enum { OPS_NOT_KEPT = 0xFF };

/* The pending value of register r, which is about to be set. */
static inline pend *dc_pend_at(fn *F, int r)
{
    if (r >= F->ptop)
        F->ptop = r + 1;
    return &F->P[r];
}

/* ---------------------------------------------------------------- decoding */

static inline uint32_t W(const fn *F, int64_t pc) { return F->f->code[pc]; }
static inline unsigned OPAT(const fn *F, int64_t pc)
{
    return pc >= 0 && pc < F->n && !F->isdata[pc] ? F->op[pc] : HKS_NO_OP;
}
static inline uint32_t A_(uint32_t w) { return GSVM_HKS_A(w); }
static inline uint32_t B_(uint32_t w) { return GSVM_HKS_B(w); }
static inline uint32_t C_(uint32_t w) { return GSVM_HKS_C(w); }

/* The instruction families of isa.def. */
static inline bool in_family(unsigned op, hks_family f) { return op < HKS_I_COUNT && hks_ops[op].family == f; }
static inline bool is_test(unsigned op) { return in_family(op, HKS_FAM_TEST); }
static inline bool is_call(unsigned op) { return in_family(op, HKS_FAM_CALL); }
static inline bool is_tailcall(unsigned op) { return in_family(op, HKS_FAM_TAILCALL); }
static inline bool is_store(unsigned op) { return in_family(op, HKS_FAM_STORE); }
/* a store into a structure's own slot (what an hmake constructor holds) */
static inline bool is_slot_store(unsigned op)
{
    return op == HKS_I_SETSLOTI || op == HKS_I_SETSLOT || op == HKS_I_SETSLOTS ||
           op == HKS_I_SETSLOTN;
}
/* Instructions whose B is a constant index. */
static inline bool b_is_k(unsigned op) { return op < HKS_I_COUNT && hks_ops[op].b == HKS_K; }

static inline int64_t jmp_target(const fn *F, int64_t pc) { return pc + 1 + GSVM_HKS_SBX(W(F, pc)); }

/* The next instruction after pc (DATA words skipped). */
static inline int64_t next_pc(const fn *F, int64_t pc)
{
    pc++;
    while (pc < F->n && F->isdata[pc])
        pc++;
    return pc;
}


/* Registers an instruction reads and writes.  `top` is the register of the
 * last open multret value (for B = 0 / C = 0 operands). */
typedef struct rw {
    int rd[MAX_REGS + 8], nrd;
    int wr[MAX_REGS + 8], nwr;
} rw;

typedef struct cnode {
    int64_t test, jmp, start; /* the test, its JMP, where its operands begin */
    int64_t target;
    dx j; /* taken when true */
} cnode;

enum { MAX_NODES = 64 };

typedef struct loopctx {
    int64_t exit;         /* break target (-1 none) */
    int64_t cont, cont2;  /* where falling off the block goes */
    int64_t repeat_start; /* a repeat body: its first pc (-1 none) */
    int64_t repeat_end;
    int64_t end;          /* the block's own end */
} loopctx;

/* the function cannot be recovered as structured code: why (the first kept) */
void dc_fail(fn *F, const char *why);
/* block output: the innermost open block */
static inline region *cur(fn *F) { return &F->R[F->nr - 1]; }

/* decompile_decode.c: decoding: the registers an instruction reads and writes, multret, structure slots */
void dc_operands(const fn *F, int64_t pc, int top, rw *x);
bool dc_decode_operands(fn *F);
bool dc_writes_multret(const fn *F, int64_t pc);
bool dc_reads_multret(const fn *F, int64_t pc);
void dc_find_slots(fn *F);
const char *dc_slot_name(fn *F, int64_t pc);

/* decompile_analyse.c: analysis: the temporaries folded into expressions, value regions, boolean tails */
bool dc_defines_value(const fn *F, int64_t pc);
int dc_debug_local(const fn *F, int reg, int64_t pc);
int dc_local_at(const fn *F, int reg, int64_t pc, bool write);
bool dc_mstore(const fn *F, int64_t q, int *rv);
bool dc_fed_store(const fn *F, int64_t q, int *rv);
bool dc_value_pair_jmp(const fn *F, int64_t q, int r);
bool dc_analyse(fn *F);

/* decompile_cmpchain.c: comparison chains as values (`f(a == 0 or a == 1)`):
 * the code after their JMPs is no leader */
void dc_find_cmp_chains(fn *F);
/* whether q is the LOADBOOL pair of a comparison value (after a test's JMP) */
bool dc_cmp_pair_at(const fn *F, int64_t q);
void dc_mark_region_reads(fn *F);

/* decompile_vars.c: variables: names, the webs (live ranges) of stripped registers, types, declaration order */
int dc_new_var(fn *F, const char *base, int reg);
int dc_var_of(fn *F, int reg, int64_t pc, bool write);
void dc_set_type(fn *F, int v, uint32_t w, unsigned op);
void dc_find_types(fn *F);
void dc_setup_vars(fn *F);

/* decompile_webs.c: the webs of stripped registers (fn.wstate), a web's root */
void dc_find_webs(fn *F, int wn);
int32_t dc_web_find(fn *F, int32_t id);

/* decompile_emit.c: output: blocks and lines, pending values, closures, calls and lists */
void dc_line(fn *F, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dc_set_owner(fn *F, int v, int lvl);
bool dc_open_region(fn *F, int64_t from, int64_t to);
void dc_close_region(fn *F);
const char *dc_dname(const fn *F, int v);
void dc_predeclare(fn *F, int v);
const char *dc_use_var(fn *F, int v);
void dc_pend_clear(pend *p);
dx dc_get(fn *F, int r, int64_t pc);
dx dc_get_rk(fn *F, uint32_t v, int64_t pc);
dx dc_get_k(fn *F, uint32_t k);
const gsvm_hks_const *dc_kptr(fn *F, uint32_t v);
/* whether variable v is declared, or (stripped code) the older local of
 * its register assigned again (then it takes that one's name) */
bool dc_assignable(fn *F, int v);
void dc_assign_var(fn *F, int v, dx e);
void dc_table_positional(fn *F, int t, int64_t pc);
void dc_self_registers(fn *F, int a, int64_t pc, dx obj, dx key);
void dc_flush_all(fn *F);
void dc_flush_final(fn *F);
void dc_stmt(fn *F, dx text);
void dc_put(fn *F, int r, int64_t pc, dx e);
dx dc_closure_text(fn *F, int64_t pc, uint32_t bx, const char *fname, bool method);
dx dc_call_text(fn *F, int64_t pc, uint32_t a, uint32_t b);
dx dc_list_text(fn *F, int64_t pc, int64_t a, int64_t last, bool open);
const char *dc_arith_op(unsigned op, int *prec);
dx dc_jump_cond(fn *F, int64_t pc);

/* decompile_cond.c: conditions and loops: test chains, for loops, if / while / repeat */
dx dc_cond_expr(fn *F, cnode *N, int i, int e, int64_t end, int64_t tT, int64_t tF, int lvl);
int64_t dc_operands_run(fn *F, int64_t pc, int64_t to);
int dc_chain_scan(fn *F, int64_t pc, int64_t to, cnode *N, int64_t *tT, int64_t *tF,
                  int64_t repeat_start);
dx dc_chain_emit(fn *F, cnode *N, int n, int64_t fall, int64_t tT, int64_t tF);
bool dc_is_exit(const fn *F, const loopctx *L, int64_t t);
/* the block [from, to) under L, falling off it to cont */
int64_t dc_jump_dest(const fn *F, int64_t pc);
void dc_sub_range(fn *F, int64_t from, int64_t to, const loopctx *L, int64_t cont);
bool dc_is_back_jmp(const fn *F, int64_t q, int64_t pc);
int64_t dc_emit_numfor(fn *F, int64_t pc, int64_t to, const loopctx *L);
int64_t dc_emit_genfor(fn *F, int64_t pc, int64_t t);
int64_t dc_emit_cond(fn *F, int64_t pc, int64_t to, const loopctx *L);

/* decompile_value.c: values built with jumps: and / or regions, boolean tails, TESTSET, multiple assignment */
int64_t dc_emit_value(fn *F, int64_t s);
int64_t dc_emit_bool_tail(fn *F, int64_t s);
int64_t dc_emit_testset(fn *F, int64_t pc, int64_t to);
int64_t dc_emit_massign(fn *F, int64_t pc, int64_t to);
int64_t dc_emit_call_massign(fn *F, int64_t pc, int64_t to, dx *e);

/* decompile_step.c: one instruction that is not control flow */
int64_t dc_step(fn *F, int64_t pc, int64_t to);

/* decompile_flow.c: statement ranges and the block-loop fallback */
void dc_emit_range(fn *F, int64_t from, int64_t to, const loopctx *L);
void dc_emit_dispatch(fn *F);

/* decompile_scope.c: stripped code: the end of a `do` block starting at pc, or -1 */
int64_t dc_strip_do_end(fn *F, int64_t pc, int64_t to, const loopctx *L);
/* whether the instruction at pc puts its value only in a free register (a
 * call's results, a table constructor): never a local assigned */
bool dc_fresh_write(const fn *F, int64_t pc);

/* decompile.c: one function and the API */
bool dc_decompile_function(dc *D, const gsvm_hks_proto *f, const char *path, int depth,
                           int indent, const char **upnames, uint32_t nups, gsvm_buf *out);

#endif
