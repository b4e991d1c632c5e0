/* The HavokScript decompiler, conditions and loops: test chains, for loops, if / while / repeat. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* ---------------------------------------------------------------- conditions */

/* Builds "reach tT" over nodes [i, e); falling off node e-1 reaches
 * position nodes[e].start (or `end` when e is the last). */
dx dc_cond_expr(fn *F, cnode *N, int i, int e, int64_t end, int64_t tT, int64_t tF, int lvl)
{
    int64_t fall = e < 0 ? end : end;
    (void)fall;
    if (lvl > 100) {
        dc_fail(F, "condition too deep");
        return dx_make(DX_ATOM, "true");
    }
    if (i == e) {
        if (end == tT)
            return dx_make(DX_ATOM, "true");
        if (end == tF)
            return dx_make(DX_ATOM, "false");
        dc_fail(F, "condition falls nowhere");
        return dx_make(DX_ATOM, "true");
    }
    int64_t t = N[i].target;
    dx J = N[i].j;
    N[i].j.s = NULL;
    if (t == tF) {
        dx rest = dc_cond_expr(F, N, i + 1, e, end, tT, tF, lvl + 1);
        dx nj = dx_not(J);
        if (rest.s && strcmp(rest.s, "true") == 0) {
            dx_free(&rest);
            return nj;
        }
        return dx_binary(nj, "and", DX_AND, rest);
    }
    if (t == tT) {
        dx rest = dc_cond_expr(F, N, i + 1, e, end, tT, tF, lvl + 1);
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
        dc_fail(F, "condition jumps into the middle");
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
            dc_fail(F, "condition shape not recovered");
            return dx_make(DX_ATOM, "true");
        }
        N[i].j = J; /* the group's own call takes node i again */
        bool is_and = !g_t;
        dx G = is_and ? dc_cond_expr(F, N, i, m, mpos, mpos, tF, lvl + 1)
                      : dc_cond_expr(F, N, i, m, mpos, tT, mpos, lvl + 1);
        dx rest = dc_cond_expr(F, N, m, e, end, tT, tF, lvl + 1);
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
        dx P = dc_cond_expr(F, N, i + 1, k, kpos, tT, kpos, lvl + 1);
        dx rest = dc_cond_expr(F, N, k, e, end, tT, tF, lvl + 1);
        dx left = dx_binary(dx_not(J), "and", DX_AND, P);
        return dx_binary(left, "or", DX_OR, rest);
    }
    if (!to_t) {
        dx P = dc_cond_expr(F, N, i + 1, k, kpos, kpos, tF, lvl + 1);
        dx rest = dc_cond_expr(F, N, k, e, end, tT, tF, lvl + 1);
        dx left = dx_binary(J, "or", DX_OR, P);
        return dx_binary(left, "and", DX_AND, rest);
    }
    dx_free(&J);
    dc_fail(F, "condition shape not recovered");
    return dx_make(DX_ATOM, "true");
}

/* Only definitions that fold (and constructor stores) from pc up to the
 * next test: the operands of the next node of a chain. */
int64_t dc_operands_run(fn *F, int64_t pc, int64_t to)
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
int dc_chain_scan(fn *F, int64_t pc, int64_t to, cnode *N, int64_t *tT, int64_t *tF,
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
        int64_t nx = dc_operands_run(F, start, to);
        if (nx < 0)
            break;
        pc = nx;
    }
    return best;
}

/* Emits the operands and tests of an n-node chain; returns "reach tT". */
dx dc_chain_emit(fn *F, cnode *N, int n, int64_t fall, int64_t tT, int64_t tF)
{
    for (int i = 0; i < n; i++) {
        for (int64_t q = N[i].start; q < N[i].test && !F->fail;)
            q = dc_step(F, q, N[i].test);
        N[i].j = dc_jump_cond(F, N[i].test);
    }
    dx e = dc_cond_expr(F, N, 0, n, fall, tT, tF, 0);
    for (int i = 0; i < n; i++)
        dx_free(&N[i].j);
    return e;
}

