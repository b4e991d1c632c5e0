/* The code generator, part two: expression descriptors to registers and
 * constants (discharging, RK operands, stores to variables and structure
 * slots, method calls, conditions and their jump lists, operators with
 * constant folding, SETLIST).  The instruction stream they write to is
 * compile_emit.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hks/compile_emit.h"

/* ---- expressions ---- */
static bool hasjumps(const hc_exp *e) { return e->t != e->f; }

void hc_setreturns(hc_func *fs, hc_exp *e, int n)
{
    uint32_t *i = &fs->f->code[e->info];
    if (e->k == E_CALL) {
        SETC(*i, n + 1);
    } else if (e->k == E_VARARG) {
        SETB(*i, n + 1);
        SETA(*i, fs->freereg);
        hc_reserve(fs, 1);
    }
}

void hc_setoneret(hc_func *fs, hc_exp *e)
{
    if (e->k == E_CALL) {
        e->k = E_NONRELOC;
        e->info = AF(fs->f->code[e->info]);
    } else if (e->k == E_VARARG) {
        SETB(fs->f->code[e->info], 2);
        e->k = E_RELOC;
    }
}

void hc_dischargevars(hc_func *fs, hc_exp *e)
{
    switch (e->k) {
    case E_LOCAL: e->k = E_NONRELOC; break;
    case E_UPVAL:
        e->info = hc_code(fs, HKS_I_GETUPVAL, 0, (uint32_t)e->info, 0);
        e->k = E_RELOC;
        break;
    case E_GLOBAL: {
        hc_compiler *C = CC(fs);
        if (C->memo) {
            const gsvm_hks_const *kc = &fs->f->k[e->info];
            const hc_str *name = hc_intern(C, kc->s.data, (size_t)kc->s.size - 1);
            int slot = hc_memo_slot(fs, name);
            e->info = hc_code_bx(fs, HKS_I_GETGLOBAL_MEM, 0, (uint32_t)e->info);
            hc_code_data(fs, 20, (uint32_t)slot);
        } else {
            e->info = hc_code_bx(fs, HKS_I_GETGLOBAL, 0, (uint32_t)e->info);
        }
        e->k = E_RELOC;
        break;
    }
    case E_INDEXED: {
        hc_freereg(fs, e->aux);
        hc_freereg(fs, e->info);
        if (hc_k_is_string(fs, e->aux)) {
            e->info = hc_code(fs, HKS_I_GETFIELD, 0, (uint32_t)e->info, (uint32_t)(e->aux - 256));
            hc_code_data(fs, 0, 0);
            hc_code_data(fs, 0, 0);
        } else {
            e->info = hc_code(fs, HKS_I_GETTABLE_S, 0, (uint32_t)e->info, (uint32_t)e->aux);
            hc_code_data(fs, 0, 0);
            hc_code_data(fs, 0, 0);
        }
        e->k = E_RELOC;
        break;
    }
    case E_SLOT: {
        hc_freereg(fs, e->info);
        if (e->aux >= 0) {
            e->info = hc_code(fs, HKS_I_GETSLOT, 0, (uint32_t)e->info, (uint32_t)e->aux);
        } else if (e->aux == -2) {
            hc_compiler *C = CC(fs);
            hc_error_at(C, e->kline, e->kcol,
                        "cannot read slot '%s' of a '%s': only its meta structure's __newindex "
                        "leads to it (reading needs an __index chain of structures)",
                        e->key->data, C->sdefs[e->slot].name->data);
        } else {
            uint32_t w[2 * HC_MAX_CHAIN];
            int n = hc_slot_chain(CC(fs), e->slot, e->key, w, HC_MAX_CHAIN);
            e->info = hc_code(fs, HKS_I_GETSLOTMT, 0, (uint32_t)e->info, (uint32_t)(n - 1));
            for (int i = 0; i < n; i++)
                hc_code_data(fs, w[2 * i], w[2 * i + 1]);
        }
        e->k = E_RELOC;
        break;
    }
    case E_VARARG:
    case E_CALL: hc_setoneret(fs, e); break;
    default: break;
    }
}

