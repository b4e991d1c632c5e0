/* The HavokScript decompiler: chunks back to Lua 5.1 / HKS source.
 *
 * Per function: the code is decoded with the chunk's profile, then analysed
 * once: which register values are temporaries (defined once, read once, in
 * the same basic block, with only other temporaries built in between) and
 * may be folded into the expression that reads them, and which stores go
 * into a table constructor still being built.  Everything else is a
 * variable: named from debug info where the chunk has it, else by register
 * (arg1.., loc5; i for numeric for loops, k, v for generic ones), declared
 * `local` in the innermost block that holds every access.
 *
 * The structure comes back from the jumps, in the order the compiler laid
 * them out: FORPREP/FORLOOP and TFORLOOP are for loops, a backward JMP is a
 * while loop (with its condition when one starts it), a backward
 * conditional jump a repeat-until, forward test chains are if / else and
 * `and` / `or`.  When a function's jumps do not fit, it is printed as one
 * loop over its basic blocks (`local pc = ...; while true do if pc == ...`),
 * which still compiles and runs; a comment says so, and --strict makes it an
 * error.  Recursion is bounded (block nesting and function depth), so no
 * input hangs or overflows the stack. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"
#include "hks/internal.h"
#include "hks/isa.h"

enum { MAX_NEST = 150, MAX_FN_DEPTH = 140, MAX_REGS = 256, MAX_DISPATCH_VARS = 190 };
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
    int32_t *use; /* for a folded definition: the pc that reads it; -1 not folded */
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
    pend P[MAX_REGS];
    region R[MAX_NEST + 2];
    int nr;
    bool fail;
    const char *why;
    int64_t at_pc, why_pc; /* the statement being recovered; where it failed */
    bool dispatch;
    bool blocks; /* analysed for the block loop: no value regions (a test there
                  * does not keep the value it tests) */
    int multret_top; /* register of the last multret value, -1 none */
    int64_t force_pc; /* a definition that stays a pending value (-1 none) */
    /* value regions (`c and x or y` into one register): at the region's
     * first test, its end, its register and its last definition */
    int32_t *vend, *vtail;
    uint8_t *vreg;
    /* boolean-tailed values (`a == b and not c`): at the first test, the
     * pc of the LOADBOOL pair its false / true exits jump to (0 none) */
    int32_t *bend;
    /* stripped code: the live ranges ("webs") of each register, so that a
     * register reused for locals of different blocks gives one variable per
     * use (each declared in its own block).  wstate[pc * wn + r]: the web of
     * the value r holds entering pc (-1 none); a definition (pc, r) is web
     * pc * wn + r; wparent: union-find; wvar: a web's variable (-1 none) */
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
};

static void fail(fn *F, const char *why)
{
    if (!F->fail) {
        F->why = why;
        F->why_pc = F->at_pc;
    }
    F->fail = true;
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
static bool in_family(unsigned op, hks_family f) { return op < HKS_I_COUNT && hks_ops[op].family == f; }
static bool is_test(unsigned op) { return in_family(op, HKS_FAM_TEST); }
static bool is_call(unsigned op) { return in_family(op, HKS_FAM_CALL); }
static bool is_tailcall(unsigned op) { return in_family(op, HKS_FAM_TAILCALL); }
static bool is_store(unsigned op) { return in_family(op, HKS_FAM_STORE); }
/* a store into a structure's own slot (what an hmake constructor holds) */
static bool is_slot_store(unsigned op)
{
    return op == HKS_I_SETSLOTI || op == HKS_I_SETSLOT || op == HKS_I_SETSLOTS ||
           op == HKS_I_SETSLOTN;
}
/* Instructions whose B is a constant index. */
static bool b_is_k(unsigned op) { return op < HKS_I_COUNT && hks_ops[op].b == HKS_K; }

static int64_t jmp_target(const fn *F, int64_t pc) { return pc + 1 + GSVM_HKS_SBX(W(F, pc)); }

/* The next instruction after pc (DATA words skipped). */
static int64_t next_pc(const fn *F, int64_t pc)
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

static void add_rd(rw *x, int64_t r)
{
    if (r >= 0 && r < MAX_REGS && x->nrd < MAX_REGS + 8)
        x->rd[x->nrd++] = (int)r;
}
static void add_wr(rw *x, int64_t r)
{
    if (r >= 0 && r < MAX_REGS && x->nwr < MAX_REGS + 8)
        x->wr[x->nwr++] = (int)r;
}
static void add_rk(rw *x, uint32_t v)
{
    if (v < 256)
        add_rd(x, v);
}

static void operands(const fn *F, int64_t pc, int top, rw *x)
{
    x->nrd = x->nwr = 0;
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc), a = A_(w), b = B_(w), c = C_(w);
    switch (op) {
    case HKS_I_MOVE: case HKS_I_UNM: case HKS_I_NOT: case HKS_I_NOT_R1: case HKS_I_LEN:
    case HKS_I_GETFIELD: case HKS_I_GETFIELD_R1: case HKS_I_GETFIELD_MM: case HKS_I_GETSLOT:
    case HKS_I_GETSLOTMT: case HKS_I_GETSLOT_D:
        add_rd(x, b);
        add_wr(x, a);
        break;
    case HKS_I_LOADK: case HKS_I_LOADBOOL: case HKS_I_GETGLOBAL: case HKS_I_GETGLOBAL_MEM:
    case HKS_I_GETUPVAL: case HKS_I_NEWTABLE: case HKS_I_NEWSTRUCT:
        add_wr(x, a);
        break;
    case HKS_I_CLOSURE: {
        add_wr(x, a);
        uint32_t bx = GSVM_HKS_BX(w);
        if (bx < F->f->np)
            for (uint32_t i = 0; i < F->f->p[bx].nups && pc + 1 + i < F->n; i++) {
                uint32_t d = W(F, pc + 1 + i);
                if (A_(d) == 1)
                    add_rd(x, GSVM_HKS_BX(d));
            }
        break;
    }
    case HKS_I_LOADNIL:
        for (uint32_t r = a; r <= b && r < MAX_REGS; r++)
            add_wr(x, r);
        break;
    case HKS_I_GETTABLE: case HKS_I_GETTABLE_S: case HKS_I_GETTABLE_N:
        add_rd(x, b);
        add_rk(x, c);
        add_wr(x, a);
        break;
    case HKS_I_SETGLOBAL: case HKS_I_SETUPVAL: case HKS_I_SETUPVAL_R1: case HKS_I_TEST:
    case HKS_I_TEST_R1: case HKS_I_SETSLOTN:
        add_rd(x, a);
        break;
    case HKS_I_SETFIELD: case HKS_I_SETFIELD_R1: case HKS_I_SETTABLE_BK: case HKS_I_SETTABLE_S_BK:
    case HKS_I_SETTABLE_N_BK: case HKS_I_SETSLOTI: case HKS_I_SETSLOT: case HKS_I_SETSLOTMT:
        add_rd(x, a);
        add_rk(x, c);
        break;
    case HKS_I_SETSLOTS:
        add_rd(x, a);
        add_rd(x, c);
        break;
    case HKS_I_SETTABLE: case HKS_I_SETTABLE_S: case HKS_I_SETTABLE_N:
        add_rd(x, a);
        add_rd(x, b);
        add_rk(x, c);
        break;
    case HKS_I_ADD: case HKS_I_SUB: case HKS_I_MUL: case HKS_I_DIV: case HKS_I_MOD:
    case HKS_I_POW: case HKS_I_LEFT_SHIFT: case HKS_I_RIGHT_SHIFT: case HKS_I_BIT_AND:
    case HKS_I_BIT_OR:
        add_rd(x, b);
        add_rk(x, c);
        add_wr(x, a);
        break;
    case HKS_I_ADD_BK: case HKS_I_SUB_BK: case HKS_I_MUL_BK: case HKS_I_DIV_BK: case HKS_I_MOD_BK:
    case HKS_I_POW_BK: case HKS_I_LEFT_SHIFT_BK: case HKS_I_RIGHT_SHIFT_BK: case HKS_I_BIT_AND_BK:
    case HKS_I_BIT_OR_BK:
        add_rk(x, c);
        add_wr(x, a);
        break;
    case HKS_I_CONCAT:
        for (uint32_t r = b; r <= c && r < MAX_REGS; r++)
            add_rd(x, r);
        add_wr(x, a);
        break;
    case HKS_I_SELF: case HKS_I_SELFSLOT: case HKS_I_SELFSLOTMT:
        add_rd(x, b);
        if (op == HKS_I_SELF)
            add_rk(x, c);
        add_wr(x, a);
        add_wr(x, a + 1);
        break;
    case HKS_I_EQ: case HKS_I_LT: case HKS_I_LE:
        add_rd(x, b);
        add_rk(x, c);
        break;
    case HKS_I_EQ_BK: case HKS_I_LT_BK: case HKS_I_LE_BK:
        add_rk(x, c);
        break;
    case HKS_I_TESTSET:
        add_rd(x, b);
        add_wr(x, a);
        break;
    case HKS_I_RETURN: {
        int64_t end = b == 0 ? top : (int64_t)a + b - 2;
        for (int64_t r = a; r <= end; r++)
            add_rd(x, r);
        break;
    }
    case HKS_I_VARARG:
        if (b == 0)
            add_wr(x, a);
        else
            for (uint32_t r = a; r + 2 <= a + b; r++)
                add_wr(x, r);
        break;
    case HKS_I_FORPREP:
        add_rd(x, a);
        add_rd(x, a + 1);
        add_rd(x, a + 2);
        add_wr(x, a);
        break;
    case HKS_I_FORLOOP:
        add_rd(x, a);
        add_rd(x, a + 1);
        add_rd(x, a + 2);
        add_wr(x, a);
        add_wr(x, a + 3);
        break;
    case HKS_I_TFORLOOP:
        add_rd(x, a);
        add_rd(x, a + 1);
        add_rd(x, a + 2);
        for (uint32_t r = a + 3; r <= a + 2 + c; r++)
            add_wr(x, r);
        add_wr(x, a + 2);
        break;
    case HKS_I_SETLIST: {
        add_rd(x, a);
        int64_t end = b == 0 ? top : (int64_t)a + b;
        for (int64_t r = a + 1; r <= end; r++)
            add_rd(x, r);
        break;
    }
    case HKS_I_DELETE:
        add_rd(x, a);
        if (c == HKS_DEL_INDEXED)
            add_rd(x, b);
        break;
    case HKS_I_DELETE_BK:
        if (c == HKS_DEL_INDEXED)
            add_rd(x, a);
        break;
    default:
        if (is_call(op) || is_tailcall(op)) {
            int64_t end = b == 0 ? top : (int64_t)a + b - 1;
            for (int64_t r = a; r <= end; r++)
                add_rd(x, r);
            if (is_call(op)) {
                if (c == 0)
                    add_wr(x, a);
                else
                    for (uint32_t r = a; r + 2 <= a + c; r++)
                        add_wr(x, r);
            }
        }
        break;
    }
}

static bool writes_multret(const fn *F, int64_t pc)
{
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc);
    return (is_call(op) && C_(w) == 0) || (op == HKS_I_VARARG && B_(w) == 0);
}
static bool reads_multret(const fn *F, int64_t pc)
{
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc);
    return ((is_call(op) || is_tailcall(op) || op == HKS_I_RETURN) && B_(w) == 0) ||
           (op == HKS_I_SETLIST && B_(w) == 0);
}

/* ---------------------------------------------------------------- structures */

/* For each slot instruction the slot it names, for each definition the
 * structure its value is: a walk in code order in which a register keeps
 * the structure last put in it (hmake, a typed CHECKTYPES, a structure-typed
 * slot, a MOVE); what the code does not say is looked up by position. */
static void find_slots(fn *F)
{
    const gsvm_hks_chunk *c = F->D->c;
    for (int64_t pc = 0; pc < F->n; pc++)
        F->ssid[pc] = -1;
    if (c->nstructs == 0)
        return;
    rw *x = malloc(sizeof *x);
    if (!x)
        return;
    int cur[MAX_REGS];
    for (int r = 0; r < MAX_REGS; r++)
        cur[r] = -1;
    for (int64_t pc = 0; pc < F->n; pc++) {
        if (F->isdata[pc])
            continue;
        unsigned op = F->op[pc];
        uint32_t w = W(F, pc), a = A_(w), b = B_(w) % MAX_REGS, cc = C_(w);
        int base = -1, res = -1;
        int nw = 0;
        uint64_t pos = 0;
        bool slot = true, reads = false;
        uint32_t data = pc + 1 < F->n ? W(F, pc + 1) : 0;
        switch (op) {
        case HKS_I_NEWSTRUCT: res = dst_find(c, GSVM_HKS_BX(data)); slot = false; break;
        case HKS_I_CHECKTYPES: case HKS_I_CHECKTYPE_D:
            if (a < MAX_REGS)
                cur[a] = dst_find(c, GSVM_HKS_BX(op == HKS_I_CHECKTYPES ? w : data));
            continue;
        case HKS_I_MOVE: res = cur[b]; slot = false; break;
        case HKS_I_GETSLOT: case HKS_I_GETSLOT_D: case HKS_I_SELFSLOT:
            base = cur[b], pos = cc, reads = true;
            break;
        case HKS_I_GETSLOTMT: case HKS_I_SELFSLOTMT: base = cur[b], nw = (int)cc + 1, reads = true; break;
        case HKS_I_SETSLOTI: case HKS_I_SETSLOT: case HKS_I_SETSLOTS: base = cur[a % MAX_REGS], pos = B_(w); break;
        case HKS_I_SETSLOTN: base = cur[a % MAX_REGS], pos = cc; break;
        case HKS_I_SETSLOTMT: base = cur[a % MAX_REGS], nw = (int)(B_(w) & HKS_SLOTMT_CHAIN_MASK) + 1; break;
        default: slot = false; break;
        }
        if (slot && pc + 1 + nw <= F->n) {
            F->slot[pc] = dst_resolve(c, base, nw ? &F->f->code[pc + 1] : NULL, nw, pos);
            if (reads)
                res = dst_slot_struct(c, F->slot[pc]);
        }
        operands(F, pc, MAX_REGS, x);
        for (int i = 0; i < x->nwr; i++)
            cur[x->wr[i]] = -1;
        if (op == HKS_I_SELFSLOT || op == HKS_I_SELFSLOTMT) {
            if (a + 1 < MAX_REGS)
                cur[a + 1] = base;
        } else if (x->nwr == 1) {
            cur[x->wr[0]] = res;
            F->ssid[pc] = res;
        }
    }
    free(x);
}

/* The name of the slot the instruction at pc names (NULL: the function
 * fails, there is none). */
static const char *slot_name(fn *F, int64_t pc)
{
    if (!F->slot[pc]) {
        fail(F, "a slot the structures do not have");
        return NULL;
    }
    return F->slot[pc]->name.data;
}

/* ---------------------------------------------------------------- analysis */

/* A single-register definition that can be an expression. */
static bool defines_value(const fn *F, int64_t pc)
{
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc);
    switch (op) {
    case HKS_I_MOVE: case HKS_I_LOADK: case HKS_I_GETGLOBAL: case HKS_I_GETGLOBAL_MEM:
    case HKS_I_GETUPVAL: case HKS_I_GETFIELD: case HKS_I_GETFIELD_R1: case HKS_I_GETFIELD_MM:
    case HKS_I_GETTABLE: case HKS_I_GETTABLE_S: case HKS_I_GETTABLE_N: case HKS_I_NEWTABLE:
    case HKS_I_CLOSURE: case HKS_I_UNM: case HKS_I_NOT: case HKS_I_NOT_R1: case HKS_I_LEN:
    case HKS_I_CONCAT: case HKS_I_ADD: case HKS_I_SUB: case HKS_I_MUL: case HKS_I_DIV:
    case HKS_I_MOD: case HKS_I_POW: case HKS_I_ADD_BK: case HKS_I_SUB_BK: case HKS_I_MUL_BK:
    case HKS_I_DIV_BK: case HKS_I_MOD_BK: case HKS_I_POW_BK: case HKS_I_LEFT_SHIFT:
    case HKS_I_LEFT_SHIFT_BK: case HKS_I_RIGHT_SHIFT: case HKS_I_RIGHT_SHIFT_BK:
    case HKS_I_BIT_AND: case HKS_I_BIT_AND_BK: case HKS_I_BIT_OR: case HKS_I_BIT_OR_BK:
    case HKS_I_NEWSTRUCT: case HKS_I_GETSLOT: case HKS_I_GETSLOTMT: case HKS_I_GETSLOT_D:
        return true;
    case HKS_I_LOADBOOL: return C_(w) == 0;
    case HKS_I_LOADNIL: return A_(w) == B_(w);
    case HKS_I_VARARG: return B_(w) == 2 || B_(w) == 0;
    default: return is_call(op) && (C_(w) == 2 || C_(w) == 0);
    }
}

/* Debug info: the variable a register is at pc (reads) or becomes (writes
 * complete a local's initialisation just before its start pc). */