/* ---------------------------------------------------------------- structure */

/* Whether a jump to t leaves the loop of L (a break).  The compiler merges
 * the jumps pending at a pc into a JMP coded there (Lua 5.1's luaK_jump), so
 * a break whose loop exit holds a plain JMP lands where that JMP goes, and
 * so on down the chain. */
bool dc_is_exit(const fn *F, const loopctx *L, int64_t t)
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

/* Where a jump to pc ends up: the compiler threads a jump that lands on an
 * unconditional JMP through to that JMP's target (a loop's exit jump
 * lands past a `while false do` after the loop; the end of an if at the
 * end of a loop body is the loop's start). */
int64_t dc_jump_dest(const fn *F, int64_t pc)
{
    for (int i = 0; i < 64 && OPAT(F, pc) == HKS_I_JMP && !(pc > 0 && is_test(OPAT(F, pc - 1)));
         i++) {
        int64_t t = jmp_target(F, pc);
        if (t == pc || t < 0 || t > F->n)
            break;
        pc = t;
    }
    return pc;
}

void dc_sub_range(fn *F, int64_t from, int64_t to, const loopctx *L, int64_t cont)
{
    loopctx S = *L;
    if (to != L->end) {
        S.cont = cont;
        /* (a jump there may have been threaded on) */
        int64_t d = dc_jump_dest(F, cont);
        S.cont2 = d != cont ? d : -2;
    }
    S.end = to;
    S.repeat_start = -1;
    if (!dc_open_region(F, from, to))
        return;
    dc_emit_range(F, from, to, &S);
    dc_flush_final(F);
    dc_close_region(F);
}

bool dc_is_back_jmp(const fn *F, int64_t q, int64_t pc)
{
    if (OPAT(F, q) != HKS_I_JMP || jmp_target(F, q) != pc)
        return false;
    unsigned prev = q > 0 ? OPAT(F, q - 1) : HKS_NO_OP;
    return prev != HKS_I_TFORLOOP;
}

/* A numeric for at pc (FORPREP). */
int64_t dc_emit_numfor(fn *F, int64_t pc, int64_t to, const loopctx *L)
{
    (void)L;
    uint32_t w = W(F, pc), a = A_(w);
    int64_t t = jmp_target(F, pc);
    if (t <= pc || t >= to || OPAT(F, t) != HKS_I_FORLOOP || A_(W(F, t)) != a ||
        jmp_target(F, t) != pc + 1 || a + 3 >= MAX_REGS) {
        dc_fail(F, "for loop shape");
        return to;
    }
    dx init = dc_get(F, (int)a, pc), lim = dc_get(F, (int)a + 1, pc), stp = dc_get(F, (int)a + 2, pc);
    dc_flush_all(F);
    int v;
    if (F->debug && dc_local_at(F, (int)a + 3, pc + 1, false) >= 0)
        v = dc_var_of(F, (int)a + 3, pc + 1, false);
    else
        v = dc_new_var(F, "i", (int)a + 3);
    int saved = F->override[a + 3];
    F->override[a + 3] = v;
    F->vars[v].declared = true;
    /* a typed loop variable: its check opens the body */
    if (OPAT(F, pc + 1) == HKS_I_CHECKTYPE && A_(W(F, pc + 1)) == a + 3)
        dc_set_type(F, v, W(F, pc + 1), HKS_I_CHECKTYPE);
    if (stp.s && strcmp(stp.s, "1") == 0)
        dc_line(F, "for %s = %s, %s do", dc_dname(F, v), dx_str(&init), dx_str(&lim));
    else
        dc_line(F, "for %s = %s, %s, %s do", dc_dname(F, v), dx_str(&init), dx_str(&lim),
             dx_str(&stp));
    dx_free(&init);
    dx_free(&lim);
    dx_free(&stp);
    loopctx B = {t + 1, t, -2, -1, -1, t};
    if (dc_open_region(F, pc + 1, t)) {
        dc_emit_range(F, pc + 1, t, &B);
        dc_flush_final(F);
        dc_close_region(F);
    }
    F->override[a + 3] = saved;
    dc_line(F, "end");
    return t + 1;
}