static int code_label(hc_func *fs, int a, int b, int jump)
{
    hc_getlabel(fs);
    return hc_code(fs, HKS_I_LOADBOOL, (uint32_t)a, (uint32_t)b, (uint32_t)jump);
}

static void discharge2reg(hc_func *fs, hc_exp *e, int reg)
{
    hc_dischargevars(fs, e);
    switch (e->k) {
    case E_NIL: hc_nil(fs, reg, 1); break;
    case E_FALSE:
    case E_TRUE: hc_code(fs, HKS_I_LOADBOOL, (uint32_t)reg, e->k == E_TRUE, 0); break;
    case E_K: hc_code_bx(fs, HKS_I_LOADK, (uint32_t)reg, (uint32_t)e->info); break;
    case E_KNUM: hc_code_bx(fs, HKS_I_LOADK, (uint32_t)reg, (uint32_t)hc_k_number(fs, e->nval)); break;
    case E_RELOC: SETA(fs->f->code[e->info], reg); break;
    case E_NONRELOC:
        if (reg != e->info)
            hc_code(fs, HKS_I_MOVE, (uint32_t)reg, (uint32_t)e->info, 0);
        break;
    default: return; /* E_VOID, E_JMP: nothing to do */
    }
    e->info = reg;
    e->k = E_NONRELOC;
}

static void discharge2anyreg(hc_func *fs, hc_exp *e)
{
    if (e->k != E_NONRELOC) {
        hc_reserve(fs, 1);
        discharge2reg(fs, e, fs->freereg - 1);
    }
}

static void exp2reg(hc_func *fs, hc_exp *e, int reg)
{
    discharge2reg(fs, e, reg);
    if (e->k == E_JMP)
        hc_concat(fs, &e->t, e->info);
    if (hasjumps(e)) {
        int p_f = HC_NOJUMP, p_t = HC_NOJUMP;
        if (hc_need_value(fs, e->t) || hc_need_value(fs, e->f)) {
            int fj = e->k == E_JMP ? HC_NOJUMP : hc_jump(fs);
            p_f = code_label(fs, reg, 0, 1);
            p_t = code_label(fs, reg, 1, 0);
            hc_patchtohere(fs, fj);
        }
        int end = hc_getlabel(fs);
        hc_patchlistaux(fs, e->f, end, reg, p_f);
        hc_patchlistaux(fs, e->t, end, reg, p_t);
    }
    e->f = e->t = HC_NOJUMP;
    e->info = reg;
    e->k = E_NONRELOC;
}

void hc_exp2nextreg(hc_func *fs, hc_exp *e)
{
    hc_dischargevars(fs, e);
    hc_freeexp(fs, e);
    hc_reserve(fs, 1);
    exp2reg(fs, e, fs->freereg - 1);
}

int hc_exp2anyreg(hc_func *fs, hc_exp *e)
{
    hc_dischargevars(fs, e);
    if (e->k == E_NONRELOC) {
        if (!hasjumps(e))
            return e->info;
        if (e->info >= fs->nactvar) {
            exp2reg(fs, e, e->info);
            return e->info;
        }
    }
    hc_exp2nextreg(fs, e);
    return e->info;
}

void hc_exp2val(hc_func *fs, hc_exp *e)
{
    if (hasjumps(e))
        hc_exp2anyreg(fs, e);
    else
        hc_dischargevars(fs, e);
}

int hc_exp2RK(hc_func *fs, hc_exp *e)
{
    hc_exp2val(fs, e);
    switch (e->k) {
    case E_KNUM:
    case E_TRUE:
    case E_FALSE:
    case E_NIL:
        if (fs->f->nk <= HC_MAXRK) {
            e->info = e->k == E_NIL ? hc_k_nil(fs)
                      : e->k == E_KNUM ? hc_k_number(fs, e->nval)
                                       : hc_k_bool(fs, e->k == E_TRUE);
            e->k = E_K;
            return e->info + 256;
        }
        break;
    case E_K:
        if (e->info <= HC_MAXRK)
            return e->info + 256;
        break;
    default: break;
    }
    return hc_exp2anyreg(fs, e);
}

