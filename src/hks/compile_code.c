/* The compiler's code generator: expression descriptors to instructions.
 *
 * It follows the one-pass scheme of Lua 5.1 that hksc keeps (an expression
 * stays undischarged as long as possible; conditional jumps collect in patch
 * lists that are threaded through the jumps' own offset fields), and maps it
 * to HavokScript's instruction set: constant B operands select the *_BK
 * twin, string keys GETFIELD/SETFIELD, calls the _I forms, global reads the
 * memoized GETGLOBAL_MEM (with two nil cache constants per name), and the
 * owners of inline caches get their DATA words.
 *
 * While a function is compiled the op field of each word holds the internal
 * opcode id (hks/isa.h); hc_finish_code encodes them for the target profile
 * and applies the "R1" forms (an operand that the previous instruction
 * wrote). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/compile.h"

#define OPF(i) ((unsigned)((i) >> 25))
#define AF(i) ((int)((i)&0xFFu))
#define CF(i) ((int)(((i) >> 8) & 0x1FFu))
#define BF(i) ((int)(((i) >> 17) & 0xFFu))
#define BXF(i) ((int)(((i) >> 8) & 0x1FFFFu))
#define SBXF(i) (BXF(i) - 0xFFFF)
#define MKABC(o, a, b, c) \
    ((uint32_t)(o) << 25 | (uint32_t)(b) << 17 | (uint32_t)(c) << 8 | (uint32_t)(a))
#define MKABX(o, a, bx) ((uint32_t)(o) << 25 | (uint32_t)(bx) << 8 | (uint32_t)(a))
#define SETA(i, v) ((i) = ((i) & ~0xFFu) | (uint32_t)(v))
#define SETB(i, v) ((i) = ((i) & ~(0xFFu << 17)) | (uint32_t)(v) << 17)
#define SETC(i, v) ((i) = ((i) & ~(0x1FFu << 8)) | (uint32_t)(v) << 8)
#define SETBX(i, v) ((i) = ((i) & ~(0x1FFFFu << 8)) | (uint32_t)(v) << 8)
#define ISK(x) ((x) >= 256)
#define MAXSBX 0xFFFF

enum { NO_REG = 0xFF };

static hc_compiler *CC(hc_func *fs) { return fs->C; }

static _Noreturn void too_complex(hc_func *fs, const char *what)
{
    hc_error_at(fs->C, fs->C->t.line, fs->C->t.col, "%s", what);
}

/* ---- emitting ---- */
static int emit(hc_func *fs, uint32_t w)
{
    hc_compiler *C = CC(fs);
    gsvm_hks_proto *f = fs->f;
    if (fs->pc >= (1 << 26))
        too_complex(fs, "function has too many instructions");
    f->code = hc_grow(C, f->code, &fs->cap_code, (size_t)fs->pc + 1, sizeof *f->code);
    fs->lines = hc_grow(C, fs->lines, &fs->cap_lines, (size_t)fs->pc + 1, sizeof *fs->lines);
    f->code[fs->pc] = w;
    fs->lines[fs->pc] = (uint32_t)C->lastline;
    f->ncode = (uint64_t)fs->pc + 1;
    return fs->pc++;
}

static void dischargejpc(hc_func *fs);

static unsigned r1_form(hc_func *fs, unsigned iop, uint32_t a, uint32_t b);

int hc_code(hc_func *fs, unsigned iop, uint32_t a, uint32_t b, uint32_t c)
{
    iop = r1_form(fs, iop, a, b);
    dischargejpc(fs);
    return emit(fs, MKABC(iop, a, b, c));
}

int hc_code_bx(hc_func *fs, unsigned iop, uint32_t a, uint32_t bx)
{
    dischargejpc(fs);
    return emit(fs, MKABX(iop, a, bx));
}

int hc_code_data(hc_func *fs, uint32_t a, uint32_t bx)
{
    return emit(fs, MKABX(HKS_I_DATA, a, bx));
}

static int code_asbx(hc_func *fs, unsigned iop, int a, int sbx)
{
    return hc_code_bx(fs, iop, (uint32_t)a, (uint32_t)(sbx + MAXSBX));
}

