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
 * Nothing here prints, exits or keeps global state.
 *
 * Threads: a chunk is only read by the functions that take it `const`
 * (list, dump, verify, stats, find_function, cfg_dot, decompile), so
 * several threads may use one chunk that way at once; loading, assembling,
 * compiling and unpacking build new objects and may run in parallel.  A VM
 * or world (with its reinstall cache, its natives and its loaded chunks)
 * belongs to one thread at a time; different VMs and worlds run in parallel,
 * nothing is shared between them.  Natives and the print/emit callbacks are
 * called on the thread running the VM. */
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

/* ---- decompiling ---- */
typedef struct gsvm_hks_decompile_options {
    const char *function; /* a path ("0/2") for one function, NULL the whole chunk */
    bool strict;          /* a function whose structure is not recovered is an error */
} gsvm_hks_decompile_options;
typedef struct gsvm_hks_decompile_result {
    uint64_t functions; /* decompiled */
    uint64_t fallbacks; /* of them printed as a loop over their blocks (or a stub) */
} gsvm_hks_decompile_result;
/* Lua 5.1 / HKS source of a chunk (or one function) as malloc'd text. */
gsvm_status gsvm_hks_decompile(const gsvm_hks_chunk *c, const gsvm_hks_decompile_options *opts,
                               char **out, size_t *len, gsvm_hks_decompile_result *res,
                               gsvm_error *err);
/* ---- the virtual machine ----
 *
 * A VM runs loaded chunks with Lua 5.1 semantics and HavokScript's opcodes
 * (every profile), in float64 or float32 arithmetic as the chunk's header
 * says.  Many VMs can live in one process; nothing is shared between them.
 * Scripts cannot escape the limits: a run that reaches the instruction or
 * memory limit ends with GSVM_ERR_LIMIT, a script error with
 * GSVM_ERR_FAULT; neither is ever the host's crash. */
typedef struct gsvm_hks_vm gsvm_hks_vm;

typedef struct gsvm_hks_limits {
    uint64_t max_memory;       /* bytes the VM may hold (0: 64 MiB) */
    uint64_t max_instructions; /* over the VM's life (0: unlimited) */
    uint32_t max_call_depth;   /* nested calls per thread (0: 200 000) */
    uint32_t max_string;       /* bytes of one string (0: 16 MiB) */
    uint32_t max_table;        /* array + hash entries of one table (0: 16 Mi) */
} gsvm_hks_limits;

typedef enum gsvm_hks_mode {
    GSVM_HKS_MODE_0 = 0, /* the game's main loop: a chunk must verify to load */
    GSVM_HKS_MODE_2 = 2  /* checked: every fetch inside the code ("VM Kernel error") */
} gsvm_hks_mode;

/* What a C native receives and returns.  Strings point into the VM (valid
 * during the call); a table or function argument is only its type. */
typedef enum gsvm_hks_vtype {
    GSVM_HKS_V_NIL, GSVM_HKS_V_BOOL, GSVM_HKS_V_NUMBER, GSVM_HKS_V_STRING,
    GSVM_HKS_V_TABLE, GSVM_HKS_V_FUNCTION, GSVM_HKS_V_OTHER
} gsvm_hks_vtype;
typedef struct gsvm_hks_value {
    gsvm_hks_vtype type;
    bool b;
    double n;
    const char *s; /* STRING */
    size_t len;
} gsvm_hks_value;

/* A native: reads args, writes up to `max_results` results and sets
 * *nresults.  Returning non-OK faults the calling script with `err`'s
 * message (the script's error, not the host's). */
typedef gsvm_status (*gsvm_hks_native_fn)(void *ctx, gsvm_hks_vm *vm, const gsvm_hks_value *args,
                                          int nargs, gsvm_hks_value *results, int max_results,
                                          int *nresults, gsvm_error *err);
typedef struct gsvm_hks_native {
    const char *name; /* a global ("Foo") or a field of a global table ("NPC.SetAlignment") */
    gsvm_hks_native_fn fn;
    void *ctx;
} gsvm_hks_native;

typedef struct gsvm_hks_vm_options {
    gsvm_hks_limits limits;
    gsvm_hks_mode mode;
    bool float32;                   /* number size: set from the chunk by gsvm_hks_vm_load too */
    const gsvm_hks_native *natives; /* registered as globals before any chunk runs */
    size_t nnatives;
    uint64_t seed;                  /* math.random's seed */
} gsvm_hks_vm_options;

/* print(): the strings of one call, already converted as tostring does. */
typedef void (*gsvm_hks_print_fn)(void *ctx, const char *const *parts, const size_t *lens, int n);

gsvm_status gsvm_hks_vm_new(const gsvm_hks_vm_options *opts, gsvm_hks_vm **out, gsvm_error *err);
void gsvm_hks_vm_free(gsvm_hks_vm *vm);
void gsvm_hks_vm_set_print(gsvm_hks_vm *vm, gsvm_hks_print_fn fn, void *ctx);
gsvm_status gsvm_hks_vm_add_native(gsvm_hks_vm *vm, const gsvm_hks_native *n, gsvm_error *err);

