/* gsvm patho — the Pathologic script VM's `.bin` files.
 *
 * A `.bin` file is six sections written back to back, little-endian, with no
 * header or alignment:
 *
 *   globals   u32 count, count x { u8 type, u8 has_name, [VLE name] }
 *   pool      u32 size, size raw bytes (NUL-terminated UTF-16LE data strings
 *             and 8-bit method names, addressed by byte offset)
 *   imports   u32 count, count x { VLE name, u32 argc }
 *   tasks     u32 RunTask, u32 RunOp, u32 count, count x { u32 nvars,
 *             u8 types[nvars], u32 nparams, u32 nevents, nevents x Event }
 *   events    u32 count, count x Event          (the global events)
 *   code      u32 instruction count, then instructions: u16 opcode + operands
 *
 *   Event = { u32 id, u32 op (instruction index), u32 nargs, u8 types[nargs] }
 *   VLE name = 1 byte length, or (0x80 | len & 0x7F), len >> 7 for >= 0x80.
 *
 * Jump/call targets, RunOp and event ops are instruction INDICES.  Opcode
 * numbers depend on the layout: "alpha" (an early build, no CString) or "hd"
 * (the 2005 retail release, the demo and the HD edition).
 *
 * gsvm_patho_program is the in-memory model of one file: every field needed
 * to write the same bytes back (gsvm_patho_save(gsvm_patho_load(x)) == x).
 * The instruction set itself is defined once in src/patho/isa.def; this
 * header exposes it through small lookup functions.
 *
 * Ownership: a program is one object the caller owns; gsvm_patho_free
 * releases everything it points to.  Nothing here prints or exits.
 *
 * Threads: nothing here has global state.  A program is not changed by the
 * functions that take it `const` (save, list, verify, stats, cfg_dot, and
 * every VM over it), so several threads may share one loaded program. */
#ifndef GSVM_PATHO_H
#define GSVM_PATHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opcode numbering.  AUTO asks the loader to detect it from the bytes. */
typedef enum gsvm_patho_layout {
    GSVM_PATHO_LAYOUT_AUTO = 0,
    GSVM_PATHO_LAYOUT_ALPHA = 1,
    GSVM_PATHO_LAYOUT_HD = 2
} gsvm_patho_layout;

/* Variable type codes as stored in the file. */
typedef enum gsvm_patho_type {
    GSVM_PATHO_BOOL = 1,
    GSVM_PATHO_INT = 2,
    GSVM_PATHO_FLOAT = 3,
    GSVM_PATHO_STRING = 4,
    GSVM_PATHO_OBJECT = 5,
    GSVM_PATHO_CVECTOR = 6
} gsvm_patho_type;

/* A name from the globals or imports section: raw bytes (usually ASCII),
 * NUL-terminated for convenience; `len` is the stored length. */
typedef struct gsvm_patho_name {
    char *str;
    uint32_t len;
    uint8_t long_prefix; /* stored with the 2-byte length prefix although len < 0x80 */
} gsvm_patho_name;

typedef struct gsvm_patho_global {
    uint8_t type;     /* gsvm_patho_type (any byte is kept as read) */
    uint8_t has_name; /* the stored flag byte; the name follows only when != 0 */
    gsvm_patho_name name;
} gsvm_patho_global;

typedef struct gsvm_patho_import {
    gsvm_patho_name name;
    uint32_t argc; /* the number of (var, task) argument pairs a Func call carries */
} gsvm_patho_import;

typedef struct gsvm_patho_event {
    uint32_t id;
    uint32_t op;    /* handler entry: instruction index */
    uint32_t nargs; /* argument slots pushed when the event is sent */
    uint8_t *arg_types;
} gsvm_patho_event;

typedef struct gsvm_patho_task {
    uint32_t nvars; /* task variables, inserted below the parameters by TaskCall */
    uint8_t *var_types;
    uint32_t nparams;
    uint32_t nevents;
    gsvm_patho_event *events;
} gsvm_patho_task;

/* One (var, mode) argument of Func / ObjFunc / TObjFunc: mode 0 = stack
 * (Stack[-var]), 1 = task variable var; any other byte is kept as read. */
typedef struct gsvm_patho_arg {
    uint32_t var;
    uint8_t mode;
} gsvm_patho_arg;

/* Most operands an instruction has in its fixed part (FuncExist2: 4 vars + flag). */
#define GSVM_PATHO_MAX_OPERANDS 5

/* One decoded instruction.
 *
 * `op` is the layout-independent opcode (GSVM_PATHO_OP_* in src/patho/isa.h,
 * see gsvm_patho_op_name); `raw` is the u16 stored in the file.  `a[]` holds
 * the operands in encoding order, one slot per letter of the opcode's operand
 * string (gsvm_patho_op_operands): integers widened to u32 (signed values as
 * their two's-complement bits), f32 literals as their IEEE bits, flag bytes
 * as 0..255.  The variable-length part — the PushV type list or the
 * Func/ObjFunc/TObjFunc argument list — is `list_len` entries starting at
 * `list`, in program->vtypes (PushV) or program->args (calls). */