static int debug_local(const fn *F, int reg, int64_t pc)
{
    const gsvm_hks_debug *d = &F->f->debug;
    int best = -1;
    for (uint32_t i = 0; i < d->nlocals; i++)
        if (F->loc_reg[i] == reg && d->locals[i].startpc <= pc && pc < d->locals[i].endpc)
            best = (int)i;
    return best;
}

static int local_at(const fn *F, int reg, int64_t pc, bool write)
{
    if (!F->debug)
        return -1;
    if (write) {
        /* the last write before a local's start initialises it */
        const gsvm_hks_debug *d = &F->f->debug;
        for (uint32_t i = 0; i < d->nlocals; i++)
            if (F->init_pc[i] == pc && F->loc_reg[i] == reg)
                return (int)i;
    }
    int l = debug_local(F, reg, pc);
    if (l >= 0)
        return l;
    /* between its initialising write and its start (a constructor's
     * stores, the rest of a multiple assignment) */
    const gsvm_hks_debug *d = &F->f->debug;
    for (uint32_t i = 0; i < d->nlocals; i++)
        if (F->loc_reg[i] == reg && F->init_pc[i] >= 0 &&
            /* the initialising instruction reads the register's old value,
             * but a closure there captures the local itself */
            (write || F->op[F->init_pc[i]] == HKS_I_CLOSURE ? F->init_pc[i] <= pc
                                                             : F->init_pc[i] < pc) &&
            pc < (int64_t)d->locals[i].startpc)
            return (int)i;
    return -1;
}

/* A store that may be one target of a multiple assignment: its value is
 * the register *rv (the values of `a, b.c = x, y` sit in consecutive
 * registers and are stored from the last). */
static bool mstore(const fn *F, int64_t q, int *rv)
{
    if (q < 0 || q >= F->n || F->isdata[q])
        return false;
    unsigned op = F->op[q];
    uint32_t w = W(F, q);
    if (op == HKS_I_SETGLOBAL || op == HKS_I_SETUPVAL || op == HKS_I_SETUPVAL_R1) {
        *rv = (int)A_(w);
        return true;
    }
    if (is_store(op) && C_(w) < 256) {
        *rv = (int)C_(w);
        return true;
    }
    if (op == HKS_I_MOVE && F->use[q] < 0 && A_(w) < B_(w)) {
        *rv = (int)B_(w);
        return true;
    }
    return false;
}

/* Value regions: tests and jumps that compute one register, the code of
 * `a and b or c`, `f() or d`, `(n > 3) and 1 or 2` in a value context.  From
 * a test whose JMP goes forward, the region runs to the furthest target of
 * its tests; inside only tests with their JMPs and definitions of the
 * register or of temporaries above it; the last instruction defines the
 * register and at least one test of it (TEST or TESTSET into it) jumps to
 * the end with its value.  Nothing outside jumps in.  Its joins are not
 * block boundaries, and the register's definitions inside fold into the
 * tests that read them. */
static void find_value_regions(fn *F, rw *x)
{
    uint32_t n = F->n;
    for (int64_t s = 0; s < n; s++) {
        if (F->isdata[s] || !is_test(F->op[s]) || OPAT(F, s + 1) != HKS_I_JMP)
            continue;
        int64_t E = jmp_target(F, s + 1);
        if (E <= s + 2 || E > n)
            continue;
        bool ok = true;
        int64_t last = -1;
        for (int64_t q = s + 2; q < E && ok; q = next_pc(F, q)) {
            unsigned op = F->op[q];
            if (is_test(op)) {
                if (OPAT(F, q + 1) != HKS_I_JMP || jmp_target(F, q + 1) <= q + 2) {
                    ok = false;
                    break;
                }
                int64_t t = jmp_target(F, q + 1);
                if (t > n)
                    ok = false;
                else if (t > E)
                    E = t;
                q = q + 1; /* its JMP */
                last = -1;
                continue;
            }
            /* a plain `false` / `true` (an argument) is a value; a
             * comparison's LOADBOOL pair is not */
            bool pair = op == HKS_I_LOADBOOL &&
                        (C_(W(F, q)) ||
                         (q > 0 && OPAT(F, q - 1) == HKS_I_LOADBOOL && C_(W(F, q - 1))));
            if (pair || op == HKS_I_TESTSET || !defines_value(F, q) ||
                op == HKS_I_CLOSURE || writes_multret(F, q)) {
                ok = false;
                break;
            }
            last = q;
        }
        if (!ok || last < 0 || next_pc(F, last) != E)
            continue;
        int R = (int)A_(W(F, last));
        /* the tests that end the region carry the register's value */
        int values = 0;
        for (int64_t q = s; q < E && ok; q = next_pc(F, q)) {
            unsigned op = F->op[q];
            uint32_t w = W(F, q);
            if (is_test(op)) {
                if (jmp_target(F, q + 1) == E) {
                    bool val = (op == HKS_I_TEST || op == HKS_I_TEST_R1 || op == HKS_I_TESTSET) &&
                               (int)A_(w) == R;
                    if (!val)
                        ok = false;
                    values++;
                }
                q = q + 1;
                continue;
            }
            operands(F, q, MAX_REGS, x);
            for (int i = 0; i < x->nwr; i++)
                if (x->wr[i] < R)
                    ok = false;
        }
        if (!ok || values == 0)
            continue;
        /* nothing from outside jumps into (s, E] */
        for (int64_t q = 0; q < n && ok; q = next_pc(F, q)) {
            if (q >= s && q < E)
                continue;
            unsigned op = F->op[q];
            if (op == HKS_I_JMP || op == HKS_I_FORPREP || op == HKS_I_FORLOOP) {
                int64_t t = jmp_target(F, q);
                if (t > s && t <= E)
                    ok = false;
            }
        }
        if (!ok)
            continue;
        F->vend[s] = (int32_t)E;
        F->vtail[s] = (int32_t)last;
        F->vreg[s] = (uint8_t)R;
        for (int64_t q = s + 1; q <= E && q < n; q++)
            if (F->leader[q]) {
                F->leader[q] = 0;
                F->vjoin[q] = 1;
            }
        s = E - 1;
    }
}

/* Boolean-tailed values: `x = a == b and not c` is the tests of `a == b`,
 * the last operand computed into R, a JMP over the pair LOADBOOL R 0 1;
 * LOADBOOL R 1 0 that the tests' false (or true) exits jump to (Lua 5.1's
 * exp2reg when a jump needs a value).  Only chains whose exits all go to
 * one of the pair's halves: then the value is `C and tail` (`C or tail`).
 * Nothing from outside jumps in; the joins inside are not block leaders. */
static void find_bool_tails(fn *F)
{
    uint32_t n = F->n;
    uint32_t *into = NULL; /* jumps to each pc, counted once it is needed */
    for (int64_t L = 2; L + 1 < n; L++) {
        if (F->isdata[L] || F->op[L] != HKS_I_LOADBOOL || OPAT(F, L + 1) != HKS_I_LOADBOOL)
            continue;
        uint32_t w0 = W(F, L), w1 = W(F, L + 1);
        if (A_(w0) != A_(w1) || B_(w0) != 0 || C_(w0) != 1 || B_(w1) != 1 || C_(w1) != 0)
            continue;
        int64_t J = L - 1, D = L - 2;
        while (D > 0 && F->isdata[D])
            D--; /* the instruction whose DATA words these are */
        if (OPAT(F, J) != HKS_I_JMP || jmp_target(F, J) != L + 2 || F->isdata[D] ||
            is_test(F->op[D]) || !defines_value(F, D) || A_(W(F, D)) != A_(w0))
            continue;
        /* the tests that jump to the pair; the earliest one starts it */
        int64_t s = -1;
        bool to0 = false, to1 = false;
        /* (a value longer than the window is a block loop, not quadratic) */
        for (int64_t q = J > 2048 ? J - 2048 : 0; q + 1 < J; q = next_pc(F, q)) {
            if (!is_test(F->op[q]) || OPAT(F, q + 1) != HKS_I_JMP)
                continue;
            int64_t t = jmp_target(F, q + 1);
            if (t == L || t == L + 1) {
                if (s < 0)
                    s = q;
                to0 |= t == L;
                to1 |= t == L + 1;
            }
            q = q + 1;
        }
        if (s < 0 || (to0 && to1) || F->bend[s] || F->vend[s])
            continue;
        bool ok = true;
        for (int64_t q = s; q < J && ok; q = next_pc(F, q)) {
            unsigned op = F->op[q];
            if (F->vend[q] && F->vend[q] > J)
                ok = false;
            if (op == HKS_I_JMP) {
                bool cmp = q > s && is_test(OPAT(F, q - 1));
                int64_t t = jmp_target(F, q);
                ok = cmp && t > q && (t <= J || t == L || t == L + 1);
            } else if (op == HKS_I_RETURN || op == HKS_I_FORPREP || op == HKS_I_FORLOOP ||
                       op == HKS_I_TFORLOOP || is_tailcall(op) ||
                       (op == HKS_I_LOADBOOL && C_(W(F, q)))) {
                ok = false;
            }
            /* (a TEST that jumps to the pair is a `not x` the compiler
             * folded into it: the value stays a boolean) */
        }
        /* nothing from outside jumps into (s, L + 2]: the jumps there all
         * come from [s, L) */
        if (ok && !into) {
            into = calloc(n + 1, sizeof *into);
            if (!into)
                return;
            for (int64_t q = 0; q < n; q = next_pc(F, q)) {
                unsigned op = F->op[q];
                int64_t t = op == HKS_I_JMP || op == HKS_I_FORPREP || op == HKS_I_FORLOOP
                                ? jmp_target(F, q) : -1;
                if (t >= 0 && t <= n)
                    into[t]++;
            }
        }
        uint64_t total = 0, inside = 0;
        for (int64_t q = s + 1; ok && q <= L + 2 && q <= n; q++)
            total += into[q];
        for (int64_t q = s; ok && q < L; q = next_pc(F, q)) {
            unsigned op = F->op[q];
            int64_t t = op == HKS_I_JMP || op == HKS_I_FORPREP || op == HKS_I_FORLOOP
                            ? jmp_target(F, q) : -1;
            inside += t > s && t <= L + 2;
        }
        if (!ok || total != inside)
            continue;
        F->bend[s] = (int32_t)L;
        for (int64_t q = s + 1; q <= L + 2 && q < n; q++)
            if (F->leader[q]) {
                F->leader[q] = 0;
                F->vjoin[q] = 1;
            }
    }
    free(into);
}

/* A value computed with tests from the test at q on, into registers above
 * t (an entry of t's constructor): where it ends, or -1.  Its jumps go
 * forward to its own end at most; nothing else jumps in (no backward jump
 * targets inside, and a constructor has no leaders before it). */
static int64_t value_end(const fn *F, int64_t q, uint32_t t, rw *x)
{
    int64_t end = q + 1, last = -1;
    for (int64_t r = q; r < end; r = next_pc(F, r)) {
        if (r >= F->n || F->backt[r])
            return -1;
        unsigned op = F->op[r];
        if (op == HKS_I_JMP) {
            int64_t tg = jmp_target(F, r);
            if (tg <= r || tg > F->n || !(r > q && is_test(OPAT(F, r - 1))))
                return -1;
            if (tg > end)
                end = tg;
            continue;
        }
        if (is_test(op)) {
            if (OPAT(F, r + 1) != HKS_I_JMP)
                return -1;
            if (r + 2 > end)
                end = r + 2;
            if (op == HKS_I_TESTSET && A_(W(F, r)) <= t)
                return -1;
            continue;
        }
        if (op == HKS_I_RETURN || op == HKS_I_FORPREP || op == HKS_I_FORLOOP ||
            op == HKS_I_TFORLOOP || is_tailcall(op) || op == HKS_I_CLOSE)
            return -1;
        if (!(F->absorbed[r] && A_(W(F, r)) > t) && !(op == HKS_I_LOADBOOL || defines_value(F, r)))
            return -1;
        operands(F, r, MAX_REGS, x);
        for (int i = 0; i < x->nwr; i++)
            if (x->wr[i] <= (int)t)
                return -1;
        if (!F->absorbed[r])
            last = r;
        if (r + 1 == end && op == HKS_I_LOADBOOL && C_(W(F, r)))
            end = r + 2;
    }
    return last >= 0 && end <= F->n ? end : -1;
}

/* Whether [from, to) reads register r before writing it (in pc order). */
static bool loop_reads(const fn *F, int64_t from, int64_t to, int r, const int32_t *multtop,
                       rw *x)
{
    for (int64_t q = from; q < to; q = next_pc(F, q)) {
        operands(F, q, multtop[q] < 0 ? r : multtop[q], x);
        for (int i = 0; i < x->nrd; i++)
            if (x->rd[i] == r)
                return true;
        for (int i = 0; i < x->nwr; i++)
            if (x->wr[i] == r)
                return false;
    }
    return false;
}

