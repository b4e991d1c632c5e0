/* The compiler's code generator: expression descriptors to instructions.
 * This file holds the instruction stream (emitting, registers, constants,
 * jump lists, the R1 forms, the final encoding); compile_operand.c turns
 * expression descriptors into it.
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
#include <stdlib.h>
#include <string.h>

#include "hks/compile_emit.h"

_Noreturn void hc_too_complex(hc_func *fs, const char *what)
{
    hc_error_at(fs->C, fs->C->t.line, fs->C->t.col, "%s", what);
}

/* ---- emitting ---- */
static int emit(hc_func *fs, uint32_t w)
{
    hc_compiler *C = CC(fs);
    gsvm_hks_proto *f = fs->f;
    if (fs->pc >= (1 << 26))
        hc_too_complex(fs, "function has too many instructions");
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
            hc_too_complex(fs, "function or expression too complex (more than 250 registers)");
        fs->maxstack = newstack;
    }
}

void hc_reserve(hc_func *fs, int n)
{
    hc_checkstack(fs, n);
    fs->freereg += n;
}


void hc_freeexp(hc_func *fs, hc_exp *e)
{
    if (e->k == E_NONRELOC)
        hc_freereg(fs, e->info);
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
        hc_too_complex(fs, "function has too many constants");
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

int hc_k_bool(hc_func *fs, bool b)
{
    kkey k = {GSVM_HKS_K_BOOL, b, NULL};
    return addk(fs, &k);
}

int hc_k_nil(hc_func *fs)
{
    kkey k = {GSVM_HKS_K_NIL, 0, NULL};
    return addk(fs, &k);
}

/* The two nil cache constants of a memoized global read, one pair per name. */
int hc_memo_slot(hc_func *fs, const hc_str *name)
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
        hc_too_complex(fs, "control structure too long");
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

int hc_condjump(hc_func *fs, unsigned op, int a, int b, int c)
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
uint32_t *hc_jumpcontrol(hc_func *fs, int pc)
{
    uint32_t *p = &fs->f->code[pc];
    if (pc >= 1 && testmode(OPF(p[-1])))
        return p - 1;
    return p;
}

bool hc_need_value(hc_func *fs, int list)
{
    for (; list != HC_NOJUMP; list = getjump(fs, list))
        if (OPF(*hc_jumpcontrol(fs, list)) != HKS_I_TESTSET)
            return true;
    return false;
}

static bool patchtestreg(hc_func *fs, int node, int reg)
{
    uint32_t *i = hc_jumpcontrol(fs, node);
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

void hc_removevalues(hc_func *fs, int list)
{
    for (; list != HC_NOJUMP; list = getjump(fs, list))
        patchtestreg(fs, list, NO_REG);
}

void hc_patchlistaux(hc_func *fs, int list, int vtarget, int reg, int dtarget)
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
    hc_patchlistaux(fs, fs->jpc, fs->pc, NO_REG, fs->pc);
    fs->jpc = HC_NOJUMP;
}

void hc_patchlist(hc_func *fs, int list, int target)
{
    if (target == fs->pc)
        hc_patchtohere(fs, list);
    else
        hc_patchlistaux(fs, list, target, NO_REG, target);
}

void hc_patchtohere(hc_func *fs, int list)
{
    hc_getlabel(fs);
    hc_concat(fs, &fs->jpc, list);
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