/* The name of an HKS type in messages (a structure: its name). */
const char *hc_type_name(const hc_compiler *C, int type)
{
    static const char *const names[] = {"nil",    "boolean",  "lightuserdata", "number",
                                        "string", "table",    "function",      "userdata",
                                        "thread", "ifunction", "cfunction",    "ui64",
                                        "struct"};
    if (type >= HC_T_STRUCT0 && type - HC_T_STRUCT0 < C->nsdefs)
        return C->sdefs[type - HC_T_STRUCT0].name->data;
    return type >= 0 && type <= HC_TSTRUCT ? names[type] : "object";
}

/* "a number", "a 'Point'" (a structure), for messages. */
const char *hc_type_phrase(const hc_compiler *C, int type, char *buf, size_t n)
{
    if (type >= HC_T_STRUCT0)
        snprintf(buf, n, "a '%.60s'", hc_type_name(C, type));
    else
        snprintf(buf, n, "%s %s", type == 11 ? "a" : strchr("aeiou", hc_type_name(C, type)[0]) ? "an" : "a",
                 hc_type_name(C, type));
    return buf;
}

/* A store into slot d of the structure in register reg, value ex (e its RK
 * operand), as hksc codes it: nil SETSLOTN; a value known to have the
 * slot's type, or any value in an untyped slot, SETSLOTI; a value of
 * unknown type SETSLOT with the type to check in its DATA word (SETSLOTS
 * and the structure id for a structure-typed slot); a value known to have
 * another type is refused. */
void hc_store_slot(hc_func *fs, int reg, const hc_slotdef *d, const hc_exp *ex, int e, bool isnil,
                   int line, int col)
{
    hc_compiler *C = CC(fs);
    int have = ex->etype;
    int want = d->type == HC_TSTRUCT ? HC_T_STRUCT0 + d->sid : d->type;
    if (isnil) {
        hc_code(fs, HKS_I_SETSLOTN, (uint32_t)reg, 0, (uint32_t)d->pos);
    } else if (d->type == 0 || have == want) {
        hc_code(fs, HKS_I_SETSLOTI, (uint32_t)reg, (uint32_t)d->pos, (uint32_t)e);
    } else if (have < 0) {
        bool st = d->type == HC_TSTRUCT;
        hc_code(fs, st ? HKS_I_SETSLOTS : HKS_I_SETSLOT, (uint32_t)reg, (uint32_t)d->pos,
                (uint32_t)e);
        hc_code_data(fs, 0, st ? (uint32_t)d->sid + 1 : (uint32_t)d->type);
    } else {
        char h[80], w[80];
        hc_error_at(C, line, col, "cannot store %s in slot '%s' (it holds %s)",
                    hc_type_phrase(C, have, h, sizeof h), d->name->data,
                    hc_type_phrase(C, want, w, sizeof w));
    }
}

/* A store into a slot that is not the structure's own (var->aux < 0): as
 * hksc, through the meta structure's "__newindex" slots.  SETSLOTMT carries
 * the slot's type in B above the chain length (nil for an untyped slot; the
 * VM checks the value against it), a DATA word with the structure id for a
 * structure-typed slot, then the tag chain.  A value known to have another
 * type is refused, and so is a slot that only "__index" reaches: a store
 * there would change the meta structure every instance shares. */