/* A generic for: JMP to TFORLOOP, the body, TFORLOOP, JMP back. */
int64_t dc_emit_genfor(fn *F, int64_t pc, int64_t t)
{
    uint32_t w = W(F, t), a = A_(w), c = C_(w);
    if (c < 1 || a + 2 + c >= MAX_REGS) {
        dc_fail(F, "generic for shape");
        return t + 2;
    }
    dx ex;
    if (F->P[a].kind == PK_MULTI && F->P[a].nres == 3) {
        ex = F->P[a].e;
        F->P[a].e.s = NULL;
        dc_pend_clear(&F->P[a]);
    } else {
        ex = dc_list_text(F, pc, a, a + 2, false);
        /* drop trailing nils the compiler pads the list with */
        while (ex.s) {
            size_t n = strlen(ex.s);
            if (n > 5 && strcmp(ex.s + n - 5, ", nil") == 0)
                ex.s[n - 5] = 0;
            else
                break;
        }
    }
    dc_flush_all(F);
    int saved[MAX_REGS];
    gsvm_buf names;
    gsvm_buf_init(&names);
    for (uint32_t i = 0; i < c; i++) {
        int r = (int)(a + 3 + i);
        saved[i] = F->override[r];
        int v;
        if (F->debug && dc_local_at(F, r, pc + 1, false) >= 0)
            v = dc_var_of(F, r, pc + 1, false);
        else {
            char base[16];
            snprintf(base, sizeof base, "%s", i == 0 ? "k" : i == 1 ? "v" : "v");
            v = dc_new_var(F, base, r);
        }
        F->override[r] = v;
        F->vars[v].declared = true;
        if (i)
            gsvm_buf_puts(&names, ", ");
        gsvm_buf_puts(&names, F->vars[v].name);
    }
    gsvm_buf_cstr(&names);
    dc_line(F, "for %s in %s do", (char *)names.data, dx_str(&ex));
    gsvm_buf_free(&names);
    dx_free(&ex);
    loopctx B = {t + 2, t, -2, -1, -1, t};
    if (dc_open_region(F, pc + 1, t)) {
        dc_emit_range(F, pc + 1, t, &B);
        dc_flush_final(F);
        dc_close_region(F);
    }
    for (uint32_t i = 0; i < c; i++)
        F->override[a + 3 + i] = saved[i];
    dc_line(F, "end");
    return t + 2;
}

