/* The HavokScript decompiler, statement ranges and the block-loop fallback. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* Whether no jump from outside [from, to) lands inside it (nothing falls
 * into from either: the caller has an unconditional jump before it). */
/* Where the instruction at q can go besides the next one: a jump's target,
 * or what a test, a skipping LOADBOOL or a TFORLOOP skips to. */
static bool branch_target(const fn *F, int64_t q, int64_t *t)
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

static bool unreached(const fn *F, int64_t from, int64_t to)
{
    int64_t t;
    for (int64_t q = 0; q < F->n; q++)
        if ((q < from || q >= to) && branch_target(F, q, &t) && t >= from && t < to)
            return false;
    return true;
}

/* A JMP at pc over code nothing else reaches is an `if` whose condition is
 * a constant false or nil (the compiler codes it as that jump):
 * `if false then A end`, and with a JMP in A to the same end after which
 * the rest is reached by nothing either, `if false then A else B end` (the
 * jump to B threaded through B's own leading jump: `elseif false`).  The
 * next pc, or -1 when it is not one. */
static int64_t emit_if_false(fn *F, int64_t pc, int64_t t, const loopctx *L)
{
    int64_t nx = next_pc(F, pc);
    if (t <= nx || (pc > 0 && (is_test(OPAT(F, pc - 1)) || OPAT(F, pc - 1) == HKS_I_LOADBOOL)) ||
        !unreached(F, nx, t))
        return -1;
    /* the first such JMP only: one more scan of the function, not one per JMP */
    int64_t q = -1;
    for (int64_t j = nx; j < t && q < 0; j = next_pc(F, j))
        if (OPAT(F, j) == HKS_I_JMP && jmp_target(F, j) == t && next_pc(F, j) < t &&
            !is_test(OPAT(F, j - 1)))
            q = j;
    if (q >= 0 && !unreached(F, next_pc(F, q), t))
        q = -1;
    dc_line(F, "if false then");
    dc_sub_range(F, nx, q >= 0 ? q : t, L, t);
    if (q >= 0) {
        dc_line(F, "else");
        dc_sub_range(F, next_pc(F, q), t, L, t);
    }
    dc_line(F, "end");
    return t;
}

/* Debug info: the end of a `do` block starting at pc, or -1.  The next
 * locals declared at this level (nothing between pc and their start jumps
 * past it or starts a loop) whose scope ends before the range does were
 * declared in a block of their own: without it they would keep their
 * registers to the range's end.  pc must be between statements. */
static int64_t do_block_end(const fn *F, int64_t pc, int64_t to)
{
    const gsvm_hks_debug *d = &F->f->debug;
    if (!F->debug || F->dispatch)
        return -1;
    for (int r = 0; r < F->ptop; r++)
        if (F->P[r].kind != PK_NONE)
            return -1;
    int64_t start = -1, end = -1;
    for (uint32_t i = 0; i < d->nlocals; i++) {
        int64_t s = d->locals[i].startpc;
        if (F->loc_reg[i] >= 0 && s > pc && s < to && (start < 0 || s < start))
            start = s, end = d->locals[i].endpc;
    }
    /* (a function's locals end before its final RETURN) */
    if (start < 0 || end >= to || end < start ||
        (end + 1 == to && to == F->n && OPAT(F, end) == HKS_I_RETURN))
        return -1;
    for (int64_t q = pc; q < start; q = next_pc(F, q)) {
        int64_t t;
        if (q > pc && F->backt[q])
            return -1;
        if (branch_target(F, q, &t) && t >= 0 && (t > start || t <= pc))
            return -1;
    }
    return end;
}

/* Whether code in [pc, q] jumps to the enclosing loop's exit past q + 1:
 * then the backward jump at q to pc is no loop of its own but a jump of
 * the enclosing loop's body to its start (threaded: `if c then f() else
 * g() end` ending the body), as a `break` there leaves only the innermost
 * loop. */
static bool exits_outer(const fn *F, int64_t pc, int64_t q, const loopctx *L)
{
    if (L->exit <= q + 1)
        return false;
    for (int64_t j = pc; j < q; j = next_pc(F, j))
        if (OPAT(F, j) == HKS_I_JMP && jmp_target(F, j) == L->exit)
            return true;
    return false;
}