static void store_slot_chain(hc_func *fs, const hc_exp *var, const hc_exp *ex, int e, bool isnil)
{
    hc_compiler *C = CC(fs);
    uint32_t w[2 * HC_MAX_CHAIN];
    const hc_slotdef *d;
    int n = hc_store_chain(C, var->slot, var->key, w, HC_MAX_CHAIN, &d);
    if (n <= 1 || !d || n - 1 > HKS_SLOTMT_CHAIN_MASK) {
        hc_error_at(C, var->kline, var->kcol,
                    "cannot resolve slot '%s' of a '%s' for assignment (it is reached through "
                    "__index only; a store needs a __newindex chain of structures to it)",
                    var->key->data, C->sdefs[var->slot].name->data);
        return;
    }
    int want = d->type == HC_TSTRUCT ? HC_T_STRUCT0 + d->sid : d->type;
    if (!isnil && d->type != 0 && ex->etype >= 0 && ex->etype != want) {
        char h[80], t[80];
        hc_error_at(C, var->kline, var->kcol, "cannot store %s in slot '%s' (it holds %s)",
                    hc_type_phrase(C, ex->etype, h, sizeof h), d->name->data,
                    hc_type_phrase(C, want, t, sizeof t));
        return;
    }
    uint32_t b = (uint32_t)(n - 1) | (uint32_t)d->type << HKS_SLOTMT_TYPE_SHIFT;
    hc_code(fs, HKS_I_SETSLOTMT, (uint32_t)var->info, b, (uint32_t)e);
    if (d->type == HC_TSTRUCT)
        hc_code_data(fs, 0, (uint32_t)d->sid + 1);
    for (int i = 0; i < n; i++)
        hc_code_data(fs, w[2 * i], w[2 * i + 1]);
}

void hc_storevar(hc_func *fs, hc_exp *var, hc_exp *ex)
{
    switch (var->k) {
    case E_LOCAL:
        hc_freeexp(fs, ex);
        exp2reg(fs, ex, var->info);
        return;
    case E_UPVAL: {
        int e = hc_exp2anyreg(fs, ex);
        hc_code(fs, HKS_I_SETUPVAL, (uint32_t)e, (uint32_t)var->info, 0);
        break;
    }
    case E_GLOBAL: {
        int e = hc_exp2anyreg(fs, ex);
        hc_code_bx(fs, HKS_I_SETGLOBAL, (uint32_t)e, (uint32_t)var->info);
        break;
    }
    case E_INDEXED: {
        int e = hc_exp2RK(fs, ex);
        int key = var->aux;
        if (hc_k_is_string(fs, key))
            hc_code(fs, HKS_I_SETFIELD, (uint32_t)var->info, (uint32_t)(key - 256), (uint32_t)e);
        else if (ISK(key))
            hc_code(fs, HKS_I_SETTABLE_S_BK, (uint32_t)var->info, (uint32_t)(key - 256),
                    (uint32_t)e);
        else
            hc_code(fs, HKS_I_SETTABLE_S, (uint32_t)var->info, (uint32_t)key, (uint32_t)e);
        break;
    }
    case E_SLOT: {
        bool isnil = ex->k == E_NIL && !hasjumps(ex);
        int e = hc_exp2RK(fs, ex);
        hc_compiler *C = CC(fs);
        if (var->aux < 0) {
            store_slot_chain(fs, var, ex, e, isnil);
            break;
        }
        const hc_slotdef *d = hc_find_slot(&C->sdefs[var->slot], var->key);
        hc_store_slot(fs, var->info, d, ex, e, isnil, var->kline, var->kcol);
        break;
    }
    default: break;
    }
    hc_freeexp(fs, ex);
}

void hc_self(hc_func *fs, hc_exp *e, hc_exp *key)
{
    hc_exp2anyreg(fs, e);
    hc_freeexp(fs, e);
    int func = fs->freereg;
    hc_reserve(fs, 2);
    hc_code(fs, HKS_I_SELF, (uint32_t)func, (uint32_t)e->info, (uint32_t)hc_exp2RK(fs, key));
    hc_freeexp(fs, key);
    e->info = func;
    e->k = E_NONRELOC;
}

/* obj:name(...) where name is a slot of obj's structure (slot: the E_SLOT
 * that field access made of it): SELFSLOT with its DATA word, or SELFSLOTMT
 * with the tag chain when the slot is in a meta structure. */
