/* The HavokScript compiler's internal view: lexer, expression descriptors,
 * per-function state.  It is a one-pass compiler in the shape of Lua 5.1's
 * (the golden chunks of hksc demand the same register allocation, jump
 * lists and constant order), written for this project. */
#ifndef GSVM_HKS_COMPILE_H
#define GSVM_HKS_COMPILE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/hks.h"
#include "hks/isa.h"

/* Limits, as in Lua 5.1 (hksc keeps them). */
enum {
    HC_MAXVARS = 200,     /* locals per function */
    HC_MAXUPVALS = 60,    /* upvalues per function */
    HC_MAXSTACK = 250,    /* registers per function */
    HC_MAXLEVELS = 200,   /* nested syntactic levels (the recursion bound) */
    HC_FPF = 50,          /* SETLIST batch size */
    HC_MAXRK = 255,       /* highest constant index an RK operand holds */
    HC_NOJUMP = -1
};

/* Tokens: single characters are their own code; the rest follow. */
enum {
    TK_AND = 257, TK_BREAK, TK_DO, TK_ELSE, TK_ELSEIF, TK_END, TK_FALSE, TK_FOR,
    TK_FUNCTION, TK_IF, TK_IN, TK_LOCAL, TK_NIL, TK_NOT, TK_OR, TK_REPEAT, TK_RETURN,
    TK_THEN, TK_TRUE, TK_UNTIL, TK_WHILE,
    TK_HSTRUCTURE, TK_HMAKE, TK_HDELETE, /* HKS reserved words */
    TK_CONCAT, TK_DOTS, TK_EQ, TK_GE, TK_LE, TK_NE, TK_SHL, TK_SHR,
    TK_NUMBER, TK_LUD, TK_UI64, TK_NAME, TK_STRING, TK_EOS
};

typedef struct hc_token {
    int tok;
    double num;    /* TK_NUMBER */
    uint64_t bits; /* TK_LUD, TK_UI64 */
    const struct hc_str *str; /* TK_NAME, TK_STRING: interned */
    const char *s; /* str->data, s[len] == 0 */
    size_t len;
    int line, col;
} hc_token;

/* Interned strings (names and string literals) live in one table so that
 * equal strings are equal pointers. */
typedef struct hc_str {
    struct hc_str *next;
    uint32_t hash;
    int reserved; /* a reserved word: its token, else 0 */
    size_t len;
    char data[]; /* len bytes + NUL */
} hc_str;

typedef enum {
    E_VOID, E_NIL, E_TRUE, E_FALSE, E_K, E_KNUM, E_LOCAL, E_UPVAL, E_GLOBAL, E_INDEXED,
    E_JMP, E_RELOC, E_NONRELOC, E_CALL, E_VARARG, E_SLOT
} hc_ekind;

typedef struct hc_exp {
    hc_ekind k;
    int info, aux; /* register / constant / pc; E_INDEXED: table reg, key RK */
    int slot;      /* E_SLOT: the structure (index into sdefs) of the table */
    const struct hc_str *key; /* E_SLOT: the slot's name; aux is its position, or -1 when
                               * it is reached through the metatables (a tag chain) */
    int kline, kcol; /* E_SLOT: where the slot's name is (for errors) */
    double nval;   /* E_KNUM */
    int t, f;      /* patch lists: exit when true, when false */
    int stype;     /* E_LOCAL/E_UPVAL: the variable's declared type (HC_T_*) */
    int etype;     /* the HKS type the value is known to have, -1 unknown */
} hc_exp;

/* Declared types of typed locals: an HKS type number (0..11), or these. */
enum { HC_T_NONE = -1, HC_T_ANY = -2, HC_T_STRUCT0 = 100 /* + structure index */ };

typedef struct hc_var {
    const hc_str *name;
    int startpc, endpc;
    int stype; /* declared type (HC_T_*, or an HKS type number) */
} hc_var;

typedef struct hc_block {
    struct hc_block *prev;
    int breaklist;
    int nactvar;
    bool upval;  /* some local of the block is captured */
    bool isloop;
} hc_block;

typedef struct hc_upval {
    const hc_str *name;
    int kind; /* E_LOCAL or E_UPVAL in the enclosing function */
    int index;
} hc_upval;

typedef struct hc_memo {
    const hc_str *name;
    int k; /* first of the two nil cache constants */
} hc_memo;