static bool analyse(fn *F)
{
    uint32_t n = F->n;
    rw *x = malloc(sizeof *x);
    if (!x)
        return false;
    /* leaders: targets of jumps, except the joins of value-context and/or
     * (a TESTSET's jump) and of comparison values (LOADBOOL pairs) */
    for (int64_t pc = 0; pc < n; pc++) {
        if (F->isdata[pc])
            continue;
        unsigned op = F->op[pc];
        uint32_t w = W(F, pc);
        if (op == HKS_I_JMP || op == HKS_I_FORPREP || op == HKS_I_FORLOOP) {
            int64_t t = jmp_target(F, pc);
            if (t >= 0 && t <= pc)
                F->backt[t] = 1;
            if (t >= 0 && t <= n) {
                bool value_join = false;
                if (op == HKS_I_JMP && pc > 0 && OPAT(F, pc - 1) == HKS_I_TESTSET)
                    value_join = true;
                if (op == HKS_I_JMP && t < n && t > 0 && OPAT(F, t) == HKS_I_LOADBOOL &&
                    OPAT(F, t - 1) == HKS_I_LOADBOOL && B_(W(F, t)) == 1 && C_(W(F, t - 1)) == 1)
                    value_join = true;
                if (t < n) {
                    if (value_join)
                        F->vjoin[t] = 1;
                    else
                        F->leader[t] = 1;
                    F->jtarget[t] = 1;
                }
            }
            /* after a comparison value's JMP comes its LOADBOOL pair, still
             * the same expression */
            bool cmp_value = op == HKS_I_JMP && t == pc + 2 && t < n && pc > 0 &&
                             is_test(OPAT(F, pc - 1)) && F->vjoin[t];
            if (pc + 1 < n && !cmp_value)
                F->leader[pc + 1] = 1;
        } else if (op == HKS_I_LOADBOOL && C_(w)) {
            if (pc + 2 < n)
                F->vjoin[pc + 2] = 1;
        } else if (op == HKS_I_TFORLOOP || op == HKS_I_RETURN || is_tailcall(op)) {
            if (pc + 1 < n)
                F->leader[pc + 1] = 1;
        }
    }
    if (!F->blocks) {
        find_value_regions(F, x);
        find_bool_tails(F);
    }
    /* table constructors: stores into a table right after its NEWTABLE, with
     * only the values' temporaries built in between */
    /* (inner constructors first: an outer one holds them whole) */
    for (int64_t pc = (int64_t)n - 1; pc >= 0; pc--) {
        if (F->isdata[pc] || (F->op[pc] != HKS_I_NEWTABLE && F->op[pc] != HKS_I_NEWSTRUCT))
            continue;
        uint32_t t = A_(W(F, pc));
        /* the constructor's hash size (C, a Lua "floating point byte")
         * bounds its keyed entries: stores past it are statements */
        uint32_t hc = C_(W(F, pc));
        uint64_t nhash = hc < 8 ? hc : (uint64_t)((hc & 7) + 8) << ((hc >> 3) - 1);
        uint64_t keyed = 0;
        for (int64_t q = next_pc(F, pc), nq; q < n; q = nq) {
            nq = next_pc(F, q);
            if (F->leader[q])
                break;
            unsigned op = F->op[q];
            uint32_t w = W(F, q);
            if (is_test(op)) {
                /* a value inside (`{a = x or 1, b = y < z}`) */
                int64_t e = value_end(F, q, t, x);
                if (e < 0)
                    break;
                nq = e;
                continue;
            }
            if (is_slot_store(op) && A_(w) == t) {
                if (op != HKS_I_SETSLOTN && C_(w) == t)
                    break;
                F->absorbed[q] = 1;
                continue;
            }
            if ((is_store(op) || op == HKS_I_SETLIST) && A_(w) == t) {
                bool self_ref = (!b_is_k(op) && op != HKS_I_SETLIST && B_(w) == t) ||
                                (op != HKS_I_SETLIST && C_(w) == t);
                if (self_ref || (is_store(op) && keyed++ >= nhash))
                    break;
                F->absorbed[q] = 1;
                continue;
            }
            if (F->absorbed[q] && A_(w) > t)
                continue; /* a store into an inner constructor */
            operands(F, q, MAX_REGS, x);
            bool touches = false, low = false;
            for (int i = 0; i < x->nrd; i++)
                touches |= x->rd[i] == (int)t;
            for (int i = 0; i < x->nwr; i++) {
                touches |= x->wr[i] == (int)t;
                low |= x->wr[i] < (int)t;
            }
            if (touches || low || x->nwr == 0)
                break;
        }
    }
    /* first guess of the folded definitions: one read, same block, no second
     * read before the register is written again */
    int top = -1;
    int32_t *multtop = malloc(sizeof *multtop * (n ? n : 1));
    if (!multtop) {
        free(x);
        return false;
    }
    for (int64_t pc = 0; pc < n; pc++) {
        multtop[pc] = top;
        if (F->isdata[pc])
            continue;
        if (writes_multret(F, pc))
            top = (int)A_(W(F, pc));
        else if (reads_multret(F, pc))
            top = -1;
    }
    for (int64_t pc = 0; pc < n; pc++) {
        F->use[pc] = -1;
        if (F->isdata[pc])
            continue;
        if (F->op[pc] == HKS_I_SELF || F->op[pc] == HKS_I_SELFSLOT ||
            F->op[pc] == HKS_I_SELFSLOTMT) {
            /* the call that uses the method */
            uint32_t a = A_(W(F, pc));
            for (int64_t q = next_pc(F, pc); q < n && !F->leader[q]; q = next_pc(F, q))
                if ((is_call(F->op[q]) || is_tailcall(F->op[q])) && A_(W(F, q)) == a) {
                    F->use[pc] = (int32_t)q;
                    break;
                }
            continue;
        }
        bool testset = F->op[pc] == HKS_I_TESTSET && pc + 1 < n && OPAT(F, pc + 1) == HKS_I_JMP;
        if (!testset && !defines_value(F, pc))
            continue;
        int r = (int)A_(W(F, pc));
        if (local_at(F, r, pc, true) >= 0)
            continue;
        int64_t u = -1, skip_to = -1;
        bool ok = true;
        int64_t from = testset ? jmp_target(F, pc + 1) : next_pc(F, pc);
        if (testset && (from <= pc || from > n))
            continue;
        for (int64_t q = from, resume = -1; q < n && ok;
             q = resume >= 0 ? resume : next_pc(F, q), resume = -1) {
            operands(F, q, multtop[q] < 0 ? r : multtop[q], x);
            bool rd = false, wr = false;
            for (int i = 0; i < x->nrd; i++)
                if (x->rd[i] == r && !(F->absorbed[q] && i == 0))
                    rd = true;
            for (int i = 0; i < x->nwr; i++)
                wr |= x->wr[i] == r;
            /* a loop's variables are set before its body runs */
            if (F->op[q] == HKS_I_FORPREP && r >= (int)A_(W(F, q)) && r <= (int)A_(W(F, q)) + 3)
                wr = true; /* (the loop's own state from here on) */
            if (F->op[q] == HKS_I_JMP && OPAT(F, jmp_target(F, q)) == HKS_I_TFORLOOP) {
                uint32_t tw = W(F, jmp_target(F, q));
                if (r >= (int)A_(tw) + 3 && r <= (int)(A_(tw) + 2 + C_(tw)))
                    wr = true;
            }
            if (u < 0) {
                if (F->leader[q])
                    ok = false;
                else if (rd && F->op[q] == HKS_I_CLOSURE)
                    ok = false; /* a closure captures the variable, not a value */
                else if (rd)
                    u = q;
                else if (wr)
                    ok = false;
                if (u >= 0 && wr)
                    break;
                if (!ok)
                    break;
                unsigned op = F->op[q];
                if (u < 0 && (op == HKS_I_JMP || op == HKS_I_RETURN || op == HKS_I_FORPREP ||
                              op == HKS_I_FORLOOP || op == HKS_I_TFORLOOP)) {
                    bool value_jmp = op == HKS_I_JMP && q > 0 && is_test(OPAT(F, q - 1));
                    int64_t t = value_jmp ? jmp_target(F, q) : 0; /* may be < 0 in a bad chunk */
                    if (!value_jmp || !F->vjoin[t >= 0 && t < n ? t : 0])
                        ok = false;
                }
            } else {
                if (rd) {
                    ok = false;
                    break;
                }
                /* a loop around the definition: the value lives on into the
                 * next round when the loop's start reads it before writing */
                unsigned bop = F->op[q];
                if ((bop == HKS_I_JMP || bop == HKS_I_FORLOOP) && !wr) {
                    int64_t t = jmp_target(F, q);
                    if (t >= 0 && t <= pc && loop_reads(F, t, pc, r, multtop, x)) {
                        ok = false;
                        break;
                    }
                }
                /* a write on the path the test's jump skips ends the value
                 * only there: the reads to check are those after the join
                 * (x = x or 0 written as a test) */
                if (wr && !(q < skip_to))
                    break;
                if (wr) {
                    resume = skip_to;
                    continue;
                }
            }
            if (u == q && is_test(F->op[q]) && q + 1 < n && OPAT(F, q + 1) == HKS_I_JMP)
                skip_to = jmp_target(F, q + 1);
            /* the block returns: what follows is reached from elsewhere */
            if (u >= 0 && (F->op[q] == HKS_I_RETURN || is_tailcall(F->op[q])) &&
                (skip_to < 0 || q >= skip_to))
                break;
        }
        if (ok && u >= 0)
            F->use[pc] = (int32_t)u;
    }
    /* in a value region, each definition of its register is read by the
     * next test (the region's tree takes it), also the one just before */
    for (int64_t s = 0; s < n; s++) {
        if (!F->vend[s])
            continue;
        int R = F->vreg[s];
        int64_t E = F->vend[s];
        for (int64_t q = s, d = -1; q < E; q = next_pc(F, q)) {
            if (is_test(F->op[q])) {
                if (d >= 0)
                    F->use[d] = (int32_t)q;
                d = -1;
                q = q + 1;
                continue;
            }
            if ((int)A_(W(F, q)) == R && q != F->vtail[s])
                d = q;
        }
        /* the value tested first, defined right before the region */
        for (int64_t q = s - 1; q >= 0; q--) {
            if (F->isdata[q])
                continue;
            if (F->leader[q + 1] && q + 1 != s)
                break;
            operands(F, q, MAX_REGS, x);
            bool wr = false;
            for (int i = 0; i < x->nwr; i++)
                wr |= x->wr[i] == R;
            if (wr) {
                if (defines_value(F, q) && (int)A_(W(F, q)) == R && !writes_multret(F, q) &&
                    local_at(F, R, q, true) < 0 && F->use[q] < 0 &&
                    (F->op[s] == HKS_I_TEST || F->op[s] == HKS_I_TEST_R1) &&
                    (int)A_(W(F, s)) == R)
                    F->use[q] = (int32_t)s;
                break;
            }
            if (F->leader[q])
                break;
        }
    }
    /* a definition folds only when everything between it and its reader is
     * a folded definition read no later, or a store into a constructor:
     * otherwise folding would move it past a statement */
    for (bool changed = true; changed;) {
        changed = false;
        for (int64_t pc = 0; pc < n; pc++) {
            if (F->use[pc] < 0)
                continue;
            int64_t u = F->use[pc];
            for (int64_t q = next_pc(F, pc); q < u; q = next_pc(F, q)) {
                unsigned op = F->op[q];
                bool fine = (F->use[q] >= 0 && F->use[q] <= u) || F->absorbed[q] ||
                            op == HKS_I_CLOSE || op == HKS_I_CHECKTYPE || op == HKS_I_CHECKTYPES ||
                            op == HKS_I_CHECKTYPE_D || is_test(op) ||
                            (op == HKS_I_JMP && q > 0 && is_test(OPAT(F, q - 1))) ||
                            (op == HKS_I_LOADBOOL);
                int rv, ru;
                if (!fine && mstore(F, q, &rv) && mstore(F, u, &ru) && rv > ru &&
                    ru == (int)A_(W(F, pc)))
                    fine = true; /* an earlier target of the same assignment */
                if (!fine) {
                    F->use[pc] = -1;
                    changed = true;
                    break;
                }
            }
        }
    }
    free(multtop);
    free(x);
    return true;
}

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
            fail(F, "out of memory");
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
        fail(F, "out of memory");
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