void hc_fixline(hc_func *fs, int line) { fs->lines[fs->pc - 1] = (uint32_t)line; }

/* ---- registers ---- */
void hc_checkstack(hc_func *fs, int n)
{
    int newstack = fs->freereg + n;
    if (newstack > fs->maxstack) {
        if (newstack >= HC_MAXSTACK)
            too_complex(fs, "function or expression too complex (more than 250 registers)");
        fs->maxstack = newstack;
    }
}

void hc_reserve(hc_func *fs, int n)
{
    hc_checkstack(fs, n);
    fs->freereg += n;
}

static void freereg(hc_func *fs, int reg)
{
    if (!ISK(reg) && reg >= fs->nactvar)
        fs->freereg--;
}

void hc_freeexp(hc_func *fs, hc_exp *e)
{
    if (e->k == E_NONRELOC)
        freereg(fs, e->info);
}

/* ---- constants ---- */
typedef struct kkey {
    int type;
    uint64_t bits;
    const hc_str *s;
} kkey;

/* Numbers are keys by value: 0 and -0 are one key (the sign bit of a
 * float32 or float64 zero is cleared). */
static uint64_t num_key(int type, uint64_t bits)
{
    if (type == GSVM_HKS_K_NUMBER && (bits & ~(1ull << 63) & ~(1ull << 31)) == 0)
        return 0;
    return bits;
}

