/* The operand-range check.  Every instruction's operands are checked against
 * what they index (registers below max stack, constants, prototypes,
 * upvalues, jump targets inside the code and not onto DATA words), DATA words
 * must follow their owners, test instructions must be followed by JMP and
 * name-taking instructions need string constants.  The hypotheses re-read
 * the words with A and B swapped or the opcode one bit low, as the document
 * did to show the encoding is the right one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/isa.h"
#include "hks/text.h"

typedef struct vstate {
    const gsvm_hks_chunk *c;
    gsvm_hks_hypothesis hyp;
    gsvm_hks_violation_fn fn;
    void *ctx;
    gsvm_hks_verify_result *res;
    uint64_t last_pc; /* pc of the last violation (for `flagged`), +1; 0 = none */
    uint8_t iop_of[128]; /* (hypothesis-read) opcode -> internal id, for the profile */
    uint8_t *is_data;    /* which words of the function are owned DATA words */
    uint64_t cap_data;
    char path[2048]; /* 129 levels of "/" + 10 digits fit */
} vstate;

/* swap-ab swaps the A and B fields of ABC instructions (ABx and AsBx ones
 * have no B field: their bits 17-24 are the top of Bx). */
static uint32_t reread(gsvm_hks_hypothesis hyp, unsigned iop, uint32_t w)
{
    if (hyp == GSVM_HKS_HYP_SWAP_AB && iop < HKS_I_COUNT && hks_ops[iop].mode == HKS_ABC) {
        uint32_t a = GSVM_HKS_A(w), b = GSVM_HKS_B(w);
        return (w & ~(0xFFu | 0xFFu << 17)) | b | a << 17;
    }
    return w;
}

static unsigned op_of(gsvm_hks_hypothesis hyp, uint32_t w)
{
    return hyp == GSVM_HKS_HYP_OP_LOW_BIT ? (w >> 24) & 0x7Fu : GSVM_HKS_OP(w);
}

/* (cold: the corpus has no violations, and keeping the formatting out of
 * line lets the checks inline into the instruction loop) */
static void report(vstate *V, uint64_t pc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold, noinline));
#include <stdarg.h>
static void report(vstate *V, uint64_t pc, const char *fmt, ...)
{
    V->res->violations++;
    if (V->last_pc != pc + 1) {
        V->res->flagged++;
        V->last_pc = pc + 1;
    }
    if (!V->fn)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    V->fn(V->ctx, V->path, pc, msg);
}

static inline void check_field(vstate *V, const gsvm_hks_proto *f, uint64_t pc, const hks_opinfo *o,
                        const char *fname, unsigned kind, uint32_t v, const uint8_t *is_data)
{
    switch (kind) {
    case HKS_R:
        if (v >= f->maxstack)
            report(V, pc, "%s: %s register %u is not below max stack %u", o->name, fname, v,
                   f->maxstack);
        break;
    case HKS_K:
        if (v >= f->nk)
            report(V, pc, "%s: %s constant %u is not below the %u constants", o->name, fname, v,
                   f->nk);
        break;
    case HKS_RK:
        if (v >= 256) {
            if (v - 256 >= f->nk)
                report(V, pc, "%s: %s constant %u is not below the %u constants", o->name, fname,
                       v - 256, f->nk);
        } else if (v >= f->maxstack) {
            report(V, pc, "%s: %s register %u is not below max stack %u", o->name, fname, v,
                   f->maxstack);
        }
        break;
    case HKS_V:
        if (v >= f->nups)
            report(V, pc, "%s: %s upvalue %u is not below the %u upvalues", o->name, fname, v,
                   f->nups);
        break;
    case HKS_P:
        if (v >= f->np)
            report(V, pc, "%s: %s prototype %u is not below the %u child functions", o->name,
                   fname, v, f->np);
        break;
    case HKS_J: {
        int64_t target = (int64_t)pc + 1 + ((int32_t)v - 0xFFFF);
        if (target < 0 || (uint64_t)target >= f->ncode)
            report(V, pc, "%s: jump target %lld is outside the code (0..%llu)", o->name,
                   (long long)target, (unsigned long long)f->ncode - 1);
        else if (is_data[target])
            report(V, pc, "%s: jump target %lld is a DATA word", o->name, (long long)target);
        break;
    }
    case HKS_DK:
        if (v > HKS_DEL_INDEXED)
            report(V, pc, "%s: %s is %u; expected a kind of deletion (0 local, 1 global, "
                          "2 upvalue, 3 indexed)", o->name, fname, v);
        break;
    default: break;
    }
}

