/* The compiled unit (the document's Program): the shared instruction stream,
 * the constant pool, host names, global defaults and the event table.
 * Internal to the engine; embedders see the opaque gsvm_lsl_program. */
#ifndef GSVM_LSL_PROGRAM_H
#define GSVM_LSL_PROGRAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/lsl.h"

/* Operand kinds of isa.def. */
typedef enum { FK_NONE, FK_CONST, FK_LOCAL, FK_GLOBAL, FK_TARGET, FK_HOST } fal_operand_kind;

typedef enum {
#define FALCON_OP(name, mnem, kind, pops, pushes, meaning) FOP_##name,
#include "lsl/isa.def"
#undef FALCON_OP
    FOP_COUNT
} fal_op;

typedef struct fal_op_info {
    const char *mnemonic;
    fal_operand_kind kind;
    int pops, pushes;
    const char *meaning;
} fal_op_info;
extern const fal_op_info fal_ops[FOP_COUNT];

/* One fixed-width instruction.  Keeping the ip a plain index into an array of
 * these is what makes a snapshot after any instruction trivial. */
typedef struct fal_insn {
    uint8_t op;
    int32_t a, b;
} fal_insn;

/* A value as the program stores it (constants, global defaults). */
typedef struct fal_pvalue {
    uint8_t type; /* GSVM_LSL_INTEGER or GSVM_LSL_STRING */
    int32_t i;
    char *s; /* string bytes (NUL-terminated copy), NULL for integers */
    uint32_t len;
} fal_pvalue;

typedef struct fal_event {
    char *name;
    uint32_t entry_ip;
    uint8_t *param_types; /* GSVM_LSL_INTEGER / GSVM_LSL_STRING */
    uint32_t nparams;
    uint32_t local_count; /* parameters occupy the first slots */
} fal_event;

struct gsvm_lsl_program {
    uint8_t abi; /* 2, first in the struct: the one API tells the ABIs apart by it (api.c) */
    _Atomic uint32_t refs; /* references: compile/load give one, every VM holds one */
    fal_insn *code;
    size_t ncode, capcode;
    fal_pvalue *consts;
    size_t nconst, capconst;
    char **host_names;
    size_t nhost, caphost;
    fal_pvalue *globals;  /* global_defaults */
    char **global_names;  /* debug names for listings; entries may be NULL */
    size_t nglobal, capglobal;
    fal_event *events;
    size_t nevent, capevent;
    uint32_t compiler_version, abi_version;
    bool oom; /* a builder call ran out of memory */
    /* The builder's hash index of the constant pool (slot = index + 1, 0 =
     * empty), so deduplicating constants stays linear in a big script. */
    uint32_t *const_index;
    size_t const_index_cap, const_indexed;
    /* The line table: the source line:column of each instruction, recorded
     * by fal_program_emit from the builder's `at_line`/`at_col` (the
     * compiler sets them as it goes); saved in the .fpc's format 2 as runs.
     * A hand-built program, or one loaded from a format-1 file, has none
     * (lines NULL). */
    uint32_t (*lines)[2];
    size_t caplines;
    uint32_t at_line, at_col;
};

/* Limits shared by the loader, the compiler and the VM. */
#define FAL_MAX_LOCALS 65536u
#define FAL_MAX_PARAMS 64u
#define FAL_MAX_STRING (16u * 1024u * 1024u)
#define FAL_MAX_STACK 65536u

/* Builders (used by the compiler and by tests that craft bad programs).
 * Each returns the new index, or -1 when out of memory (and sets oom). */
gsvm_lsl_program *fal_program_new(void);
long fal_program_emit(gsvm_lsl_program *p, fal_op op, int32_t a, int32_t b);
long fal_program_const_int(gsvm_lsl_program *p, int32_t v);    /* deduplicated */
long fal_program_const_str(gsvm_lsl_program *p, const char *s, size_t len);
long fal_program_host(gsvm_lsl_program *p, const char *name); /* deduplicated */
long fal_program_global(gsvm_lsl_program *p, const char *name, fal_pvalue def);
long fal_program_event(gsvm_lsl_program *p, const char *name, uint32_t entry_ip,
                       const uint8_t *param_types, uint32_t nparams, uint32_t local_count);
const fal_event *fal_program_find_event(const gsvm_lsl_program *p, const char *name);

#endif
