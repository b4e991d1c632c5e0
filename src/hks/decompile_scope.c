/* The HavokScript decompiler, `do ... end` blocks of stripped code.
 *
 * Without debug info a block's end shows only in the registers: a new
 * local takes the register above every active one, and a statement's
 * temporaries go above the locals.  So when locals declared at this level
 * from register r0 up die and, before the range ends, r0 is written again
 * at this level with a temporary or with a call's result or a table
 * constructor (those go to a free register), those locals were declared in
 * a block of their own that ended before that write: without it they would
 * keep their registers, and what follows would be coded higher.  (A
 * variable written there otherwise may as well be the older local
 * assigned, which dead_twin makes it.)  A CLOSE of r0 is such a block's
 * end too (a closure captured one of its locals), or its second CLOSE
 * when the first is a break's.  A block that would end
 * where the range does is the range's own. */
#include <stdlib.h>

#include "hks/decompile.h"

/* Where the instruction at q can go besides the next one (see flow.c). */
static bool branch_to(const fn *F, int64_t q, int64_t *t)
{
    unsigned op = OPAT(F, q);
    if (op == HKS_I_JMP || op == HKS_I_FORPREP || op == HKS_I_FORLOOP) {
        *t = jmp_target(F, q);
        return true;
    }
    if (is_test(op) || (op == HKS_I_LOADBOOL && C_(W(F, q))) || op == HKS_I_TFORLOOP) {
        *t = next_pc(F, next_pc(F, q));
        return true;
    }
    return false;
}

/* Whether [from, q) is a run of whole statements of this level: nothing in
 * it jumps out (but to q or out of the enclosing loop) and nothing outside
 * jumps into it past from. */
static bool whole(const fn *F, int64_t from, int64_t q, const loopctx *L)
{
    int64_t t;
    for (int64_t j = 0; j < F->n; j++) {
        if (F->isdata[j] || !branch_to(F, j, &t))
            continue;
        if (j >= from && j < q) {
            if ((t < from || t > q) && !dc_is_exit(F, L, t))
                return false;
        } else if (t > from && t < q) {
            return false;
        }
    }
    return true;
}

/* No register from r0 up holds a value entering q: no statement is half
 * done there (its temporaries are above the locals). */
static bool clean(const fn *F, int64_t q, int r0)
{
    const int32_t *st = F->wstate + q * F->wn;
    for (int r = r0; r < F->wn; r++)
        if (st[r] >= 0)
            return false;
    return true;
}

/* Whether the instruction at pc writes register r, not folded into a reader. */
static bool sets(const fn *F, int64_t pc, int r)
{
    if (F->use[pc] >= 0)
        return false;
    rw x;
    dc_operands(F, pc, MAX_REGS, &x);
    for (int i = 0; i < x.nwr; i++)
        if (x.wr[i] == r)
            return true;
    return false;
}

/* A comparison's value (LOADBOOL r 0 1; LOADBOOL r 1 0) goes to a free
 * register like a call's result: the register above the live locals. */
static bool cmp_value(const fn *F, int64_t pc)
{
    if (OPAT(F, pc) != HKS_I_LOADBOOL)
        return false;
    if (C_(W(F, pc)))
        return true;
    return pc > 0 && !F->isdata[pc - 1] && OPAT(F, pc - 1) == HKS_I_LOADBOOL &&
           C_(W(F, pc - 1)) && A_(W(F, pc - 1)) == A_(W(F, pc));
}

bool dc_fresh_write(const fn *F, int64_t pc)
{
    unsigned op = OPAT(F, pc);
    return is_call(op) || op == HKS_I_NEWTABLE || op == HKS_I_NEWSTRUCT;
}