typedef struct gsvm_patho_insn {
    uint16_t op;
    uint16_t raw;
    uint32_t offset; /* byte offset of the opcode in the file (0 if built in memory) */
    uint32_t size;   /* encoded size in bytes, opcode included */
    uint32_t a[GSVM_PATHO_MAX_OPERANDS];
    uint32_t list, list_len;
} gsvm_patho_insn;

typedef struct gsvm_patho_program {
    gsvm_patho_layout layout; /* ALPHA or HD (never AUTO once loaded) */

    uint32_t nglobals;
    gsvm_patho_global *globals;

    uint32_t pool_size;
    uint8_t *pool;

    uint32_t nimports;
    gsvm_patho_import *imports;

    uint32_t run_task; /* stored first on disk */
    uint32_t run_op;
    uint32_t ntasks;
    gsvm_patho_task *tasks;

    uint32_t nevents; /* global events: fallback handlers for every task */
    gsvm_patho_event *events;

    uint32_t ninsns;
    gsvm_patho_insn *insns;
    uint32_t nargs; /* all call argument lists, back to back */
    gsvm_patho_arg *args;
    uint32_t nvtypes; /* all PushV type lists, back to back */
    uint8_t *vtypes;

    uint32_t code_offset; /* byte offset of the code section's count field */
    uint32_t file_size;   /* bytes the program occupies when saved */

    /* Internal to gsvm_patho_free: the loader and the assembler carve
     * names, type lists and arrays out of this one block (anything inside
     * it is not freed on its own).  NULL when every array is its own
     * allocation; leave it alone. */
    uint8_t *block;
    size_t block_size;
} gsvm_patho_program;

/* ---- Loading and saving ---------------------------------------------- */

/* Decodes `len` bytes.  With GSVM_PATHO_LAYOUT_AUTO the layout is detected:
 * the bytes are decoded with both numberings and the one that decodes the
 * whole file exactly with valid targets wins (hd when both do).  `file` names
 * the input in error messages (may be NULL).  On failure *out is NULL and
 * `err` names the byte offset and what was wrong. */
gsvm_status gsvm_patho_load(const uint8_t *data, size_t len, gsvm_patho_layout layout,
                            const char *file, gsvm_patho_program **out, gsvm_error *err);
/* Reads the file at `path` ("-" = stdin) and loads it. */
gsvm_status gsvm_patho_load_file(const char *path, gsvm_patho_layout layout,
                                 gsvm_patho_program **out, gsvm_error *err);
/* Encodes `p` into a new malloc'd buffer (*data, *len); the caller frees it.
 * Fails (GSVM_ERR_INPUT) when the program is inconsistent, e.g. an opcode
 * with no number in p->layout or a Func whose import index is out of range. */
gsvm_status gsvm_patho_save(const gsvm_patho_program *p, uint8_t **data, size_t *len,
                            gsvm_error *err);
void gsvm_patho_free(gsvm_patho_program *p);
/* Recomputes what follows from the rest after a program was built or edited
 * in memory: each instruction's offset and size, code_offset and file_size.
 * Fails when an instruction cannot be encoded (an opcode missing from the
 * layout, a Func whose import index or argument count does not match). */
gsvm_status gsvm_patho_finish(gsvm_patho_program *p, gsvm_error *err);

/* ---- Listing and assembling ------------------------------------------- */

/* Prints the lossless listing of `p` (see docs/patho.md for the syntax) into
 * a new malloc'd NUL-terminated string.  `flags`: 0, or
 * GSVM_PATHO_LIST_COMPACT to leave out the comment columns (instruction
 * indices, byte offsets): the same bytes, and a diff between two versions of
 * a script shows only what changed. */
#define GSVM_PATHO_LIST_COMPACT 1u
gsvm_status gsvm_patho_list(const gsvm_patho_program *p, unsigned flags, char **text,
                            size_t *len, gsvm_error *err);
/* Assembles a listing.  `layout` overrides the listing's `.layout` line
 * unless it is AUTO (then the listing decides; hd when it says nothing).
 * Errors name `file`:line:column. */
gsvm_status gsvm_patho_asm(const char *text, size_t len, const char *file,
                           gsvm_patho_layout layout, gsvm_patho_program **out, gsvm_error *err);
/* Imports a listing in the syntax of the community disassembler
 * (gr0grig/pathologic_re: `@ Func(...)`, `// @pool_raw:`, `// @poff=`).
 * With AUTO the layout follows the listing (`Call2` or CString means hd,
 * `Call` alpha); a listing with none of them is alpha when `file` contains
 * "alpha" (as the community's folders are named), else hd. */
gsvm_status gsvm_patho_import_re(const char *text, size_t len, const char *file,
                                 gsvm_patho_layout layout, gsvm_patho_program **out,
                                 gsvm_error *err);