/* A test at pc that starts a condition: if, a value, or a loop's exit. */
int64_t dc_emit_cond(fn *F, int64_t pc, int64_t to, const loopctx *L)
{
    cnode N[MAX_NODES];
    int64_t tT = -1, tF = -1;
    if (pc + 2 <= to && OPAT(F, pc + 1) == HKS_I_JMP && jmp_target(F, pc + 1) == pc + 2 &&
        F->op[pc] != HKS_I_TESTSET && !F->jtarget[pc + 1]) {
        /* `if c then end`: the false jump goes where the empty block ends */
        dx j = dc_jump_cond(F, pc);
        dc_flush_all(F);
        j = dx_not(j);
        dc_line(F, "if %s then", dx_str(&j));
        dc_line(F, "end");
        dx_free(&j);
        return pc + 2;
    }
    int n = dc_chain_scan(F, pc, to, N, &tT, &tF, L->repeat_start);
    if (n == 0) {
        dc_fail(F, "test without a condition shape");
        return to;
    }
    /* repeat ... until: the chain closes the repeat body */
    if (L->repeat_start >= 0 && tF == L->repeat_start && tT == L->repeat_end) {
        dx c = dc_chain_emit(F, N, n, tT, tT, tF);
        dc_flush_all(F);
        /* the caller prints "until c" after the block */
        dc_line(F, "\x01%s", dx_str(&c));
        dx_free(&c);
        return tT;
    }
    /* a comparison as a value: LOADBOOL A 0 1; LOADBOOL A 1 0 */
    if (tT < F->n && tF == tT + 1 && OPAT(F, tT) == HKS_I_LOADBOOL &&
        OPAT(F, tF) == HKS_I_LOADBOOL && C_(W(F, tT)) == 1 && B_(W(F, tT)) == 0 &&
        B_(W(F, tF)) == 1 && C_(W(F, tF)) == 0 && A_(W(F, tT)) == A_(W(F, tF))) {
        dx c = dc_chain_emit(F, N, n, tT, tF, tT);
        bool boolean = true;
        for (int i = 0; i < n; i++)
            if (is_test(F->op[N[i].test]) &&
                (F->op[N[i].test] == HKS_I_TEST || F->op[N[i].test] == HKS_I_TEST_R1))
                boolean = false;
        if (!boolean)
            c = dx_unary("not", dx_unary("not", c));
        dc_put(F, (int)A_(W(F, tT)), tF, c);
        return tF + 1;
    }
    if (tF <= tT || tF > to) {
        bool to_end = tF == L->cont || (tF == L->cont2 && L->cont2 >= 0);
        if (to_end) {
            /* false goes where the block goes: the rest of it is the then */
            dx c = dc_chain_emit(F, N, n, tT, tT, tF);
            dc_flush_all(F);
            dc_line(F, "if %s then", dx_str(&c));
            dx_free(&c);
            dc_sub_range(F, tT, to, L, L->cont);
            dc_line(F, "end");
            return to;
        }
        if (dc_is_exit(F, L, tF)) {
            /* `if c then A else break end`: the else block is just the
             * break's JMP at X, so the false jump, pending there, was merged
             * into it (it goes to the loop's exit); A ends in a JMP over X */
            for (int64_t X = tT + 1; X < to; X = next_pc(F, X)) {
                int64_t j = X - 1;
                if (OPAT(F, X) != HKS_I_JMP || !dc_is_exit(F, L, jmp_target(F, X)) ||
                    F->isdata[j] || OPAT(F, j) != HKS_I_JMP || (j > 0 && is_test(OPAT(F, j - 1))))
                    continue;
                int64_t E = jmp_target(F, j);
                if (E != next_pc(F, X) || E > to || j < tT)
                    continue;
                dx c = dc_chain_emit(F, N, n, tT, tT, tF);
                dc_flush_all(F);
                dc_line(F, "if %s then", dx_str(&c));
                dx_free(&c);
                dc_sub_range(F, tT, j, L, E);
                dc_line(F, "else");
                dc_line(F, "  break");
                dc_line(F, "end");
                return E;
            }
            dx c = dc_chain_emit(F, N, n, tT, tT, tF);
            dc_flush_all(F);
            c = dx_not(c);
            dc_line(F, "if %s then break end", dx_str(&c));
            dx_free(&c);
            return tT;
        }
        dc_fail(F, "condition exits the block");
        return to;
    }
    dx c = dc_chain_emit(F, N, n, tT, tT, tF);
    dc_flush_all(F);
    /* else: the then block ends in a forward JMP past the else block */
    int64_t last = tF - 1;
    int64_t E = -1;
    if (last >= tT && OPAT(F, last) == HKS_I_JMP && !(last > 0 && is_test(OPAT(F, last - 1)))) {
        int64_t t = jmp_target(F, last);
        if (dc_is_exit(F, L, t))
            E = -1;
        else if (t > tF && t <= to)
            E = t;
        else if ((t == L->cont || t == L->cont2) && to > tF)
            E = to;
    }
    dc_line(F, "if %s then", dx_str(&c));
    dx_free(&c);
    if (E >= 0) {
        dc_sub_range(F, tT, last, L, E);
        dc_line(F, "else");
        dc_sub_range(F, tF, E, L, E);
        dc_line(F, "end");
        return E;
    }
    dc_sub_range(F, tT, tF, L, tF);
    dc_line(F, "end");
    return tF;
}
