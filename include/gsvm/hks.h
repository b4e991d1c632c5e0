/* gsvm hks — HavokScript (Havok's Lua 5.1 fork) chunks.
 *
 * A chunk is loaded into a gsvm_hks_chunk that keeps every byte of the file:
 * header fields, the type table, each function (with the padding bytes before
 * its code), constants, debug info in the layout of the chunk's format (13 or
 * 14), the structure block (plain or with base-structure names, as in Halo
 * Infinite), the bytes before the chunk (--offset) and the bytes after it.
 * Dumping a loaded chunk therefore reproduces the input byte for byte.
 *
 * The listing (gsvm_hks_list) is a lossless text form; gsvm_hks_asm reads it
 * back.  gsvm_hks_verify checks every operand against its range.
 * Nothing here prints, exits or keeps global state. */
#ifndef GSVM_HKS_H
#define GSVM_HKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opcode tables.  BASE is the 92-opcode HavokScript table (Shadow of War,
 * Sekiro, Halo); BO3 inserts eight shift/bitwise opcodes at 60-67; GHOSTS
 * appends DELETE and DELETE_BK.  AUTO picks GHOSTS for format-13 chunks;
 * for format 14 it picks BO3 or GHOSTS when the operand check fits that
 * table strictly better than BASE (a chunk without their extra opcodes
 * reads the same under BASE), else BASE. */
typedef enum gsvm_hks_profile {
    GSVM_HKS_PROFILE_AUTO = 0,
    GSVM_HKS_PROFILE_BASE,
    GSVM_HKS_PROFILE_BO3,
    GSVM_HKS_PROFILE_GHOSTS
} gsvm_hks_profile;

/* Layout of the structure block.  HALO adds, per structure, an int count of
 * base-structure names and the names, after the slot count. */
typedef enum gsvm_hks_struct_layout {
    GSVM_HKS_STRUCTS_AUTO = 0,
    GSVM_HKS_STRUCTS_PLAIN,
    GSVM_HKS_STRUCTS_HALO
} gsvm_hks_struct_layout;

/* A string as stored: `size` is the on-disk length (0 = null string), and
 * `data` holds `size` bytes (normally ending in NUL), plus one extra NUL. */
typedef struct gsvm_hks_str {
    uint64_t size;
    char *data;
} gsvm_hks_str;

enum { GSVM_HKS_K_NIL = 0, GSVM_HKS_K_BOOL = 1, GSVM_HKS_K_LUD = 2, GSVM_HKS_K_NUMBER = 3,
       GSVM_HKS_K_STRING = 4, GSVM_HKS_K_UI64 = 11 };

typedef struct gsvm_hks_const {
    uint8_t type;   /* GSVM_HKS_K_* */
    uint8_t b;      /* BOOL: the raw byte */
    uint64_t bits;  /* LUD, UI64: the value; NUMBER: the raw bits (4 or 8 bytes) */
    gsvm_hks_str s; /* STRING */
} gsvm_hks_const;

typedef struct gsvm_hks_local {
    gsvm_hks_str name;
    uint32_t startpc, endpc;
} gsvm_hks_local;

/* Debug info.  `flag` is the "has debug" int as stored (0 = none).  In
 * format 13 (Call of Duty builds) flag 1 carries only a 32-bit `hash` (the
 * debug info lives in a separate file) and flag 40 only line defined, last
 * line, source and name; any other nonzero flag the full format-13 layout.
 * A format-14 chunk with `debug_hash` set (Black Ops 3) reads flag 1 as
 * only a hash too. */
typedef struct gsvm_hks_debug {
    uint32_t flag;
    uint32_t hash;
    uint32_t linedefined, lastlinedefined;
    gsvm_hks_str source, name;
    uint64_t nlines;
    uint32_t *lines;
    uint32_t nlocals;
    gsvm_hks_local *locals;
    uint32_t nupnames;
    gsvm_hks_str *upnames;
} gsvm_hks_debug;

typedef struct gsvm_hks_proto gsvm_hks_proto;
struct gsvm_hks_proto {
    uint32_t nups, nparams;
    uint8_t flags; /* vararg flags */
    uint32_t maxstack;
    uint8_t pad[4], npad; /* the alignment bytes before the code, as found */
    uint64_t ncode;
    uint32_t *code;
    uint32_t nk;
    gsvm_hks_const *k;
    gsvm_hks_debug debug;
    uint32_t np;
    gsvm_hks_proto *p;
    uint64_t offset;      /* byte offset of the function in the input (informative) */
    uint64_t code_offset; /* byte offset of its first instruction */
};

typedef struct gsvm_hks_slot {
    gsvm_hks_str name;
    uint64_t a; /* size_t field (structure id of a typed slot) */
    uint32_t b, c; /* int fields (type, flags) */
    uint64_t d; /* size_t field (position) */
} gsvm_hks_slot;

