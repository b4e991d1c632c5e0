/* The HavokScript decompiler, values built with jumps: and / or regions, boolean tails, TESTSET, multiple assignment. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

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
    int64_t Lf, Lt; /* a LOADBOOL pair's false and true halves (-1 none) */
} vtree;

static int64_t vstart(const vtree *T, int k) { return k < T->m ? T->N[k].start : T->tail_start; }

static dx vvalue(vtree *T, int k)
{
    dx *p = k < T->m ? &T->N[k].v : &T->tail;
    dx e = *p;
    p->s = NULL;
    if (!e.s) {
        dc_fail(T->F, "value region shape");
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
        dc_fail(F, "value region too deep");
        return dx_make(DX_ATOM, "nil");
    }
    if (i == e)
        return vvalue(T, e);
    for (int j = i; j < e; j++) {
        int64_t t = T->N[j].target;
        /* a jump to a constant half of the pair: out of the whole value */
        bool konst = bnd < 0 && T->Lf >= 0 && (t == T->Lf || t == T->Lt);
        if (t != T->E && t != bnd && !konst)
            continue;
        int64_t next = vstart(T, j + 1);
        bool ok = true;
        for (int k = i; k < j; k++)
            ok &= T->N[k].target <= next || (konst && T->N[k].target == t);
        if (!ok)
            continue;
        if (konst) {
            /* `c or rest`: c true gives true; `c and rest`: c false, false */
            bool is_or = t == T->Lt;
            dx cond = is_or ? dc_cond_expr(F, T->C, i, j + 1, next, t, next, lvl + 1)
                            : dc_cond_expr(F, T->C, i, j + 1, next, next, t, lvl + 1);
            dx rest = vbuild(T, j + 1, e, bnd, bkind, lvl + 1);
            return dx_binary(cond, is_or ? "or" : "and", is_or ? DX_OR : DX_AND, rest);
        }
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
        dx cond = bkind == 'F' ? dc_cond_expr(F, T->C, i, j + 1, next, next, bnd, lvl + 1)
                               : dc_cond_expr(F, T->C, i, j + 1, next, bnd, next, lvl + 1);
        dx rest = vbuild(T, j + 1, e, bnd, bkind, lvl + 1);
        return bkind == 'F' ? dx_binary(cond, "and", DX_AND, rest)
                            : dx_binary(cond, "or", DX_OR, rest);
    }
    dc_fail(F, "value region shape");
    return dx_make(DX_ATOM, "nil");
}

/* The value region starting with the test at s (find_value_regions). */
/* Whether an operand of [s, E) reads register r before writing it (reads
 * the value a test there tested). */
static bool region_reads(fn *F, int64_t s, int64_t E, int r)
{
    rw *x = malloc(sizeof *x);
    bool reads = false, written = false;
    for (int64_t q = s; x && q < E && !reads; q = next_pc(F, q)) {
        if (is_test(F->op[q])) {
            written = false;
            continue;
        }
        dc_operands(F, q, MAX_REGS, x);
        for (int i = 0; i < x->nrd; i++)
            reads |= x->rd[i] == r && !written;
        for (int i = 0; i < x->nwr; i++)
            written |= x->wr[i] == r;
    }
    free(x);
    return reads;
}

