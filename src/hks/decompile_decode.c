/* The HavokScript decompiler, decoding: the registers an instruction reads and writes, multret, structure slots. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

/* Registers an instruction reads and writes.  `top` is the register of the
 * last open multret value (for B = 0 / C = 0 operands). */

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

static void decode_operands(const fn *F, int64_t pc, int top, rw *x)
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

/* The analysis asks for an instruction's registers many times (the forward
 * scans from each definition): most are decoded once, here. */
bool dc_decode_operands(fn *F)
{
    size_t n = F->n ? F->n : 1;
    F->opregs = malloc(n * 4);
    F->opcount = malloc(n);
    rw *x = malloc(sizeof *x);
    if (!F->opregs || !F->opcount || !x) {
        free(x);
        return false;
    }
    for (int64_t pc = 0; pc < F->n; pc++) {
        F->opcount[pc] = OPS_NOT_KEPT;
        if (F->isdata[pc] || dc_reads_multret(F, pc))
            continue;
        decode_operands(F, pc, MAX_REGS, x);
        if (x->nrd + x->nwr > 4)
            continue;
        uint8_t *r = &F->opregs[pc * 4];
        for (int i = 0; i < x->nrd; i++)
            *r++ = (uint8_t)x->rd[i];
        for (int i = 0; i < x->nwr; i++)
            *r++ = (uint8_t)x->wr[i];
        F->opcount[pc] = (uint8_t)(x->nrd | x->nwr << 3);
    }
    free(x);
    return true;
}

void dc_operands(const fn *F, int64_t pc, int top, rw *x)
{
    if (!F->opcount || F->opcount[pc] == OPS_NOT_KEPT) {
        decode_operands(F, pc, top, x);
        return;
    }
    const uint8_t *r = &F->opregs[pc * 4];
    x->nrd = F->opcount[pc] & 7;
    x->nwr = F->opcount[pc] >> 3;
    for (int i = 0; i < x->nrd; i++)
        x->rd[i] = *r++;
    for (int i = 0; i < x->nwr; i++)
        x->wr[i] = *r++;
}

bool dc_writes_multret(const fn *F, int64_t pc)
{
    unsigned op = F->op[pc];
    uint32_t w = W(F, pc);
    return (is_call(op) && C_(w) == 0) || (op == HKS_I_VARARG && B_(w) == 0);
}
bool dc_reads_multret(const fn *F, int64_t pc)
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
void dc_find_slots(fn *F)
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
        dc_operands(F, pc, MAX_REGS, x);
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
const char *dc_slot_name(fn *F, int64_t pc)
{
    if (!F->slot[pc]) {
        dc_fail(F, "a slot the structures do not have");
        return NULL;
    }
    return F->slot[pc]->name.data;
}