void hc_selfslot(hc_func *fs, hc_exp *e, const hc_exp *slot)
{
    hc_exp2anyreg(fs, e);
    hc_freeexp(fs, e);
    int func = fs->freereg;
    hc_reserve(fs, 2);
    if (slot->aux == -2) {
        hc_compiler *C = CC(fs);
        hc_error_at(C, slot->kline, slot->kcol,
                    "cannot read slot '%s' of a '%s': only its meta structure's __newindex "
                    "leads to it (reading needs an __index chain of structures)",
                    slot->key->data, C->sdefs[slot->slot].name->data);
    } else if (slot->aux >= 0) {
        hc_code(fs, HKS_I_SELFSLOT, (uint32_t)func, (uint32_t)e->info, (uint32_t)slot->aux);
        hc_code_data(fs, 0, 0);
    } else {
        uint32_t w[2 * HC_MAX_CHAIN];
        int n = hc_slot_chain(CC(fs), slot->slot, slot->key, w, HC_MAX_CHAIN);
        hc_code(fs, HKS_I_SELFSLOTMT, (uint32_t)func, (uint32_t)e->info, (uint32_t)(n - 1));
        for (int i = 0; i < n; i++)
            hc_code_data(fs, w[2 * i], w[2 * i + 1]);
    }
    e->info = func;
    e->k = E_NONRELOC;
}

static void invertjump(hc_func *fs, hc_exp *e)
{
    uint32_t *pc = hc_jumpcontrol(fs, e->info);
    SETA(*pc, !AF(*pc));
}

static int jumponcond(hc_func *fs, hc_exp *e, int cond)
{
    if (e->k == E_RELOC) {
        uint32_t ie = fs->f->code[e->info];
        if (OPF(ie) == HKS_I_NOT || OPF(ie) == HKS_I_NOT_R1) { /* (its R1 form too) */
            fs->pc--; /* remove the NOT */
            fs->f->ncode--;
            return hc_condjump(fs, HKS_I_TEST, BF(ie), 0, !cond);
        }
    }
    discharge2anyreg(fs, e);
    hc_freeexp(fs, e);
    return hc_condjump(fs, HKS_I_TESTSET, NO_REG, e->info, cond);
}

void hc_goiftrue(hc_func *fs, hc_exp *e)
{
    int pc;
    hc_dischargevars(fs, e);
    switch (e->k) {
    case E_K:
    case E_KNUM:
    case E_TRUE: pc = HC_NOJUMP; break;
    case E_FALSE: pc = hc_jump(fs); break;
    case E_JMP:
        invertjump(fs, e);
        pc = e->info;
        break;
    default: pc = jumponcond(fs, e, 0); break;
    }
    hc_concat(fs, &e->f, pc);
    hc_patchtohere(fs, e->t);
    e->t = HC_NOJUMP;
}

static void goiffalse(hc_func *fs, hc_exp *e)
{
    int pc;
    hc_dischargevars(fs, e);
    switch (e->k) {
    case E_NIL:
    case E_FALSE: pc = HC_NOJUMP; break;
    case E_TRUE: pc = hc_jump(fs); break;
    case E_JMP: pc = e->info; break;
    default: pc = jumponcond(fs, e, 1); break;
    }
    hc_concat(fs, &e->t, pc);
    hc_patchtohere(fs, e->f);
    e->f = HC_NOJUMP;
}

static void codenot(hc_func *fs, hc_exp *e)
{
    hc_dischargevars(fs, e);
    switch (e->k) {
    case E_NIL:
    case E_FALSE: e->k = E_TRUE; break;
    case E_K:
    case E_KNUM:
    case E_TRUE: e->k = E_FALSE; break;
    case E_JMP: invertjump(fs, e); break;
    case E_RELOC:
    case E_NONRELOC:
        discharge2anyreg(fs, e);
        hc_freeexp(fs, e);
        e->info = hc_code(fs, HKS_I_NOT, 0, (uint32_t)e->info, 0);
        e->k = E_RELOC;
        break;
    default: break;
    }
    int tmp = e->f;
    e->f = e->t;
    e->t = tmp;
    hc_removevalues(fs, e->f);
    hc_removevalues(fs, e->t);
}

void hc_indexed(hc_func *fs, hc_exp *t, hc_exp *k)
{
    t->aux = hc_exp2RK(fs, k);
    t->k = E_INDEXED;
}

/* ---- operators ---- */
static bool isnumeral(const hc_exp *e)
{
    return e->k == E_KNUM && e->t == HC_NOJUMP && e->f == HC_NOJUMP;
}

enum { FOLD_UNM = 100, FOLD_LEN = 101 }; /* unary ops beside OPR_* */