/* The older "release 2" syntax of that disassembler (the 3,287 listings of
 * its public release) has lost fields: the JumpB compare byte, float digits,
 * the task flags of call arguments, ObjFunc's object slot, TObjFunc vs
 * ObjFunc, NullEq vs Not, string widths.  Those listings import as the
 * community's assembler builds them (the value shown, 0 for the object slot,
 * mode 0, ObjFunc, Not, UTF-16 strings); each kind of loss is reported once,
 * at the first line it affects, to `warn` -- or, with `strict`, refused. */
typedef void (*gsvm_patho_warn_fn)(void *user, const gsvm_error *warning);
typedef struct gsvm_patho_import_opts {
    gsvm_patho_layout layout;
    bool strict;             /* a lost field is an error (GSVM_ERR_INPUT) */
    gsvm_patho_warn_fn warn; /* may be NULL */
    void *user;
} gsvm_patho_import_opts;
gsvm_status gsvm_patho_import_re_opts(const char *text, size_t len, const char *file,
                                      const gsvm_patho_import_opts *opts,
                                      gsvm_patho_program **out, gsvm_error *err);

/* ---- Checking ---------------------------------------------------------- */

/* One problem the verifier found.  `insn` is the instruction index, or -1
 * for the header sections; `offset` the byte offset of the instruction (or
 * of the section), -1 when unknown. */
typedef struct gsvm_patho_issue {
    long insn;
    long long offset;
    char message[200];
} gsvm_patho_issue;

/* Checks a loaded program: every operand in range (pool offsets inside the
 * pool on a string of the right width, import indices and argument counts,
 * task ids, globals, jump/call/event targets inside the code, type codes),
 * and the stack depth along every path from RunOp and every event handler
 * (never below zero, through calls, task frames and returns).  Returns OK
 * and fills *issues (malloc'd, the caller frees; NULL when none) and
 * *count; a clean program has count 0.  Fails only on out-of-memory. */
gsvm_status gsvm_patho_verify(const gsvm_patho_program *p, gsvm_patho_issue **issues,
                              size_t *count, gsvm_error *err);

/* Figures about a program, for `gsvm patho stats`. */
typedef struct gsvm_patho_stats {
    uint32_t file_size, code_bytes, pool_bytes;
    uint32_t instructions, globals, imports, tasks, task_events, global_events;
    uint32_t functions;     /* distinct Call targets */
    uint32_t pool_strings_wide, pool_strings_narrow;
    uint32_t max_stack;     /* deepest stack along any path from RunOp (verifier model) */
    uint32_t op_counts[128]; /* by logical op (see gsvm_patho_op_name) */
    uint32_t native_calls;   /* Func instructions */
    uint32_t method_calls;   /* ObjFunc + TObjFunc */
} gsvm_patho_stats;

gsvm_status gsvm_patho_stats_compute(const gsvm_patho_program *p, gsvm_patho_stats *out,
                                     gsvm_error *err);

/* Graphviz dot of the control-flow graph of task `task`: the code reachable
 * from its event handlers (and from RunOp when it is the RunTask), split
 * into basic blocks, with call edges dashed.  A malloc'd string. */
gsvm_status gsvm_patho_cfg_dot(const gsvm_patho_program *p, uint32_t task, char **text,
                               size_t *len, gsvm_error *err);

/* ---- The instruction set (from src/patho/isa.def) --------------------- */

/* Number of logical opcodes (valid `op` values are 0 .. count-1). */
unsigned gsvm_patho_op_count(void);
/* "Mov", "JumpB", ...; NULL when op is out of range. */
const char *gsvm_patho_op_name(unsigned op);
/* The one-line meaning of op (from isa.def); NULL when out of range. */
const char *gsvm_patho_op_meaning(unsigned op);
/* The operand letters of op (see src/patho/isa.def); NULL when out of range. */
const char *gsvm_patho_op_operands(unsigned op);
/* The u16 stored for op in `layout`, or -1 when op has no number there. */
int gsvm_patho_op_code(unsigned op, gsvm_patho_layout layout);
/* The logical op stored as `code` in `layout`, or -1 when there is none. */
int gsvm_patho_op_from_code(unsigned code, gsvm_patho_layout layout);
/* Looks a logical op up by name (case-sensitive); -1 when unknown. */
int gsvm_patho_op_by_name(const char *name, size_t len);
/* "alpha" / "hd" / "auto". */
const char *gsvm_patho_layout_name(gsvm_patho_layout layout);
/* Parses "alpha" / "hd" (and "2005", "retail", "demo" as hd); false if unknown. */
bool gsvm_patho_layout_parse(const char *s, gsvm_patho_layout *out);
/* "bool", "int", ...; NULL for an unknown code. */
const char *gsvm_patho_type_name(unsigned type);

/* Float operands are stored as IEEE bits in gsvm_patho_insn.a[]. */
float gsvm_patho_f32(uint32_t bits);
uint32_t gsvm_patho_f32_bits(float f);

#ifdef __cplusplus
}
#endif
#endif