int64_t dc_emit_value(fn *F, int64_t s)
{
    int64_t E = F->vend[s];
    int R = F->vreg[s];
    /* `local v = 7; if v then v = v + 1 end` stripped: the region reads the
     * register it tests, which holds the value pending there, so that value
     * is the variable's first (v = 7; v = v and v + 1), not an operand */
    if (F->P[R].kind != PK_NONE && region_reads(F, s, E, R))
        dc_flush_all(F);
    vnode *N = calloc(MAX_NODES, sizeof *N);
    cnode *C = calloc(MAX_NODES, sizeof *C);
    if (!N || !C) {
        free(N);
        free(C);
        dc_fail(F, "out of memory");
        return E;
    }
    vtree T = {F, N, C, 0, E, 0, {NULL, 0}, -1, -1};
    /* a LOADBOOL pair before E (tests exit with constants too): the value
     * computed last jumps over it, the tail ends at that JMP */
    int64_t tail_end = E;
    if (E >= 3 && dc_value_pair_jmp(F, E - 3, R)) {
        tail_end = E - 3;
        T.Lf = E - 2;
        T.Lt = E - 1;
    }
    int64_t start = s;
    for (int64_t q = s; q < E; q = next_pc(F, q)) {
        if (!is_test(F->op[q]))
            continue;
        if (T.m == MAX_NODES) {
            dc_fail(F, "value region too long");
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
    /* a comparison value last (a or (b == 1)): its tests, those from the
     * last one that leaves the region on, are the tail */
    bool cmp_tail = E >= 2 && dc_cmp_pair_at(F, E - 2);
    if (cmp_tail) {
        int k = T.m;
        while (k > 0 && N[k - 1].target <= E - 1)
            k--;
        for (int j = 0; j < k; j++)
            if (N[j].target != E && N[j].target > N[k < T.m ? k : T.m - 1].start)
                dc_fail(F, "value region shape");
        if (k == T.m || k == 0)
            dc_fail(F, "value region shape");
        if (k < T.m)
            T.tail_start = N[k].start;
        T.m = k;
    }
    /* the operands, in order */
    for (int k = 0; k < T.m && !F->fail; k++) {
        for (int64_t q = N[k].start; q < N[k].test && !F->fail;)
            q = dc_step(F, q, N[k].test);
        unsigned op = F->op[N[k].test];
        if (N[k].value)
            N[k].v = op == HKS_I_TESTSET ? dc_get(F, (int)B_(W(F, N[k].test)), N[k].test)
                                         : dc_get(F, R, N[k].test);
        else
            C[k].j = dc_jump_cond(F, N[k].test);
    }
    int64_t saved = F->force_pc;
    F->force_pc = F->vtail[s];
    loopctx none = {-1, -1, -1, -1, -1, E};
    for (int64_t q = T.tail_start; q < tail_end && !F->fail;)
        q = cmp_tail && is_test(F->op[q]) ? dc_emit_cond(F, q, E, &none) : dc_step(F, q, tail_end);
    F->force_pc = saved;
    T.tail = dc_get(F, R, E);
    dx v = F->fail ? dx_make(DX_ATOM, "nil") : vbuild(&T, 0, T.m, -1, 0, 0);
    for (int k = 0; k < T.m; k++) {
        dx_free(&N[k].v);
        dx_free(&C[k].j);
    }
    dx_free(&T.tail);
    free(N);
    free(C);
    /* (with a pair, the value is its true half's, as the debug info's
     * local starts after it: the last write before E) */
    dc_put(F, R, T.Lf >= 0 ? E - 1 : F->vtail[s], v);
    return E;
}

/* A boolean-tailed value (find_bool_tails): the chain from s exits to one
 * half of the LOADBOOL pair at L; falling through computes the tail. */
int64_t dc_emit_bool_tail(fn *F, int64_t s)
{
    int64_t L = F->bend[s];
    int R = (int)A_(W(F, L));
    cnode N[MAX_NODES];
    int64_t tT = -1, tF = -1;
    int n = dc_chain_scan(F, s, L - 1, N, &tT, &tF, -1);
    if (n == 0 || (tF != L && tF != L + 1) || tT >= L - 1) {
        dc_fail(F, "boolean value shape");
        return L + 2;
    }
    for (int64_t q = tT; q < L - 1; q = next_pc(F, q))
        if (is_test(F->op[q]) && OPAT(F, q + 1) == HKS_I_JMP &&
            (jmp_target(F, q + 1) == L || jmp_target(F, q + 1) == L + 1)) {
            dc_fail(F, "boolean value shape");
            return L + 2;
        }
    bool is_and = tF == L;
    dx c = is_and ? dc_chain_emit(F, N, n, tT, tT, tF) : dc_chain_emit(F, N, n, tT, tF, tT);
    int64_t saved = F->force_pc;
    F->force_pc = L - 2;
    while (F->force_pc > tT && F->isdata[F->force_pc])
        F->force_pc--;
    loopctx none = {-1, L - 1, -2, -1, -1, L - 1};
    for (int64_t q = tT; q < L - 1 && !F->fail;)
        q = F->bend[q] ? dc_emit_bool_tail(F, q)
            : is_test(F->op[q]) && F->op[q] != HKS_I_TESTSET ? dc_emit_cond(F, q, L - 1, &none)
                                                            : dc_step(F, q, L - 1);
    F->force_pc = saved;
    dx tail = dc_get(F, R, L);
    dc_put(F, R, L + 1, is_and ? dx_binary(c, "and", DX_AND, tail) : dx_binary(c, "or", DX_OR, tail));
    return L + 2;
}

/* A value-context `or` / `and`: TESTSET A B C; JMP E; (value into A); E. */
int64_t dc_emit_testset(fn *F, int64_t pc, int64_t to)
{
    uint32_t w = W(F, pc), a = A_(w), c = C_(w);
    int64_t E = pc + 1 < F->n && OPAT(F, pc + 1) == HKS_I_JMP ? jmp_target(F, pc + 1) : -1;
    if (E == pc + 2 && E <= to && a < MAX_REGS) {
        /* `x = e and x` (`or`): the other operand is A itself, already in
         * place, so the jump skips nothing */
        dx left = dc_get(F, (int)B_(w), pc);
        dx right = dc_get(F, (int)a, pc);
        dc_put(F, (int)a, pc, c ? dx_binary(left, "or", DX_OR, right)
                             : dx_binary(left, "and", DX_AND, right));
        return E;
    }
    if (E <= pc + 2 || E > to || a >= MAX_REGS) {
        dc_fail(F, "TESTSET shape");
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
              o == HKS_I_LOADBOOL || (q == last && dc_defines_value(F, q)))) {
            dc_fail(F, "statement inside a value");
            return to;
        }
    }
    dx left = dc_get(F, (int)B_(w), pc);
    int64_t q = pc + 2;
    int64_t saved = F->force_pc;
    F->force_pc = last; /* the last definition of A before E: the other operand */
    /* (`a and #a >= 2`: the other operand may be a comparison value) */
    loopctx none = {-1, E, -2, -1, -1, E};
    while (q < E && !F->fail)
        q = F->bend[q] && F->bend[q] + 2 <= E ? dc_emit_bool_tail(F, q)
            : is_test(F->op[q]) && F->op[q] != HKS_I_TESTSET ? dc_emit_cond(F, q, E, &none)
                                                            : dc_step(F, q, E);
    F->force_pc = saved;
    dx right = dc_get(F, (int)a, E);
    dx v = c ? dx_binary(left, "or", DX_OR, right) : dx_binary(left, "and", DX_AND, right);
    dc_put(F, (int)a, E - 1, v);
    return E;
}