typedef struct gsvm_hks_struct {
    gsvm_hks_str name;
    uint64_t id;
    uint32_t x, y;
    uint32_t nbases;
    gsvm_hks_str *bases; /* HALO layout only */
    uint64_t nslots;
    gsvm_hks_slot *slots;
} gsvm_hks_struct;

typedef struct gsvm_hks_type_entry {
    uint32_t id, len;
    char *name; /* `len` bytes (+ NUL) */
} gsvm_hks_type_entry;

typedef struct gsvm_hks_chunk {
    /* header after "\x1bLua" */
    uint8_t version, format, endian, size_int, size_size, size_instr, size_number, integral,
        build_flags, referenced;
    uint32_t ntypes;
    gsvm_hks_type_entry *types;
    gsvm_hks_proto main;
    bool has_structs;     /* build flag 2 (structures) */
    uint32_t struct_marker; /* the int before the structure list (1) */
    gsvm_hks_struct_layout struct_layout;
    uint32_t nstructs;
    gsvm_hks_struct *structs;
    gsvm_hks_profile profile; /* never AUTO once loaded */
    /* Format 14 only: debug flag 1 holds just a hash (hksc's Black Ops 3).
     * The loader reads flag 1 in full first and falls back to this. */
    bool debug_hash;
    uint8_t *prefix; size_t nprefix;     /* bytes before the chunk (--offset) */
    uint8_t *trailing; size_t ntrailing; /* bytes after the chunk */
} gsvm_hks_chunk;

typedef struct gsvm_hks_load_options {
    size_t offset;                    /* where the chunk starts in the input */
    gsvm_hks_profile profile;         /* AUTO: detect */
    gsvm_hks_struct_layout structs;   /* AUTO: detect */
    bool scan; /* offset 0 but no chunk there: load the first "\x1bLuaQ" inside */
} gsvm_hks_load_options;

/* Loads a chunk (opts may be NULL).  On failure *out is NULL and err names
 * the byte offset and what was expected there. */
gsvm_status gsvm_hks_chunk_load(const uint8_t *data, size_t len, const gsvm_hks_load_options *opts,
                                const char *file, gsvm_hks_chunk **out, gsvm_error *err);
/* Writes the chunk's bytes (prefix, chunk, trailing) into a malloc'd buffer. */
gsvm_status gsvm_hks_chunk_dump(const gsvm_hks_chunk *c, uint8_t **out, size_t *len,
                                gsvm_error *err);
void gsvm_hks_chunk_free(gsvm_hks_chunk *c);

/* The lossless listing as malloc'd text. */
gsvm_status gsvm_hks_list(const gsvm_hks_chunk *c, char **out, size_t *len, gsvm_error *err);
/* Reads a listing back; errors carry line:column. */
gsvm_status gsvm_hks_asm(const char *text, size_t len, const char *file, gsvm_hks_chunk **out,
                         gsvm_error *err);

/* ---- instructions ---- */
enum { GSVM_HKS_OP_DATA = 76 };
/* Field extraction exactly as the document gives them. */
#define GSVM_HKS_OP(i) ((uint32_t)(i) >> 25)
#define GSVM_HKS_A(i) ((uint32_t)(i)&0xFFu)
#define GSVM_HKS_C(i) (((uint32_t)(i) >> 8) & 0x1FFu)
#define GSVM_HKS_B(i) (((uint32_t)(i) >> 17) & 0xFFu)
#define GSVM_HKS_BX(i) (((uint32_t)(i) >> 8) & 0x1FFFFu)
#define GSVM_HKS_SBX(i) ((int32_t)GSVM_HKS_BX(i) - 0xFFFF)

/* Name of opcode `op` (as encoded) under a profile, or NULL if none. */
const char *gsvm_hks_op_name(gsvm_hks_profile profile, unsigned op);
const char *gsvm_hks_profile_name(gsvm_hks_profile profile);
/* "base", "bo3", "ghosts" (and "auto"); false if unknown. */
bool gsvm_hks_profile_parse(const char *name, gsvm_hks_profile *out);

/* ---- verification ---- */
typedef enum gsvm_hks_hypothesis {
    GSVM_HKS_HYP_NONE = 0,
    GSVM_HKS_HYP_SWAP_AB,   /* read A and B swapped */
    GSVM_HKS_HYP_OP_LOW_BIT /* read the opcode one bit low (bits 24-30) */
} gsvm_hks_hypothesis;

/* Called once per violation; `path` names the function ("0", "0/3/1"). */
typedef void (*gsvm_hks_violation_fn)(void *ctx, const char *path, uint64_t pc,
                                      const char *message);