/* Whether the backward jump at q to the start pc of the enclosing loop's
 * body is that loop's own: the escape of an if / else whose end is the
 * loop's back jump, merged into it (Lua 5.1's luaK_jump takes the pending
 * jumps along), `while true do ... if c then A else B end end`.  A loop of
 * its own at the same start is left by a test's JMP only at its condition
 * (`while c do`); a break is a JMP of its own (`if c then break end` codes
 * TEST, JMP over, JMP out), so the JMP of a later test to q + 1 is the
 * if's. */
static bool threaded_continue(fn *F, int64_t pc, int64_t q, const loopctx *L)
{
    if (pc != L->cont2)
        return false;
    cnode N[MAX_NODES];
    int64_t tT = -1, tF = -1, t0 = dc_operands_run(F, pc, q);
    int n = t0 >= 0 ? dc_chain_scan(F, t0, q, N, &tT, &tF, -1) : 0;
    if (n > 0 && tF != q + 1 && tF != dc_jump_dest(F, q + 1))
        n = 0; /* no condition of a loop ending at q */
    for (int64_t j = n > 0 ? N[n - 1].jmp + 1 : pc; j < q; j = next_pc(F, j))
        if (OPAT(F, j) == HKS_I_JMP && j > 0 && is_test(OPAT(F, j - 1)) &&
            jmp_target(F, j) == q + 1)
            return true;
    return false;
}

void dc_emit_range(fn *F, int64_t from, int64_t to, const loopctx *L)
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
            if (dc_is_back_jmp(F, j, pc)) {
                q = j;
                break;
            }
        if (q >= 0 && L->repeat_start != pc && !exits_outer(F, pc, q, L) &&
            !threaded_continue(F, pc, q, L)) {
            dc_flush_all(F);
            bool until = q > 0 && is_test(OPAT(F, q - 1));
            if (until) {
                dc_line(F, "repeat");
                loopctx B = {q + 1, q + 1, -2, pc, q + 1, q + 1};
                if (!dc_open_region(F, pc, q + 1))
                    return;
                dc_emit_range(F, pc, q + 1, &B);
                dc_flush_final(F);
                /* the condition line the chain left at the end */
                region *R = cur(F);
                char *u = NULL;
                for (size_t i = R->body.len; i > 0; i--)
                    if (R->body.data[i - 1] == '\x01') {
                        u = (char *)R->body.data + i - 1;
                        break;
                    }
                if (!u) {
                    dc_fail(F, "repeat without its condition");
                    dc_close_region(F);
                    return;
                }
                char *cond = gsvm_dup_bytes(u + 1, (size_t)((char *)R->body.data + R->body.len - u - 2));
                /* cut the marker line (and its indentation) */
                size_t at = (size_t)(u - (char *)R->body.data);
                while (at > 0 && R->body.data[at - 1] == ' ')
                    at--;
                R->body.len = at;
                dc_close_region(F);
                dc_line(F, "until %s", cond ? cond : "true");
                free(cond);
                pc = q + 1;
                continue;
            }
            /* while: a condition chain at the top that exits to q + 1 */
            int64_t E = q + 1;
            int64_t t0 = dc_operands_run(F, pc, q);
            cnode N[MAX_NODES];
            int64_t tT = -1, tF = -1;
            int n = t0 >= 0 ? dc_chain_scan(F, t0, q, N, &tT, &tF, -1) : 0;
            if (n > 0 && (tF == E || tF == dc_jump_dest(F, E))) {
                N[0].start = pc;
                dx c = dc_chain_emit(F, N, n, tT, tT, tF);
                dc_flush_all(F);
                dc_line(F, "while %s do", dx_str(&c));
                dx_free(&c);
                loopctx B = {E, q, pc, -1, -1, q};
                if (dc_open_region(F, tT, q)) {
                    dc_emit_range(F, tT, q, &B);
                    dc_flush_final(F);
                    dc_close_region(F);
                }
            } else {
                dc_line(F, "while true do");
                loopctx B = {E, q, pc, -1, -1, q};
                if (dc_open_region(F, pc, q)) {
                    dc_emit_range(F, pc, q, &B);
                    dc_flush_final(F);
                    dc_close_region(F);
                }
            }
            dc_line(F, "end");
            pc = E;
            continue;
        }
        int64_t e = do_block_end(F, pc, to);
        if (e < 0)
            e = dc_strip_do_end(F, pc, to, L);
        if (e > 0) {
            dc_line(F, "do");
            if (!dc_open_region(F, pc, e))
                return;
            dc_emit_range(F, pc, e, L);
            dc_flush_final(F);
            dc_close_region(F);
            dc_line(F, "end");
            pc = e;
            continue;
        }
        unsigned op = F->op[pc];
        if (op == HKS_I_FORPREP) {
            pc = dc_emit_numfor(F, pc, to, L);
            continue;
        }
        if (op == HKS_I_JMP) {
            int64_t t = jmp_target(F, pc);
            if (t > pc && t + 1 < F->n && t < to && OPAT(F, t) == HKS_I_TFORLOOP &&
                OPAT(F, t + 1) == HKS_I_JMP && jmp_target(F, t + 1) == pc + 1) {
                pc = dc_emit_genfor(F, pc, t);
                continue;
            }
            dc_flush_all(F);
            int64_t nx = next_pc(F, pc);
            if (dc_is_exit(F, L, t)) {
                if (nx < to)
                    dc_line(F, "do break end");
                else
                    dc_line(F, "break");
            } else if (nx >= to && (t == L->cont || t == L->cont2 || t == to)) {
                /* falls to where the block goes anyway */
            } else if (t <= to && (t = emit_if_false(F, pc, t, L)) >= 0) {
                pc = t;
                continue;
            } else {
                dc_fail(F, "jump not recovered");
                return;
            }
            pc = nx;
            continue;
        }
        if (is_test(op) && F->vend[pc] && F->vend[pc] <= to) {
            pc = dc_emit_value(F, pc);
            continue;
        }
        if (F->bend[pc] && F->bend[pc] + 2 <= to) {
            pc = dc_emit_bool_tail(F, pc);
            continue;
        }
        if (is_test(op) && op != HKS_I_TESTSET) {
            pc = dc_emit_cond(F, pc, to, L);
            continue;
        }
        if (op == HKS_I_FORLOOP || op == HKS_I_TFORLOOP) {
            dc_fail(F, "loop end without its start");
            return;
        }
        pc = dc_step(F, pc, to);
    }
}