/* The target of store q as text (its operands are used up). */
static dx store_target(fn *F, int64_t q)
{
    unsigned op = F->op[q];
    uint32_t w = W(F, q), a = A_(w), b = B_(w), bx = GSVM_HKS_BX(w);
    if (op == HKS_I_SETGLOBAL) {
        const gsvm_hks_const *k = dc_kptr(F, bx);
        if (k && k->type == GSVM_HKS_K_STRING && k->s.size > 1 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1))
            return dx_make(DX_PREFIX, "%s", k->s.data);
        dx kt = dc_get_k(F, bx);
        dx e = dx_make(DX_PREFIX, "getfenv(1)[%s]", dx_str(&kt));
        dx_free(&kt);
        return e;
    }
    if (op == HKS_I_SETUPVAL || op == HKS_I_SETUPVAL_R1)
        return dx_make(DX_PREFIX, "%s", b < F->nups ? F->upnames[b] : "nil");
    if (op == HKS_I_MOVE)
        return dx_make(DX_PREFIX, "%s", dc_use_var(F, dc_var_of(F, (int)a, q, true)));
    bool kb = b_is_k(op);
    dx base = dc_get(F, (int)a, q);
    dx key = kb ? dc_get_k(F, b) : dc_get(F, (int)b, q);
    return dx_index(base, kb ? dc_kptr(F, b) : NULL, key);
}

/* Whether the temporaries of the stores after pc (a multiple assignment
 * whose last target took its value at pc) are free once it is done, as
 * they are after a statement: the lowest of them is written again before
 * anything above it, or the block ends.  Else they were locals of their
 * own (`local tmp = b; b = a; a = tmp` beside a second such swap). */
static bool temps_freed(const fn *F, int64_t pc)
{
    int rv, lo = -1;
    int64_t q = next_pc(F, pc);
    while (q < F->n && !F->leader[q] && dc_mstore(F, q, &rv) && (lo < 0 || rv == lo - 1)) {
        lo = rv;
        q = next_pc(F, q);
    }
    rw x;
    for (; q < F->n && !F->leader[q]; q = next_pc(F, q)) {
        dc_operands(F, q, MAX_REGS, &x);
        bool again = false;
        for (int i = 0; i < x.nwr; i++) {
            if (x.wr[i] == lo)
                again = true;
            else if (x.wr[i] > lo)
                return false;
        }
        if (again)
            return true;
    }
    return true;
}

