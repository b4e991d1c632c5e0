/* The HavokScript decompiler, analysis: the temporaries folded into expressions, value regions, boolean tails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* ---------------------------------------------------------------- analysis */

/* A single-register definition that can be an expression. */
bool dc_defines_value(const fn *F, int64_t pc)
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
    case HKS_I_LOADNIL: return true; /* (a range: see dc_step) */
    case HKS_I_VARARG: return B_(w) == 2 || B_(w) == 0;
    default: return is_call(op) && (C_(w) == 2 || C_(w) == 0);
    }
}

/* Debug info: the variable a register is at pc (reads) or becomes (writes
 * complete a local's initialisation just before its start pc). */
int dc_debug_local(const fn *F, int reg, int64_t pc)
{
    const gsvm_hks_debug *d = &F->f->debug;
    int best = -1;
    for (uint32_t i = 0; i < d->nlocals; i++)
        if (F->loc_reg[i] == reg && d->locals[i].startpc <= pc && pc < d->locals[i].endpc)
            best = (int)i;
    return best;
}

int dc_local_at(const fn *F, int reg, int64_t pc, bool write)
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
    int l = dc_debug_local(F, reg, pc);
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
bool dc_mstore(const fn *F, int64_t q, int *rv)
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

/* A store that may be the last target of a multiple assignment fed
 * straight by its value, with no temporary of its own (Lua 5.1 stores the
 * last value first, exp2RK / exp2anyreg: `i, t[i] = i + 1, 20` is ADD 18;
 * SETTABLE t i 20; MOVE i 18): a table store of a constant (*rv -1) or
 * of a register (a variable), a global or upvalue set from a register. */