static int new_var(fn *F, const char *base, int reg)
{
    if (F->nvars == F->capvars) {
        int ncap = F->capvars ? F->capvars * 2 : 32;
        dvar *nv = realloc(F->vars, sizeof *nv * (size_t)ncap);
        if (!nv) {
            fail(F, "out of memory");
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

static int var_of(fn *F, int reg, int64_t pc, bool write)
{
    if (reg < 0 || reg >= F->nregvars) {
        fail(F, "register out of range");
        return 0;
    }
    if (F->override[reg] >= 0)
        return F->override[reg];
    if (F->debug) {
        int l = local_at(F, reg, pc, write);
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
                F->wvar[id] = new_var(F, base, reg);
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
            if (writes_multret(F, pc))
                t = (int)A_(W(F, pc));
            else if (reads_multret(F, pc))
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
                operands(F, pc, top[pc] < 0 ? MAX_REGS : top[pc], x);
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
                operands(F, pc, top[pc] < 0 ? MAX_REGS : top[pc], x);
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
                operands(F, q, top[q] < 0 ? MAX_REGS : top[q], x);
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

static void set_type(fn *F, int v, uint32_t w, unsigned op) { set_type_name(F, v, check_type_name(F, w, op)); }

/* Typed locals and parameters: the variables that CHECKTYPE instructions
 * check (a typed for loop's variable is typed where its loop prints). */
static void find_types(fn *F)
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
            set_type_name(F, var_of(F, r, pc, true), F->D->c->structs[F->ssid[pc]].name.data);
            continue;
        }
        if (op != HKS_I_CHECKTYPE && op != HKS_I_CHECKTYPES)
            continue;
        if (pc > 0 && OPAT(F, pc - 1) == HKS_I_FORPREP && (int)A_(W(F, pc - 1)) + 3 == r)
            continue;
        if (r >= F->nregvars)
            continue;
        set_type(F, var_of(F, r, pc, false), w, op);
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

static void setup_vars(fn *F)
{
    /* room for variable 0 even in a function without registers: a failed
     * lookup (var_of, new_var) answers 0, and its users may touch it */
    F->vars = calloc(32, sizeof *F->vars);
    if (!F->vars) {
        fail(F, "out of memory");
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
        new_var(F, base, (int)r);
    }
    F->nregvars = F->nvars;
    F->locbase = F->nvars;
    if (F->debug) {
        for (uint32_t i = 0; i < d->nlocals; i++) {
            const char *nm = d->locals[i].name.data ? d->locals[i].name.data : "";
            int v = new_var(F, F->loc_reg[i] >= 0 ? nm : "hidden", F->loc_reg[i]);
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
        fail(F, "out of memory");
        return;
    }
    int top = -1;
    for (int64_t pc = 0; pc < F->n; pc++) {
        if (F->isdata[pc] || F->op[pc] == HKS_NO_OP)
            continue;
        operands(F, pc, top, x);
        if (writes_multret(F, pc))
            top = (int)A_(W(F, pc));
        for (int i = 0; i < x->nrd + x->nwr; i++) {
            bool wr = i >= x->nrd;
            int r = wr ? x->wr[i - x->nrd] : x->rd[i];
            if (wr && F->use[pc] >= 0)
                continue;
            if (r >= F->nregvars)
                continue;
            int v = var_of(F, r, pc, wr);
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
        fail(F, "out of memory");
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

/* ---------------------------------------------------------------- output */

static region *cur(fn *F) { return &F->R[F->nr - 1]; }

static void line(fn *F, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(fn *F, const char *fmt, ...)
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
static void set_owner(fn *F, int v, int lvl)
{
    F->vars[v].owner = lvl;
    if (lvl >= 0 && lvl < F->nr) {
        int32_t x = v;
        gsvm_buf_append(&F->R[lvl].owned, &x, sizeof x);
    }
}

static bool open_region(fn *F, int64_t from, int64_t to)
{
    if (F->nr >= MAX_NEST) {
        fail(F, "blocks nested too deep");
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
            set_owner(F, v, F->nr - 1);
    }
    return true;
}

/* Closes the innermost block into its parent (its declarations first). */
static void close_region(fn *F)
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
static const char *dname(const fn *F, int v)
{
    const dvar *dv = &F->vars[v];
    return dv->decl[0] && !dv->untyped ? dv->decl : dv->name;
}

static void predeclare(fn *F, int v)
{
    dvar *dv = &F->vars[v];
    int lvl = dv->owner >= 0 ? dv->owner : F->nr - 1;
    region *R = &F->R[lvl];
    if (R->ndecl)
        gsvm_buf_puts(&R->decl, ", ");
    gsvm_buf_puts(&R->decl, dname(F, v));
    R->ndecl++;
    set_owner(F, v, lvl);
    dv->declared = true;
}

/* A variable read: declared somewhere above if nobody declared it yet. */
static const char *use_var(fn *F, int v)
{
    dvar *dv = &F->vars[v];
    if (!dv->declared)
        predeclare(F, v);
    return dv->name;
}

/* ---------------------------------------------------------------- pending values */

static void flush_some(fn *F, bool final, uint32_t upto);
static void flush_all(fn *F) __attribute__((unused));

static void pend_clear(pend *p)
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
static dx get(fn *F, int r, int64_t pc)
{
    if (r < 0 || r >= MAX_REGS) {
        fail(F, "register out of range");
        return dx_make(DX_ATOM, "nil");
    }
    pend *p = &F->P[r];
    switch (p->kind) {
    case PK_EXPR: {
        dx e = p->e;
        p->e.s = NULL;
        pend_clear(p);
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
        pend_clear(p);
        return e;
    }
    case PK_TABLE:
        if (!p->table_local) {
            dx e = table_text(p);
            pend_clear(p);
            return e;
        }
        /* the constructor becomes its variable; values built after it
         * stay pending (they are read after it) */
        flush_some(F, false, p->def_pc);
        break;
    case PK_SELFFN: case PK_SELFOBJ:
        fail(F, "method value used outside a call");
        pend_clear(p);
        break;
    default: break;
    }
    int v = var_of(F, r, pc, false);
    return dx_make(DX_PREFIX, "%s", use_var(F, v));
}

/* An RK operand. */
static dx get_rk(fn *F, uint32_t v, int64_t pc)
{
    if (v >= 256) {
        if (v - 256 >= F->f->nk) {
            fail(F, "constant out of range");
            return dx_make(DX_ATOM, "nil");
        }
        return dx_const(F->D->c, &F->f->k[v - 256]);
    }
    return get(F, (int)v, pc);
}

static dx get_k(fn *F, uint32_t k)
{
    if (k >= F->f->nk) {
        fail(F, "constant out of range");
        return dx_make(DX_ATOM, "nil");
    }
    return dx_const(F->D->c, &F->f->k[k]);
}

static const gsvm_hks_const *kptr(fn *F, uint32_t v)
{
    return v < F->f->nk ? &F->f->k[v] : NULL;
}

/* `name = e` for variable v, `local name = e` where it is first set at the
 * top level of the block that owns it. */
static void assign_var(fn *F, int v, dx e)
{
    dvar *dv = &F->vars[v];
    if (!dv->declared && (dv->owner < 0 || dv->owner == F->nr - 1)) {
        dv->declared = true;
        if (dv->owner < 0)
            set_owner(F, v, F->nr - 1);
        line(F, "local %s = %s", dname(F, v), dx_str(&e));
    } else {
        line(F, "%s = %s", use_var(F, v), dx_str(&e));
    }
    dx_free(&e);
}

/* The array items of constructor t built before a keyed entry (registers
 * above t still waiting for their SETLIST) are listed first, where the
 * source had them: `{10, 20, note = "x"}`. */
static void table_positional(fn *F, int t, int64_t pc)
{
    pend *p = &F->P[t];
    for (int r = t + 1 + p->npos; r < MAX_REGS; r++) {
        pend *q = &F->P[r];
        if (!((q->kind == PK_EXPR || (q->kind == PK_TABLE && !q->table_local)) &&
              q->def_pc > p->def_pc))
            break;
        dx e = get(F, r, pc);
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
static void self_registers(fn *F, int a, int64_t pc, dx obj, dx key)
{
    int vo = var_of(F, a + 1, pc, true);
    assign_var(F, vo, obj);
    dx base = dx_make(DX_PREFIX, "%s", use_var(F, vo));
    assign_var(F, var_of(F, a, pc, true), dx_index(base, NULL, key));
}

/* Writes every pending value to its variable, oldest first. */
/* A method or an open call still waiting for its call stays pending (its
 * reader is the next call; writing it out is impossible); at the end of a
 * block (`final`) nothing may stay. */
static void flush_some(fn *F, bool final, uint32_t upto)
{
    for (;;) {
        int best = -1;
        for (int r = 0; r < MAX_REGS; r++) {
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
            pend_clear(p);
            pend_clear(&F->P[best + 1]);
            self_registers(F, best, dpc, obj, dx_make(DX_ATOM, "\"%s\"", name ? name : "?"));
            free(name);
            continue;
        }
        if (p->kind == PK_SELFFN || p->kind == PK_SELFOBJ || p->kind == PK_MULTI) {
            fail(F, "a value left unused");
            pend_clear(p);
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
        pend_clear(p);
        assign_var(F, var_of(F, best, dpc, true), e);
    }
}

static void flush_all(fn *F) { flush_some(F, false, UINT32_MAX); }
static void flush_final(fn *F) { flush_some(F, true, UINT32_MAX); }

/* A statement: pending values go first. */
static void stmt(fn *F, dx text)
{
    flush_all(F);
    line(F, "%s", dx_str(&text));
    dx_free(&text);
}

/* The value of a definition at pc into register r. */
static void put(fn *F, int r, int64_t pc, dx e)
{
    if (r < 0 || r >= MAX_REGS) {
        dx_free(&e);
        fail(F, "register out of range");
        return;
    }
    if (F->P[r].kind != PK_NONE) {
        flush_all(F);
        pend_clear(&F->P[r]); /* (what a failed flush left) */
    }
    if (F->use[pc] >= 0 || pc == F->force_pc) {
        F->P[r].kind = PK_EXPR;
        F->P[r].e = e;
        F->P[r].def_pc = (uint32_t)pc;
        return;
    }
    flush_all(F);
    assign_var(F, var_of(F, r, pc, true), e);
}

/* ---------------------------------------------------------------- functions */

static bool decompile_function(dc *D, const gsvm_hks_proto *f, const char *path, int depth,
                               int indent, const char **upnames, uint32_t nups, gsvm_buf *out);

/* The text of child function `bx` created at pc: `function(params) ... end`. */
static dx closure_text(fn *F, int64_t pc, uint32_t bx, const char *fname, bool method)
{
    if (bx >= F->f->np) {
        fail(F, "closure of a missing function");
        return dx_make(DX_ATOM, "nil");
    }
    const gsvm_hks_proto *child = &F->f->p[bx];
    if (child->nups >= F->n - pc) {
        fail(F, "closure upvalues past the code");
        return dx_make(DX_ATOM, "nil");
    }
    const char **names = calloc(child->nups ? child->nups : 1, sizeof *names);
    char (*store)[64] = calloc(child->nups ? child->nups : 1, sizeof *store);
    if (!names || !store) {
        free(names);
        free(store);
        fail(F, "out of memory");
        return dx_make(DX_ATOM, "nil");
    }
    for (uint32_t i = 0; i < child->nups; i++) {
        uint32_t d = pc + 1 + i < F->n ? W(F, pc + 1 + i) : 0;
        uint32_t idx = GSVM_HKS_BX(d);
        if (A_(d) == 1 && idx < MAX_REGS) {
            /* (a local function captures the variable it defines) */
            int v = var_of(F, (int)idx, pc, idx == A_(W(F, pc)));
            snprintf(store[i], 64, "%s", use_var(F, v));
        } else if (A_(d) == 2 && idx < F->nups) {
            snprintf(store[i], 64, "%s", F->upnames[idx]);
        } else {
            fail(F, "closure upvalue not recognised");
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
    if (!decompile_function(F->D, child, path, F->depth + 1, F->base + F->nr - 2 + F->extra,
                            names, child->nups, &b))
        fail(F, "child function");
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

static dx call_text(fn *F, int64_t pc, uint32_t a, uint32_t b)
{
    pend *fp = &F->P[a];
    bool method = fp->kind == PK_SELFFN;
    dx callee;
    if (method) {
        callee = fp->e;
        fp->e.s = NULL;
        pend_clear(fp);
        if (F->P[a + 1].kind == PK_SELFOBJ)
            pend_clear(&F->P[a + 1]);
        else
            fail(F, "method call without its object");
    } else {
        callee = dx_wrap(get(F, (int)a, pc), DX_PREFIX);
    }
    gsvm_buf args;
    gsvm_buf_init(&args);
    int64_t last = b == 0 ? F->multret_top : (int64_t)a + b - 1;
    if (b == 0 && last < 0)
        fail(F, "open call arguments without a value");
    for (int64_t r = a + 1 + (method ? 1 : 0); r <= last; r++) {
        dx e;
        if (b == 0 && r == last && F->P[r].kind == PK_MULTI) {
            e = F->P[r].e;
            F->P[r].e.s = NULL;
            pend_clear(&F->P[r]);
        } else {
            e = get(F, (int)r, pc);
            if (r == last)
                e = one_value(e);
        }
        if (args.len)
            gsvm_buf_puts(&args, ", ");
        gsvm_buf_puts(&args, dx_str(&e));
        dx_free(&e);
    }
    if (b == 0)
        F->multret_top = -1;
    gsvm_buf_cstr(&args);
    dx r = dx_make(DX_CALL, "%s(%s)", dx_str(&callee), args.data ? (char *)args.data : "");
    dx_free(&callee);
    gsvm_buf_free(&args);
    return r;
}

/* The values of registers a..last (b = 0: to the open multret value). */
static dx list_text(fn *F, int64_t pc, int64_t a, int64_t last, bool open)
{
    gsvm_buf out;
    gsvm_buf_init(&out);
    for (int64_t r = a; r <= last; r++) {
        dx e;
        if (open && r == last && r >= 0 && r < MAX_REGS && F->P[r].kind == PK_MULTI) {
            e = F->P[r].e;
            F->P[r].e.s = NULL;
            pend_clear(&F->P[r]);
        } else {
            e = get(F, (int)r, pc);
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

static const char *arith_op(unsigned op, int *prec)
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
static dx jump_cond(fn *F, int64_t pc)
{
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc), a = A_(w), b = B_(w), c = C_(w);
    if (op == HKS_I_TEST || op == HKS_I_TEST_R1) {
        dx v = get(F, (int)a, pc);
        return c ? v : dx_not(v);
    }
    if (op == HKS_I_TESTSET) {
        dx v = get(F, (int)b, pc);
        return c ? v : dx_not(v);
    }
    dx l = b_is_k(op) ? get_k(F, b) : get(F, (int)b, pc);
    dx r = get_rk(F, c, pc);
    const char *o = "==";
    bool neg = false;
    switch (op) {
    case HKS_I_EQ: case HKS_I_EQ_BK: o = a ? "==" : "~="; break;
    case HKS_I_LT: case HKS_I_LT_BK: o = "<"; neg = !a; break;
    default: o = "<="; neg = !a; break;
    }
    dx e = dx_binary(l, o, DX_CMP, r);
    return neg ? dx_not(e) : e;
}

static int64_t step(fn *F, int64_t pc, int64_t to);

/* ---------------------------------------------------------------- conditions */

typedef struct cnode {
    int64_t test, jmp, start; /* the test, its JMP, where its operands begin */
    int64_t target;
    dx j; /* taken when true */
} cnode;

enum { MAX_NODES = 64 };

/* Builds "reach tT" over nodes [i, e); falling off node e-1 reaches
 * position nodes[e].start (or `end` when e is the last). */
static dx cond_expr(fn *F, cnode *N, int i, int e, int64_t end, int64_t tT, int64_t tF, int lvl)
{
    int64_t fall = e < 0 ? end : end;
    (void)fall;
    if (lvl > 100) {
        fail(F, "condition too deep");
        return dx_make(DX_ATOM, "true");
    }
    if (i == e) {
        if (end == tT)
            return dx_make(DX_ATOM, "true");
        if (end == tF)
            return dx_make(DX_ATOM, "false");
        fail(F, "condition falls nowhere");
        return dx_make(DX_ATOM, "true");
    }
    int64_t t = N[i].target;
    dx J = N[i].j;
    N[i].j.s = NULL;
    if (t == tF) {
        dx rest = cond_expr(F, N, i + 1, e, end, tT, tF, lvl + 1);
        dx nj = dx_not(J);
        if (rest.s && strcmp(rest.s, "true") == 0) {
            dx_free(&rest);
            return nj;
        }
        return dx_binary(nj, "and", DX_AND, rest);
    }
    if (t == tT) {
        dx rest = cond_expr(F, N, i + 1, e, end, tT, tF, lvl + 1);
        if (rest.s && strcmp(rest.s, "false") == 0) {
            dx_free(&rest);
            return J;
        }
        return dx_binary(J, "or", DX_OR, rest);
    }
    /* a jump to a later node k */
    int k = -1;
    for (int q = i + 1; q < e; q++)
        if (N[q].start == t)
            k = q;
    if (k < 0) {
        dx_free(&J);
        fail(F, "condition jumps into the middle");
        return dx_make(DX_ATOM, "true");
    }
    /* a group [i, m) whose inner jumps pass k: `A and (not B and not C or
     * B and D) and E`, where C's jump goes to E (the group's true exit),
     * past B and D.  The group reaches the start of m or one of the
     * exits; it is one operand of an `and` (it falls to tF) or an `or` */
    int m = k;
    for (bool grew = true; grew;) {
        grew = false;
        for (int q = i + 1; q < m; q++) {
            int64_t tq = N[q].target;
            if (tq == tT || tq == tF)
                continue;
            for (int r = m + 1; r < e; r++)
                if (N[r].start == tq) {
                    m = r;
                    grew = true;
                }
        }
    }
    if (m > k) {
        bool g_f = false, g_t = false;
        for (int q = i; q < m; q++) {
            g_f |= N[q].target == tF;
            g_t |= N[q].target == tT;
        }
        int64_t mpos = N[m].start;
        if (g_f && g_t) {
            dx_free(&J);
            fail(F, "condition shape not recovered");
            return dx_make(DX_ATOM, "true");
        }
        N[i].j = J; /* the group's own call takes node i again */
        bool is_and = !g_t;
        dx G = is_and ? cond_expr(F, N, i, m, mpos, mpos, tF, lvl + 1)
                      : cond_expr(F, N, i, m, mpos, tT, mpos, lvl + 1);
        dx rest = cond_expr(F, N, m, e, end, tT, tF, lvl + 1);
        return is_and ? dx_binary(G, "and", DX_AND, rest) : dx_binary(G, "or", DX_OR, rest);
    }
    bool to_f = false, to_t = false;
    for (int q = i + 1; q < k; q++) {
        to_f |= N[q].target == tF;
        to_t |= N[q].target == tT;
    }
    int64_t kpos = N[k].start;
    if (!to_f) {
        /* (not J and P) or rest, P: nodes i+1..k-1 reach tT (else k) */
        dx P = cond_expr(F, N, i + 1, k, kpos, tT, kpos, lvl + 1);
        dx rest = cond_expr(F, N, k, e, end, tT, tF, lvl + 1);
        dx left = dx_binary(dx_not(J), "and", DX_AND, P);
        return dx_binary(left, "or", DX_OR, rest);
    }
    if (!to_t) {
        dx P = cond_expr(F, N, i + 1, k, kpos, kpos, tF, lvl + 1);
        dx rest = cond_expr(F, N, k, e, end, tT, tF, lvl + 1);
        dx left = dx_binary(J, "or", DX_OR, P);
        return dx_binary(left, "and", DX_AND, rest);
    }
    dx_free(&J);
    fail(F, "condition shape not recovered");
    return dx_make(DX_ATOM, "true");
}

/* Only definitions that fold (and constructor stores) from pc up to the
 * next test: the operands of the next node of a chain. */
static int64_t operands_run(fn *F, int64_t pc, int64_t to)
{
    int64_t start = pc;
    while (pc < to && !is_test(F->op[pc])) {
        if (F->isdata[pc]) {
            pc++;
            continue;
        }
        /* the node's start may be a target (of an earlier node) or follow
         * a JMP; nothing else of it may be jumped to */
        if ((pc != start && F->leader[pc]) || !(F->use[pc] >= 0 || F->absorbed[pc]))
            return -1;
        pc = next_pc(F, pc);
    }
    return pc < to ? pc : -1;
}

/* Finds the chain of tests starting with the test at pc: the node count of
 * the longest prefix whose jumps all go to its true / false exits or to
 * its own nodes.  *tT, *tF: the exits. */
static int chain_scan(fn *F, int64_t pc, int64_t to, cnode *N, int64_t *tT, int64_t *tF,
                      int64_t repeat_start)
{
    int n = 0, best = 0;
    int64_t start = pc;
    while (n < MAX_NODES) {
        if (!is_test(OPAT(F, pc)) || pc + 1 >= to || OPAT(F, pc + 1) != HKS_I_JMP)
            break;
        N[n].start = start;
        N[n].test = pc;
        N[n].jmp = pc + 1;
        N[n].target = jmp_target(F, pc + 1);
        N[n].j.s = NULL;
        n++;
        int64_t T = pc + 2, Fx = N[n - 1].target;
        bool ok = Fx != T && (Fx > T || Fx == repeat_start) && Fx <= F->n;
        for (int i = 0; i < n - 1 && ok; i++) {
            int64_t t = N[i].target;
            bool node = false;
            for (int q = i + 1; q < n; q++)
                node |= N[q].start == t;
            ok = t == T || t == Fx || node;
        }
        if (ok) {
            best = n;
            *tT = T;
            *tF = Fx;
        }
        start = pc + 2;
        if (start < F->n && F->backt[start])
            break;
        int64_t nx = operands_run(F, start, to);
        if (nx < 0)
            break;
        pc = nx;
    }
    return best;
}

/* Emits the operands and tests of an n-node chain; returns "reach tT". */
static dx chain_emit(fn *F, cnode *N, int n, int64_t fall, int64_t tT, int64_t tF)
{
    for (int i = 0; i < n; i++) {
        for (int64_t q = N[i].start; q < N[i].test && !F->fail;)
            q = step(F, q, N[i].test);
        N[i].j = jump_cond(F, N[i].test);
    }
    dx e = cond_expr(F, N, 0, n, fall, tT, tF, 0);
    for (int i = 0; i < n; i++)
        dx_free(&N[i].j);
    return e;
}

/* ---------------------------------------------------------------- structure */

typedef struct loopctx {
    int64_t exit;         /* break target (-1 none) */
    int64_t cont, cont2;  /* where falling off the block goes */
    int64_t repeat_start; /* a repeat body: its first pc (-1 none) */
    int64_t repeat_end;
    int64_t end;          /* the block's own end */
} loopctx;

static void emit_range(fn *F, int64_t from, int64_t to, const loopctx *L);

/* Whether a jump to t leaves the loop of L (a break).  The compiler merges
 * the jumps pending at a pc into a JMP coded there (Lua 5.1's luaK_jump), so
 * a break whose loop exit holds a plain JMP lands where that JMP goes, and
 * so on down the chain. */
static bool is_exit(const fn *F, const loopctx *L, int64_t t)
{
    int64_t x = L->exit;
    for (int i = 0; x >= 0 && i < 64; i++) {
        if (t == x)
            return true;
        if (OPAT(F, x) != HKS_I_JMP || (x > 0 && is_test(OPAT(F, x - 1))))
            return false;
        x = jmp_target(F, x);
    }
    return false;
}

static void sub_range(fn *F, int64_t from, int64_t to, const loopctx *L, int64_t cont)
{
    loopctx S = *L;
    if (to != L->end) {
        S.cont = cont;
        S.cont2 = -2;
    }
    S.end = to;
    S.repeat_start = -1;
    if (!open_region(F, from, to))
        return;
    emit_range(F, from, to, &S);
    flush_final(F);
    close_region(F);
}

static bool is_back_jmp(const fn *F, int64_t q, int64_t pc)
{
    if (OPAT(F, q) != HKS_I_JMP || jmp_target(F, q) != pc)
        return false;
    unsigned prev = q > 0 ? OPAT(F, q - 1) : HKS_NO_OP;
    return prev != HKS_I_TFORLOOP;
}

/* A numeric for at pc (FORPREP). */
static int64_t emit_numfor(fn *F, int64_t pc, int64_t to, const loopctx *L)
{
    (void)L;
    uint32_t w = W(F, pc), a = A_(w);
    int64_t t = jmp_target(F, pc);
    if (t <= pc || t >= to || OPAT(F, t) != HKS_I_FORLOOP || A_(W(F, t)) != a ||
        jmp_target(F, t) != pc + 1 || a + 3 >= MAX_REGS) {
        fail(F, "for loop shape");
        return to;
    }
    dx init = get(F, (int)a, pc), lim = get(F, (int)a + 1, pc), stp = get(F, (int)a + 2, pc);
    flush_all(F);
    int v;
    if (F->debug && local_at(F, (int)a + 3, pc + 1, false) >= 0)
        v = var_of(F, (int)a + 3, pc + 1, false);
    else
        v = new_var(F, "i", (int)a + 3);
    int saved = F->override[a + 3];
    F->override[a + 3] = v;
    F->vars[v].declared = true;
    /* a typed loop variable: its check opens the body */
    if (OPAT(F, pc + 1) == HKS_I_CHECKTYPE && A_(W(F, pc + 1)) == a + 3)
        set_type(F, v, W(F, pc + 1), HKS_I_CHECKTYPE);
    if (stp.s && strcmp(stp.s, "1") == 0)
        line(F, "for %s = %s, %s do", dname(F, v), dx_str(&init), dx_str(&lim));
    else
        line(F, "for %s = %s, %s, %s do", dname(F, v), dx_str(&init), dx_str(&lim),
             dx_str(&stp));
    dx_free(&init);
    dx_free(&lim);
    dx_free(&stp);
    loopctx B = {t + 1, t, -2, -1, -1, t};
    if (open_region(F, pc + 1, t)) {
        emit_range(F, pc + 1, t, &B);
        flush_final(F);
        close_region(F);
    }
    F->override[a + 3] = saved;
    line(F, "end");
    return t + 1;
}

/* A generic for: JMP to TFORLOOP, the body, TFORLOOP, JMP back. */
static int64_t emit_genfor(fn *F, int64_t pc, int64_t t)
{
    uint32_t w = W(F, t), a = A_(w), c = C_(w);
    if (c < 1 || a + 2 + c >= MAX_REGS) {
        fail(F, "generic for shape");
        return t + 2;
    }
    dx ex;
    if (F->P[a].kind == PK_MULTI && F->P[a].nres == 3) {
        ex = F->P[a].e;
        F->P[a].e.s = NULL;
        pend_clear(&F->P[a]);
    } else {
        ex = list_text(F, pc, a, a + 2, false);
        /* drop trailing nils the compiler pads the list with */
        while (ex.s) {
            size_t n = strlen(ex.s);
            if (n > 5 && strcmp(ex.s + n - 5, ", nil") == 0)
                ex.s[n - 5] = 0;
            else
                break;
        }
    }
    flush_all(F);
    int saved[MAX_REGS];
    gsvm_buf names;
    gsvm_buf_init(&names);
    for (uint32_t i = 0; i < c; i++) {
        int r = (int)(a + 3 + i);
        saved[i] = F->override[r];
        int v;
        if (F->debug && local_at(F, r, pc + 1, false) >= 0)
            v = var_of(F, r, pc + 1, false);
        else {
            char base[16];
            snprintf(base, sizeof base, "%s", i == 0 ? "k" : i == 1 ? "v" : "v");
            v = new_var(F, base, r);
        }
        F->override[r] = v;
        F->vars[v].declared = true;
        if (i)
            gsvm_buf_puts(&names, ", ");
        gsvm_buf_puts(&names, F->vars[v].name);
    }
    gsvm_buf_cstr(&names);
    line(F, "for %s in %s do", (char *)names.data, dx_str(&ex));
    gsvm_buf_free(&names);
    dx_free(&ex);
    loopctx B = {t + 2, t, -2, -1, -1, t};
    if (open_region(F, pc + 1, t)) {
        emit_range(F, pc + 1, t, &B);
        flush_final(F);
        close_region(F);
    }
    for (uint32_t i = 0; i < c; i++)
        F->override[a + 3 + i] = saved[i];
    line(F, "end");
    return t + 2;
}

/* A test at pc that starts a condition: if, a value, or a loop's exit. */
static int64_t emit_cond(fn *F, int64_t pc, int64_t to, const loopctx *L)
{
    cnode N[MAX_NODES];
    int64_t tT = -1, tF = -1;
    if (pc + 2 <= to && OPAT(F, pc + 1) == HKS_I_JMP && jmp_target(F, pc + 1) == pc + 2 &&
        F->op[pc] != HKS_I_TESTSET && !F->jtarget[pc + 1]) {
        /* `if c then end`: the false jump goes where the empty block ends */
        dx j = jump_cond(F, pc);
        flush_all(F);
        j = dx_not(j);
        line(F, "if %s then", dx_str(&j));
        line(F, "end");
        dx_free(&j);
        return pc + 2;
    }
    int n = chain_scan(F, pc, to, N, &tT, &tF, L->repeat_start);
    if (n == 0) {
        fail(F, "test without a condition shape");
        return to;
    }
    /* repeat ... until: the chain closes the repeat body */
    if (L->repeat_start >= 0 && tF == L->repeat_start && tT == L->repeat_end) {
        dx c = chain_emit(F, N, n, tT, tT, tF);
        flush_all(F);
        /* the caller prints "until c" after the block */
        line(F, "\x01%s", dx_str(&c));
        dx_free(&c);
        return tT;
    }
    /* a comparison as a value: LOADBOOL A 0 1; LOADBOOL A 1 0 */
    if (tT < F->n && tF == tT + 1 && OPAT(F, tT) == HKS_I_LOADBOOL &&
        OPAT(F, tF) == HKS_I_LOADBOOL && C_(W(F, tT)) == 1 && B_(W(F, tT)) == 0 &&
        B_(W(F, tF)) == 1 && C_(W(F, tF)) == 0 && A_(W(F, tT)) == A_(W(F, tF))) {
        dx c = chain_emit(F, N, n, tT, tF, tT);
        bool boolean = true;
        for (int i = 0; i < n; i++)
            if (is_test(F->op[N[i].test]) &&
                (F->op[N[i].test] == HKS_I_TEST || F->op[N[i].test] == HKS_I_TEST_R1))
                boolean = false;
        if (!boolean)
            c = dx_unary("not", dx_unary("not", c));
        put(F, (int)A_(W(F, tT)), tF, c);
        return tF + 1;
    }
    if (tF <= tT || tF > to) {
        bool to_end = tF == L->cont || (tF == L->cont2 && L->cont2 >= 0);
        if (to_end) {
            /* false goes where the block goes: the rest of it is the then */
            dx c = chain_emit(F, N, n, tT, tT, tF);
            flush_all(F);
            line(F, "if %s then", dx_str(&c));
            dx_free(&c);
            sub_range(F, tT, to, L, L->cont);
            line(F, "end");
            return to;
        }
        if (is_exit(F, L, tF)) {
            /* `if c then A else break end`: the else block is just the
             * break's JMP at X, so the false jump, pending there, was merged
             * into it (it goes to the loop's exit); A ends in a JMP over X */
            for (int64_t X = tT + 1; X < to; X = next_pc(F, X)) {
                int64_t j = X - 1;
                if (OPAT(F, X) != HKS_I_JMP || !is_exit(F, L, jmp_target(F, X)) ||
                    F->isdata[j] || OPAT(F, j) != HKS_I_JMP || (j > 0 && is_test(OPAT(F, j - 1))))
                    continue;
                int64_t E = jmp_target(F, j);
                if (E != next_pc(F, X) || E > to || j < tT)
                    continue;
                dx c = chain_emit(F, N, n, tT, tT, tF);
                flush_all(F);
                line(F, "if %s then", dx_str(&c));
                dx_free(&c);
                sub_range(F, tT, j, L, E);
                line(F, "else");
                line(F, "  break");
                line(F, "end");
                return E;
            }
            dx c = chain_emit(F, N, n, tT, tT, tF);
            flush_all(F);
            c = dx_not(c);
            line(F, "if %s then break end", dx_str(&c));
            dx_free(&c);
            return tT;
        }
        fail(F, "condition exits the block");
        return to;
    }
    dx c = chain_emit(F, N, n, tT, tT, tF);
    flush_all(F);
    /* else: the then block ends in a forward JMP past the else block */
    int64_t last = tF - 1;
    int64_t E = -1;
    if (last >= tT && OPAT(F, last) == HKS_I_JMP && !(last > 0 && is_test(OPAT(F, last - 1)))) {
        int64_t t = jmp_target(F, last);
        if (is_exit(F, L, t))
            E = -1;
        else if (t > tF && t <= to)
            E = t;
        else if ((t == L->cont || t == L->cont2) && to > tF)
            E = to;
    }
    line(F, "if %s then", dx_str(&c));
    dx_free(&c);
    if (E >= 0) {
        sub_range(F, tT, last, L, E);
        line(F, "else");
        sub_range(F, tF, E, L, E);
        line(F, "end");
        return E;
    }
    sub_range(F, tT, tF, L, tF);
    line(F, "end");
    return tF;
}

/* ---------------------------------------------------------------- value regions */

typedef struct vnode {
    int64_t start, test, target;
    bool value; /* a test of the region's register that ends it with its value */
    bool truthy; /* its jump is taken when the tested value is true */
    dx v;       /* value nodes: the value */
} vnode;

typedef struct vtree {
    fn *F;
    vnode *N;
    cnode *C;
    int m;    /* nodes; node m is the tail */
    int64_t E, tail_start;
    dx tail;
} vtree;

static int64_t vstart(const vtree *T, int k) { return k < T->m ? T->N[k].start : T->tail_start; }

static dx vvalue(vtree *T, int k)
{
    dx *p = k < T->m ? &T->N[k].v : &T->tail;
    dx e = *p;
    p->s = NULL;
    if (!e.s) {
        fail(T->F, "value region shape");
        return dx_make(DX_ATOM, "nil");
    }
    return e;
}

/* The value of nodes [i, e) followed by node e's value; their jumps go to
 * the region's end (with a value), to `bnd` (this part is false when
 * `bkind` is 'F', true when 'T') or to nodes inside.  The operator at the
 * top is at the first node that jumps to an exit with every earlier node
 * jumping no further than the node after it. */
static dx vbuild(vtree *T, int i, int e, int64_t bnd, char bkind, int lvl)
{
    fn *F = T->F;
    if (lvl > 100 || F->fail) {
        fail(F, "value region too deep");
        return dx_make(DX_ATOM, "nil");
    }
    if (i == e)
        return vvalue(T, e);
    for (int j = i; j < e; j++) {
        int64_t t = T->N[j].target;
        if (t != T->E && t != bnd)
            continue;
        int64_t next = vstart(T, j + 1);
        bool ok = true;
        for (int k = i; k < j; k++)
            ok &= T->N[k].target <= next;
        if (!ok)
            continue;
        if (t == T->E) {
            if (!T->N[j].value)
                break;
            bool is_or = T->N[j].truthy;
            dx left = vbuild(T, i, j, next, is_or ? 'F' : 'T', lvl + 1);
            dx rest = vbuild(T, j + 1, e, bnd, bkind, lvl + 1);
            return dx_binary(left, is_or ? "or" : "and", is_or ? DX_OR : DX_AND, rest);
        }
        if (T->N[j].value)
            break;
        dx cond = bkind == 'F' ? cond_expr(F, T->C, i, j + 1, next, next, bnd, lvl + 1)
                               : cond_expr(F, T->C, i, j + 1, next, bnd, next, lvl + 1);
        dx rest = vbuild(T, j + 1, e, bnd, bkind, lvl + 1);
        return bkind == 'F' ? dx_binary(cond, "and", DX_AND, rest)
                            : dx_binary(cond, "or", DX_OR, rest);
    }
    fail(F, "value region shape");
    return dx_make(DX_ATOM, "nil");
}

/* The value region starting with the test at s (find_value_regions). */
static int64_t emit_value(fn *F, int64_t s)
{
    int64_t E = F->vend[s];
    int R = F->vreg[s];
    vnode *N = calloc(MAX_NODES, sizeof *N);
    cnode *C = calloc(MAX_NODES, sizeof *C);
    if (!N || !C) {
        free(N);
        free(C);
        fail(F, "out of memory");
        return E;
    }
    vtree T = {F, N, C, 0, E, 0, {NULL, 0}};
    int64_t start = s;
    for (int64_t q = s; q < E; q = next_pc(F, q)) {
        if (!is_test(F->op[q]))
            continue;
        if (T.m == MAX_NODES) {
            fail(F, "value region too long");
            break;
        }
        vnode *v = &N[T.m];
        v->start = start;
        v->test = q;
        v->target = jmp_target(F, q + 1);
        uint32_t w = W(F, q);
        v->value = v->target == E && (int)A_(w) == R;
        v->truthy = C_(w) != 0;
        C[T.m].start = start;
        C[T.m].test = q;
        C[T.m].jmp = q + 1;
        C[T.m].target = v->target;
        T.m++;
        start = q + 2;
        q = q + 1;
    }
    T.tail_start = start;
    /* the operands, in order */
    for (int k = 0; k < T.m && !F->fail; k++) {
        for (int64_t q = N[k].start; q < N[k].test && !F->fail;)
            q = step(F, q, N[k].test);
        unsigned op = F->op[N[k].test];
        if (N[k].value)
            N[k].v = op == HKS_I_TESTSET ? get(F, (int)B_(W(F, N[k].test)), N[k].test)
                                         : get(F, R, N[k].test);
        else
            C[k].j = jump_cond(F, N[k].test);
    }
    int64_t saved = F->force_pc;
    F->force_pc = F->vtail[s];
    for (int64_t q = T.tail_start; q < E && !F->fail;)
        q = step(F, q, E);
    F->force_pc = saved;
    T.tail = get(F, R, E);
    dx v = F->fail ? dx_make(DX_ATOM, "nil") : vbuild(&T, 0, T.m, -1, 0, 0);
    for (int k = 0; k < T.m; k++) {
        dx_free(&N[k].v);
        dx_free(&C[k].j);
    }
    dx_free(&T.tail);
    free(N);
    free(C);
    put(F, R, F->vtail[s], v);
    return E;
}

/* A boolean-tailed value (find_bool_tails): the chain from s exits to one
 * half of the LOADBOOL pair at L; falling through computes the tail. */
static int64_t emit_bool_tail(fn *F, int64_t s)
{
    int64_t L = F->bend[s];
    int R = (int)A_(W(F, L));
    cnode N[MAX_NODES];
    int64_t tT = -1, tF = -1;
    int n = chain_scan(F, s, L - 1, N, &tT, &tF, -1);
    if (n == 0 || (tF != L && tF != L + 1) || tT >= L - 1) {
        fail(F, "boolean value shape");
        return L + 2;
    }
    for (int64_t q = tT; q < L - 1; q = next_pc(F, q))
        if (is_test(F->op[q]) && OPAT(F, q + 1) == HKS_I_JMP &&
            (jmp_target(F, q + 1) == L || jmp_target(F, q + 1) == L + 1)) {
            fail(F, "boolean value shape");
            return L + 2;
        }
    bool is_and = tF == L;
    dx c = is_and ? chain_emit(F, N, n, tT, tT, tF) : chain_emit(F, N, n, tT, tF, tT);
    int64_t saved = F->force_pc;
    F->force_pc = L - 2;
    while (F->force_pc > tT && F->isdata[F->force_pc])
        F->force_pc--;
    loopctx none = {-1, L - 1, -2, -1, -1, L - 1};
    for (int64_t q = tT; q < L - 1 && !F->fail;)
        q = F->bend[q] ? emit_bool_tail(F, q)
            : is_test(F->op[q]) && F->op[q] != HKS_I_TESTSET ? emit_cond(F, q, L - 1, &none)
                                                            : step(F, q, L - 1);
    F->force_pc = saved;
    dx tail = get(F, R, L);
    put(F, R, L + 1, is_and ? dx_binary(c, "and", DX_AND, tail) : dx_binary(c, "or", DX_OR, tail));
    return L + 2;
}

/* A value-context `or` / `and`: TESTSET A B C; JMP E; (value into A); E. */
static int64_t emit_testset(fn *F, int64_t pc, int64_t to)
{
    uint32_t w = W(F, pc), a = A_(w), c = C_(w);
    int64_t E = pc + 1 < F->n && OPAT(F, pc + 1) == HKS_I_JMP ? jmp_target(F, pc + 1) : -1;
    if (E == pc + 2 && E <= to && a < MAX_REGS) {
        /* `x = e and x` (`or`): the other operand is A itself, already in
         * place, so the jump skips nothing */
        dx left = get(F, (int)B_(w), pc);
        dx right = get(F, (int)a, pc);
        put(F, (int)a, pc, c ? dx_binary(left, "or", DX_OR, right)
                             : dx_binary(left, "and", DX_AND, right));
        return E;
    }
    if (E <= pc + 2 || E > to || a >= MAX_REGS) {
        fail(F, "TESTSET shape");
        return to;
    }
    /* the other operand's definition: the last instruction, or a
     * constructor whose stores run to the end */
    int64_t last = E - 1;
    while (last > pc + 2 && F->isdata[last])
        last--;
    for (int64_t q = pc + 2; q < E; q = next_pc(F, q))
        if (F->op[q] == HKS_I_NEWTABLE && A_(W(F, q)) == a) {
            bool built = true;
            for (int64_t r = next_pc(F, q); r < E && built; r = next_pc(F, r))
                built = F->absorbed[r] || F->use[r] >= 0;
            if (built) {
                last = q;
                break;
            }
        }
    for (int64_t q = pc + 2; q < E; q = next_pc(F, q)) {
        unsigned o = F->op[q];
        if (!(F->use[q] >= 0 || F->absorbed[q] || is_test(o) || o == HKS_I_JMP ||
              o == HKS_I_LOADBOOL || (q == last && defines_value(F, q)))) {
            fail(F, "statement inside a value");
            return to;
        }
    }
    dx left = get(F, (int)B_(w), pc);
    int64_t q = pc + 2;
    int64_t saved = F->force_pc;
    F->force_pc = last; /* the last definition of A before E: the other operand */
    /* (`a and #a >= 2`: the other operand may be a comparison value) */
    loopctx none = {-1, E, -2, -1, -1, E};
    while (q < E && !F->fail)
        q = F->bend[q] && F->bend[q] + 2 <= E ? emit_bool_tail(F, q)
            : is_test(F->op[q]) && F->op[q] != HKS_I_TESTSET ? emit_cond(F, q, E, &none)
                                                            : step(F, q, E);
    F->force_pc = saved;
    dx right = get(F, (int)a, E);
    dx v = c ? dx_binary(left, "or", DX_OR, right) : dx_binary(left, "and", DX_AND, right);
    put(F, (int)a, E - 1, v);
    return E;
}

/* The target of store q as text (its operands are used up). */
static dx store_target(fn *F, int64_t q)
{
    unsigned op = F->op[q];
    uint32_t w = W(F, q), a = A_(w), b = B_(w), bx = GSVM_HKS_BX(w);
    if (op == HKS_I_SETGLOBAL) {
        const gsvm_hks_const *k = kptr(F, bx);
        if (k && k->type == GSVM_HKS_K_STRING && k->s.size > 1 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1))
            return dx_make(DX_PREFIX, "%s", k->s.data);
        dx kt = get_k(F, bx);
        dx e = dx_make(DX_PREFIX, "getfenv(1)[%s]", dx_str(&kt));
        dx_free(&kt);
        return e;
    }
    if (op == HKS_I_SETUPVAL || op == HKS_I_SETUPVAL_R1)
        return dx_make(DX_PREFIX, "%s", b < F->nups ? F->upnames[b] : "nil");
    if (op == HKS_I_MOVE)
        return dx_make(DX_PREFIX, "%s", use_var(F, var_of(F, (int)a, q, true)));
    bool kb = b_is_k(op);
    dx base = get(F, (int)a, q);
    dx key = kb ? get_k(F, b) : get(F, (int)b, q);
    return dx_index(base, kb ? kptr(F, b) : NULL, key);
}

/* `t1, t2, t3 = v1, v2, v3`: stores at pc and after it that take pending
 * values of consecutive registers from the highest down.  -1: not one. */
static int64_t emit_massign(fn *F, int64_t pc, int64_t to)
{
    enum { MAXM = 64 };
    int64_t qs[MAXM];
    int rvs[MAXM], m = 0, rv;
    for (int64_t q = pc; q < to && m < MAXM && mstore(F, q, &rv); q = next_pc(F, q)) {
        if (q != pc && F->leader[q])
            break;
        if (m > 0 && rv != rvs[m - 1] - 1)
            break;
        if (F->P[rv].kind != PK_EXPR)
            break;
        if (F->op[q] == HKS_I_MOVE) {
            dvar *dv = &F->vars[var_of(F, (int)A_(W(F, q)), q, true)];
            if (!dv->declared)
                break;
        }
        qs[m] = q;
        rvs[m++] = rv;
    }
    if (m < 2)
        return -1;
    /* every value but the last stored is pending for a later store */
    for (int i = 0; i + 1 < m; i++)
        if (F->P[rvs[i]].def_pc <= F->P[rvs[i + 1]].def_pc)
            return -1;
    gsvm_buf lhs, rhs;
    gsvm_buf_init(&lhs);
    gsvm_buf_init(&rhs);
    dx T[MAXM], V[MAXM];
    for (int i = 0; i < m; i++) {
        V[i] = get(F, rvs[i], qs[i]);
        T[i] = store_target(F, qs[i]);
    }
    for (int i = m - 1; i >= 0; i--) {
        gsvm_buf_puts(&lhs, dx_str(&T[i]));
        gsvm_buf_puts(&rhs, dx_str(&V[i]));
        if (i) {
            gsvm_buf_puts(&lhs, ", ");
            gsvm_buf_puts(&rhs, ", ");
        }
        dx_free(&T[i]);
        dx_free(&V[i]);
    }
    gsvm_buf_cstr(&lhs);
    gsvm_buf_cstr(&rhs);
    flush_all(F);
    line(F, "%s = %s", (char *)lhs.data, (char *)rhs.data);
    gsvm_buf_free(&lhs);
    gsvm_buf_free(&rhs);
    return next_pc(F, qs[m - 1]);
}

/* One instruction that is not control flow (or a return); the next pc. */
static int64_t step(fn *F, int64_t pc, int64_t to)
{
    if (F->fail)
        return to;
    if (F->isdata[pc])
        return pc + 1;
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc), a = A_(w), b = B_(w), c = C_(w), bx = GSVM_HKS_BX(w);
    int64_t nx = next_pc(F, pc);
    int prec;
    const char *aop;
    if (op == HKS_NO_OP) {
        fail(F, "an opcode the profile does not have");
        return to;
    }
    if ((aop = arith_op(op, &prec)) != NULL) {
        dx l = b_is_k(op) ? get_k(F, b) : get(F, (int)b, pc);
        dx r = get_rk(F, c, pc);
        dx e;
        if (prec == 0) {
            l = dx_wrap(l, DX_ATOM);
            r = dx_wrap(r, DX_ATOM);
            e = dx_make(DX_ATOM, "(%s %s %s)", dx_str(&l), aop, dx_str(&r));
            dx_free(&l);
            dx_free(&r);
        } else {
            e = dx_binary(l, aop, prec, r);
        }
        put(F, (int)a, pc, e);
        return nx;
    }
    if (is_call(op)) {
        if (a >= MAX_REGS - 1) {
            fail(F, "register out of range");
            return to;
        }
        dx e = call_text(F, pc, a, b);
        if (c == 1) {
            stmt(F, e);
        } else if (c == 2) {
            put(F, (int)a, pc, e);
        } else if (c == 0 ||
                   (c == 4 && !F->dispatch && nx < F->n && OPAT(F, nx) == HKS_I_JMP &&
                    OPAT(F, jmp_target(F, nx)) == HKS_I_TFORLOOP &&
                    A_(W(F, jmp_target(F, nx))) == a)) {
            if (F->P[a].kind != PK_NONE) {
                flush_all(F);
                pend_clear(&F->P[a]);
            }
            F->P[a].kind = PK_MULTI;
            F->P[a].e = e;
            F->P[a].nres = c == 0 ? 0 : 3;
            F->P[a].def_pc = (uint32_t)pc;
            if (c == 0)
                F->multret_top = (int)a;
        } else {
            /* several results into variables: a multiple assignment */
            flush_all(F);
            gsvm_buf lhs;
            gsvm_buf_init(&lhs);
            bool all_new = true;
            for (uint32_t r = a; r + 2 <= a + c; r++) {
                dvar *dv = &F->vars[var_of(F, (int)r, pc, true)];
                if (dv->declared || !(dv->owner < 0 || dv->owner == F->nr - 1))
                    all_new = false;
            }
            for (uint32_t r = a; r + 2 <= a + c; r++) {
                int v = var_of(F, (int)r, pc, true);
                if (all_new) {
                    F->vars[v].declared = true;
                    if (F->vars[v].owner < 0)
                        set_owner(F, v, F->nr - 1);
                }
                if (lhs.len)
                    gsvm_buf_puts(&lhs, ", ");
                gsvm_buf_puts(&lhs, all_new ? dname(F, v) : use_var(F, v));
            }
            gsvm_buf_cstr(&lhs);
            line(F, "%s%s = %s", all_new ? "local " : "", (char *)lhs.data, dx_str(&e));
            gsvm_buf_free(&lhs);
            dx_free(&e);
        }
        return nx;
    }
    if (is_tailcall(op)) {
        dx e = call_text(F, pc, a, b);
        flush_all(F);
        /* the unreachable RETURN the compiler puts after it */
        int64_t after = nx;
        if (after < F->n && OPAT(F, after) == HKS_I_RETURN && !F->jtarget[after])
            after = next_pc(F, after);
        /* and the function's own final RETURN */
        if (after + 1 == (int64_t)F->n && to == F->n && OPAT(F, after) == HKS_I_RETURN &&
            B_(W(F, after)) == 1 && !F->jtarget[after])
            after = F->n;
        if (after < to)
            line(F, "do return %s end", dx_str(&e));
        else
            line(F, "return %s", dx_str(&e));
        dx_free(&e);
        return after;
    }
    {
        int64_t after = emit_massign(F, pc, to);
        if (after >= 0)
            return after;
    }
    switch (op) {
    case HKS_I_MOVE: put(F, (int)a, pc, get(F, (int)b, pc)); return nx;
    case HKS_I_LOADK: put(F, (int)a, pc, get_k(F, bx)); return nx;
    case HKS_I_LOADBOOL:
        if (c) {
            fail(F, "LOADBOOL skip outside a comparison value");
            return to;
        }
        put(F, (int)a, pc, dx_make(DX_ATOM, b ? "true" : "false"));
        return nx;
    case HKS_I_LOADNIL:
        if (a == b) {
            put(F, (int)a, pc, dx_make(DX_ATOM, "nil"));
        } else {
            flush_all(F);
            for (uint32_t r = a; r <= b && r < MAX_REGS && !F->fail; r++)
                assign_var(F, var_of(F, (int)r, pc, true), dx_make(DX_ATOM, "nil"));
        }
        return nx;
    case HKS_I_GETGLOBAL: case HKS_I_GETGLOBAL_MEM: {
        const gsvm_hks_const *k = kptr(F, bx);
        if (!k || k->type != GSVM_HKS_K_STRING || k->s.size < 2 ||
            !dx_is_name(k->s.data, (size_t)k->s.size - 1)) {
            /* a global that is not a name: through the environment table */
            dx kt = get_k(F, bx);
            put(F, (int)a, pc, dx_make(DX_PREFIX, "getfenv(1)[%s]", dx_str(&kt)));
            dx_free(&kt);
        } else {
            put(F, (int)a, pc, dx_make(DX_PREFIX, "%s", k->s.data));
        }
        return nx;
    }
    case HKS_I_SETGLOBAL: {
        const gsvm_hks_const *k = kptr(F, bx);
        dx v;
        if (F->P[a].kind == PK_EXPR && F->P[a].e.s && strncmp(F->P[a].e.s, "function(", 9) == 0 &&
            k && k->type == GSVM_HKS_K_STRING && k->s.size > 1 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1)) {
            v = get(F, (int)a, pc);
            stmt(F, dx_make(DX_ATOM, "function %s%s", k->s.data, v.s + 8));
            dx_free(&v);
            return nx;
        }
        v = get(F, (int)a, pc);
        dx kt = get_k(F, bx);
        if (k && k->type == GSVM_HKS_K_STRING && k->s.size > 1 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1))
            stmt(F, dx_make(DX_ATOM, "%s = %s", k->s.data, dx_str(&v)));
        else
            stmt(F, dx_make(DX_ATOM, "getfenv(1)[%s] = %s", dx_str(&kt), dx_str(&v)));
        dx_free(&v);
        dx_free(&kt);
        return nx;
    }
    case HKS_I_GETUPVAL:
        if (b >= F->nups) {
            fail(F, "upvalue out of range");
            return to;
        }
        put(F, (int)a, pc, dx_make(DX_PREFIX, "%s", F->upnames[b]));
        return nx;
    case HKS_I_SETUPVAL: case HKS_I_SETUPVAL_R1: {
        if (b >= F->nups) {
            fail(F, "upvalue out of range");
            return to;
        }
        dx v = get(F, (int)a, pc);
        stmt(F, dx_make(DX_ATOM, "%s = %s", F->upnames[b], dx_str(&v)));
        dx_free(&v);
        return nx;
    }
    case HKS_I_GETFIELD: case HKS_I_GETFIELD_R1: case HKS_I_GETFIELD_MM: {
        dx base = get(F, (int)b, pc);
        put(F, (int)a, pc, dx_index(base, kptr(F, c), get_k(F, c)));
        return nx;
    }
    case HKS_I_GETTABLE: case HKS_I_GETTABLE_S: case HKS_I_GETTABLE_N: {
        dx base = get(F, (int)b, pc);
        dx key = get_rk(F, c, pc);
        put(F, (int)a, pc, dx_index(base, c >= 256 ? kptr(F, c - 256) : NULL, key));
        return nx;
    }
    case HKS_I_SETFIELD: case HKS_I_SETFIELD_R1: case HKS_I_SETTABLE: case HKS_I_SETTABLE_BK:
    case HKS_I_SETTABLE_S: case HKS_I_SETTABLE_S_BK: case HKS_I_SETTABLE_N:
    case HKS_I_SETTABLE_N_BK: {
        bool kb = b_is_k(op);
        const gsvm_hks_const *kc = kb ? kptr(F, b) : NULL;
        if (F->absorbed[pc] && a < MAX_REGS && F->P[a].kind == PK_TABLE) {
            dx key = kb ? get_k(F, b) : get(F, (int)b, pc);
            dx val = get_rk(F, c, pc);
            pend *p = &F->P[a];
            if (p->kind != PK_TABLE) {
                /* reading the operands closed the constructor */
                dx target = dx_index(get(F, (int)a, pc), kc, key);
                stmt(F, dx_make(DX_ATOM, "%s = %s", dx_str(&target), dx_str(&val)));
                dx_free(&target);
                dx_free(&val);
                return nx;
            }
            table_positional(F, (int)a, pc);
            if (p->nitems)
                gsvm_buf_puts(&p->items, ", ");
            if (kc && kc->type == GSVM_HKS_K_STRING && kc->s.size > 1 &&
                dx_is_name(kc->s.data, (size_t)kc->s.size - 1))
                gsvm_buf_printf(&p->items, "%s = %s", kc->s.data, dx_str(&val));
            else
                gsvm_buf_printf(&p->items, "[%s] = %s", dx_str(&key), dx_str(&val));
            p->nitems++;
            dx_free(&key);
            dx_free(&val);
            return nx;
        }
        dx base = get(F, (int)a, pc);
        dx key = kb ? get_k(F, b) : get(F, (int)b, pc);
        bool named = kc && kc->type == GSVM_HKS_K_STRING && kc->s.size > 1 &&
                     dx_is_name(kc->s.data, (size_t)kc->s.size - 1);
        if (named && c < 256 && F->P[c].kind == PK_EXPR && F->P[c].e.s &&
            strncmp(F->P[c].e.s, "function(", 9) == 0 && base.prec >= DX_PREFIX && base.s &&
            dx_is_name(base.s, strlen(base.s))) {
            /* function a.b(...) */
            dx v = get(F, (int)c, pc);
            stmt(F, dx_make(DX_ATOM, "function %s.%s%s", base.s, kc->s.data, v.s + 8));
            dx_free(&v);
            dx_free(&base);
            dx_free(&key);
            return nx;
        }
        dx val = get_rk(F, c, pc);
        dx target = dx_index(base, kc, key);
        stmt(F, dx_make(DX_ATOM, "%s = %s", dx_str(&target), dx_str(&val)));
        dx_free(&target);
        dx_free(&val);
        return nx;
    }
    case HKS_I_GETSLOT: case HKS_I_GETSLOT_D: case HKS_I_GETSLOTMT: {
        const char *name = slot_name(F, pc);
        if (!name)
            return to;
        dx base = dx_wrap(get(F, (int)b, pc), DX_PREFIX);
        put(F, (int)a, pc, dx_make(DX_PREFIX, "%s.%s", dx_str(&base), name));
        dx_free(&base);
        return nx;
    }
    case HKS_I_SETSLOTI: case HKS_I_SETSLOT: case HKS_I_SETSLOTS: case HKS_I_SETSLOTN:
    case HKS_I_SETSLOTMT: {
        const char *name = slot_name(F, pc);
        if (!name)
            return to;
        dx val = op == HKS_I_SETSLOTN ? dx_make(DX_ATOM, "nil") : get_rk(F, c, pc);
        if (F->absorbed[pc] && a < MAX_REGS && F->P[a].kind == PK_TABLE) {
            pend *p = &F->P[a];
            table_positional(F, (int)a, pc);
            if (p->nitems)
                gsvm_buf_puts(&p->items, ", ");
            gsvm_buf_printf(&p->items, "%s = %s", name, dx_str(&val));
            p->nitems++;
            dx_free(&val);
            return nx;
        }
        dx base = dx_wrap(get(F, (int)a, pc), DX_PREFIX);
        stmt(F, dx_make(DX_ATOM, "%s.%s = %s", dx_str(&base), name, dx_str(&val)));
        dx_free(&base);
        dx_free(&val);
        return nx;
    }
    case HKS_I_SELF: case HKS_I_SELFSLOT: case HKS_I_SELFSLOTMT: {
        if (a + 1 >= MAX_REGS) {
            fail(F, "register out of range");
            return to;
        }
        const char *mname = NULL;
        if (op != HKS_I_SELF && !(mname = slot_name(F, pc)))
            return to;
        dx obj = dx_wrap(get(F, (int)b, pc), DX_PREFIX);
        const gsvm_hks_const *k = c >= 256 && op == HKS_I_SELF ? kptr(F, c - 256) : NULL;
        if (k && k->type == GSVM_HKS_K_STRING && k->s.size >= 2 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1))
            mname = k->s.data;
        if (!mname) {
            dx key = get_rk(F, c, pc);
            flush_all(F);
            self_registers(F, (int)a, pc, obj, key);
            return nx;
        }
        if (F->P[a].kind != PK_NONE || F->P[a + 1].kind != PK_NONE) {
            flush_all(F);
            pend_clear(&F->P[a]);
            pend_clear(&F->P[a + 1]);
        }
        F->P[a].kind = PK_SELFFN;
        F->P[a].e = dx_make(DX_PREFIX, "%s:%s", dx_str(&obj), mname);
        F->P[a].def_pc = (uint32_t)pc;
        F->P[a + 1].kind = PK_SELFOBJ;
        F->P[a + 1].def_pc = (uint32_t)pc;
        F->P[a + 1].e = obj;
        return nx;
    }
    case HKS_I_NEWTABLE: case HKS_I_NEWSTRUCT:
        if (F->P[a].kind != PK_NONE)
            flush_all(F);
        if (op == HKS_I_NEWSTRUCT) {
            int sid = F->ssid[pc];
            const gsvm_hks_str *sn = sid >= 0 ? &F->D->c->structs[sid].name : NULL;
            if (!sn || sn->size < 2 || !dx_is_name(sn->data, (size_t)sn->size - 1)) {
                fail(F, "hmake of a structure not in the chunk");
                return to;
            }
            pend_clear(&F->P[a]);
            F->P[a].hmake = sn->data;
        }
        F->P[a].kind = PK_TABLE;
        F->P[a].table_local = F->use[pc] < 0 && pc != F->force_pc;
        F->P[a].def_pc = (uint32_t)pc;
        gsvm_buf_init(&F->P[a].items);
        F->P[a].nitems = 0;
        if (F->P[a].table_local) {
            /* a variable: it stays open only while stores build it */
            bool any = false;
            for (int64_t q = nx; q < F->n && !F->leader[q]; q = next_pc(F, q))
                if (F->absorbed[q] && A_(W(F, q)) == a) {
                    any = true;
                    break;
                } else if (!(F->use[q] >= 0) && !(F->absorbed[q] && A_(W(F, q)) > a)) {
                    /* (a store into an inner constructor is part of it) */
                    break;
                }
            if (!any) {
                flush_all(F);
            }
        }
        return nx;
    case HKS_I_SETLIST: {
        if (!(F->absorbed[pc] && F->P[a].kind == PK_TABLE)) {
            /* a table filled after it became a variable: one store per
             * item, at (batch - 1) * 50 + i (Lua 5.1's fields per flush) */
            if (b == 0) {
                fail(F, "open SETLIST outside a constructor");
                return to;
            }
            uint64_t batch = c ? c : (pc + 1 < F->n ? W(F, pc + 1) : 1);
            for (uint32_t i = 1; i <= b && a + i < MAX_REGS && !F->fail; i++) {
                dx v = get(F, (int)(a + i), pc);
                dx t = dx_wrap(get(F, (int)a, pc), DX_PREFIX);
                stmt(F, dx_make(DX_ATOM, "%s[%llu] = %s", dx_str(&t),
                                (unsigned long long)((batch - 1) * 50 + i), dx_str(&v)));
                dx_free(&v);
                dx_free(&t);
            }
            return nx;
        }
        int64_t last = b == 0 ? F->multret_top : (int64_t)a + b;
        if (b == 0)
            F->multret_top = -1;
        int64_t first = (int64_t)a + 1 + F->P[a].npos;
        F->P[a].npos = 0; /* the next batch starts at a + 1 again */
        if (last >= first) {
            dx vals = list_text(F, pc, first, last, b == 0);
            pend *p = &F->P[a];
            if (p->kind != PK_TABLE) {
                dx_free(&vals);
                fail(F, "constructor closed by its own items");
                return to;
            }
            if (p->nitems)
                gsvm_buf_puts(&p->items, ", ");
            gsvm_buf_puts(&p->items, dx_str(&vals));
            p->nitems++;
            dx_free(&vals);
        }
        return nx;
    }
    case HKS_I_UNM: put(F, (int)a, pc, dx_unary("-", get(F, (int)b, pc))); return nx;
    case HKS_I_NOT: case HKS_I_NOT_R1: put(F, (int)a, pc, dx_unary("not", get(F, (int)b, pc))); return nx;
    case HKS_I_LEN: put(F, (int)a, pc, dx_unary("#", get(F, (int)b, pc))); return nx;
    case HKS_I_CONCAT: {
        if (c < b || c >= MAX_REGS) {
            fail(F, "CONCAT range");
            return to;
        }
        gsvm_buf out;
        gsvm_buf_init(&out);
        for (uint32_t r = b; r <= c; r++) {
            dx e = dx_wrap(get(F, (int)r, pc), DX_CONCAT + 1);
            if (r > b)
                gsvm_buf_puts(&out, " .. ");
            gsvm_buf_puts(&out, dx_str(&e));
            dx_free(&e);
        }
        put(F, (int)a, pc, dx_take(DX_CONCAT, &out));
        return nx;
    }
    case HKS_I_CLOSURE: {
        /* `local function f` when it calls itself through its own register */
        bool self_ref = false;
        if (bx < F->f->np)
            for (uint32_t i = 0; i < F->f->p[bx].nups && pc + 1 + i < F->n; i++) {
                uint32_t d = W(F, pc + 1 + i);
                if (A_(d) == 1 && GSVM_HKS_BX(d) == a)
                    self_ref = true;
            }
        if (!self_ref && F->debug) {
            int l = debug_local(F, (int)a, pc);
            if (l >= 0 && F->f->debug.locals[l].startpc == pc)
                self_ref = true; /* local function f: f is in scope in its own body */
        }
        if (self_ref) {
            flush_all(F);
            int v = var_of(F, (int)a, pc, true);
            dvar *dv = &F->vars[v];
            bool fresh = !dv->declared && (dv->owner < 0 || dv->owner == F->nr - 1);
            if (fresh) {
                dv->declared = true;
                if (dv->owner < 0)
                    set_owner(F, v, F->nr - 1);
            }
            dx body = closure_text(F, pc, bx, dv->name, false);
            if (fresh)
                line(F, "local function %s%s", dv->name, body.s ? body.s + 8 : "() end");
            else
                line(F, "%s = %s", use_var(F, v), dx_str(&body));
            dx_free(&body);
            return nx;
        }
        put(F, (int)a, pc, closure_text(F, pc, bx, NULL, false));
        return nx;
    }
    case HKS_I_VARARG:
        if (b == 0) {
            if (F->P[a].kind != PK_NONE) {
                flush_all(F);
                pend_clear(&F->P[a]);
            }
            F->P[a].kind = PK_MULTI;
            F->P[a].e = dx_make(DX_ATOM, "...");
            F->P[a].def_pc = (uint32_t)pc;
            F->multret_top = (int)a;
        } else if (b == 2) {
            put(F, (int)a, pc, dx_make(DX_PREFIX, "(...)"));
        } else {
            flush_all(F);
            gsvm_buf lhs;
            gsvm_buf_init(&lhs);
            for (uint32_t r = a; r + 2 <= a + b && r < MAX_REGS; r++) {
                if (lhs.len)
                    gsvm_buf_puts(&lhs, ", ");
                gsvm_buf_puts(&lhs, use_var(F, var_of(F, (int)r, pc, true)));
            }
            gsvm_buf_cstr(&lhs);
            line(F, "%s = ...", (char *)lhs.data);
            gsvm_buf_free(&lhs);
        }
        return nx;
    case HKS_I_RETURN: {
        dx vals = b == 1 ? dx_make(DX_ATOM, "%s", "") : list_text(F, pc, a, b == 0 ? F->multret_top : (int64_t)a + b - 2, b == 0);
        if (b == 0)
            F->multret_top = -1;
        flush_all(F);
        bool last = nx >= F->n && F->nr == 2 && !F->dispatch;
        if (last && b == 1) {
            dx_free(&vals);
            return nx;
        }
        const char *sp = vals.s && vals.s[0] ? " " : "";
        /* the compiler's own final RETURN after a return statement */
        if (nx < to && nx + 1 == (int64_t)F->n && to == F->n && OPAT(F, nx) == HKS_I_RETURN &&
            B_(W(F, nx)) == 1)
            nx = F->n;
        if (nx < to)
            line(F, "do return%s%s end", sp, dx_str(&vals));
        else
            line(F, "return%s%s", sp, dx_str(&vals));
        dx_free(&vals);
        return nx;
    }
    case HKS_I_CLOSE: case HKS_I_CHECKTYPE: case HKS_I_CHECKTYPES: case HKS_I_CHECKTYPE_D:
        return nx;
    case HKS_I_TESTSET: return emit_testset(F, pc, to);
    case HKS_I_DELETE: case HKS_I_DELETE_BK: {
        dx target;
        if (c == HKS_DEL_LOCAL && op == HKS_I_DELETE)
            target = dx_make(DX_PREFIX, "%s", use_var(F, var_of(F, (int)a, pc, false)));
        else if (c == HKS_DEL_GLOBAL && op == HKS_I_DELETE_BK && kptr(F, b) &&
                 kptr(F, b)->type == GSVM_HKS_K_STRING)
            target = dx_make(DX_PREFIX, "%s", kptr(F, b)->s.data);
        else if (c == HKS_DEL_UPVALUE && op == HKS_I_DELETE && b < F->nups)
            target = dx_make(DX_PREFIX, "%s", F->upnames[b]);
        else if (c == HKS_DEL_INDEXED) {
            dx base = get(F, (int)a, pc);
            dx key = op == HKS_I_DELETE_BK ? get_k(F, b) : get(F, (int)b, pc);
            target = dx_index(base, op == HKS_I_DELETE_BK ? kptr(F, b) : NULL, key);
        } else {
            fail(F, "DELETE kind");
            return to;
        }
        stmt(F, dx_make(DX_ATOM, "hdelete(%s)", dx_str(&target)));
        dx_free(&target);
        return nx;
    }
    default:
        fail(F, "instruction not recovered");
        return to;
    }
}

/* The statements of [from, to). */
static void emit_range(fn *F, int64_t from, int64_t to, const loopctx *L)
{
    int64_t pc = from;
    while (pc < to && !F->fail) {
        F->at_pc = pc;
        if (F->isdata[pc]) {
            pc++;
            continue;
        }
        /* a loop starting here: the last backward jump to pc inside */
        int64_t q = -1;
        for (int64_t j = to - 1; j > pc; j--)
            if (is_back_jmp(F, j, pc)) {
                q = j;
                break;
            }
        if (q >= 0 && L->repeat_start != pc) {
            flush_all(F);
            bool until = q > 0 && is_test(OPAT(F, q - 1));
            if (until) {
                line(F, "repeat");
                loopctx B = {q + 1, q + 1, -2, pc, q + 1, q + 1};
                if (!open_region(F, pc, q + 1))
                    return;
                emit_range(F, pc, q + 1, &B);
                flush_final(F);
                /* the condition line the chain left at the end */
                region *R = cur(F);
                char *u = NULL;
                for (size_t i = R->body.len; i > 0; i--)
                    if (R->body.data[i - 1] == '\x01') {
                        u = (char *)R->body.data + i - 1;
                        break;
                    }
                if (!u) {
                    fail(F, "repeat without its condition");
                    close_region(F);
                    return;
                }
                char *cond = gsvm_dup_bytes(u + 1, (size_t)((char *)R->body.data + R->body.len - u - 2));
                /* cut the marker line (and its indentation) */
                size_t at = (size_t)(u - (char *)R->body.data);
                while (at > 0 && R->body.data[at - 1] == ' ')
                    at--;
                R->body.len = at;
                close_region(F);
                line(F, "until %s", cond ? cond : "true");
                free(cond);
                pc = q + 1;
                continue;
            }
            /* while: a condition chain at the top that exits to q + 1 */
            int64_t E = q + 1;
            int64_t t0 = operands_run(F, pc, q);
            cnode N[MAX_NODES];
            int64_t tT = -1, tF = -1;
            int n = t0 >= 0 ? chain_scan(F, t0, q, N, &tT, &tF, -1) : 0;
            if (n > 0 && tF == E) {
                N[0].start = pc;
                dx c = chain_emit(F, N, n, tT, tT, tF);
                flush_all(F);
                line(F, "while %s do", dx_str(&c));
                dx_free(&c);
                loopctx B = {E, q, pc, -1, -1, q};
                if (open_region(F, tT, q)) {
                    emit_range(F, tT, q, &B);
                    flush_final(F);
                    close_region(F);
                }
            } else {
                line(F, "while true do");
                loopctx B = {E, q, pc, -1, -1, q};
                if (open_region(F, pc, q)) {
                    emit_range(F, pc, q, &B);
                    flush_final(F);
                    close_region(F);
                }
            }
            line(F, "end");
            pc = E;
            continue;
        }
        unsigned op = F->op[pc];
        if (op == HKS_I_FORPREP) {
            pc = emit_numfor(F, pc, to, L);
            continue;
        }
        if (op == HKS_I_JMP) {
            int64_t t = jmp_target(F, pc);
            if (t > pc && t + 1 < F->n && t < to && OPAT(F, t) == HKS_I_TFORLOOP &&
                OPAT(F, t + 1) == HKS_I_JMP && jmp_target(F, t + 1) == pc + 1) {
                pc = emit_genfor(F, pc, t);
                continue;
            }
            flush_all(F);
            int64_t nx = next_pc(F, pc);
            if (is_exit(F, L, t)) {
                if (nx < to)
                    line(F, "do break end");
                else
                    line(F, "break");
            } else if (nx >= to && (t == L->cont || t == L->cont2 || t == to)) {
                /* falls to where the block goes anyway */
            } else {
                fail(F, "jump not recovered");
                return;
            }
            pc = nx;
            continue;
        }
        if (is_test(op) && F->vend[pc] && F->vend[pc] <= to) {
            pc = emit_value(F, pc);
            continue;
        }
        if (F->bend[pc] && F->bend[pc] + 2 <= to) {
            pc = emit_bool_tail(F, pc);
            continue;
        }
        if (is_test(op) && op != HKS_I_TESTSET) {
            pc = emit_cond(F, pc, to, L);
            continue;
        }
        if (op == HKS_I_FORLOOP || op == HKS_I_TFORLOOP) {
            fail(F, "loop end without its start");
            return;
        }
        pc = step(F, pc, to);
    }
}

/* ---------------------------------------------------------------- fallback */

static bool block_start(const fn *F, int64_t pc)
{
    return pc == 0 || F->leader[pc] || F->vjoin[pc];
}

/* Every basic block as one branch of a loop on `pc`: always possible. */
static void emit_dispatch(fn *F)
{
    /* every register a plain variable, declared at the top */
    F->dispatch = true;
    line(F, "local pc = 0");
    line(F, "while true do");
    bool first = true;
    int64_t pc = 0;
    F->extra = 1;
    while (pc < F->n && !F->fail) {
        if (F->isdata[pc]) {
            pc++;
            continue;
        }
        F->extra = 1;
        line(F, "%sif pc == %lld then", first ? "" : "else", (long long)pc);
        F->extra = 2;
        first = false;
        int64_t q = pc;
        bool ended = false;
        while (q < F->n && !F->fail) {
            if (F->isdata[q]) {
                q++;
                continue;
            }
            if (q != pc && block_start(F, q))
                break;
            unsigned op = F->op[q];
            uint32_t w = W(F, q), a = A_(w), b = B_(w), c = C_(w);
            int64_t nx = next_pc(F, q);
            if (op == HKS_I_JMP) {
                flush_all(F);
                line(F, "pc = %lld", (long long)jmp_target(F, q));
                ended = true;
                q = nx;
                break;
            }
            if (is_test(op)) {
                int64_t t = nx < F->n && OPAT(F, nx) == HKS_I_JMP ? jmp_target(F, nx) : -1;
                int64_t after = nx < F->n ? next_pc(F, nx) : nx;
                if (t < 0) {
                    fail(F, "test without its JMP");
                    break;
                }
                if (op == HKS_I_TESTSET) {
                    dx v = get(F, (int)b, q);
                    flush_all(F);
                    const char *src = use_var(F, var_of(F, (int)b, q, false));
                    if (v.s && strcmp(v.s, src) != 0) /* a folded value: it runs first */
                        line(F, "%s = %s", src, v.s);
                    dx_free(&v);
                    line(F, "if %s%s then %s = %s pc = %lld else pc = %lld end", c ? "" : "not ",
                         src, use_var(F, var_of(F, (int)a, q, true)), src, (long long)t,
                         (long long)after);
                } else {
                    dx j = jump_cond(F, q);
                    flush_all(F);
                    line(F, "if %s then pc = %lld else pc = %lld end", dx_str(&j), (long long)t,
                         (long long)after);
                    dx_free(&j);
                }
                ended = true;
                q = after;
                break;
            }
            if (op == HKS_I_LOADBOOL && c) {
                flush_all(F);
                line(F, "%s = %s", use_var(F, var_of(F, (int)a, q, true)), b ? "true" : "false");
                line(F, "pc = %lld", (long long)next_pc(F, nx));
                ended = true;
                q = nx;
                break;
            }
            if (op == HKS_I_FORPREP) {
                flush_all(F);
                const char *i0 = use_var(F, var_of(F, (int)a, q, false));
                const char *st = use_var(F, var_of(F, (int)a + 2, q, false));
                line(F, "%s = %s - %s", i0, i0, st);
                line(F, "pc = %lld", (long long)jmp_target(F, q));
                ended = true;
                q = nx;
                break;
            }
            if (op == HKS_I_FORLOOP) {
                flush_all(F);
                const char *i0 = use_var(F, var_of(F, (int)a, q, false));
                const char *li = use_var(F, var_of(F, (int)a + 1, q, false));
                const char *st = use_var(F, var_of(F, (int)a + 2, q, false));
                const char *iv = use_var(F, var_of(F, (int)a + 3, q, true));
                line(F, "%s = %s + %s", i0, i0, st);
                line(F, "if (%s > 0 and %s <= %s) or (%s <= 0 and %s >= %s) then %s = %s pc = "
                        "%lld else pc = %lld end",
                     st, i0, li, st, i0, li, iv, i0, (long long)jmp_target(F, q), (long long)nx);
                ended = true;
                q = nx;
                break;
            }
            if (op == HKS_I_TFORLOOP) {
                flush_all(F);
                gsvm_buf lhs;
                gsvm_buf_init(&lhs);
                for (uint32_t r = a + 3; r <= a + 2 + c && r < MAX_REGS; r++) {
                    if (lhs.len)
                        gsvm_buf_puts(&lhs, ", ");
                    gsvm_buf_puts(&lhs, use_var(F, var_of(F, (int)r, q, true)));
                }
                gsvm_buf_cstr(&lhs);
                const char *f0 = use_var(F, var_of(F, (int)a, q, false));
                const char *s0 = use_var(F, var_of(F, (int)a + 1, q, false));
                const char *c0 = use_var(F, var_of(F, (int)a + 2, q, false));
                const char *v0 = use_var(F, var_of(F, (int)a + 3, q, false));
                int64_t j = nx < F->n && OPAT(F, nx) == HKS_I_JMP ? jmp_target(F, nx) : nx;
                int64_t after = nx < F->n && OPAT(F, nx) == HKS_I_JMP ? next_pc(F, nx) : nx;
                line(F, "%s = %s(%s, %s)", lhs.data ? (char *)lhs.data : "_", f0, s0, c0);
                line(F, "if %s ~= nil then %s = %s pc = %lld else pc = %lld end", v0, c0, v0,
                     (long long)j, (long long)after);
                gsvm_buf_free(&lhs);
                ended = true;
                q = after;
                break;
            }
            int64_t n2 = step(F, q, F->n);
            if (op == HKS_I_RETURN || is_tailcall(op)) {
                ended = true;
                q = n2;
                break;
            }
            q = n2;
        }
        flush_final(F);
        if (!ended) {
            if (q < F->n)
                line(F, "pc = %lld", (long long)q);
            else
                line(F, "do return end");
        }
        pc = q;
    }
    F->extra = 1;
    if (!first)
        line(F, "else");
    F->extra = 2;
    line(F, "return");
    F->extra = 1;
    line(F, "end");
    F->extra = 0;
    line(F, "end");
}

/* ---------------------------------------------------------------- one function */

static void fn_free(fn *F)
{
    free(F->slot);
    free(F->ssid);
    free(F->op);
    free(F->isdata);
    free(F->leader);
    free(F->absorbed);
    free(F->vjoin);
    free(F->jtarget);
    free(F->vend);
    free(F->bend);
    free(F->wstate);
    free(F->bylo);
    free(F->wparent);
    free(F->wvar);
    free(F->vtail);
    free(F->vreg);
    free(F->backt);
    free(F->use);
    free(F->vars);
    free(F->loc_reg);
    free(F->init_pc);
    for (size_t i = 0; i < F->captaken; i++)
        free(F->taken[i]);
    free(F->taken);
    for (int r = 0; r < MAX_REGS; r++)
        pend_clear(&F->P[r]);
    while (F->nr > 0) {
        gsvm_buf_free(&F->R[F->nr - 1].body);
        gsvm_buf_free(&F->R[F->nr - 1].decl);
        gsvm_buf_free(&F->R[F->nr - 1].owned);
        F->nr--;
    }
}

static bool fn_init(fn *F, dc *D, const gsvm_hks_proto *f, const char *path, int depth,
                    int base, const char **upnames, uint32_t nups, bool blocks)
{
    memset(F, 0, sizeof *F);
    F->blocks = blocks;
    F->D = D;
    F->f = f;
    F->depth = depth;
    F->base = base;
    snprintf(F->path, sizeof F->path, "%s", path);
    F->n = f->ncode > (1u << 24) ? 0 : (uint32_t)f->ncode;
    F->upnames = upnames;
    F->nups = nups;
    F->multret_top = -1;
    F->force_pc = -1;
    for (int r = 0; r < MAX_REGS; r++)
        F->override[r] = -1;
    size_t n = F->n ? F->n : 1;
    F->op = malloc(n);
    F->isdata = calloc(n, 1);
    F->leader = calloc(n + 1, 1);
    F->absorbed = calloc(n, 1);
    F->vjoin = calloc(n + 1, 1);
    F->jtarget = calloc(n + 1, 1);
    F->vend = calloc(n + 1, sizeof *F->vend);
    F->bend = calloc(n + 1, sizeof *F->bend);
    F->vtail = calloc(n + 1, sizeof *F->vtail);
    F->vreg = calloc(n + 1, 1);
    F->backt = calloc(n + 1, 1);
    F->use = malloc(n * sizeof *F->use);
    F->slot = calloc(n, sizeof *F->slot);
    F->ssid = malloc(n * sizeof *F->ssid);
    F->loc_reg = malloc(sizeof *F->loc_reg * (f->debug.nlocals ? f->debug.nlocals : 1));
    F->init_pc = malloc(sizeof *F->init_pc * (f->debug.nlocals ? f->debug.nlocals : 1));
    if (!F->op || !F->isdata || !F->leader || !F->absorbed || !F->vjoin || !F->jtarget || !F->vend || !F->bend || !F->vtail || !F->vreg || !F->use || !F->backt || !F->slot || !F->ssid ||
        !F->loc_reg || !F->init_pc)
        return false;
    for (uint32_t pc = 0; pc < F->n; pc++) {
        F->use[pc] = -1;
        if (F->isdata[pc]) {
            F->op[pc] = HKS_I_DATA;
            continue;
        }
        unsigned iop = hks_decode_op(D->c->profile, GSVM_HKS_OP(f->code[pc]));
        F->op[pc] = (uint8_t)iop;
        unsigned nd = iop == HKS_NO_OP ? 0 : hks_data_words(f, iop, f->code[pc]);
        for (unsigned i = 1; i <= nd && pc + i < F->n; i++)
            F->isdata[pc + i] = 1;
    }
    find_slots(F);
    /* debug locals: each one's register is the count of locals active at
     * its start (the compiler allocates locals as a stack) */
    const gsvm_hks_debug *d = &f->debug;
    F->debug = hks_debug_kind(D->c->format, D->c->debug_hash, d->flag) == HKS_DBG_FULL &&
               d->nlocals > 0 && d->nlocals < 4096;
    if (F->debug) {
        for (uint32_t i = 0; i < d->nlocals; i++) {
            int active = 0;
            for (uint32_t j = 0; j < i; j++)
                if (d->locals[j].startpc <= d->locals[i].startpc &&
                    d->locals[i].startpc < d->locals[j].endpc)
                    active++;
            const char *nm = d->locals[i].name.data;
            bool named = nm && d->locals[i].name.size > 1 &&
                         dx_is_name(nm, (size_t)d->locals[i].name.size - 1) &&
                         strcmp(nm, "pc") != 0;
            F->loc_reg[i] = active < MAX_REGS ? active : -1;
            if (!named && !(nm && nm[0] == '('))
                F->debug = false; /* a name that is not one: use generated names */
            if (nm && nm[0] == '(')
                F->loc_reg[i] = -1 - active; /* hidden for-loop state: no name */
        }
        /* hidden locals keep their register for the count but map to none */
        for (uint32_t i = 0; i < d->nlocals; i++)
            if (F->loc_reg[i] < -1)
                F->loc_reg[i] = -1;
    }
    if (F->debug) {
        rw *x = malloc(sizeof *x);
        if (!x)
            return false;
        /* one budget for the whole function, not a limit per local: a
         * constructor's stores (26,000 in a SETLIST table) lie between a
         * local's NEWTABLE and its start, yet the scans stay linear */
        int64_t budget = 8 * (int64_t)F->n + 4096;
        for (uint32_t i = 0; i < d->nlocals; i++) {
            F->init_pc[i] = -1;
            if (F->loc_reg[i] < 0)
                continue;
            int64_t q = (int64_t)d->locals[i].startpc - 1;
            for (; q >= 0 && q < F->n && budget > 0; q--, budget--) {
                if (F->isdata[q] || F->op[q] == HKS_NO_OP)
                    continue;
                /* a loop's own variables: set by the loop, not before it */
                unsigned qop = F->op[q];
                if (qop == HKS_I_FORPREP || qop == HKS_I_FORLOOP || qop == HKS_I_TFORLOOP ||
                    (qop == HKS_I_JMP && !(q > 0 && is_test(OPAT(F, q - 1)))))
                    break;
                operands(F, q, MAX_REGS, x);
                bool w = false;
                for (int k = 0; k < x->nwr; k++)
                    w |= x->wr[k] == F->loc_reg[i];
                if (w) {
                    F->init_pc[i] = q;
                    break;
                }
            }
        }
        free(x);
    }
    if (!analyse(F))
        return false;
    return true;
}

/* The text of one function: "function(params) ... end" (or "function NAME"
 * for the main chunk's own text when name is "" ). */
static bool decompile_function(dc *D, const gsvm_hks_proto *f, const char *path, int depth,
                               int indent, const char **upnames, uint32_t nups, gsvm_buf *out)
{
    D->functions++;
    bool main = depth == 0 && upnames == NULL;
    int ind = indent;
    if (depth > MAX_FN_DEPTH) {
        gsvm_buf_puts(out, "function(...) error(\"gsvm: nested too deep\") end\n");
        D->fallbacks++;
        return true;
    }
    fn *F = malloc(sizeof *F);
    if (!F)
        return false;
    const char *why0 = NULL;
    long long why0_pc = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!fn_init(F, D, f, path, depth, main ? 0 : indent + 1, upnames, nups, attempt == 1)) {
            fn_free(F);
            free(F);
            return false;
        }
        setup_vars(F);
        find_types(F);
        /* the outermost region: the function body */
        F->nr = 1;
        gsvm_buf_init(&F->R[0].body);
        gsvm_buf_init(&F->R[0].decl);
        gsvm_buf_init(&F->R[0].owned);
        F->R[0].from = 0;
        F->R[0].to = F->n;
        /* a region below it holds the body, so that its locals come first */
        if (!open_region(F, 0, (int64_t)F->n + 1)) {
            fn_free(F);
            free(F);
            return false;
        }
        if (attempt == 0) {
            loopctx L = {-1, F->n, -2, -1, -1, F->n};
            emit_range(F, 0, F->n, &L);
            flush_final(F);
        } else {
            /* fallback: every register declared at the top */
            uint32_t nregs = f->maxstack < MAX_REGS ? f->maxstack : MAX_REGS;
            if (nregs > MAX_DISPATCH_VARS) {
                F->fail = true;
                F->why = "too many registers for the block loop";
            } else {
                F->debug = false;
                for (uint32_t r = f->nparams; r < nregs; r++)
                    predeclare(F, (int)r);
                emit_dispatch(F);
                flush_final(F);
            }
        }
        if (!F->fail || attempt == 1)
            break;
        why0 = F->why;
        why0_pc = (long long)F->why_pc;
        fn_free(F);
    }
    if (!F->fail)
        close_region(F);
    /* the header: parameters */
    gsvm_buf params;
    gsvm_buf_init(&params);
    for (uint32_t i = 0; i < f->nparams && i < MAX_REGS; i++) {
        if (i)
            gsvm_buf_puts(&params, ", ");
        int v = F->debug && i < f->debug.nlocals && F->loc_reg[i] == (int)i ? F->locbase + (int)i
                                                                          : (int)i;
        gsvm_buf_puts(&params, v < F->nvars ? dname(F, v) : "_");
    }
    if (f->flags & 2)
        gsvm_buf_puts(&params, f->nparams ? ", ..." : "...");
    gsvm_buf_cstr(&params);
    if (!main) {
        gsvm_buf_printf(out, "function(%s)\n", params.data ? (char *)params.data : "");
    }
    if (F->fail) {
        D->fallbacks++;
        for (int i = 0; i < ind + (main ? 0 : 1); i++)
            gsvm_buf_puts(out, "  ");
        gsvm_buf_printf(out, "-- gsvm: function %s not decompiled (%s at pc %lld; %s)\n", path,
                        why0 ? why0 : "?", why0_pc, F->why ? F->why : "?");
        for (int i = 0; i < ind + (main ? 0 : 1); i++)
            gsvm_buf_puts(out, "  ");
        gsvm_buf_printf(out, "error(\"gsvm: function %s not decompiled\")\n", path);
    } else {
        if (F->dispatch) {
            D->fallbacks++;
            for (int i = 0; i < ind + (main ? 0 : 1); i++)
                gsvm_buf_puts(out, "  ");
            gsvm_buf_printf(out, "-- gsvm: the control flow of function %s is not recovered "
                                 "(%s at pc %lld): its blocks run in a loop on pc\n",
                            path, why0 ? why0 : "?", why0_pc);
        }
        gsvm_buf_append(out, F->R[0].body.data, F->R[0].body.len);
    }
    if (!main) {
        for (int i = 0; i < ind; i++)
            gsvm_buf_puts(out, "  ");
        gsvm_buf_puts(out, "end\n");
    }
    gsvm_buf_free(&params);
    fn_free(F);
    free(F);
    return true;
}

/* ---------------------------------------------------------------- API */

/* How many of f's upvalues its code names: one past the highest index an
 * instruction reads, writes, deletes or passes to a closure. */
static uint32_t upvalues_used(const gsvm_hks_chunk *c, const gsvm_hks_proto *f)
{
    uint32_t n = 0;
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        uint32_t w = f->code[pc], b = B_(w), need = 0;
        switch (hks_decode_op(c->profile, GSVM_HKS_OP(w))) {
        case HKS_I_GETUPVAL: case HKS_I_SETUPVAL: case HKS_I_SETUPVAL_R1: need = b + 1; break;
        case HKS_I_DELETE: need = C_(w) == HKS_DEL_UPVALUE ? b + 1 : 0; break;
        case HKS_I_CLOSURE: {
            uint32_t bx = GSVM_HKS_BX(w);
            for (uint32_t i = 0; bx < f->np && i < f->p[bx].nups && pc + 1 < f->ncode; i++) {
                pc++;
                if (A_(f->code[pc]) == 2 && GSVM_HKS_BX(f->code[pc]) + 1 > need)
                    need = GSVM_HKS_BX(f->code[pc]) + 1;
            }
            break;
        }
        default: break;
        }
        if (need > n)
            n = need;
    }
    return n < f->nups ? n : f->nups;
}

gsvm_status gsvm_hks_decompile(const gsvm_hks_chunk *c, const gsvm_hks_decompile_options *opts,
                               char **out, size_t *len, gsvm_hks_decompile_result *res,
                               gsvm_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    dc D;
    memset(&D, 0, sizeof D);
    D.c = c;
    D.err = err;
    D.strict = opts && opts->strict;
    gsvm_buf b;
    gsvm_buf_init(&b);
    const char *path = opts && opts->function ? opts->function : NULL;
    bool ok;
    if (path && strcmp(path, "0") != 0) {
        const gsvm_hks_proto *f = gsvm_hks_find_function(c, path);
        if (!f) {
            gsvm_buf_free(&b);
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "no function '%s' in the chunk",
                                  path);
        }
        /* its upvalues are free names in the text (as many as its code
         * names: a bad chunk may claim millions) */
        uint32_t nups = upvalues_used(c, f);
        const char **names = calloc(nups ? nups : 1, sizeof *names);
        char (*store)[32] = calloc(nups ? nups : 1, sizeof *store);
        if (!names || !store) {
            free(names);
            free(store);
            gsvm_buf_free(&b);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        }
        for (uint32_t i = 0; i < nups; i++) {
            if (f->debug.flag && i < f->debug.nupnames && f->debug.upnames[i].size > 1 &&
                dx_is_name(f->debug.upnames[i].data, (size_t)f->debug.upnames[i].size - 1) &&
                strlen(f->debug.upnames[i].data) < 32)
                snprintf(store[i], 32, "%s", f->debug.upnames[i].data);
            else
                snprintf(store[i], 32, "upvalue%u", i + 1);
            names[i] = store[i];
        }
        gsvm_buf_printf(&b, "-- function %s\nreturn ", path);
        ok = decompile_function(&D, f, path, 1, 0, names, nups, &b);
        free(names);
        free(store);
    } else {
        ok = dst_declare(c, &b) && decompile_function(&D, &c->main, "0", 0, 0, NULL, 0, &b);
    }
    if (res) {
        res->functions = D.functions;
        res->fallbacks = D.fallbacks;
    }
    if (!ok || b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    if (D.strict && D.fallbacks) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                              "%llu of %llu functions not decompiled to structured source "
                              "(--strict)",
                              (unsigned long long)D.fallbacks, (unsigned long long)D.functions);
    }
    gsvm_buf_cstr(&b);
    *out = (char *)gsvm_buf_take(&b, len);
    return GSVM_OK;
}