/* The index in bylo of the first variable accessed at pc or later. */
static int bylo_from(const fn *F, int64_t pc)
{
    int lo = 0, hi = F->nbylo;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (F->vars[F->bylo[mid]].lo < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first variable that the statements from pc set, or -1. */
static int first_local(fn *F, int64_t pc, int64_t to)
{
    for (int i = bylo_from(F, pc); i < F->nbylo && F->vars[F->bylo[i]].lo < to; i++) {
        int v = F->bylo[i];
        const dvar *dv = &F->vars[v];
        if (!dv->declared && v >= F->nregvars && sets(F, dv->lo, dv->reg))
            return v;
    }
    return -1;
}

int64_t dc_strip_do_end(fn *F, int64_t pc, int64_t to, const loopctx *L)
{
    if (F->debug || F->dispatch || !F->wstate)
        return -1;
    for (int r = 0; r < F->ptop; r++)
        if (F->P[r].kind != PK_NONE)
            return -1;
    int v0 = first_local(F, pc, to);
    if (v0 < 0)
        return -1;
    const dvar *d0 = &F->vars[v0];
    int r0 = d0->reg, wn = F->wn;
    if (r0 >= wn)
        return -1;
    /* the block's end: r0 holding a temporary or a new local's value (a
     * variable assigned otherwise is the local: dead_twin), or a CLOSE of
     * r0; asked again for the statements before v0, once found */
    int64_t w = -1;
    if (F->memo_v == v0 + 1 && F->memo_to == to) {
        w = F->memo_w;
    } else {
        for (int64_t q = d0->lo + 1; q < to && w < 0; q++) {
            if (F->isdata[q])
                continue;
            if (OPAT(F, q) == HKS_I_CLOSE && (int)A_(W(F, q)) == r0) {
                w = q + 1;
                /* a break as the block's last statement closes r0 before
                 * its jump, and the block's own (dead) CLOSE follows: the
                 * block ends after that one, the break inside it */
                if (q + 2 < to && !F->isdata[q + 1] && OPAT(F, q + 1) == HKS_I_JMP &&
                    dc_is_exit(F, L, jmp_target(F, q + 1)) && !F->isdata[q + 2] &&
                    OPAT(F, q + 2) == HKS_I_CLOSE && (int)A_(W(F, q + 2)) == r0)
                    w = q + 3;
                break;
            }
            int32_t s = F->wstate[q * wn + r0];
            int64_t d = s >= 0 ? s / wn : -1;
            if (d > d0->lo && d < (int64_t)F->n && (F->use[d] >= 0 || dc_fresh_write(F, d) || cmp_value(F, d)))
                w = d;
        }
        F->memo_v = v0 + 1, F->memo_to = to, F->memo_w = w;
    }
    if (w < 0 || w >= to)
        return -1;
    /* a new local: no older one of its register is still declared */
    for (int u = 0; u < F->nvars; u++)
        if (F->vars[u].declared && F->vars[u].reg == r0 && F->vars[u].owner >= 0)
            return -1;
    /* the block starts at the statement that declares v0: a later clean
     * point of this level before it is where it opens */
    for (int64_t q = d0->lo; q > pc; q--)
        if (!F->isdata[q] && clean(F, q, r0) && whole(F, pc, q, L))
            return -1;
    /* every local declared in the block is dead by then */
    int64_t maxhi = d0->hi;
    for (int i = bylo_from(F, d0->lo); i < F->nbylo; i++) {
        const dvar *dv = &F->vars[F->bylo[i]];
        if (dv->lo >= w)
            break;
        if (dv->lo >= d0->lo && dv->reg >= r0 && dv->hi > maxhi)
            maxhi = dv->hi;
    }
    if (maxhi >= w)
        return -1;
    /* v0 is of this level: what jumps before it does not go past the
     * block's last use (an if around it would) */
    for (int64_t q = pc; q < d0->lo; q++) {
        int64_t t;
        if (!F->isdata[q] && branch_to(F, q, &t) && t > maxhi)
            return -1;
    }
    /* the last clean point of this level before the write: the next
     * statement starts there */
    for (int64_t q = w; q > maxhi; q--)
        if (!F->isdata[q] && clean(F, q, r0) && whole(F, pc, q, L))
            return q < to ? q : -1;
    return -1;
}