/* Loads a chunk; the VM takes ownership of `c` (also on failure).  The
 * chunk's main function is then ready to run.  A float32 chunk switches a
 * fresh VM to float32 numbers; mixing number sizes in one VM is refused.
 * In mode 0 the chunk must pass gsvm_hks_verify (what mode 2 checks at run
 * time, proved before), else it is rejected naming the first violation. */
gsvm_status gsvm_hks_vm_load(gsvm_hks_vm *vm, gsvm_hks_chunk *c, gsvm_error *err);

/* Runs the loaded main function for at most `budget` instructions (0: no
 * slice).  GSVM_OK with *done false means the slice ended (Yielded); the
 * next call resumes exactly where it stopped.  *done true: it returned. */
gsvm_status gsvm_hks_vm_run(gsvm_hks_vm *vm, uint64_t budget, bool *done, gsvm_error *err);

/* Ends the script's life as lua_close does: the __gc finalizer of every
 * userdata (newproxy) still alive runs, newest first; an error in one is
 * dropped, a limit ends them with a fault.  Only gsvm_hks_vm_free may
 * follow (`gsvm hks run` calls it after the main function returned). */
gsvm_status gsvm_hks_vm_close(gsvm_hks_vm *vm, gsvm_error *err);

/* Calls a global function (dotted names reach into tables) to completion
 * within the limits; up to max_results results (strings copied into the
 * VM's scratch, valid until the next call). */
gsvm_status gsvm_hks_vm_call(gsvm_hks_vm *vm, const char *name, const gsvm_hks_value *args,
                             int nargs, gsvm_hks_value *results, int max_results, int *nresults,
                             gsvm_error *err);

/* Instructions executed so far. */
uint64_t gsvm_hks_vm_steps(const gsvm_hks_vm *vm);

/* The last fault: message, the function ("0/2 name"), its pc and source
 * line (-1 when the chunk has no line info). */
typedef struct gsvm_hks_fault {
    char message[512];
    char function[128];
    char source[128];
    long pc, line;
} gsvm_hks_fault;
bool gsvm_hks_vm_fault(const gsvm_hks_vm *vm, gsvm_hks_fault *out);

/* ---- the world-layer runtime ----
 *
 * A layer script run as the game runs it: installed once per script id
 * (the reinstall cache), StartupCommands (*.SC objects) started as script
 * threads, ScriptBind events dispatched with the running-script stack,
 * LithThreadSleep on simulated time, DB<Kind>.Name records found by name
 * hash and binary search, natives from a declarations file (docs/natives.md)
 * with argument-shape checks.  Every host call and runtime step is one JSON
 * line given to `emit`.  The world file and the timeline are in docs/hks.md. */
typedef struct gsvm_hks_world gsvm_hks_world;
typedef void (*gsvm_hks_world_emit_fn)(void *ctx, const char *json_line);

/* natives_text may be NULL (no natives). */
gsvm_status gsvm_hks_world_new(const char *world_text, size_t world_len, const char *world_file,
                               const char *natives_text, size_t natives_len,
                               const char *natives_file, const gsvm_hks_vm_options *vm_options,
                               gsvm_hks_world_emit_fn emit, void *ctx, gsvm_hks_world **out,
                               gsvm_error *err);
void gsvm_hks_world_free(gsvm_hks_world *w);
gsvm_hks_vm *gsvm_hks_world_vm(gsvm_hks_world *w);
/* True when a layer is installed under this script id (a reinstall of it
 * reuses the loaded function: the chunk may then be NULL). */
bool gsvm_hks_world_cached(const gsvm_hks_world *w, uint32_t script_id);
/* Installs the layer's chunk (taking ownership) and runs its main function;
 * a second install of the same script id reuses the cached one. */
gsvm_status gsvm_hks_world_install(gsvm_hks_world *w, gsvm_hks_chunk *c, uint32_t script_id,
                                   gsvm_error *err);
/* Starts every StartupCommands thread (each runs to its first sleep). */
gsvm_status gsvm_hks_world_start(gsvm_hks_world *w, gsvm_error *err);
/* Advances simulated time, waking sleepers in deadline order (none when paused). */
gsvm_status gsvm_hks_world_advance(gsvm_hks_world *w, uint64_t ms, gsvm_error *err);
void gsvm_hks_world_pause(gsvm_hks_world *w, bool paused);
/* Dispatches an event (object NULL: every bound object) to its ScriptBind
 * functions; `args` is a JSON array (jansson's json_t *, may be NULL). */
struct json_t;
gsvm_status gsvm_hks_world_event(gsvm_hks_world *w, const char *object, const char *event,
                                 struct json_t *args, gsvm_error *err);
/* Queues the value the next call of `native` answers with. */
gsvm_status gsvm_hks_world_answer(gsvm_hks_world *w, const char *native, struct json_t *value,
                                  gsvm_error *err);
/* Faults so far (threads and handlers that failed). */
int gsvm_hks_world_faults(const gsvm_hks_world *w);

#ifdef __cplusplus
}
#endif
#endif
