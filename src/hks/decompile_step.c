/* The HavokScript decompiler, one instruction that is not control flow. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* LOADNIL A B (A < B) whose registers are all read by the instruction
 * that reads A (the analysis folds A into it) and by nothing before it. */
static bool nils_read_together(const fn *F, int64_t pc)
{
    uint32_t w = W(F, pc), a = A_(w), b = B_(w);
    int64_t u = F->use[pc];
    if (u < 0 || b >= MAX_REGS)
        return false;
    rw x;
    dc_operands(F, u, MAX_REGS, &x);
    for (uint32_t r = a; r <= b; r++) {
        bool rd = false;
        for (int i = 0; i < x.nrd; i++)
            rd |= x.rd[i] == (int)r;
        if (!rd)
            return false;
    }
    for (int64_t q = next_pc(F, pc); q < u; q = next_pc(F, q)) {
        dc_operands(F, q, MAX_REGS, &x);
        for (int i = 0; i < x.nrd; i++)
            if (x.rd[i] >= (int)a && x.rd[i] <= (int)b)
                return false;
        for (int i = 0; i < x.nwr; i++)
            if (x.wr[i] >= (int)a && x.wr[i] <= (int)b)
                return false;
    }
    return true;
}

int64_t dc_step(fn *F, int64_t pc, int64_t to)
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
        dc_fail(F, "an opcode the profile does not have");
        return to;
    }
    if ((aop = dc_arith_op(op, &prec)) != NULL) {
        dx l = b_is_k(op) ? dc_get_k(F, b) : dc_get(F, (int)b, pc);
        dx r = dc_get_rk(F, c, pc);
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
        dc_put(F, (int)a, pc, e);
        return nx;
    }
    if (is_call(op)) {
        if (a >= MAX_REGS - 1) {
            dc_fail(F, "register out of range");
            return to;
        }
        dx e = dc_call_text(F, pc, a, b);
        if (c == 1) {
            dc_stmt(F, e);
        } else if (c == 2) {
            dc_put(F, (int)a, pc, e);
        } else if (c == 0 ||
                   (c == 4 && !F->dispatch && nx < F->n && OPAT(F, nx) == HKS_I_JMP &&
                    OPAT(F, jmp_target(F, nx)) == HKS_I_TFORLOOP &&
                    A_(W(F, jmp_target(F, nx))) == a)) {
            if (F->P[a].kind != PK_NONE) {
                dc_flush_all(F);
                dc_pend_clear(&F->P[a]);
            }
            dc_pend_at(F, a)->kind = PK_MULTI;
            F->P[a].e = e;
            F->P[a].nres = c == 0 ? 0 : 3;
            F->P[a].def_pc = (uint32_t)pc;
            if (c == 0)
                F->multret_top = (int)a;
        } else {
            int64_t after = dc_emit_call_massign(F, pc, to, &e);
            if (after >= 0)
                return after;
            /* several results into variables: a multiple assignment */
            dc_flush_all(F);
            gsvm_buf lhs;
            gsvm_buf_init(&lhs);
            bool all_new = true;
            for (uint32_t r = a; r + 2 <= a + c; r++) {
                dvar *dv = &F->vars[dc_var_of(F, (int)r, pc, true)];
                if (dv->declared || !(dv->owner < 0 || dv->owner == F->nr - 1))
                    all_new = false;
            }
            for (uint32_t r = a; r + 2 <= a + c; r++) {
                int v = dc_var_of(F, (int)r, pc, true);
                if (all_new) {
                    F->vars[v].declared = true;
                    if (F->vars[v].owner < 0)
                        dc_set_owner(F, v, F->nr - 1);
                }
                if (lhs.len)
                    gsvm_buf_puts(&lhs, ", ");
                gsvm_buf_puts(&lhs, all_new ? dc_dname(F, v) : dc_use_var(F, v));
            }
            gsvm_buf_cstr(&lhs);
            dc_line(F, "%s%s = %s", all_new ? "local " : "", (char *)lhs.data, dx_str(&e));
            gsvm_buf_free(&lhs);
            dx_free(&e);
        }
        return nx;
    }
    if (is_tailcall(op)) {
        dx e = dc_call_text(F, pc, a, b);
        dc_flush_all(F);
        /* the unreachable RETURN the compiler puts after it */
        int64_t after = nx;
        if (after < F->n && OPAT(F, after) == HKS_I_RETURN && !F->jtarget[after])
            after = next_pc(F, after);
        /* and the function's own final RETURN */
        if (after + 1 == (int64_t)F->n && to == F->n && OPAT(F, after) == HKS_I_RETURN &&
            B_(W(F, after)) == 1 && !F->jtarget[after])
            after = F->n;
        if (after < to)
            dc_line(F, "do return %s end", dx_str(&e));
        else
            dc_line(F, "return %s", dx_str(&e));
        dx_free(&e);
        return after;
    }
    {
        int64_t after = dc_emit_massign(F, pc, to);
        if (after >= 0)
            return after;
    }
    switch (op) {
    case HKS_I_MOVE: dc_put(F, (int)a, pc, dc_get(F, (int)b, pc)); return nx;
    case HKS_I_LOADK: dc_put(F, (int)a, pc, dc_get_k(F, bx)); return nx;
    case HKS_I_LOADBOOL:
        if (c) {
            dc_fail(F, "LOADBOOL skip outside a comparison value");
            return to;
        }
        dc_put(F, (int)a, pc, dx_make(DX_ATOM, b ? "true" : "false"));
        return nx;
    case HKS_I_LOADNIL:
        if (a == b) {
            dc_put(F, (int)a, pc, dx_make(DX_ATOM, "nil"));
        } else if (nils_read_together(F, pc)) {
            /* nils as arguments (f(nil, nil)): values of the reader */
            for (uint32_t r = a; r <= b; r++) {
                if (F->P[r].kind != PK_NONE) {
                    dc_flush_all(F);
                    dc_pend_clear(&F->P[r]);
                }
                dc_pend_at(F, (int)r);
                F->P[r].kind = PK_EXPR;
                F->P[r].e = dx_make(DX_ATOM, "nil");
                F->P[r].def_pc = (uint32_t)pc;
            }
        } else {
            dc_flush_all(F);
            for (uint32_t r = a; r <= b && r < MAX_REGS && !F->fail; r++)
                dc_assign_var(F, dc_var_of(F, (int)r, pc, true), dx_make(DX_ATOM, "nil"));
        }
        return nx;
    case HKS_I_GETGLOBAL: case HKS_I_GETGLOBAL_MEM: {
        const gsvm_hks_const *k = dc_kptr(F, bx);
        if (!k || k->type != GSVM_HKS_K_STRING || k->s.size < 2 ||
            !dx_is_name(k->s.data, (size_t)k->s.size - 1)) {
            /* a global that is not a name: through the environment table */
            dx kt = dc_get_k(F, bx);
            dc_put(F, (int)a, pc, dx_make(DX_PREFIX, "getfenv(1)[%s]", dx_str(&kt)));
            dx_free(&kt);
        } else {
            dc_put(F, (int)a, pc, dx_make(DX_PREFIX, "%s", k->s.data));
        }
        return nx;
    }
    case HKS_I_SETGLOBAL: {
        const gsvm_hks_const *k = dc_kptr(F, bx);
        dx v;
        if (F->P[a].kind == PK_EXPR && F->P[a].e.s && strncmp(F->P[a].e.s, "function(", 9) == 0 &&
            k && k->type == GSVM_HKS_K_STRING && k->s.size > 1 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1)) {
            v = dc_get(F, (int)a, pc);
            dc_stmt(F, dx_make(DX_ATOM, "function %s%s", k->s.data, v.s + 8));
            dx_free(&v);
            return nx;
        }
        v = dc_get(F, (int)a, pc);
        dx kt = dc_get_k(F, bx);
        if (k && k->type == GSVM_HKS_K_STRING && k->s.size > 1 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1))
            dc_stmt(F, dx_make(DX_ATOM, "%s = %s", k->s.data, dx_str(&v)));
        else
            dc_stmt(F, dx_make(DX_ATOM, "getfenv(1)[%s] = %s", dx_str(&kt), dx_str(&v)));
        dx_free(&v);
        dx_free(&kt);
        return nx;
    }
    case HKS_I_GETUPVAL:
        if (b >= F->nups) {
            dc_fail(F, "upvalue out of range");
            return to;
        }
        dc_put(F, (int)a, pc, dx_make(DX_PREFIX, "%s", F->upnames[b]));
        return nx;
    case HKS_I_SETUPVAL: case HKS_I_SETUPVAL_R1: {
        if (b >= F->nups) {
            dc_fail(F, "upvalue out of range");
            return to;
        }
        dx v = dc_get(F, (int)a, pc);
        dc_stmt(F, dx_make(DX_ATOM, "%s = %s", F->upnames[b], dx_str(&v)));
        dx_free(&v);
        return nx;
    }
    case HKS_I_GETFIELD: case HKS_I_GETFIELD_R1: case HKS_I_GETFIELD_MM: {
        dx base = dc_get(F, (int)b, pc);
        dc_put(F, (int)a, pc, dx_index(base, dc_kptr(F, c), dc_get_k(F, c)));
        return nx;
    }
    case HKS_I_GETTABLE: case HKS_I_GETTABLE_S: case HKS_I_GETTABLE_N: {
        dx base = dc_get(F, (int)b, pc);
        dx key = dc_get_rk(F, c, pc);
        dc_put(F, (int)a, pc, dx_index(base, c >= 256 ? dc_kptr(F, c - 256) : NULL, key));
        return nx;
    }
    case HKS_I_SETFIELD: case HKS_I_SETFIELD_R1: case HKS_I_SETTABLE: case HKS_I_SETTABLE_BK:
    case HKS_I_SETTABLE_S: case HKS_I_SETTABLE_S_BK: case HKS_I_SETTABLE_N:
    case HKS_I_SETTABLE_N_BK: {
        bool kb = b_is_k(op);
        const gsvm_hks_const *kc = kb ? dc_kptr(F, b) : NULL;
        if (F->absorbed[pc] && a < MAX_REGS && F->P[a].kind == PK_TABLE) {
            dx key = kb ? dc_get_k(F, b) : dc_get(F, (int)b, pc);
            dx val = dc_get_rk(F, c, pc);
            pend *p = &F->P[a];
            if (p->kind != PK_TABLE) {
                /* reading the operands closed the constructor */
                dx target = dx_index(dc_get(F, (int)a, pc), kc, key);
                dc_stmt(F, dx_make(DX_ATOM, "%s = %s", dx_str(&target), dx_str(&val)));
                dx_free(&target);
                dx_free(&val);
                return nx;
            }
            dc_table_positional(F, (int)a, pc);
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
        dx base = dc_get(F, (int)a, pc);
        dx key = kb ? dc_get_k(F, b) : dc_get(F, (int)b, pc);
        bool named = kc && kc->type == GSVM_HKS_K_STRING && kc->s.size > 1 &&
                     dx_is_name(kc->s.data, (size_t)kc->s.size - 1);
        if (named && c < 256 && F->P[c].kind == PK_EXPR && F->P[c].e.s &&
            strncmp(F->P[c].e.s, "function(", 9) == 0 && base.prec >= DX_PREFIX && base.s &&
            dx_is_name(base.s, strlen(base.s))) {
            /* function a.b(...) */
            dx v = dc_get(F, (int)c, pc);
            dc_stmt(F, dx_make(DX_ATOM, "function %s.%s%s", base.s, kc->s.data, v.s + 8));
            dx_free(&v);
            dx_free(&base);
            dx_free(&key);
            return nx;
        }
        dx val = dc_get_rk(F, c, pc);
        dx target = dx_index(base, kc, key);
        dc_stmt(F, dx_make(DX_ATOM, "%s = %s", dx_str(&target), dx_str(&val)));
        dx_free(&target);
        dx_free(&val);
        return nx;
    }
    case HKS_I_GETSLOT: case HKS_I_GETSLOT_D: case HKS_I_GETSLOTMT: {
        const char *name = dc_slot_name(F, pc);
        if (!name)
            return to;
        dx base = dx_wrap(dc_get(F, (int)b, pc), DX_PREFIX);
        dc_put(F, (int)a, pc, dx_make(DX_PREFIX, "%s.%s", dx_str(&base), name));
        dx_free(&base);
        return nx;
    }
    case HKS_I_SETSLOTI: case HKS_I_SETSLOT: case HKS_I_SETSLOTS: case HKS_I_SETSLOTN:
    case HKS_I_SETSLOTMT: {
        const char *name = dc_slot_name(F, pc);
        if (!name)
            return to;
        dx val = op == HKS_I_SETSLOTN ? dx_make(DX_ATOM, "nil") : dc_get_rk(F, c, pc);
        if (F->absorbed[pc] && a < MAX_REGS && F->P[a].kind == PK_TABLE) {
            pend *p = &F->P[a];
            dc_table_positional(F, (int)a, pc);
            if (p->nitems)
                gsvm_buf_puts(&p->items, ", ");
            gsvm_buf_printf(&p->items, "%s = %s", name, dx_str(&val));
            p->nitems++;
            dx_free(&val);
            return nx;
        }
        dx base = dx_wrap(dc_get(F, (int)a, pc), DX_PREFIX);
        dc_stmt(F, dx_make(DX_ATOM, "%s.%s = %s", dx_str(&base), name, dx_str(&val)));
        dx_free(&base);
        dx_free(&val);
        return nx;
    }
    case HKS_I_SELF: case HKS_I_SELFSLOT: case HKS_I_SELFSLOTMT: {
        if (a + 1 >= MAX_REGS) {
            dc_fail(F, "register out of range");
            return to;
        }
        const char *mname = NULL;
        if (op != HKS_I_SELF && !(mname = dc_slot_name(F, pc)))
            return to;
        dx obj = dx_wrap(dc_get(F, (int)b, pc), DX_PREFIX);
        const gsvm_hks_const *k = c >= 256 && op == HKS_I_SELF ? dc_kptr(F, c - 256) : NULL;
        if (k && k->type == GSVM_HKS_K_STRING && k->s.size >= 2 &&
            dx_is_name(k->s.data, (size_t)k->s.size - 1))
            mname = k->s.data;
        if (!mname) {
            dx key = dc_get_rk(F, c, pc);
            dc_flush_all(F);
            dc_self_registers(F, (int)a, pc, obj, key);
            return nx;
        }
        if (F->P[a].kind != PK_NONE || F->P[a + 1].kind != PK_NONE) {
            dc_flush_all(F);
            dc_pend_clear(&F->P[a]);
            dc_pend_clear(&F->P[a + 1]);
        }
        dc_pend_at(F, a)->kind = PK_SELFFN;
        F->P[a].e = dx_make(DX_PREFIX, "%s:%s", dx_str(&obj), mname);
        F->P[a].def_pc = (uint32_t)pc;
        dc_pend_at(F, a + 1)->kind = PK_SELFOBJ;
        F->P[a + 1].def_pc = (uint32_t)pc;
        F->P[a + 1].e = obj;
        return nx;
    }
    case HKS_I_NEWTABLE: case HKS_I_NEWSTRUCT:
        if (F->P[a].kind != PK_NONE)
            dc_flush_all(F);
        if (op == HKS_I_NEWSTRUCT) {
            int sid = F->ssid[pc];
            const gsvm_hks_str *sn = sid >= 0 ? &F->D->c->structs[sid].name : NULL;
            if (!sn || sn->size < 2 || !dx_is_name(sn->data, (size_t)sn->size - 1)) {
                dc_fail(F, "hmake of a structure not in the chunk");
                return to;
            }
            dc_pend_clear(&F->P[a]);
            F->P[a].hmake = sn->data;
        }
        dc_pend_at(F, a)->kind = PK_TABLE;
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
                } else if (!(F->use[q] >= 0) && !(F->absorbed[q] && A_(W(F, q)) > a) &&
                           !is_test(F->op[q]) && !(F->op[q] == HKS_I_JMP && is_test(OPAT(F, q - 1))) &&
                           F->op[q] != HKS_I_LOADBOOL) {
                    /* (a store into an inner constructor is part of it, the
                     * tests of a value in it too) */
                    break;
                }
            if (!any) {
                dc_flush_all(F);
            }
        }
        return nx;
    case HKS_I_SETLIST: {
        if (!(F->absorbed[pc] && F->P[a].kind == PK_TABLE)) {
            /* a table filled after it became a variable: one store per
             * item, at (batch - 1) * 50 + i (Lua 5.1's fields per flush) */
            if (b == 0) {
                dc_fail(F, "open SETLIST outside a constructor");
                return to;
            }
            uint64_t batch = c ? c : (pc + 1 < F->n ? W(F, pc + 1) : 1);
            for (uint32_t i = 1; i <= b && a + i < MAX_REGS && !F->fail; i++) {
                dx v = dc_get(F, (int)(a + i), pc);
                dx t = dx_wrap(dc_get(F, (int)a, pc), DX_PREFIX);
                dc_stmt(F, dx_make(DX_ATOM, "%s[%llu] = %s", dx_str(&t),
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
            dx vals = dc_list_text(F, pc, first, last, b == 0);
            pend *p = &F->P[a];
            if (p->kind != PK_TABLE) {
                dx_free(&vals);
                dc_fail(F, "constructor closed by its own items");
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
    case HKS_I_UNM: dc_put(F, (int)a, pc, dx_unary("-", dc_get(F, (int)b, pc))); return nx;
    case HKS_I_NOT: case HKS_I_NOT_R1: dc_put(F, (int)a, pc, dx_unary("not", dc_get(F, (int)b, pc))); return nx;
    case HKS_I_LEN: dc_put(F, (int)a, pc, dx_unary("#", dc_get(F, (int)b, pc))); return nx;
    case HKS_I_CONCAT: {
        if (c < b || c >= MAX_REGS) {
            dc_fail(F, "CONCAT range");
            return to;
        }
        gsvm_buf out;
        gsvm_buf_init(&out);
        for (uint32_t r = b; r <= c; r++) {
            dx e = dx_wrap(dc_get(F, (int)r, pc), DX_CONCAT + 1);
            if (r > b)
                gsvm_buf_puts(&out, " .. ");
            gsvm_buf_puts(&out, dx_str(&e));
            dx_free(&e);
        }
        dc_put(F, (int)a, pc, dx_take(DX_CONCAT, &out));
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
            int l = dc_debug_local(F, (int)a, pc);
            if (l >= 0 && F->f->debug.locals[l].startpc == pc)
                self_ref = true; /* local function f: f is in scope in its own body */
        }
        if (self_ref) {
            dc_flush_all(F);
            int v = dc_var_of(F, (int)a, pc, true);
            dvar *dv = &F->vars[v];
            bool fresh = !dv->declared && (dv->owner < 0 || dv->owner == F->nr - 1);
            if (fresh) {
                dv->declared = true;
                if (dv->owner < 0)
                    dc_set_owner(F, v, F->nr - 1);
            }
            dx body = dc_closure_text(F, pc, bx, dv->name, false);
            if (fresh)
                /* (a closure that could not be made is "nil": the
                 * function fails and falls back anyway) */
                dc_line(F, "local function %s%s", dv->name,
                        body.s && strncmp(body.s, "function", 8) == 0 ? body.s + 8 : "() end");
            else
                dc_line(F, "%s = %s", dc_use_var(F, v), dx_str(&body));
            dx_free(&body);
            return nx;
        }
        dc_put(F, (int)a, pc, dc_closure_text(F, pc, bx, NULL, false));
        return nx;
    }
    case HKS_I_VARARG:
        if (b == 0) {
            if (F->P[a].kind != PK_NONE) {
                dc_flush_all(F);
                dc_pend_clear(&F->P[a]);
            }
            dc_pend_at(F, a)->kind = PK_MULTI;
            F->P[a].e = dx_make(DX_ATOM, "...");
            F->P[a].def_pc = (uint32_t)pc;
            F->multret_top = (int)a;
        } else if (b == 2) {
            dc_put(F, (int)a, pc, dx_make(DX_PREFIX, "(...)"));
        } else {
            dc_flush_all(F);
            gsvm_buf lhs;
            gsvm_buf_init(&lhs);
            for (uint32_t r = a; r + 2 <= a + b && r < MAX_REGS; r++) {
                if (lhs.len)
                    gsvm_buf_puts(&lhs, ", ");
                gsvm_buf_puts(&lhs, dc_use_var(F, dc_var_of(F, (int)r, pc, true)));
            }
            gsvm_buf_cstr(&lhs);
            dc_line(F, "%s = ...", (char *)lhs.data);
            gsvm_buf_free(&lhs);
        }
        return nx;
    case HKS_I_RETURN: {
        dx vals = b == 1 ? dx_make(DX_ATOM, "%s", "") : dc_list_text(F, pc, a, b == 0 ? F->multret_top : (int64_t)a + b - 2, b == 0);
        if (b == 0)
            F->multret_top = -1;
        dc_flush_all(F);
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
            dc_line(F, "do return%s%s end", sp, dx_str(&vals));
        else
            dc_line(F, "return%s%s", sp, dx_str(&vals));
        dx_free(&vals);
        return nx;
    }
    case HKS_I_CLOSE: case HKS_I_CHECKTYPE: case HKS_I_CHECKTYPES: case HKS_I_CHECKTYPE_D:
        return nx;
    case HKS_I_TESTSET: return dc_emit_testset(F, pc, to);
    case HKS_I_DELETE: case HKS_I_DELETE_BK: {
        dx target;
        if (c == HKS_DEL_LOCAL && op == HKS_I_DELETE)
            target = dx_make(DX_PREFIX, "%s", dc_use_var(F, dc_var_of(F, (int)a, pc, false)));
        else if (c == HKS_DEL_GLOBAL && op == HKS_I_DELETE_BK && dc_kptr(F, b) &&
                 dc_kptr(F, b)->type == GSVM_HKS_K_STRING)
            target = dx_make(DX_PREFIX, "%s", dc_kptr(F, b)->s.data);
        else if (c == HKS_DEL_UPVALUE && op == HKS_I_DELETE && b < F->nups)
            target = dx_make(DX_PREFIX, "%s", F->upnames[b]);
        else if (c == HKS_DEL_INDEXED) {
            dx base = dc_get(F, (int)a, pc);
            dx key = op == HKS_I_DELETE_BK ? dc_get_k(F, b) : dc_get(F, (int)b, pc);
            target = dx_index(base, op == HKS_I_DELETE_BK ? dc_kptr(F, b) : NULL, key);
        } else {
            dc_fail(F, "DELETE kind");
            return to;
        }
        dc_stmt(F, dx_make(DX_ATOM, "hdelete(%s)", dx_str(&target)));
        dx_free(&target);
        return nx;
    }
    default:
        dc_fail(F, "instruction not recovered");
        return to;
    }
}

/* The statements of [from, to). */