typedef struct hc_func hc_func;
struct hc_func {
    hc_func *prev; /* the enclosing function; in C->spare, the next spare */
    struct hc_compiler *C;
    hc_block *bl;
    gsvm_hks_proto *f;
    size_t cap_code, cap_k, cap_lines, cap_r1, cap_p, cap_vars, cap_memo;
    /* code, constants and child functions grow in these scratch arrays
     * (f->code, f->k and f->p point at them while the function is open;
     * close_func gives the proto exact copies), so that a spare state's
     * arrays serve the next function instead of new memory */
    uint32_t *scode;
    gsvm_hks_const *sk;
    gsvm_hks_proto *sp;
    uint32_t *lines;
    int16_t *r1reg; /* per pc: 1 + the register an R1 form could read there, 0 none */
    int pc, lasttarget, jpc;
    int freereg, nactvar, nlocvars;
    int maxstack;
    int nups;
    hc_upval ups[HC_MAXUPVALS];
    uint16_t actvar[HC_MAXVARS]; /* index into vars */
    hc_var *vars;
    int nvars;
    /* constant lookup: open-addressed table of constant indexes + 1, with
     * the interned string of a string constant (equal strings are equal
     * pointers: no content compares) */
    struct hc_kslot { int k; const struct hc_str *s; } *khash;
    size_t khash_cap;
    hc_memo *memo;
    int nmemo;
    int nilk; /* index of the nil constant, -1 none yet */
    int truek, falsek;
    bool is_vararg;
    const char *fname; /* debug name */
    int linedefined;
};

typedef struct hc_slotdef {
    const hc_str *name;
    int type;   /* the HKS type number: 0 any (object), 12 (TSTRUCT) a structure */
    int sid;    /* structure index of a structure-typed slot, -1 */
    int pos;    /* the slot's position (what GETSLOT / SETSLOTI address) */
} hc_slotdef;

/* An hstructure declaration: its own slots (the three reserved ones that
 * every structure has are implied), its meta type and proxytable flag. */
typedef struct hc_struct {
    const hc_str *name;
    int nslots;
    size_t capslots;
    hc_slotdef *slots;
    int meta_type; /* type of the meta slot: -1 none, else as hc_slotdef.type */
    int meta_sid;  /* its structure index when meta_type is 12 */
    bool proxy;
} hc_struct;

enum { HC_TSTRUCT = 12, HC_RESERVED_SLOTS = 3, HC_MAX_SLOTS = 200, HC_MAX_STRUCTS = 4000,
       HC_MAX_CHAIN = 16 /* structures a tag chain may pass */ };

typedef struct hc_compiler {
    /* input */
    const char *src, *end, *p;
    const char *file; /* for messages */
    int line;         /* line of the scanner */
    const char *linestart;
    int lastline;
    hc_token t, ahead;
    int prevline, prevcol; /* where the token before t is (a name just read) */
    bool have_ahead;
    /* target */
    gsvm_hks_compile_options o;
    bool bitops, structs, memo, ghosts_delete, hash_debug;
    /* strings */
    hc_str **strtab;
    size_t nstr, strcap;
    char *sbuf;
    size_t sbuflen, sbufcap;
    /* structures */
    hc_struct *sdefs;
    int nsdefs, capsdefs;
    int *sorder; /* the structure block's order (hc_write_structs) */
    /* the arena (hc_arena) and the function states closed so far, kept with
     * their scratch arrays for the next function */
    struct hc_arena_blk *arena;
    char *apos, *aend;
    hc_func *spare;
    /* state */
    hc_func *fs;
    int depth;
    gsvm_hks_chunk *chunk;
    gsvm_error *err;
    jmp_buf fail;
    /* every allocation of the compile is freed through these lists on error */
} hc_compiler;