/* `t1, t2, t3 = v1, v2, v3`: stores at pc and after it that take pending
 * values of consecutive registers from the highest down.  -1: not one. */
int64_t dc_emit_massign(fn *F, int64_t pc, int64_t to)
{
    enum { MAXM = 64 };
    int64_t qs[MAXM];
    int rvs[MAXM], m = 0, rv;
    /* a local as the last target takes its value straight, before the
     * stores of the others (`a, b = b, a`: MOVE 3 1, MOVE 1 0, MOVE 0 3):
     * that definition is the first "store", its value made pending */
    int direct = -1;
    if (pc != F->force_pc && !dc_mstore(F, pc, &rv) && dc_defines_value(F, pc) &&
        !dc_writes_multret(F, pc) && F->use[pc] < 0 && next_pc(F, pc) < to &&
        dc_mstore(F, next_pc(F, pc), &rv) && F->P[rv].kind == PK_EXPR &&
        F->P[rv].def_pc < pc && (int)A_(W(F, pc)) < rv) {
        int a = (int)A_(W(F, pc));
        if (a >= F->nregvars || F->P[a].kind != PK_NONE ||
            !dc_assignable(F, dc_var_of(F, a, pc, true)) || !temps_freed(F, pc))
            return -1;
        int64_t saved = F->force_pc;
        F->force_pc = pc;
        dc_step(F, pc, to);
        F->force_pc = saved;
        if (F->P[a].kind != PK_EXPR || F->P[a].def_pc != pc)
            return next_pc(F, pc); /* (dc_step wrote it out) */
        qs[m] = pc;
        rvs[m++] = a;
        direct = a;
    }
    /* the last target a store fed straight by a constant or a variable
     * (dc_fed_store): the others' values pending in registers above it */
    int fed = -2, nrv;
    if (m == 0 && pc != F->force_pc && dc_fed_store(F, pc, &rv) &&
        (rv < 0 || (rv < MAX_REGS && F->P[rv].kind == PK_NONE)) && next_pc(F, pc) < to &&
        !F->leader[next_pc(F, pc)] && dc_mstore(F, next_pc(F, pc), &nrv) &&
        F->P[nrv].kind == PK_EXPR && F->P[nrv].def_pc < pc && rv < nrv) {
        qs[m] = pc;
        rvs[m++] = rv;
        fed = rv;
    }
    for (int64_t q = m ? next_pc(F, pc) : pc; q < to && m < MAXM && dc_mstore(F, q, &rv);
         q = next_pc(F, q)) {
        if (q != pc && F->leader[q])
            break;
        if (m > 0 && rv != rvs[m - 1] - 1 && !(m == 1 && (direct >= 0 || fed > -2) && rv > rvs[0]))
            break;
        if (F->P[rv].kind != PK_EXPR)
            break;
        if (F->op[q] == HKS_I_MOVE) {
            if (!dc_assignable(F, dc_var_of(F, (int)A_(W(F, q)), q, true)))
                break;
        }
        qs[m] = q;
        rvs[m++] = rv;
    }
    /* (not one after all: a direct value stays pending, written out as
     * an assignment of its own) */
    if (m < 2)
        return direct >= 0 ? next_pc(F, pc) : -1;
    /* every value but the last stored is pending for a later store */
    for (int i = fed > -2; i + 1 < m; i++)
        if (F->P[rvs[i]].def_pc <= F->P[rvs[i + 1]].def_pc)
            return direct >= 0 ? next_pc(F, pc) : -1;
    gsvm_buf lhs, rhs;
    gsvm_buf_init(&lhs);
    gsvm_buf_init(&rhs);
    /* the last targets' values from a LOADNIL are the ones the list
     * lacked (an explicit last nil is a constant operand of its store) */
    int nd = 0;
    while (direct < 0 && fed < -1 && nd + 1 < m && OPAT(F, F->P[rvs[nd]].def_pc) == HKS_I_LOADNIL)
        nd++;
    dx T[MAXM], V[MAXM];
    for (int i = 0; i < m; i++) {
        V[i] = i == 0 && fed > -2 ? dc_get_rk(F, fed < 0 ? C_(W(F, pc)) : (uint32_t)fed, pc)
                                  : dc_get(F, rvs[i], qs[i]);
        T[i] = i == 0 && direct >= 0
                   ? dx_make(DX_PREFIX, "%s", dc_use_var(F, dc_var_of(F, direct, pc, true)))
                   : store_target(F, qs[i]);
    }
    for (int i = m - 1; i >= 0; i--) {
        gsvm_buf_puts(&lhs, dx_str(&T[i]));
        if (i >= nd)
            gsvm_buf_puts(&rhs, dx_str(&V[i]));
        if (i) {
            gsvm_buf_puts(&lhs, ", ");
            if (i > nd)
                gsvm_buf_puts(&rhs, ", ");
        }
        dx_free(&T[i]);
        dx_free(&V[i]);
    }
    gsvm_buf_cstr(&lhs);
    gsvm_buf_cstr(&rhs);
    dc_flush_all(F);
    dc_line(F, "%s = %s", (char *)lhs.data, (char *)rhs.data);
    gsvm_buf_free(&lhs);
    gsvm_buf_free(&rhs);
    return next_pc(F, qs[m - 1]);
}