typedef struct gsvm_hks_verify_result {
    uint64_t functions, instructions, violations;
    uint64_t flagged; /* instructions (code words) with at least one violation */
} gsvm_hks_verify_result;
gsvm_status gsvm_hks_verify(const gsvm_hks_chunk *c, gsvm_hks_hypothesis hyp,
                            gsvm_hks_violation_fn fn, void *ctx, gsvm_hks_verify_result *res,
                            gsvm_error *err);

/* ---- statistics ---- */
/* Rows of the opcode table across all profiles (the base table's 92, then
 * the profiles' extra opcodes); stats count per row so that chunks of
 * different profiles add up by name. */
#define GSVM_HKS_OP_ROWS 128
unsigned gsvm_hks_op_rows(void);
const char *gsvm_hks_op_row_name(unsigned row);
typedef struct gsvm_hks_stats {
    uint64_t files, functions, instructions, data_words, constants, structures;
    uint64_t op_count[GSVM_HKS_OP_ROWS]; /* per opcode table row */
    uint64_t unknown_ops;                /* words whose opcode the profile lacks */
} gsvm_hks_stats;
/* Adds one chunk's figures (zero-initialise `s` first). */
void gsvm_hks_stats_add(gsvm_hks_stats *s, const gsvm_hks_chunk *c);

/* ---- the SCRI payload: "SCRI" | u32 version 1 | u8 flag | u32 length | body ---- */
typedef struct gsvm_hks_scri {
    uint32_t version;
    uint8_t flag; /* 1 Lua source, 0 bytecode */
    const uint8_t *body;
    size_t body_len;
    size_t trailing; /* bytes after the body */
} gsvm_hks_scri;
gsvm_status gsvm_hks_scri_unpack(const uint8_t *data, size_t len, const char *file,
                                 gsvm_hks_scri *out, gsvm_error *err);
/* Builds a SCRI payload (little-endian fields) into a malloc'd buffer. */
gsvm_status gsvm_hks_scri_pack(uint8_t flag, const uint8_t *body, size_t body_len, uint8_t **out,
                               size_t *out_len, gsvm_error *err);

/* ---- the compiler: Lua 5.1 + HKS source to a chunk ---- */
typedef enum gsvm_hks_debug_level {
    GSVM_HKS_DEBUG_FULL = 0, /* lines, locals, upvalue names */
    GSVM_HKS_DEBUG_PROFILE,  /* only line defined, source and name */
    GSVM_HKS_DEBUG_NONE
} gsvm_hks_debug_level;

/* Call of Duty keeps no debug info in the chunk, only a 32-bit hash per
 * function of its source name followed by its name (djb2: h = h * 33 + c
 * from 5381, chars signed); Black Ops 2 hashes every second byte. */
typedef enum gsvm_hks_hash_form {
    GSVM_HKS_HASH_NONE = 0, /* debug info as --debug says */
    GSVM_HKS_HASH_T6,       /* Black Ops 2: every second byte */
    GSVM_HKS_HASH_T7        /* Black Ops 3 (PC): every byte */
} gsvm_hks_hash_form;

typedef struct gsvm_hks_compile_options {
    const char *chunkname;    /* source name kept in debug info ("@file.lua") */
    const char *file;         /* file name in error messages */
    bool big_endian;
    uint8_t size_size;        /* 4 or 8 */
    uint8_t number_size;      /* 4 (float32) or 8 (float64) */
    uint8_t format;           /* 13 or 14 */
    uint8_t build_flags;      /* header byte: 1 memoization, 2 structures, 8 float64 */
    gsvm_hks_profile profile; /* BASE, BO3 (bit operators) or GHOSTS (hdelete) */
    gsvm_hks_hash_form hash;  /* Call of Duty: one name hash per function, no debug info */
    gsvm_hks_debug_level debug;
    bool no_arg_table;        /* vararg functions get no Lua 5.0 `arg` local (Call of Duty) */
} gsvm_hks_compile_options;

/* Fills `o` with a target's settings: "sekiro", "sow", "ghosts", "doubles",
 * "bo2", "bo3"; false if the name is unknown.  chunkname/file stay NULL. */
bool gsvm_hks_compile_preset(const char *target, gsvm_hks_compile_options *o);
/* Compiles `len` bytes of source into a new chunk.  Errors carry the file,
 * line and column. */
gsvm_status gsvm_hks_compile(const char *source, size_t len, const gsvm_hks_compile_options *o,
                             gsvm_hks_chunk **out, gsvm_error *err);

/* ---- control flow ---- */
/* Finds a function by path ("0" the main function, "0/2" its third child). */
const gsvm_hks_proto *gsvm_hks_find_function(const gsvm_hks_chunk *c, const char *path);
/* Graphviz dot of one function's basic blocks (malloc'd text). */
gsvm_status gsvm_hks_cfg_dot(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, const char *path,
                             char **out, size_t *len, gsvm_error *err);

#ifdef __cplusplus
}
#endif
#endif