/* lexer (compile_lex.c) */
void hc_lex_init(hc_compiler *C);
void hc_next(hc_compiler *C);
int hc_lookahead(hc_compiler *C);
const char *hc_token_text(hc_compiler *C, int tok, char *buf, size_t n);
const hc_str *hc_intern(hc_compiler *C, const char *s, size_t len);
_Noreturn void hc_error_at(hc_compiler *C, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
_Noreturn void hc_syntax_error(hc_compiler *C, const char *msg);
void *hc_alloc(hc_compiler *C, size_t n);
void *hc_arena(hc_compiler *C, size_t n);
void hc_arena_free(hc_compiler *C);
void *hc_grow(hc_compiler *C, void *p, size_t *cap, size_t need, size_t elem);

/* code generator (compile_emit.c, compile_operand.c) */
int hc_code(hc_func *fs, unsigned iop, uint32_t a, uint32_t b, uint32_t c);
int hc_code_bx(hc_func *fs, unsigned iop, uint32_t a, uint32_t bx);
int hc_code_data(hc_func *fs, uint32_t a, uint32_t bx);
void hc_fixline(hc_func *fs, int line);
void hc_nil(hc_func *fs, int from, int n);
void hc_reserve(hc_func *fs, int n);
void hc_checkstack(hc_func *fs, int n);
int hc_k_string(hc_func *fs, const hc_str *s);
int hc_k_number(hc_func *fs, double v);
int hc_k_lud(hc_func *fs, uint64_t v, int type);
int hc_jump(hc_func *fs);
void hc_ret(hc_func *fs, int first, int n);
int hc_getlabel(hc_func *fs);
void hc_patchlist(hc_func *fs, int list, int target);
void hc_patchtohere(hc_func *fs, int list);
void hc_concat(hc_func *fs, int *l1, int l2);
void hc_setreturns(hc_func *fs, hc_exp *e, int n);
void hc_setoneret(hc_func *fs, hc_exp *e);
void hc_dischargevars(hc_func *fs, hc_exp *e);
int hc_exp2anyreg(hc_func *fs, hc_exp *e);
void hc_exp2nextreg(hc_func *fs, hc_exp *e);
void hc_exp2val(hc_func *fs, hc_exp *e);
int hc_exp2RK(hc_func *fs, hc_exp *e);
void hc_self(hc_func *fs, hc_exp *e, hc_exp *key);
void hc_selfslot(hc_func *fs, hc_exp *e, const hc_exp *slot);
void hc_indexed(hc_func *fs, hc_exp *t, hc_exp *k);
void hc_goiftrue(hc_func *fs, hc_exp *e);
void hc_storevar(hc_func *fs, hc_exp *var, hc_exp *ex);
void hc_setlist(hc_func *fs, int base, int nelems, int tostore);
void hc_prefix(hc_func *fs, int op, hc_exp *e);
void hc_infix(hc_func *fs, int op, hc_exp *v);
void hc_posfix(hc_func *fs, int op, hc_exp *e1, hc_exp *e2);
void hc_freeexp(hc_func *fs, hc_exp *e);
void hc_finish_code(hc_func *fs);
void hc_store_slot(hc_func *fs, int reg, const hc_slotdef *d, const hc_exp *ex, int e,
                   bool isnil, int line, int col);
const char *hc_type_name(const hc_compiler *C, int type);
const char *hc_type_phrase(const hc_compiler *C, int type, char *buf, size_t n);

/* binary operators, in the order of their precedence table */
enum {
    OPR_ADD, OPR_SUB, OPR_MUL, OPR_DIV, OPR_MOD, OPR_POW, OPR_CONCAT, OPR_SHL, OPR_SHR,
    OPR_BAND, OPR_BOR, OPR_NE, OPR_EQ, OPR_LT, OPR_LE, OPR_GT, OPR_GE, OPR_AND, OPR_OR,
    OPR_NOBINOPR
};
enum { OPR_MINUS, OPR_NOT, OPR_LEN, OPR_NOUNOPR };

static inline void hc_init_exp(hc_exp *e, hc_ekind k, int info)
{
    e->k = k;
    e->info = info;
    e->aux = 0;
    e->slot = -1;
    e->key = NULL;
    e->nval = 0;
    e->t = e->f = HC_NOJUMP;
    e->stype = HC_T_NONE;
    e->etype = -1;
}

/* Call of Duty name hashes (compile_hash.c): sets debug.hash of f and its
 * children from the source name and each function's name. */
void hc_assign_hashes(gsvm_hks_proto *f, const char *source, unsigned step);

/* structures (compile_struct.c) */
int hc_slot_position(const hc_compiler *C, int index);
const hc_slotdef *hc_find_slot(const hc_struct *s, const hc_str *name);
int hc_slot_chain(const hc_compiler *C, int sid, const hc_str *name, uint32_t *words, int max);
/* The tag chain of a store: as hc_slot_chain through "__newindex" slots;
 * `found` the slot at its end. */
int hc_store_chain(const hc_compiler *C, int sid, const hc_str *name, uint32_t *words, int max,
                   const hc_slotdef **found);
const hc_slotdef *hc_chain_end(const hc_compiler *C, int sid, const hc_str *name);
void hc_write_structs(hc_compiler *C);

/* parser (compile_stat.c; its internal view is compile_parse.h) */
void hc_parse_chunk(hc_compiler *C);

#endif