/* Folds arithmetic on two numerals in the VM's number type. */
static bool constfold(hc_func *fs, int op, hc_exp *e1, const hc_exp *e2)
{
    if (!isnumeral(e1) || !isnumeral(e2))
        return false;
    double a = e1->nval, b = e2->nval, r;
    bool single = CC(fs)->o.number_size == 4;
    switch (op) {
    case OPR_ADD: r = single ? (double)((float)a + (float)b) : a + b; break;
    case OPR_SUB: r = single ? (double)((float)a - (float)b) : a - b; break;
    case OPR_MUL: r = single ? (double)((float)a * (float)b) : a * b; break;
    case OPR_DIV:
        if (b == 0)
            return false;
        r = single ? (double)((float)a / (float)b) : a / b;
        break;
    case OPR_MOD:
        if (b == 0)
            return false;
        if (single) {
            float fa = (float)a, fb = (float)b;
            r = (double)(fa - floorf(fa / fb) * fb);
        } else
            r = a - floor(a / b) * b;
        break;
    case OPR_POW: r = single ? (double)powf((float)a, (float)b) : pow(a, b); break;
    case FOLD_UNM: r = single ? (double)(-(float)a) : -a; break;
    case OPR_SHL:
    case OPR_SHR:
    case OPR_BAND:
    case OPR_BOR: {
        /* Black Ops 3 folds its bit operators too, on the integer values */
        if (!(a >= 0 && a < 4294967296.0 && b >= 0 && b < 4294967296.0))
            return false;
        uint32_t x = (uint32_t)a, y = (uint32_t)b;
        uint32_t v = op == OPR_BAND ? x & y : op == OPR_BOR ? x | y
                   : y >= 32 ? 0 : op == OPR_SHL ? x << y : x >> y;
        r = (double)v;
        if (single)
            r = (double)(float)r;
        break;
    }
    default: return false;
    }
    if (r != r)
        return false;
    e1->nval = r;
    return true;
}

static unsigned arith_op(int op)
{
    switch (op) {
    case OPR_ADD: return HKS_I_ADD;
    case OPR_SUB: return HKS_I_SUB;
    case OPR_MUL: return HKS_I_MUL;
    case OPR_DIV: return HKS_I_DIV;
    case OPR_MOD: return HKS_I_MOD;
    case OPR_POW: return HKS_I_POW;
    case OPR_SHL: return HKS_I_LEFT_SHIFT;
    case OPR_SHR: return HKS_I_RIGHT_SHIFT;
    case OPR_BAND: return HKS_I_BIT_AND;
    case OPR_BOR: return HKS_I_BIT_OR;
    default: return HKS_I_ADD;
    }
}

static void codearith(hc_func *fs, int op, hc_exp *e1, hc_exp *e2)
{
    if (constfold(fs, op, e1, e2))
        return;
    int o2 = (op != FOLD_UNM && op != FOLD_LEN) ? hc_exp2RK(fs, e2) : 0;
    int o1 = hc_exp2RK(fs, e1);
    if (o1 > o2) {
        hc_freeexp(fs, e1);
        hc_freeexp(fs, e2);
    } else {
        hc_freeexp(fs, e2);
        hc_freeexp(fs, e1);
    }
    unsigned iop;
    if (op == FOLD_UNM)
        iop = HKS_I_UNM;
    else if (op == FOLD_LEN)
        iop = HKS_I_LEN;
    else {
        iop = arith_op(op);
        if (ISK(o1)) {
            iop += 1; /* the _BK twin reads B as a constant */
            o1 -= 256;
        }
    }
    e1->info = hc_code(fs, iop, 0, (uint32_t)o1, (uint32_t)o2);
    e1->k = E_RELOC;
}

static void codecomp(hc_func *fs, unsigned iop, int cond, hc_exp *e1, hc_exp *e2)
{
    int o1 = hc_exp2RK(fs, e1);
    int o2 = hc_exp2RK(fs, e2);
    hc_freeexp(fs, e2);
    hc_freeexp(fs, e1);
    if (cond == 0 && iop != HKS_I_EQ) {
        int t = o1;
        o1 = o2;
        o2 = t;
        cond = 1;
    }
    if (ISK(o1)) {
        iop += 1;
        o1 -= 256;
    }
    e1->info = hc_condjump(fs, iop, cond, o1, o2);
    e1->k = E_JMP;
}