/* Ghosts' DELETE: what B is depends on the kind in C (DELETE_BK's B is a
 * constant either way, checked as its kind says). */
static void check_delete(vstate *V, const gsvm_hks_proto *f, uint64_t pc, const hks_opinfo *o,
                         unsigned iop, uint32_t B, uint32_t C)
{
    bool bk = iop == HKS_I_DELETE_BK;
    switch (C) {
    case HKS_DEL_LOCAL:
        if (bk)
            report(V, pc, "%s: kind 0 (local) takes no constant; expected DELETE", o->name);
        break;
    case HKS_DEL_GLOBAL:
        if (!bk)
            report(V, pc, "%s: kind 1 (global) names the global by a constant; expected "
                          "DELETE_BK", o->name);
        else if (B < f->nk && f->k[B].type != GSVM_HKS_K_STRING)
            report(V, pc, "%s: B constant %u is not a string", o->name, B);
        break;
    case HKS_DEL_UPVALUE:
        if (bk)
            report(V, pc, "%s: kind 2 (upvalue) takes no constant; expected DELETE", o->name);
        else if (B >= f->nups)
            report(V, pc, "%s: B upvalue %u is not below the %u upvalues", o->name, B, f->nups);
        break;
    case HKS_DEL_INDEXED:
        if (!bk && B >= f->maxstack)
            report(V, pc, "%s: B register %u is not below max stack %u", o->name, B,
                   f->maxstack);
        break;
    default: break; /* reported as C's kind */
    }
}

static void need_string(vstate *V, const gsvm_hks_proto *f, uint64_t pc, const hks_opinfo *o,
                        const char *fname, uint32_t k)
{
    if (k < f->nk && f->k[k].type != GSVM_HKS_K_STRING)
        report(V, pc, "%s: %s constant %u is not a string", o->name, fname, k);
}

/* The checks of one function's code.  `hyp` is passed as a constant by
 * check_code below, so that each hypothesis gets its own compiled loop
 * (the plain one, run on every chunk loaded to detect the profile, without
 * any of the hypotheses' re-reading). */
static inline __attribute__((always_inline)) void
check_code_as(vstate *V, const gsvm_hks_proto *f, uint8_t *is_data, gsvm_hks_hypothesis hyp)
{
    const gsvm_hks_chunk *c = V->c;
    /* Per operand kind, the first value check_field would report (0: let it
     * decide); kinds that index nothing have no limit. */
    uint32_t lim[16];
    for (int i = 0; i < 16; i++)
        lim[i] = UINT32_MAX;
    lim[HKS_R] = f->maxstack;
    lim[HKS_K] = f->nk;
    lim[HKS_V] = f->nups;
    lim[HKS_P] = f->np;
    lim[HKS_DK] = HKS_DEL_INDEXED + 1;
    lim[HKS_RK] = 0;
    lim[HKS_J] = 0;
    /* First pass: which words are owned DATA words (for jump targets). */
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        if (is_data[pc])
            continue;
        unsigned iop = V->iop_of[op_of(hyp, f->code[pc])];
        uint32_t w = reread(hyp, iop, f->code[pc]);
        unsigned n = iop == HKS_NO_OP ? 0 : hks_data_words(f, iop, w);
        for (unsigned i = 1; i <= n && pc + i < f->ncode; i++)
            is_data[pc + i] = 1;
    }
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        uint32_t raw = f->code[pc];
        unsigned op = op_of(hyp, raw);
        unsigned iop = V->iop_of[op];
        uint32_t w = reread(hyp, iop, raw);
        if (is_data[pc]) {
            if (iop != HKS_I_DATA)
                report(V, pc, "expected a DATA word here (owned by an earlier instruction), "
                              "found opcode %u", op);
            continue;
        }
        if (iop == HKS_NO_OP) {
            report(V, pc, "opcode %u is not in the %s table", op,
                   gsvm_hks_profile_name(c->profile));
            continue;
        }
        const hks_opinfo *o = &hks_ops[iop];
        if (iop == HKS_I_DATA) {
            report(V, pc, "DATA word that no instruction owns");
            continue;
        }
        uint32_t A = GSVM_HKS_A(w), B = GSVM_HKS_B(w), C = GSVM_HKS_C(w), Bx = GSVM_HKS_BX(w);
        /* an operand below its kind's limit is fine: only the others (and
         * RK and jumps, whose limit is 0) get the full check */