/* ---------------------------------------------------------------- fallback */

static bool block_start(const fn *F, int64_t pc)
{
    return pc == 0 || F->leader[pc] || F->vjoin[pc];
}

/* Every basic block as one branch of a loop on `pc`: always possible. */
void dc_emit_dispatch(fn *F)
{
    /* every register a plain variable, declared at the top */
    F->dispatch = true;
    dc_line(F, "local pc = 0");
    dc_line(F, "while true do");
    bool first = true;
    int64_t pc = 0;
    F->extra = 1;
    while (pc < F->n && !F->fail) {
        if (F->isdata[pc]) {
            pc++;
            continue;
        }
        F->extra = 1;
        dc_line(F, "%sif pc == %lld then", first ? "" : "else", (long long)pc);
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
                dc_flush_all(F);
                dc_line(F, "pc = %lld", (long long)jmp_target(F, q));
                ended = true;
                q = nx;
                break;
            }
            if (is_test(op)) {
                int64_t t = nx < F->n && OPAT(F, nx) == HKS_I_JMP ? jmp_target(F, nx) : -1;
                int64_t after = nx < F->n ? next_pc(F, nx) : nx;
                if (t < 0) {
                    dc_fail(F, "test without its JMP");
                    break;
                }
                if (op == HKS_I_TESTSET) {
                    dx v = dc_get(F, (int)b, q);
                    dc_flush_all(F);
                    const char *src = dc_use_var(F, dc_var_of(F, (int)b, q, false));
                    if (v.s && strcmp(v.s, src) != 0) /* a folded value: it runs first */
                        dc_line(F, "%s = %s", src, v.s);
                    dx_free(&v);
                    dc_line(F, "if %s%s then %s = %s pc = %lld else pc = %lld end", c ? "" : "not ",
                         src, dc_use_var(F, dc_var_of(F, (int)a, q, true)), src, (long long)t,
                         (long long)after);
                } else {
                    dx j = dc_jump_cond(F, q);
                    dc_flush_all(F);
                    dc_line(F, "if %s then pc = %lld else pc = %lld end", dx_str(&j), (long long)t,
                         (long long)after);
                    dx_free(&j);
                }
                ended = true;
                q = after;
                break;
            }
            if (op == HKS_I_LOADBOOL && c) {
                dc_flush_all(F);
                dc_line(F, "%s = %s", dc_use_var(F, dc_var_of(F, (int)a, q, true)), b ? "true" : "false");
                dc_line(F, "pc = %lld", (long long)next_pc(F, nx));
                ended = true;
                q = nx;
                break;
            }
            if (op == HKS_I_FORPREP) {
                dc_flush_all(F);
                const char *i0 = dc_use_var(F, dc_var_of(F, (int)a, q, false));
                const char *st = dc_use_var(F, dc_var_of(F, (int)a + 2, q, false));
                dc_line(F, "%s = %s - %s", i0, i0, st);
                dc_line(F, "pc = %lld", (long long)jmp_target(F, q));
                ended = true;
                q = nx;
                break;
            }
            if (op == HKS_I_FORLOOP) {
                dc_flush_all(F);
                const char *i0 = dc_use_var(F, dc_var_of(F, (int)a, q, false));
                const char *li = dc_use_var(F, dc_var_of(F, (int)a + 1, q, false));
                const char *st = dc_use_var(F, dc_var_of(F, (int)a + 2, q, false));
                const char *iv = dc_use_var(F, dc_var_of(F, (int)a + 3, q, true));
                dc_line(F, "%s = %s + %s", i0, i0, st);
                dc_line(F, "if (%s > 0 and %s <= %s) or (%s <= 0 and %s >= %s) then %s = %s pc = "
                        "%lld else pc = %lld end",
                     st, i0, li, st, i0, li, iv, i0, (long long)jmp_target(F, q), (long long)nx);
                ended = true;
                q = nx;
                break;
            }
            if (op == HKS_I_TFORLOOP) {
                dc_flush_all(F);
                gsvm_buf lhs;
                gsvm_buf_init(&lhs);
                for (uint32_t r = a + 3; r <= a + 2 + c && r < MAX_REGS; r++) {
                    if (lhs.len)
                        gsvm_buf_puts(&lhs, ", ");
                    gsvm_buf_puts(&lhs, dc_use_var(F, dc_var_of(F, (int)r, q, true)));
                }
                gsvm_buf_cstr(&lhs);
                const char *f0 = dc_use_var(F, dc_var_of(F, (int)a, q, false));
                const char *s0 = dc_use_var(F, dc_var_of(F, (int)a + 1, q, false));
                const char *c0 = dc_use_var(F, dc_var_of(F, (int)a + 2, q, false));
                const char *v0 = dc_use_var(F, dc_var_of(F, (int)a + 3, q, false));
                int64_t j = nx < F->n && OPAT(F, nx) == HKS_I_JMP ? jmp_target(F, nx) : nx;
                int64_t after = nx < F->n && OPAT(F, nx) == HKS_I_JMP ? next_pc(F, nx) : nx;
                dc_line(F, "%s = %s(%s, %s)", lhs.data ? (char *)lhs.data : "_", f0, s0, c0);
                dc_line(F, "if %s ~= nil then %s = %s pc = %lld else pc = %lld end", v0, c0, v0,
                     (long long)j, (long long)after);
                gsvm_buf_free(&lhs);
                ended = true;
                q = after;
                break;
            }
            int64_t n2 = dc_step(F, q, F->n);
            if (op == HKS_I_RETURN || is_tailcall(op)) {
                ended = true;
                q = n2;
                break;
            }
            q = n2;
        }
        dc_flush_final(F);
        if (!ended) {
            if (q < F->n)
                dc_line(F, "pc = %lld", (long long)q);
            else
                dc_line(F, "do return end");
        }
        pc = q;
    }
    F->extra = 1;
    if (!first)
        dc_line(F, "else");
    F->extra = 2;
    dc_line(F, "return");
    F->extra = 1;
    dc_line(F, "end");
    F->extra = 0;
    dc_line(F, "end");
}