void hc_prefix(hc_func *fs, int op, hc_exp *e)
{
    hc_exp e2;
    hc_init_exp(&e2, E_KNUM, 0);
    switch (op) {
    case OPR_MINUS:
        if (!isnumeral(e))
            hc_exp2anyreg(fs, e);
        codearith(fs, FOLD_UNM, e, &e2);
        break;
    case OPR_NOT: codenot(fs, e); break;
    case OPR_LEN:
        hc_exp2anyreg(fs, e);
        codearith(fs, FOLD_LEN, e, &e2);
        break;
    default: break;
    }
}

void hc_infix(hc_func *fs, int op, hc_exp *v)
{
    switch (op) {
    case OPR_AND: hc_goiftrue(fs, v); break;
    case OPR_OR: goiffalse(fs, v); break;
    case OPR_CONCAT: hc_exp2nextreg(fs, v); break;
    case OPR_ADD:
    case OPR_SUB:
    case OPR_MUL:
    case OPR_DIV:
    case OPR_MOD:
    case OPR_POW:
    case OPR_SHL:
    case OPR_SHR:
    case OPR_BAND:
    case OPR_BOR:
        if (!isnumeral(v))
            hc_exp2RK(fs, v);
        break;
    default: hc_exp2RK(fs, v); break;
    }
}

void hc_posfix(hc_func *fs, int op, hc_exp *e1, hc_exp *e2)
{
    switch (op) {
    case OPR_AND:
        hc_dischargevars(fs, e2);
        hc_concat(fs, &e2->f, e1->f);
        *e1 = *e2;
        break;
    case OPR_OR:
        hc_dischargevars(fs, e2);
        hc_concat(fs, &e2->t, e1->t);
        *e1 = *e2;
        break;
    case OPR_CONCAT:
        hc_exp2val(fs, e2);
        if (e2->k == E_RELOC && OPF(fs->f->code[e2->info]) == HKS_I_CONCAT) {
            uint32_t *i = &fs->f->code[e2->info];
            hc_freeexp(fs, e1);
            SETB(*i, e1->info);
            e1->k = E_RELOC;
            e1->info = e2->info;
        } else {
            hc_exp2nextreg(fs, e2);
            hc_freeexp(fs, e2);
            hc_freeexp(fs, e1);
            e1->info = hc_code(fs, HKS_I_CONCAT, 0, (uint32_t)e1->info, (uint32_t)e2->info);
            e1->k = E_RELOC;
        }
        break;
    case OPR_EQ: codecomp(fs, HKS_I_EQ, 1, e1, e2); break;
    case OPR_NE: codecomp(fs, HKS_I_EQ, 0, e1, e2); break;
    case OPR_LT: codecomp(fs, HKS_I_LT, 1, e1, e2); break;
    case OPR_LE: codecomp(fs, HKS_I_LE, 1, e1, e2); break;
    case OPR_GT: codecomp(fs, HKS_I_LT, 0, e1, e2); break;
    case OPR_GE: codecomp(fs, HKS_I_LE, 0, e1, e2); break;
    default: codearith(fs, op, e1, e2); break;
    }
}

void hc_setlist(hc_func *fs, int base, int nelems, int tostore)
{
    int c = (nelems - 1) / HC_FPF + 1;
    int b = tostore == -1 ? 0 : tostore;
    if (c <= 0x1FF) {
        hc_code(fs, HKS_I_SETLIST, (uint32_t)base, (uint32_t)b, (uint32_t)c);
    } else {
        hc_code(fs, HKS_I_SETLIST, (uint32_t)base, (uint32_t)b, 0);
        if (c > 0x1FFFF)
            hc_too_complex(fs, "table constructor too long");
        hc_code_data(fs, 0, (uint32_t)c);
    }
    fs->freereg = base + 1;
}