static uint64_t kkey_hash(const kkey *k)
{
    uint64_t h = (uint64_t)k->type * 0x9E3779B97F4A7C15ull;
    h ^= k->s ? (uint64_t)(uintptr_t)k->s : num_key(k->type, k->bits);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int newk(hc_func *fs, const kkey *key)
{
    hc_compiler *C = CC(fs);
    gsvm_hks_proto *f = fs->f;
    if (f->nk >= (1u << 17) - 1)
        too_complex(fs, "function has too many constants");
    f->k = hc_grow(C, f->k, &fs->cap_k, (size_t)f->nk + 1, sizeof *f->k);
    gsvm_hks_const *c = &f->k[f->nk];
    memset(c, 0, sizeof *c);
    c->type = (uint8_t)key->type;
    if (key->type == GSVM_HKS_K_BOOL)
        c->b = (uint8_t)key->bits;
    else if (key->type == GSVM_HKS_K_STRING) {
        c->s.data = malloc(key->s->len + 2);
        if (!c->s.data)
            hc_error_at(C, C->t.line, C->t.col, "out of memory");
        memcpy(c->s.data, key->s->data, key->s->len + 1);
        c->s.data[key->s->len + 1] = 0;
        c->s.size = key->s->len + 1;
    } else
        c->bits = key->bits;
    return (int)f->nk++;
}

/* Adds a constant (or finds the same one).  Strings compare by interned
 * pointer, numbers by their stored bits, as the VM's table keys would. */
static int addk(hc_func *fs, const kkey *key)
{
    hc_compiler *C = CC(fs);
    gsvm_hks_proto *f = fs->f;
    if ((f->nk + 1) * 2 > fs->khash_cap) {
        size_t ncap = fs->khash_cap ? fs->khash_cap * 2 : 64;
        struct hc_kslot *nh = calloc(ncap, sizeof *nh);
        if (!nh)
            hc_error_at(C, C->t.line, C->t.col, "out of memory");
        for (size_t i = 0; i < fs->khash_cap; i++) {
            struct hc_kslot e = fs->khash[i];
            if (e.k <= 0)
                continue;
            const gsvm_hks_const *c = &f->k[e.k - 1];
            kkey kk = {c->type, c->type == GSVM_HKS_K_BOOL ? c->b : c->bits, e.s};
            size_t j = (size_t)kkey_hash(&kk) & (ncap - 1);
            while (nh[j].k)
                j = (j + 1) & (ncap - 1);
            nh[j] = e;
        }
        free(fs->khash);
        fs->khash = nh;
        fs->khash_cap = ncap;
    }
    size_t j = (size_t)kkey_hash(key) & (fs->khash_cap - 1);
    while (fs->khash[j].k) {
        int v = fs->khash[j].k - 1;
        const gsvm_hks_const *c = &f->k[v];
        if (c->type == key->type) {
            if (key->type == GSVM_HKS_K_STRING) {
                if (fs->khash[j].s == key->s)
                    return v;
            } else if (key->type == GSVM_HKS_K_BOOL
                           ? c->b == (uint8_t)key->bits
                           : num_key(c->type, c->bits) == num_key(key->type, key->bits))
                return v;
        }
        j = (j + 1) & (fs->khash_cap - 1);
    }
    int idx = newk(fs, key);
    fs->khash[j].k = idx + 1;
    fs->khash[j].s = key->s;
    return idx;
}

int hc_k_string(hc_func *fs, const hc_str *s)
{
    kkey k = {GSVM_HKS_K_STRING, 0, s};
    return addk(fs, &k);
}

static uint64_t number_bits(hc_func *fs, double v)
{
    if (CC(fs)->o.number_size == 8) {
        uint64_t b;
        memcpy(&b, &v, 8);
        return b;
    }
    float fv = (float)v;
    uint32_t b;
    memcpy(&b, &fv, 4);
    return b;
}

int hc_k_number(hc_func *fs, double v)
{
    kkey k = {GSVM_HKS_K_NUMBER, number_bits(fs, v), NULL};
    if (v != v) /* NaN is never equal to itself: each gets its own constant */
        return newk(fs, &k);
    return addk(fs, &k);
}

int hc_k_lud(hc_func *fs, uint64_t v, int type)
{
    kkey k = {type, v, NULL};
    return addk(fs, &k);
}

static int boolk(hc_func *fs, bool b)
{
    kkey k = {GSVM_HKS_K_BOOL, b, NULL};
    return addk(fs, &k);
}

static int nilk(hc_func *fs)
{
    kkey k = {GSVM_HKS_K_NIL, 0, NULL};
    return addk(fs, &k);
}

/* The two nil cache constants of a memoized global read, one pair per name. */
static int memo_slot(hc_func *fs, const hc_str *name)
{
    for (int i = 0; i < fs->nmemo; i++)
        if (fs->memo[i].name == name)
            return fs->memo[i].k;
    fs->memo = hc_grow(CC(fs), fs->memo, &fs->cap_memo, (size_t)fs->nmemo + 1, sizeof *fs->memo);
    kkey k = {GSVM_HKS_K_NIL, 0, NULL};
    int first = newk(fs, &k);
    newk(fs, &k);
    fs->memo[fs->nmemo].name = name;
    fs->memo[fs->nmemo].k = first;
    fs->nmemo++;
    return first;
}

static bool k_is_string(hc_func *fs, int rk)
{
    return ISK(rk) && fs->f->k[rk - 256].type == GSVM_HKS_K_STRING;
}

/* ---- nil ---- */
void hc_nil(hc_func *fs, int from, int n)
{
    if (fs->pc > fs->lasttarget && fs->pc > 0) {
        uint32_t *prev = &fs->f->code[fs->pc - 1];
        if (OPF(*prev) == HKS_I_LOADNIL) {
            int pfrom = AF(*prev), pto = BF(*prev);
            if (pfrom <= from && from <= pto + 1) {
                if (from + n - 1 > pto)
                    SETB(*prev, from + n - 1);
                return;
            }
        }
    }
    hc_code(fs, HKS_I_LOADNIL, (uint32_t)from, (uint32_t)(from + n - 1), 0);
}

/* ---- jumps ---- */
static int getjump(hc_func *fs, int pc)
{
    int off = SBXF(fs->f->code[pc]);
    return off == HC_NOJUMP ? HC_NOJUMP : pc + 1 + off;
}

static void fixjump(hc_func *fs, int pc, int dest)
{
    int off = dest - (pc + 1);
    if (off > MAXSBX || off < -MAXSBX)
        too_complex(fs, "control structure too long");
    SETBX(fs->f->code[pc], off + MAXSBX);
}

void hc_concat(hc_func *fs, int *l1, int l2)
{
    if (l2 == HC_NOJUMP)
        return;
    if (*l1 == HC_NOJUMP) {
        *l1 = l2;
        return;
    }
    int list = *l1, next;
    while ((next = getjump(fs, list)) != HC_NOJUMP)
        list = next;
    fixjump(fs, list, l2);
}

int hc_jump(hc_func *fs)
{
    int jpc = fs->jpc;
    fs->jpc = HC_NOJUMP;
    int j = code_asbx(fs, HKS_I_JMP, 0, HC_NOJUMP);
    hc_concat(fs, &j, jpc);
    return j;
}

void hc_ret(hc_func *fs, int first, int n)
{
    hc_code(fs, HKS_I_RETURN, (uint32_t)first, (uint32_t)(n + 1), 0);
}

static int condjump(hc_func *fs, unsigned op, int a, int b, int c)
{
    hc_code(fs, op, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    return hc_jump(fs);
}

int hc_getlabel(hc_func *fs)
{
    fs->lasttarget = fs->pc;
    return fs->pc;
}

static bool testmode(unsigned op) { return hks_ops[op].checks & HKS_XTEST; }

/* The instruction that controls jump `pc` (the test before it, if any). */
static uint32_t *jumpcontrol(hc_func *fs, int pc)
{
    uint32_t *p = &fs->f->code[pc];
    if (pc >= 1 && testmode(OPF(p[-1])))
        return p - 1;
    return p;
}

static bool need_value(hc_func *fs, int list)
{
    for (; list != HC_NOJUMP; list = getjump(fs, list))
        if (OPF(*jumpcontrol(fs, list)) != HKS_I_TESTSET)
            return true;
    return false;
}

static bool patchtestreg(hc_func *fs, int node, int reg)
{
    uint32_t *i = jumpcontrol(fs, node);
    if (OPF(*i) != HKS_I_TESTSET)
        return false;
    if (reg != NO_REG && reg != BF(*i))
        SETA(*i, reg);
    else {
        int pc = (int)(i - fs->f->code);
        unsigned op = fs->r1reg[pc] == BF(*i) + 1 ? HKS_I_TEST_R1 : HKS_I_TEST;
        *i = MKABC(op, BF(*i), 0, CF(*i));
    }
    return true;
}

static void removevalues(hc_func *fs, int list)
{
    for (; list != HC_NOJUMP; list = getjump(fs, list))
        patchtestreg(fs, list, NO_REG);
}

static void patchlistaux(hc_func *fs, int list, int vtarget, int reg, int dtarget)
{
    while (list != HC_NOJUMP) {
        int next = getjump(fs, list);
        if (patchtestreg(fs, list, reg))
            fixjump(fs, list, vtarget);
        else
            fixjump(fs, list, dtarget);
        list = next;
    }
}

static void dischargejpc(hc_func *fs)
{
    patchlistaux(fs, fs->jpc, fs->pc, NO_REG, fs->pc);
    fs->jpc = HC_NOJUMP;
}

void hc_patchlist(hc_func *fs, int list, int target)
{
    if (target == fs->pc)
        hc_patchtohere(fs, list);
    else
        patchlistaux(fs, list, target, NO_REG, target);
}

void hc_patchtohere(hc_func *fs, int list)
{
    hc_getlabel(fs);
    hc_concat(fs, &fs->jpc, list);
}

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
            int slot = memo_slot(fs, name);
            e->info = hc_code_bx(fs, HKS_I_GETGLOBAL_MEM, 0, (uint32_t)e->info);
            hc_code_data(fs, 20, (uint32_t)slot);
        } else {
            e->info = hc_code_bx(fs, HKS_I_GETGLOBAL, 0, (uint32_t)e->info);
        }
        e->k = E_RELOC;
        break;
    }
    case E_INDEXED: {
        freereg(fs, e->aux);
        freereg(fs, e->info);
        if (k_is_string(fs, e->aux)) {
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
        freereg(fs, e->info);
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
        if (need_value(fs, e->t) || need_value(fs, e->f)) {
            int fj = e->k == E_JMP ? HC_NOJUMP : hc_jump(fs);
            p_f = code_label(fs, reg, 0, 1);
            p_t = code_label(fs, reg, 1, 0);
            hc_patchtohere(fs, fj);
        }
        int end = hc_getlabel(fs);
        patchlistaux(fs, e->f, end, reg, p_f);
        patchlistaux(fs, e->t, end, reg, p_t);
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
            e->info = e->k == E_NIL ? nilk(fs)
                      : e->k == E_KNUM ? hc_k_number(fs, e->nval)
                                       : boolk(fs, e->k == E_TRUE);
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
        if (k_is_string(fs, key))
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
    uint32_t *pc = jumpcontrol(fs, e->info);
    SETA(*pc, !AF(*pc));
}

static int jumponcond(hc_func *fs, hc_exp *e, int cond)
{
    if (e->k == E_RELOC) {
        uint32_t ie = fs->f->code[e->info];
        if (OPF(ie) == HKS_I_NOT || OPF(ie) == HKS_I_NOT_R1) { /* (its R1 form too) */
            fs->pc--; /* remove the NOT */
            fs->f->ncode--;
            return condjump(fs, HKS_I_TEST, BF(ie), 0, !cond);
        }
    }
    discharge2anyreg(fs, e);
    hc_freeexp(fs, e);
    return condjump(fs, HKS_I_TESTSET, NO_REG, e->info, cond);
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
    removevalues(fs, e->f);
    removevalues(fs, e->t);
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
    e1->info = condjump(fs, iop, cond, o1, o2);
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
            too_complex(fs, "table constructor too long");
        hc_code_data(fs, 0, (uint32_t)c);
    }
    fs->freereg = base + 1;
}

