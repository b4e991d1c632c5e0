/* Internal view of the instruction set (expanded from isa.def). */
#ifndef GSVM_HKS_ISA_H
#define GSVM_HKS_ISA_H

#include <stdint.h>

#include "gsvm/hks.h"

typedef enum { HKS_ABC, HKS_ABX, HKS_ASBX } hks_mode;
typedef enum { HKS_N, HKS_R, HKS_K, HKS_RK, HKS_U, HKS_F, HKS_V, HKS_P, HKS_J, HKS_T, HKS_DK } hks_kind;
enum { HKS_D0 = 0, HKS_D1 = 1, HKS_D2 = 2, HKS_DCL = 16, HKS_DSL = 32, HKS_DCH = 64, HKS_DSMT = 128 };
/* SETSLOTMT's B: the tag chain's length - 1 in the low 4 bits, the slot's
 * type tag in the high 4 (TSTRUCT: the structure id in one more word). */
enum { HKS_SLOTMT_CHAIN_MASK = 15, HKS_SLOTMT_TYPE_SHIFT = 4, HKS_TSTRUCT = 12 };
/* Ghosts' DELETE / DELETE_BK: what C says is deleted. */
enum { HKS_DEL_LOCAL = 0, HKS_DEL_GLOBAL = 1, HKS_DEL_UPVALUE = 2, HKS_DEL_INDEXED = 3 };
enum { HKS_XTEST = 1, HKS_XSB = 2, HKS_XSC = 4, HKS_XSBX = 8 };
typedef enum {
    HKS_FAM_NONE, HKS_FAM_TEST, HKS_FAM_CALL, HKS_FAM_TAILCALL, HKS_FAM_STORE
} hks_family;

/* Internal opcode ids: the base table's rows (0..91), then the extensions. */
typedef enum {
#define OP(name, mode, a, b, c, data, checks, writes, meaning, family) HKS_I_##name,
#define EXT(profile, name, mode, a, b, c, data, checks, writes, meaning, family) HKS_I_##name,
#include "hks/isa.def"
#undef OP
#undef EXT
    HKS_I_COUNT
} hks_iop;

enum { HKS_BASE_COUNT = HKS_I_LEFT_SHIFT, HKS_NO_OP = 0xFF };

typedef struct hks_opinfo {
    const char *name;
    uint8_t namelen;
    uint8_t mode, a, b, c;
    uint8_t data;   /* HKS_D* bits; low bits = fixed count */
    uint8_t checks; /* HKS_X* bits */
    const char *writes, *meaning;
    uint8_t family; /* hks_family */
} hks_opinfo;

extern const hks_opinfo hks_ops[HKS_I_COUNT];

/* Encoded opcode -> internal id (HKS_NO_OP when the profile has none). */
unsigned hks_decode_op(gsvm_hks_profile p, unsigned op);
/* Internal id -> encoded opcode (HKS_NO_OP when the profile lacks it). */
unsigned hks_encode_op(gsvm_hks_profile p, unsigned iop);
/* Number of opcodes in the profile's table. */
unsigned hks_profile_ops(gsvm_hks_profile p);
/* Internal id of a name ("GETFIELD"), or HKS_NO_OP. */
unsigned hks_op_lookup(const char *name, size_t len);

/* Fixed DATA word count owned by an instruction (CLOSURE needs the proto).
 * Inline: the listing and the operand check ask for every instruction. */
static inline unsigned hks_data_words(const gsvm_hks_proto *f, unsigned iop, uint32_t insn)
{
    if (iop >= HKS_I_COUNT)
        return 0;
    unsigned d = hks_ops[iop].data;
    unsigned n = d & 15u;
    if ((d & HKS_DSL) && GSVM_HKS_C(insn) == 0)
        n += 1;
    if (d & HKS_DCH)
        n += GSVM_HKS_C(insn) + 1;
    if (d & HKS_DSMT) {
        uint32_t b = GSVM_HKS_B(insn);
        n += (b & HKS_SLOTMT_CHAIN_MASK) + 1 + ((b >> HKS_SLOTMT_TYPE_SHIFT) == HKS_TSTRUCT);
    }
    if (d & HKS_DCL) {
        uint32_t bx = GSVM_HKS_BX(insn);
        if (f && bx < f->np)
            n += f->p[bx].nups;
    }
    return n;
}

#endif