#define FIELD(name, kind, v) \
    do { \
        if ((v) >= lim[kind]) \
            check_field(V, f, pc, o, name, kind, v, is_data); \
    } while (0)
        FIELD("A", o->a, A);
        if (o->mode == HKS_ABC) {
            FIELD("B", o->b, B);
            FIELD("C", o->c, C);
        } else {
            FIELD("Bx", o->b, Bx);
        }
#undef FIELD
        if (iop == HKS_I_DELETE || iop == HKS_I_DELETE_BK)
            check_delete(V, f, pc, o, iop, B, C);
        if (o->checks & HKS_XSB)
            need_string(V, f, pc, o, "B", B);
        if (o->checks & HKS_XSC)
            need_string(V, f, pc, o, "C", C);
        if (o->checks & HKS_XSBX)
            need_string(V, f, pc, o, "Bx", Bx);
        unsigned nd = hks_data_words(f, iop, w);
        if (pc + nd >= f->ncode && nd)
            report(V, pc, "%s needs %u DATA word(s) but the code ends", o->name, nd);
        if (o->checks & HKS_XTEST) {
            uint64_t next = pc + 1 + nd;
            unsigned nop = next < f->ncode
                               ? V->iop_of[op_of(hyp, f->code[next])]
                               : HKS_NO_OP;
            if (nop != HKS_I_JMP)
                report(V, pc, "%s is not followed by JMP", o->name);
        }
    }
}

static void check_code(vstate *V, const gsvm_hks_proto *f, uint8_t *is_data)
{
    switch (V->hyp) {
    case GSVM_HKS_HYP_SWAP_AB: check_code_as(V, f, is_data, GSVM_HKS_HYP_SWAP_AB); break;
    case GSVM_HKS_HYP_OP_LOW_BIT: check_code_as(V, f, is_data, GSVM_HKS_HYP_OP_LOW_BIT); break;
    default: check_code_as(V, f, is_data, GSVM_HKS_HYP_NONE); break;
    }
}

static bool verify_function(vstate *V, const gsvm_hks_proto *f)
{
    V->res->functions++;
    V->res->instructions += f->ncode;
    V->last_pc = 0;
    /* one buffer for every function's DATA map, grown as needed */
    if (f->ncode > V->cap_data) {
        uint8_t *nd = realloc(V->is_data, (size_t)f->ncode);
        if (!nd)
            return false;
        V->is_data = nd;
        V->cap_data = f->ncode;
    }
    uint8_t *is_data = V->is_data;
    if (f->ncode)
        memset(is_data, 0, (size_t)f->ncode);
    check_code(V, f, is_data);
    size_t plen = strlen(V->path);
    for (uint32_t i = 0; i < f->np; i++) {
        if (plen + 12 >= sizeof V->path)
            break; /* the loader stops nesting long before this */
        /* (snprintf here cost more than checking a small function) */
        char *o = V->path + plen;
        *o++ = '/';
        *gsvm_decimal_u32(o, i) = 0;
        if (!verify_function(V, &f->p[i]))
            return false;
        V->last_pc = 0;
    }
    V->path[plen] = 0;
    return true;
}

gsvm_status gsvm_hks_verify(const gsvm_hks_chunk *c, gsvm_hks_hypothesis hyp,
                            gsvm_hks_violation_fn fn, void *ctx, gsvm_hks_verify_result *res,
                            gsvm_error *err)
{
    vstate V;
    memset(&V, 0, sizeof V);
    memset(res, 0, sizeof *res);
    V.c = c;
    V.hyp = hyp;
    V.fn = fn;
    V.ctx = ctx;
    V.res = res;
    strcpy(V.path, "0");
    for (unsigned op = 0; op < 128; op++)
        V.iop_of[op] = (uint8_t)hks_decode_op(c->profile, op);
    bool ok = verify_function(&V, &c->main);
    free(V.is_data);
    if (!ok)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    return GSVM_OK;
}