/* ---- R1 forms and encoding ----
 * hksc codes an instruction in its R1 form when its main operand is the
 * register the previous instruction (DATA words skipped) wrote and no jump
 * lands on it; the choice is made when the instruction is coded, so a TESTSET
 * that later becomes a TEST stays plain. */

/* The register an instruction leaves its result in, or -1. */
static int written_reg(uint32_t w)
{
    switch (OPF(w)) {
    case HKS_I_GETFIELD: case HKS_I_GETFIELD_R1: case HKS_I_GETGLOBAL: case HKS_I_GETGLOBAL_MEM:
    case HKS_I_GETUPVAL: case HKS_I_MOVE: case HKS_I_NEWTABLE: case HKS_I_SELF:
        return AF(w);
    default: return -1;
    }
}

static unsigned r1_form(hc_func *fs, unsigned iop, uint32_t a, uint32_t b)
{
    fs->r1reg = hc_grow(CC(fs), fs->r1reg, &fs->cap_r1, (size_t)fs->pc + 1, sizeof *fs->r1reg);
    fs->r1reg[fs->pc] = 0;
    if (fs->pc == 0 || fs->jpc != HC_NOJUMP || fs->lasttarget == fs->pc)
        return iop;
    int p = fs->pc - 1;
    while (p >= 0 && OPF(fs->f->code[p]) == HKS_I_DATA)
        p--;
    if (p < 0)
        return iop;
    int r = written_reg(fs->f->code[p]);
    if (r < 0)
        return iop;
    fs->r1reg[fs->pc] = (int16_t)(r + 1);
    switch (iop) {
    case HKS_I_CALL_I: return (int)a == r ? HKS_I_CALL_I_R1 : iop;
    case HKS_I_TAILCALL_I: return (int)a == r ? HKS_I_TAILCALL_I_R1 : iop;
    case HKS_I_TEST: return (int)a == r ? HKS_I_TEST_R1 : iop;
    case HKS_I_SETUPVAL: return (int)a == r ? HKS_I_SETUPVAL_R1 : iop;
    case HKS_I_SETFIELD: return (int)a == r ? HKS_I_SETFIELD_R1 : iop;
    case HKS_I_GETFIELD: return (int)b == r ? HKS_I_GETFIELD_R1 : iop;
    case HKS_I_NOT: return (int)b == r ? HKS_I_NOT_R1 : iop;
    default: return iop;
    }
}

void hc_finish_code(hc_func *fs)
{
    gsvm_hks_proto *f = fs->f;
    int n = fs->pc;
    gsvm_hks_profile p = fs->C->o.profile;
    for (int pc = 0; pc < n; pc++) {
        uint32_t w = f->code[pc];
        unsigned enc = hks_encode_op(p, OPF(w));
        f->code[pc] = (w & 0x1FFFFFFu) | (uint32_t)enc << 25;
    }
}