bool dc_fed_store(const fn *F, int64_t q, int *rv)
{
    if (q < 0 || q >= F->n || F->isdata[q] || F->absorbed[q])
        return false;
    unsigned op = F->op[q];
    uint32_t w = W(F, q);
    if (op == HKS_I_SETGLOBAL || op == HKS_I_SETUPVAL || op == HKS_I_SETUPVAL_R1) {
        *rv = (int)A_(w);
        return true;
    }
    if (is_store(op)) {
        *rv = C_(w) < 256 ? (int)C_(w) : -1;
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
static bool ctor_store(unsigned op)
{
    return is_store(op) || op == HKS_I_SETLIST || is_slot_store(op);
}

/* The JMP at q over a LOADBOOL pair (LOADBOOL r 0 1; LOADBOOL r 1 0) into
 * register r: the end of a value whose tests also exit with a constant
 * (Lua 5.1's exp2reg when a jump needs a value: `not a or b`). */
bool dc_value_pair_jmp(const fn *F, int64_t q, int r)
{
    if (OPAT(F, q) != HKS_I_JMP || jmp_target(F, q) != q + 3 || q + 2 >= F->n ||
        OPAT(F, q + 1) != HKS_I_LOADBOOL || OPAT(F, q + 2) != HKS_I_LOADBOOL ||
        (q > 0 && is_test(OPAT(F, q - 1))))
        return false;
    uint32_t w0 = W(F, q + 1), w1 = W(F, q + 2);
    return (int)A_(w0) == r && (int)A_(w1) == r && B_(w0) == 0 && C_(w0) == 1 && B_(w1) == 1 &&
           C_(w1) == 0;
}

/* A test of a value region with a LOADBOOL pair (dc_value_pair_jmp) that
 * jumps to the pair's half `val` (0 false, 1 true): its jump is a boolean
 * condition's (a comparison, or a TEST whose jump means `not x` for true,
 * `x` for false), whose value the constant is.  A TEST the other way
 * round (`x` giving true) is no Lua source. */
static bool constant_exit(const fn *F, int64_t q, int val)
{
    unsigned op = F->op[q];
    if (op == HKS_I_TESTSET)
        return false;
    if (op == HKS_I_TEST || op == HKS_I_TEST_R1)
        return (C_(W(F, q)) != 0) != (val != 0);
    return true;
}

static void find_value_regions(fn *F, rw *x, uint8_t *cleared)
{
    uint32_t n = F->n;
    for (int64_t s = 0; s < n; s++) {
        if (F->isdata[s] || !is_test(F->op[s]) || OPAT(F, s + 1) != HKS_I_JMP)
            continue;
        int64_t E = jmp_target(F, s + 1);
        if (E <= s + 2 || E > n)
            continue;
        bool ok = true;
        int64_t last = -1, end = -1; /* the last definition; the last instruction */
        int64_t J = -1; /* the JMP over a LOADBOOL pair that ends it (-1 none) */
        for (int64_t q = s + 2; q < E && ok; q = next_pc(F, q)) {
            unsigned op = F->op[q];
            if (last >= 0 && q + 3 >= E && dc_value_pair_jmp(F, q, (int)A_(W(F, last)))) {
                J = q;
                E = q + 3;
                break;
            }
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
                last = end = -1;
                continue;
            }
            /* a store into a table the region builds (`c and {x = 1} or
             * {}`): kept only if the constructor takes it (checked after) */
            if (ctor_store(op) && last >= 0) {
                end = q;
                continue;
            }
            /* a plain `false` / `true` (an argument) is a value; a
             * comparison's LOADBOOL pair is not */
            if (dc_cmp_pair_at(F, q) && q + 2 == E && !(E < n && ctor_store(OPAT(F, E)))) {
                /* a comparison value ends it: a or (b == 1) (not a table
                 * entry: the constructor pass takes those) */
                last = end = q + 1;
                break;
            }
            bool pair = op == HKS_I_LOADBOOL &&
                        (C_(W(F, q)) ||
                         (q > 0 && OPAT(F, q - 1) == HKS_I_LOADBOOL && C_(W(F, q - 1))));
            if (pair || op == HKS_I_TESTSET || !dc_defines_value(F, q) ||
                op == HKS_I_CLOSURE || dc_writes_multret(F, q)) {
                ok = false;
                break;
            }
            last = end = q;
        }
        if (!ok || last < 0 || next_pc(F, end) != (J >= 0 ? J : E))
            continue;
        int R = (int)A_(W(F, last));
        /* the tests that end the region carry the register's value */
        int values = 0;
        for (int64_t q = s; q < E && ok; q = next_pc(F, q)) {
            unsigned op = F->op[q];
            uint32_t w = W(F, q);
            if (is_test(op)) {
                int64_t t = jmp_target(F, q + 1);
                if (t == E) {
                    bool val = (op == HKS_I_TEST || op == HKS_I_TEST_R1 || op == HKS_I_TESTSET) &&
                               (int)A_(w) == R;
                    if (!val)
                        ok = false;
                    values++;
                } else if (J >= 0 && (t == J + 1 || t == J + 2) && !constant_exit(F, q, t == J + 2)) {
                    ok = false;
                }
                q = q + 1;
                continue;
            }
            if (ctor_store(op) && (int)A_(w) < R)
                ok = false;
            dc_operands(F, q, MAX_REGS, x);
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
                cleared[q] = F->vjoin[q] ? 2 : 1;
                F->vjoin[q] = 1;
            }
        s = E - 1;
    }
}

/* A value region whose stores the constructors did not all take is not a
 * value: its tests are statements again (the joins leaders again). */
static bool drop_bad_regions(fn *F, const uint8_t *cleared)
{
    bool dropped = false;
    for (int64_t s = 0; s < F->n; s++) {
        if (!F->vend[s])
            continue;
        int64_t E = F->vend[s];
        bool ok = true;
        for (int64_t q = s; q < E && ok; q = next_pc(F, q))
            ok = !ctor_store(F->op[q]) || F->absorbed[q];
        if (ok)
            continue;
        for (int64_t q = s + 1; q <= E && q < F->n; q++)
            if (cleared[q]) {
                F->leader[q] = 1;
                F->vjoin[q] = cleared[q] == 2;
            }
        F->vend[s] = 0;
        dropped = true;
    }
    return dropped;
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
            is_test(F->op[D]) || !dc_defines_value(F, D) || A_(W(F, D)) != A_(w0))
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
        /* (the pair of a value region that also exits with values) */
        if (F->vjoin[L] && !F->leader[L] && F->vjoin[L + 1] && !F->leader[L + 1])
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
        if (!(F->absorbed[r] && A_(W(F, r)) > t) && !(op == HKS_I_LOADBOOL || dc_defines_value(F, r)))
            return -1;
        dc_operands(F, r, MAX_REGS, x);
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

/* Whether the instruction at u reads register r where a constant could
 * have stood instead: an RK operand, or B of an instruction with a _BK twin
 * (its plain twin + 1), or the key of Ghosts' indexed DELETE.  A constant
 * loaded into a register read there was a variable: the compiler puts a
 * constant expression (index below 256) into the operand itself. */
static bool k_operand(const fn *F, int64_t u, int r)
{
    unsigned op = F->op[u];
    uint32_t w = W(F, u);
    if (op >= HKS_I_COUNT)
        return false;
    if (hks_ops[op].c == HKS_RK && (int)C_(w) == r)
        return true;
    if (op == HKS_I_DELETE)
        return C_(w) == HKS_DEL_INDEXED && (int)B_(w) == r;
    if (hks_ops[op].b != HKS_R || (int)B_(w) != r || op + 1 >= HKS_I_COUNT)
        return false;
    const char *a = hks_ops[op].name, *b = hks_ops[op + 1].name;
    size_t n = hks_ops[op].namelen;
    return strncmp(a, b, n) == 0 && strcmp(b + n, "_BK") == 0;
}

/* Whether constant k fits an RK operand whenever the compiler used it
 * (exp2RK: a string by its index; a number, boolean or nil only while the
 * table holds at most 255 constants, known for sure when it always did). */
static bool rk_constant(const fn *F, uint32_t k)
{
    if (k >= F->f->nk)
        return false;
    return F->f->k[k].type == GSVM_HKS_K_STRING ? k < 256 : F->f->nk < 256;
}

/* Whether register r, read by the statement-level test or store at u, is
 * still held after it: a statement's temporaries sit from the first free
 * register up and are freed when it ends, so that the next statement's
 * first new value would take r or one below; one that goes above r says r
 * is a local. */
static bool still_held(const fn *F, int64_t u, int r, rw *x)
{
    unsigned uop = F->op[u];
    int64_t f;
    if (is_test(uop)) {
        int64_t j = u + 1;
        f = u + 2;
        if (OPAT(F, j) != HKS_I_JMP || f >= F->n || !F->leader[f] || F->vjoin[f])
            return false;
        int64_t t = jmp_target(F, j);
        if (t <= j || t > F->n || (t < F->n && (!F->leader[t] || F->vjoin[t])))
            return false;
    } else if ((is_store(uop) || uop == HKS_I_SETGLOBAL || uop == HKS_I_SETUPVAL ||
                uop == HKS_I_SETUPVAL_R1) && !F->absorbed[u]) {
        f = next_pc(F, u);
        if (f >= F->n || F->vjoin[f])
            return false;
    } else {
        return false;
    }
    for (int64_t q = f; q < F->n; q = next_pc(F, q)) {
        unsigned op = F->op[q];
        if ((q != f && F->leader[q]) || op == HKS_I_JMP || is_test(op) || op == HKS_NO_OP ||
            dc_reads_multret(F, q))
            return false;
        dc_operands(F, q, MAX_REGS, x);
        for (int i = 0; i < x->nrd; i++)
            if (x->rd[i] == r)
                return false;
        if (x->nwr == 0)
            continue;
        int lo = MAX_REGS;
        for (int i = 0; i < x->nwr; i++)
            if (x->wr[i] < lo)
                lo = x->wr[i];
        return lo > r;
    }
    return false;
}

/* Whether u reads what pc wrote with no join or test between (the value
 * is that one definition's, not a value region's). */
static bool straight(const fn *F, int64_t pc, int64_t u)
{
    for (int64_t q = next_pc(F, pc); q <= u; q = next_pc(F, q))
        if (F->vjoin[q] || F->leader[q] || (q < u && (is_test(F->op[q]) || F->op[q] == HKS_I_JMP)))
            return false;
    return true;
}

/* Whether the store at u, of register r, ends a multiple assignment: the
 * store before it took r + 1.  Its values went to consecutive registers
 * (explist), so a constant among them was loaded with LOADK, not folded
 * into the store as RK (`t.a, t.b = 5, 6`). */
static bool later_target(const fn *F, int64_t u, int r)
{
    int64_t q = u - 1;
    while (q > 0 && F->isdata[q])
        q--;
    if (q < 0 || F->leader[u])
        return false;
    /* (a MOVE's use is not known yet here: any MOVE down of r + 1) */
    if (F->op[q] == HKS_I_MOVE)
        return (int)B_(W(F, q)) == r + 1 && A_(W(F, q)) < B_(W(F, q));
    int rv;
    if (dc_fed_store(F, q, &rv) && rv < r && !F->leader[q]) {
        /* the last target fed straight (a constant, a variable below the
         * list): u takes the value before it, the list's highest */
        int64_t p = q - 1;
        while (p > 0 && F->isdata[p])
            p--;
        return p >= 0 && !F->isdata[p] && (int)A_(W(F, p)) == r && dc_defines_value(F, p);
    }
    return dc_mstore(F, q, &rv) && rv == r + 1;
}

/* Whether the instructions from u to v are stores of one multiple
 * assignment (each storing the register below the one before). */
static bool store_chain(const fn *F, int64_t u, int64_t v)
{
    int prev, rv;
    if (!dc_mstore(F, u, &prev))
        return false;
    for (int64_t q = next_pc(F, u); q <= v; q = next_pc(F, q)) {
        if (F->leader[q] || !dc_mstore(F, q, &rv) || rv != prev - 1)
            return false;
        prev = rv;
    }
    return true;
}

static bool loop_reads(const fn *F, int64_t from, int64_t to, int r, const int32_t *multtop,
                       rw *x)
{
    for (int64_t q = from; q < to; q = next_pc(F, q)) {
        dc_operands(F, q, multtop[q] < 0 ? r : multtop[q], x);
        for (int i = 0; i < x->nrd; i++)
            if (x->rd[i] == r)
                return true;
        for (int i = 0; i < x->nwr; i++)
            if (x->wr[i] == r)
                return false;
        /* a numeric for's FORPREP jumps to its FORLOOP, which sets the
         * loop variable before the body that lies between */
        if (F->op[q] == HKS_I_FORPREP && r == (int)A_(W(F, q)) + 3)
            return false;
        /* a generic for's jump sets its variables (at the TFORLOOP) before
         * its body, which lies between */
        if (F->op[q] == HKS_I_JMP && OPAT(F, jmp_target(F, q)) == HKS_I_TFORLOOP) {
            uint32_t tw = W(F, jmp_target(F, q));
            if (r >= (int)A_(tw) + 3 && r <= (int)(A_(tw) + 2 + C_(tw)))
                return false;
        }
    }
    return false;
}

/* Table constructors: stores into a table right after its NEWTABLE, with
 * only the values' temporaries built in between (F->absorbed).  Inner
 * constructors first: an outer one holds them whole. */
static void find_constructors(fn *F, rw *x)
{
    uint32_t n = F->n;
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
            dc_operands(F, q, MAX_REGS, x);
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
}

bool dc_analyse(fn *F)
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
    uint8_t *cleared = calloc(n + 1, 1);
    if (!cleared) {
        free(x);
        return false;
    }
    if (!F->blocks) {
        find_value_regions(F, x, cleared);
        find_bool_tails(F);
        dc_find_cmp_chains(F);
    }
    find_constructors(F, x);
    if (!F->blocks && drop_bad_regions(F, cleared)) {
        /* again without them: the constructors stop at their joins */
        memset(F->absorbed, 0, n);
        find_constructors(F, x);
    }
    free(cleared);
    dc_mark_region_reads(F);
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
        if (dc_writes_multret(F, pc))
            top = (int)A_(W(F, pc));
        else if (dc_reads_multret(F, pc))
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
        if (!testset && !dc_defines_value(F, pc))
            continue;
        int r = (int)A_(W(F, pc));
        if (dc_local_at(F, r, pc, true) >= 0 || (!F->debug && r < (int)F->f->nparams))
            continue; /* (a parameter assigned: a statement) */
        int64_t u = -1, skip_to = -1;
        bool ok = true, dead = false;
        int64_t from = testset ? jmp_target(F, pc + 1) : next_pc(F, pc);
        if (testset && (from <= pc || from > n))
            continue;
        for (int64_t q = from, resume = -1; q < n && ok;
             q = resume >= 0 ? resume : next_pc(F, q), resume = -1) {
            dc_operands(F, q, multtop[q] < 0 ? r : multtop[q], x);
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
                /* the loop's generator, state and control: its explist
                 * (the loop takes the values over from here) */
                if (r >= (int)A_(tw) && r <= (int)A_(tw) + 2 && u < 0 && !F->leader[q]) {
                    u = q;
                    break;
                }
            }
            if (u < 0) {
                if (F->leader[q])
                    ok = false;
                else if (rd && F->op[q] == HKS_I_CLOSURE)
                    ok = false; /* a closure captures the variable, not a value */
                else if (rd && F->cmpend[q] && F->cmpend[q] != F->cmpend[pc])
                    ok = false; /* read by a comparison chain past its first test */
                else if (rd && !F->debug && (int)A_(W(F, q)) > r &&
                         (dc_defines_value(F, q) || F->op[q] == HKS_I_SELF))
                    ok = false; /* copied up or read into a register above it:
                                 * a variable (a temporary is freed before the
                                 * result's register is taken, which is then
                                 * the temporary's own or one below) */
                else if (rd)
                    u = q;
                else if (wr)
                    ok = false, dead = true;
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
        if (ok && u >= 0 && !F->debug && still_held(F, u, r, x))
            ok = false;
        if (ok && u >= 0 && F->op[pc] == HKS_I_LOADK && rk_constant(F, GSVM_HKS_BX(W(F, pc))) &&
            k_operand(F, u, r) && straight(F, pc, u) && !later_target(F, u, r))
            ok = false;
        if (ok && u >= 0)
            F->use[pc] = (int32_t)u;
        else if (dead && !testset)
            F->use[pc] = USE_DEAD;
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
            if ((int)A_(W(F, q)) == R && q != F->vtail[s] && !ctor_store(F->op[q]))
                d = q;
        }
        /* the value tested first, defined right before the region */
        for (int64_t q = s - 1; q >= 0; q--) {
            if (F->isdata[q])
                continue;
            if (F->leader[q + 1] && q + 1 != s)
                break;
            dc_operands(F, q, MAX_REGS, x);
            bool wr = false;
            for (int i = 0; i < x->nwr; i++)
                wr |= x->wr[i] == R;
            if (wr) {
                if (dc_defines_value(F, q) && (int)A_(W(F, q)) == R && !dc_writes_multret(F, q) &&
                    dc_local_at(F, R, q, true) < 0 && F->use[q] < 0 &&
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
                if (!fine && dc_mstore(F, q, &rv) && dc_mstore(F, u, &ru) && rv > ru &&
                    ru == (int)A_(W(F, pc)))
                    fine = true; /* an earlier target of the same assignment */
                if (!fine && store_chain(F, q, u))
                    fine = true; /* an earlier store of the assignment u ends */
                if (!fine && next_pc(F, q) <= u && dc_defines_value(F, q) && F->use[q] < 0 &&
                    (int)A_(W(F, q)) < (int)A_(W(F, pc)) && dc_mstore(F, next_pc(F, q), &rv) &&
                    store_chain(F, next_pc(F, q), u))
                    fine = true; /* the last target's value, straight into its local */
                if (!fine && dc_fed_store(F, q, &rv) && rv < (int)A_(W(F, pc)) &&
                    next_pc(F, q) <= u && store_chain(F, next_pc(F, q), u))
                    fine = true; /* the last target, fed straight before the others */
                if (!fine && F->use[q] > u && dc_mstore(F, u, &ru) && store_chain(F, u, F->use[q]))
                    fine = true; /* a value of the same assignment, stored after u
                                  * (u's key or table: `t[i], t[i - 1] = ...`) */
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