/* Whether register r's value from pc is read anywhere but at the stores
 * qs[0..m) (stripped code: by its web). */
static bool read_elsewhere(fn *F, int64_t pc, int r, const int64_t *qs, int m)
{
    int32_t root = dc_web_find(F, (int32_t)(pc * F->wn + r));
    rw x;
    for (int64_t q = 0; q < F->n; q++) {
        if (F->isdata[q])
            continue;
        bool mine = false;
        for (int i = 0; i < m; i++)
            mine |= qs[i] == q;
        if (mine)
            continue;
        int32_t s = F->wstate[q * F->wn + r];
        if (s < 0 || dc_web_find(F, s) != root)
            continue;
        dc_operands(F, q, MAX_REGS, &x);
        for (int i = 0; i < x.nrd; i++)
            if (x.rd[i] == r)
                return true;
    }
    return false;
}

/* `t.x, t.y = f()`: a call's results in fresh registers a.. that the stores
 * right after it take from the highest down, and nothing else reads (no
 * local of them in the debug info; in stripped code no other reader of
 * their webs), so they were the statement's temporaries, not the locals of
 * `local p, q = f()`.  Prints the assignment with the call e and returns
 * the pc after the stores; -1 (e untouched) when it is not one. */
int64_t dc_emit_call_massign(fn *F, int64_t pc, int64_t to, dx *e)
{
    enum { MAXM = 64 };
    uint32_t w = W(F, pc), a = A_(w), c = C_(w);
    int m = (int)c - 1, rv;
    if (c < 3 || m > MAXM || a + (uint32_t)m > MAX_REGS || F->dispatch)
        return -1;
    int64_t qs[MAXM];
    int64_t q = next_pc(F, pc);
    for (int i = m - 1; i >= 0; i--, q = next_pc(F, q)) {
        if (q >= to || F->leader[q] || !dc_mstore(F, q, &rv) || rv != (int)a + i)
            return -1;
        rw x;
        dc_operands(F, q, MAX_REGS, &x);
        for (int k = 0; k < x.nrd; k++)
            if (x.rd[k] >= (int)a && x.rd[k] != rv)
                return -1;
        if (F->op[q] == HKS_I_MOVE && !dc_assignable(F, dc_var_of(F, (int)A_(W(F, q)), q, true)))
            return -1;
        qs[m - 1 - i] = q;
    }
    for (int r = (int)a; r < (int)a + m; r++) {
        if (F->P[r].kind != PK_NONE || F->vars[dc_var_of(F, r, pc, true)].declared)
            return -1;
        if (F->debug) {
            if (dc_debug_local(F, r, q) >= 0)
                return -1;
            for (int i = 0; i < m; i++)
                if (dc_debug_local(F, r, qs[i]) >= 0)
                    return -1;
        } else if (!F->wstate || r >= F->wn || read_elsewhere(F, pc, r, qs, m)) {
            return -1;
        }
    }
    dx T[MAXM];
    for (int i = 0; i < m; i++)
        T[i] = store_target(F, qs[i]);
    gsvm_buf lhs;
    gsvm_buf_init(&lhs);
    for (int i = m - 1; i >= 0; i--) {
        gsvm_buf_puts(&lhs, dx_str(&T[i]));
        if (i)
            gsvm_buf_puts(&lhs, ", ");
        dx_free(&T[i]);
    }
    gsvm_buf_cstr(&lhs);
    dc_flush_all(F);
    dc_line(F, "%s = %s", (char *)lhs.data, dx_str(e));
    gsvm_buf_free(&lhs);
    dx_free(e);
    return q;
}
