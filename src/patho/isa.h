/* The instruction set as C: the opcode enum and a descriptor table, both
 * expanded from isa.def.  Private to the engine (the VM, the tools). */
#ifndef GSVM_PATHO_ISA_H
#define GSVM_PATHO_ISA_H

#include <stdint.h>

#include "gsvm/patho.h"

enum {
#define OP(name, alpha, hd, operands, cls, meaning) GSVM_PATHO_OP_##name,
#include "patho/isa.def"
#undef OP
    GSVM_PATHO_OP_COUNT
};

/* Stack-effect classes (the CLASS column). */
typedef enum gsvm_patho_class {
    GSVM_PATHO_C_NONE,
    GSVM_PATHO_C_PUSH,
    GSVM_PATHO_C_PUSHV,
    GSVM_PATHO_C_POPN,
    GSVM_PATHO_C_POPE,
    GSVM_PATHO_C_POPGE,
    GSVM_PATHO_C_FPUSH,
    GSVM_PATHO_C_FSET,
    GSVM_PATHO_C_JUMP,
    GSVM_PATHO_C_JUMPB,
    GSVM_PATHO_C_CALL,
    GSVM_PATHO_C_RETURN,
    GSVM_PATHO_C_TCALL,
    GSVM_PATHO_C_TRET,
    GSVM_PATHO_C_NATIVE
} gsvm_patho_class;

typedef struct gsvm_patho_opinfo {
    const char *name;
    int alpha, hd;        /* opcode numbers; -1 = absent in that layout */
    const char *operands; /* letters, see isa.def */
    gsvm_patho_class cls;
    const char *meaning;
    uint8_t noperands; /* strlen(operands) */
    uint8_t name_len;  /* strlen(name) */
} gsvm_patho_opinfo;

extern const gsvm_patho_opinfo gsvm_patho_ops[GSVM_PATHO_OP_COUNT];

/* Each instruction name's bytes zero-padded to 16 (isa.def names are at
 * most 16 characters long), also as two words: the assembler looks names
 * up by the words (the length is part of them), the lister copies a name
 * with one 16-byte store. */
typedef union gsvm_patho_op_name16 {
    char c[16];
    uint64_t w[2];
} gsvm_patho_op_name16;
extern const gsvm_patho_op_name16 gsvm_patho_op_words[GSVM_PATHO_OP_COUNT];

/* Op + 1 stored as each opcode (0 when none) in the hd and alpha layouts;
 * only entries 0-255 are codes (opcodes fit a byte in both layouts). */
extern const uint8_t gsvm_patho_op_of_hd[256 + GSVM_PATHO_OP_COUNT];
extern const uint8_t gsvm_patho_op_of_alpha[256 + GSVM_PATHO_OP_COUNT];

/* Facts derived from an operand string, computed by gsvm_patho_op_shape. */
typedef struct gsvm_patho_shape {
    uint8_t nmodes;  /* number of 'm' operands (flag-addressed) */
    uint8_t popmask; /* 0xFF >> nmodes when the op has an 'f' byte, else 0 */
    int8_t flag_at;  /* index of the 'f' operand, -1 if none */
    int8_t list_at;  /* index of the F/R/L operand, -1 if none */
    uint8_t fixed_size; /* encoded bytes of the fixed part, opcode included */
    /* bit k set when operand k is: a wide pool string ('s'), an 8-bit one
     * ('n'), a jump target ('j'), a task id ('k'); the whole-program scans
     * (labels, pool references, layout detection) visit only these */
    uint8_t wide_mask, narrow_mask, jump_mask, task_mask;
    uint8_t ref_mask; /* the four above together: one test for "none" */
    /* encoded size - 1 of operand k in bits 2k+1..2k (1-4 bytes), so the
     * writer and the loader move fixed operands without a switch per letter */
    uint16_t sizes;
} gsvm_patho_shape;

/* Per op, computed by the compiler from isa.def's operand letters. */
extern const gsvm_patho_shape gsvm_patho_shapes[GSVM_PATHO_OP_COUNT];

gsvm_patho_shape gsvm_patho_op_shape(unsigned op);

/* gsvm_patho_op_code for an op known to be in range, inlined for the
 * per-instruction loops of the loader and writer. */
static inline int gsvm_patho_code_of(unsigned op, gsvm_patho_layout layout)
{
    return layout == GSVM_PATHO_LAYOUT_ALPHA ? gsvm_patho_ops[op].alpha : gsvm_patho_ops[op].hd;
}

/* Encoded bytes of one operand letter (the fixed part: F/R/L count 4). */
int gsvm_patho_operand_size(char letter);

/* For the flag-addressed operand number `mi` (0 = first 'm'): its bit. */
static inline uint8_t gsvm_patho_mode_bit(unsigned mi) { return (uint8_t)(0x80u >> mi); }

/* What a stack operand may address -- the one rule `verify` and `run`
 * share: Stack[-v] names a slot when 1 <= v <= size (1 is the top); 0 names
 * none, whatever the depth. */
static inline bool gsvm_patho_stack_slot_ok(uint64_t v, uint64_t size)
{
    return v >= 1 && v <= size;
}

/* What a task-variable operand may address -- the one rule `verify` and
 * `run` share: tN is Stack[task base + N], so it names a slot when N is
 * below the distance from the running task's base to the top (its
 * variables, its parameters and what was pushed since). */
static inline bool gsvm_patho_task_slot_ok(uint64_t t, int64_t distance)
{
    return distance > 0 && t < (uint64_t)distance;
}

/* Calls `fn` with every N of a task variable tN the instruction addresses:
 * the operands isa.def marks as task variables (t, m and a by their mode
 * bits, F/R argument pairs of mode 1). */
void gsvm_patho_task_operands(const gsvm_patho_program *p, const gsvm_patho_insn *in,
                              void (*fn)(void *user, uint32_t t), void *user);

/* Calls `fn` with every v of a Stack[-v] the instruction addresses, in the
 * order the VM addresses them, before it pops or pushes anything: the
 * operands isa.def marks as stack variables (v, m and a by their mode bits,
 * F/R argument pairs of mode 0) and the top that PopE and PopGE read. */
typedef void (*gsvm_patho_operand_fn)(void *user, uint32_t v);
void gsvm_patho_stack_operands(const gsvm_patho_program *p, const gsvm_patho_insn *in,
                               gsvm_patho_operand_fn fn, void *user);

#endif
