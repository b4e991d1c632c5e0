/* gsvm lsl — the Falcon VM: LSL compiled to fixed-width p-code, run in
 * instruction budgets, snapshotted to bytes after any instruction and resumed
 * in a fresh VM elsewhere.
 *
 * Two ABIs: ABI 2 exactly as the Falcon VM document states it (one `default`
 * state, persistent globals, `integer` and `string`, the 18 opcodes, events
 * `state_entry` and `touch_start(integer)`, host functions `llOwnerSay` and
 * `llSay`, the `HWZS` version-2 snapshot), and ABI 3, the whole language.
 * The ABI is a property of the compiled program: one program type, one VM
 * type and one set of calls serve both (gsvm_lsl_program_abi tells which).
 *
 * Typical embedding (either ABI):
 *
 *     gsvm_lsl_compile_opts o = {0};                   // abi 0: 2 if it fits, else 3
 *     gsvm_lsl_program *prog;
 *     gsvm_lsl_compile_with(src, len, "door.lsl", &o, &prog, &err);
 *     gsvm_lsl_vm *vm;
 *     gsvm_lsl_vm_new(prog, &vm, &err);
 *     gsvm_lsl_program_release(prog);                  // the VM holds its own reference
 *     gsvm_lsl_vm_set_hosts(vm, my_hosts, my_data);    // typed host functions, below
 *     gsvm_lsl_vm_start(vm, &err);                     // state_entry runs first
 *     gsvm_lsl_vm_post(vm, "touch_start", args, &queued, &err);
 *     while (gsvm_lsl_vm_run(vm, 1024) == GSVM_LSL_YIELDED)
 *         ;   // a real region does other work between slices
 *     gsvm_lsl_vm_advance(vm, 1000);                   // simulation time
 *
 * The document's own calls (gsvm_lsl_compile, gsvm_lsl_vm_dispatch, ...)
 * are ABI-2 calls; gsvm_lsl3_* are the ABI-3 engine's, reached from a
 * handle of the one API with gsvm_lsl_program_abi3 / gsvm_lsl_vm_abi3.
 *
 * Threads: nothing here has global state.  A program (ABI 2 or 3) is
 * immutable once built and may be shared by many VMs in many threads at
 * once; each VM is one script's live state and belongs to one thread at a
 * time (the host callback runs on that thread).  The compile cache may be
 * used by several threads and processes at once: an entry is written to a
 * file of its own and renamed into place, and a reader verifies every entry
 * (a bad one is recompiled). */
#ifndef GSVM_LSL_H
#define GSVM_LSL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSVM_LSL_COMPILER_VERSION 2
#define GSVM_LSL_ABI_VERSION 2
#define GSVM_LSL_SNAPSHOT_VERSION 2

/* Runtime value types.  The numbers are the snapshot's value tags; VOID is a
 * compile-time type only (a host call that returns nothing). */
typedef enum gsvm_lsl_type {
    GSVM_LSL_VOID = 0,
    GSVM_LSL_INTEGER = 1,
    GSVM_LSL_STRING = 2
} gsvm_lsl_type;

/* A value as the host sees it.  For strings, `str` points at `len` bytes
 * (not necessarily NUL-terminated) owned by whoever produced the value. */
typedef struct gsvm_lsl_hostval {
    gsvm_lsl_type type;
    int32_t integer;
    const char *str;
    size_t len;
} gsvm_lsl_hostval;

/* A program or a VM of either ABI. */
typedef struct gsvm_lsl_program gsvm_lsl_program;
typedef struct gsvm_lsl_vm gsvm_lsl_vm;
typedef struct gsvm_lsl3_program gsvm_lsl3_program;
typedef struct gsvm_lsl3_vm gsvm_lsl3_vm;

/* ---- programs ---------------------------------------------------------- */

/* How gsvm_lsl_compile_with compiles (a zeroed struct, or NULL, is the
 * default). */
typedef struct gsvm_lsl_compile_opts {
    int abi;               /* 0: ABI 2 when the script fits its slice, else ABI 3 (whose
                            * diagnostic a script neither takes is given); 2 or 3: that one */
    const char *cache_dir; /* the compile cache (gsvm_lsl_compile_cached), NULL: none */
    bool *cache_hit;       /* told whether the cache answered (may be NULL) */
    char *why;             /* abi 0 that took ABI 3: why not ABI 2 ("LINE:COL: message", */
    size_t why_size;       /* at most why_size bytes); "" when ABI 2 was taken (may be NULL) */
} gsvm_lsl_compile_opts;
/* Compiles LSL source to a program of the ABI `opts` asks for.  `file`
 * names the source in diagnostics, which are "FILE:LINE:COL: error:
 * MESSAGE" with 1-based line and column. */
gsvm_status gsvm_lsl_compile_with(const char *source, size_t len, const char *file,
                                  const gsvm_lsl_compile_opts *opts, gsvm_lsl_program **out,
                                  gsvm_error *err);
/* gsvm_lsl_compile_with for ABI 2 only, without the cache. */
gsvm_status gsvm_lsl_compile(const char *source, size_t len, const char *file,
                             gsvm_lsl_program **out, gsvm_error *err);
/* The program's ABI: 2 or 3. */
int gsvm_lsl_program_abi(const gsvm_lsl_program *prog);
/* Programs of either ABI are reference-counted (atomically: VMs of one
 * program may run on several threads): compile/load give one reference,
 * every VM made from the program holds one, release drops one (the last
 * frees the program).  So a host may release its program as soon as its
 * VMs exist.  retain returns `prog`; free is release. */
const gsvm_lsl_program *gsvm_lsl_program_retain(const gsvm_lsl_program *prog);
void gsvm_lsl_program_release(gsvm_lsl_program *prog);
void gsvm_lsl_program_free(gsvm_lsl_program *prog);
/* The same program as the ABI-3 engine's type (NULL unless ABI 3), and
 * back (an ABI-3 program is a program of the one API as it is). */
gsvm_lsl3_program *gsvm_lsl_program_abi3(gsvm_lsl_program *prog);
gsvm_lsl_program *gsvm_lsl_program_of3(gsvm_lsl3_program *prog);

/* The serialized program: an ABI-2 .fpc (magic HWZP, format 2 carrying the
 * line table, docs/lsl.md) or an ABI-3 file (magic HWZ3); load takes either,
 * by its magic.  save hands the caller a malloc'd buffer; load checks every
 * byte and rejects bad input with its byte offset. */
gsvm_status gsvm_lsl_program_save(const gsvm_lsl_program *prog, uint8_t **out, size_t *len,
                                  gsvm_error *err);
gsvm_status gsvm_lsl_program_load(const uint8_t *data, size_t len, const char *file,
                                  gsvm_lsl_program **out, gsvm_error *err);
/* Proves statically that no fault of the document can happen (a failing host
 * and the string size limit remain run-time matters): every path of
 * every handler keeps the stack depth consistent, types every operand, stays
 * inside the code and the tables, calls only ABI-2 host functions with their
 * argument types, keeps each global's type and ends in Halt.  The compiler's
 * output always verifies; the VM checks everything at run time regardless.
 * The message names the handler and the ip.  (An ABI-3 program is verified
 * as it is built or loaded: GSVM_OK.) */
gsvm_status gsvm_lsl_program_verify(const gsvm_lsl_program *prog, gsvm_error *err);
/* True when `data` starts with the ABI-2 .fpc magic (gsvm_lsl3_is_program_file: ABI 3's). */
bool gsvm_lsl_is_program_file(const uint8_t *data, size_t len);

/* The source line:column (1-based) of the instruction at `ip`, from the
 * line table a compiled program keeps (and its program file: an ABI-2 .fpc
 * of format 1, or a hand-built program, has none); false (0:0) when
 * unknown. */
bool gsvm_lsl_program_line(const gsvm_lsl_program *prog, uint64_t ip, uint32_t *line, uint32_t *col);
/* A human-readable listing (NUL-terminated, malloc'd; the caller frees it). */
gsvm_status gsvm_lsl_program_list(const gsvm_lsl_program *prog, char **out, gsvm_error *err);
/* The instruction set as a Markdown table, expanded from isa.def (malloc'd). */
gsvm_status gsvm_lsl_isa_table(char **out, gsvm_error *err);

size_t gsvm_lsl_program_code_size(const gsvm_lsl_program *prog);
size_t gsvm_lsl_program_global_count(const gsvm_lsl_program *prog);
bool gsvm_lsl_program_has_event(const gsvm_lsl_program *prog, const char *event);

/* Compiles with a content-addressed cache: the key is the SHA-256 of the
 * source plus the compiler and ABI versions, the entry DIR/lsl/XX/REST.fpc.
 * `dir` NULL means no cache.  A missing, unreadable or corrupt entry is
 * recompiled and rewritten; failing to write the cache is not an error.
 * `*hit` (may be NULL) tells whether the cache answered. */
gsvm_status gsvm_lsl_compile_cached(const char *source, size_t len, const char *file,
                                    const char *dir, gsvm_lsl_program **out, bool *hit,
                                    gsvm_error *err);
/* The default cache directory: $XDG_CACHE_HOME/gsvm, else $HOME/.cache/gsvm,
 * else NULL.  Writes into `buf`. */
const char *gsvm_lsl_default_cache_dir(char *buf, size_t size);

/* ---- the VM -------------------------------------------------------------- */

typedef enum gsvm_lsl_run_status {
    GSVM_LSL_FINISHED = 0, /* reached Halt (or nothing was dispatched) */
    GSVM_LSL_YIELDED,      /* spent its budget with work remaining */
    GSVM_LSL_ERROR,        /* a runtime fault stopped the script */
    GSVM_LSL_SLEEPING      /* ABI 3: waiting for simulation time (llSleep, a forced delay) */
} gsvm_lsl_run_status;

/* The host boundary: one callback for every host function.  `args` are in
 * source order and valid only during the call.  To return a value, fill
 * `*result` and set `*has_result`; a string result is copied by the VM
 * before the callback's memory may go away.  Returning anything but GSVM_OK
 * faults the script with err->message. */
typedef gsvm_status (*gsvm_lsl_host_fn)(void *user, const char *name,
                                        const gsvm_lsl_hostval *args, size_t argc,
                                        gsvm_lsl_hostval *result, bool *has_result,
                                        gsvm_error *err);

/* A host's allocator: `ptr` NULL allocates `size` bytes, `size` 0 frees
 * `ptr` (returning NULL), otherwise resizes; NULL when out of memory (the
 * VM then fails as on malloc failure: GSVM_ERR_NOMEM or an "out of memory"
 * fault).  Called from the thread running the VM. */
typedef void *(*gsvm_lsl_realloc_fn)(void *user, void *ptr, size_t size);

/* A fresh VM of the program's ABI: globals seeded from the program's
 * defaults, nothing dispatched or queued (so run() reports Finished).  The
 * VM holds a reference to the program. */
gsvm_status gsvm_lsl_vm_new(const gsvm_lsl_program *prog, gsvm_lsl_vm **out, gsvm_error *err);
/* gsvm_lsl_vm_new with every byte the VM holds through `fn` (NULL: the C
 * library): the VM itself, its stack, locals, globals, its copy of the
 * constants, every string and the host call's argument array.  (The
 * shared program, and a snapshot's blob, which the caller frees, are the
 * C library's.) */
gsvm_status gsvm_lsl_vm_new_alloc(const gsvm_lsl_program *prog, gsvm_lsl_realloc_fn fn, void *user,
                                  gsvm_lsl_vm **out, gsvm_error *err);
void gsvm_lsl_vm_free(gsvm_lsl_vm *vm);
/* ABI 2's untyped host callback (an ABI-3 VM ignores it: its untyped host
 * is JSON, gsvm_lsl3_vm_set_host; gsvm_lsl_vm_set_hosts serves both). */
void gsvm_lsl_vm_set_host(gsvm_lsl_vm *vm, gsvm_lsl_host_fn fn, void *user);

/* The document's dispatch (ABI 2 only: GSVM_ERR_USAGE on an ABI-3 VM).
 * Starts a handler at once, bypassing the queue of gsvm_lsl_vm_post: looks it up (an unknown event is rejected), checks the
 * argument count and types, sizes the locals and seeds the parameters,
 * clears the operand stack and points ip at the handler.  Globals persist. */
gsvm_status gsvm_lsl_vm_dispatch(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_hostval *args,
                                 size_t argc, gsvm_error *err);

/* Executes exactly one instruction / at most `budget` instructions, either
 * ABI: FINISHED when idle (the handler reached Halt and nothing is queued),
 * YIELDED with work left, SLEEPING (ABI 3) when waiting for time, ERROR on
 * a fault.  An ABI-2 VM with queued events (gsvm_lsl_vm_post) dispatches
 * the next whenever its handler halts; with none queued this is exactly
 * the document's run(). */
gsvm_lsl_run_status gsvm_lsl_vm_step(gsvm_lsl_vm *vm);
gsvm_lsl_run_status gsvm_lsl_vm_run(gsvm_lsl_vm *vm, uint64_t budget);

/* No handler runs (ABI 3: and nothing is queued). */
bool gsvm_lsl_vm_finished(const gsvm_lsl_vm *vm);
uint64_t gsvm_lsl_vm_ip(const gsvm_lsl_vm *vm);
/* Instructions executed since the VM was created (carried by snapshots). */
uint64_t gsvm_lsl_vm_total(const gsvm_lsl_vm *vm);
/* The last fault's message (NULL when the script has not faulted) and the ip
 * of the instruction that raised it. */
const char *gsvm_lsl_vm_fault(const gsvm_lsl_vm *vm);
uint64_t gsvm_lsl_vm_fault_ip(const gsvm_lsl_vm *vm);
/* The source line:column of the last fault (false, 0:0, when none or the
 * program has no line table). */
bool gsvm_lsl_vm_fault_line(const gsvm_lsl_vm *vm, uint32_t *line, uint32_t *col);
/* Reads an ABI-2 global (false on ABI 3: gsvm_lsl_vm_global_named); a
 * string stays valid until the VM next runs. */
bool gsvm_lsl_vm_global(const gsvm_lsl_vm *vm, size_t slot, gsvm_lsl_hostval *out);

/* True while the VM is inside its own host callback.  From there run() and
 * step() are refused (GSVM_LSL_ERROR without running; the script is not
 * faulted and goes on when the callback returns), and so are dispatch and
 * restore (GSVM_ERR_USAGE); a snapshot taken there is of the state after
 * the call, so a restored VM does not make the call again. */
bool gsvm_lsl_vm_in_host_call(const gsvm_lsl_vm *vm);

/* The snapshot, a malloc'd blob: ABI 2's is the document's HWZS version 2
 * (layout in docs/lsl.md), which holds the running handler but no queue
 * and no clock, so it is refused (GSVM_ERR_USAGE) while events wait in the
 * queue of gsvm_lsl_vm_post; ABI 3's is gsvm_lsl3_vm_snapshot's. */
gsvm_status gsvm_lsl_vm_snapshot(const gsvm_lsl_vm *vm, uint8_t **out, size_t *len,
                                 gsvm_error *err);
/* Restores a snapshot into `vm`.  Checks magic, version, ABI, the globals
 * count, every value and that nothing is missing or left over; on any error
 * the VM is left exactly as it was (never half-restored).  An ABI-2 VM's
 * queue and clock are left as they were. */
gsvm_status gsvm_lsl_vm_restore(gsvm_lsl_vm *vm, const uint8_t *data, size_t len,
                                const char *file, gsvm_error *err);

/* ==== ABI 3: the whole language ==========================================
 *
 * A second compiler, program format and VM beside ABI 2 (which keeps
 * running exactly as before).  Every LSL type, operator, statement, user
 * functions, states, all 43 events, the builtin library (natively or across
 * the host boundary), simulation time (timers, sleeps, forced delays),
 * listens, a 64 KiB memory limit and a complete snapshot.  Values cross the
 * host boundary as JSON (jansson): integer and float numbers, string and key
 * strings, {"vector":[x,y,z]}, {"rotation":[x,y,z,s]}, lists as arrays.
 *
 *     gsvm_lsl3_compile(src, len, "door.lsl", &prog, &err);
 *     gsvm_lsl3_vm_new(prog, &vm, &err);
 *     gsvm_lsl3_vm_set_host(vm, my_host, my_data);
 *     gsvm_lsl3_vm_start(vm, &err);                 // state_entry runs first
 *     while (gsvm_lsl3_vm_run(vm, 1024) == GSVM_LSL_YIELDED) ;
 *     gsvm_lsl3_vm_post(vm, "touch_start", args, &queued, &err);
 *     gsvm_lsl3_vm_advance(vm, 1000);               // timers fire, sleeps end
 */
#define GSVM_LSL3_ABI_VERSION 3
/* Bumped whenever compiler3*.c's output for some source changes: it is part
 * of the cache key (gsvm_lsl3_compile_cached). */
#define GSVM_LSL3_COMPILER_VERSION 10
#define GSVM_LSL3_SNAPSHOT_VERSION 4

struct json_t;

/* Compiles the whole language; diagnostics as gsvm_lsl_compile's. */
gsvm_status gsvm_lsl3_compile(const char *source, size_t len, const char *file,
                              gsvm_lsl3_program **out, gsvm_error *err);
/* gsvm_lsl3_compile through the same cache as gsvm_lsl_compile_cached: key
 * SHA-256 of the source + GSVM_LSL3_COMPILER_VERSION + ABI 3, entry
 * DIR/lsl/XX/REST.fp3 (an ABI-3 program file, fully verified on load). */
gsvm_status gsvm_lsl3_compile_cached(const char *source, size_t len, const char *file,
                                     const char *dir, gsvm_lsl3_program **out, bool *hit,
                                     gsvm_error *err);
/* Programs are reference-counted (atomically: VMs of one program may run on
 * several threads): compile/load give one reference, every VM made from
 * the program holds one, and free drops one (the last frees it).  So a host
 * may free its program as soon as its VMs exist; one loaded program serves
 * every script running it.  retain returns `prog`. */
const gsvm_lsl3_program *gsvm_lsl3_program_retain(const gsvm_lsl3_program *prog);
void gsvm_lsl3_program_free(gsvm_lsl3_program *prog);
/* The ABI-3 program file (magic "HWZ3"); load validates every field. */
gsvm_status gsvm_lsl3_program_save(const gsvm_lsl3_program *prog, uint8_t **out, size_t *len,
                                   gsvm_error *err);
gsvm_status gsvm_lsl3_program_load(const uint8_t *data, size_t len, const char *file,
                                   gsvm_lsl3_program **out, gsvm_error *err);
bool gsvm_lsl3_is_program_file(const uint8_t *data, size_t len);
gsvm_status gsvm_lsl3_program_list(const gsvm_lsl3_program *prog, char **out, gsvm_error *err);
gsvm_status gsvm_lsl3_isa_table(char **out, gsvm_error *err);
size_t gsvm_lsl3_program_code_size(const gsvm_lsl3_program *prog);
/* Does any state handle `event`? */
bool gsvm_lsl3_program_has_event(const gsvm_lsl3_program *prog, const char *event);
/* The source line:column (1-based) of the instruction at `ip`, from the
 * program's line table (kept in its file); false (0:0) when unknown. */
bool gsvm_lsl3_program_line(const gsvm_lsl3_program *prog, uint64_t ip, uint32_t *line, uint32_t *col);
/* The program's identity: SHA-256 of its file form (32 bytes). */
const uint8_t *gsvm_lsl3_program_hash(const gsvm_lsl3_program *prog);

/* The host boundary for every builtin the library does not implement and
 * the VM does not service: `args` is a JSON array (borrowed).  Set *result
 * to a new JSON value of the function's return type, or leave it NULL for
 * the type-correct default (0, 0.0, "", ZERO_VECTOR, ...).  Anything but
 * GSVM_OK faults the script with err->message. */
typedef gsvm_status (*gsvm_lsl3_host_fn)(void *user, const char *name, const struct json_t *args,
                                         struct json_t **result, gsvm_error *err);

gsvm_status gsvm_lsl3_vm_new(const gsvm_lsl3_program *prog, gsvm_lsl3_vm **out, gsvm_error *err);
/* gsvm_lsl3_vm_new with everything the VM keeps through `fn` (NULL: the C
 * library): the VM itself, its globals, constants, stack, frames, event
 * queue, listens and every string and list object of the script.  (Scratch
 * buffers a builtin frees before it returns, and the shared program, are
 * the C library's.) */
gsvm_status gsvm_lsl3_vm_new_alloc(const gsvm_lsl3_program *prog, gsvm_lsl_realloc_fn fn, void *user,
                                   gsvm_lsl3_vm **out, gsvm_error *err);
void gsvm_lsl3_vm_free(gsvm_lsl3_vm *vm);
void gsvm_lsl3_vm_set_host(gsvm_lsl3_vm *vm, gsvm_lsl3_host_fn fn, void *user);
/* Makes state_entry of the default state the first thing run() does (a
 * fresh script's start; state_entry jumps the queue and is never queued). */
gsvm_status gsvm_lsl3_vm_start(gsvm_lsl3_vm *vm, gsvm_error *err);
/* Queues an event with JSON arguments checked against its signature
 * (GSVM_ERR_INPUT naming the problem).  *queued is false when the event
 * was dropped as Second Life drops it: a full queue (64), no handler in the
 * current state, a listen no active llListen filter matches, or
 * state_entry/state_exit (only the VM runs those, around state changes).
 * The queue, timer, sleep and listens are src/lsl/sched.h's. */
gsvm_status gsvm_lsl3_vm_post(gsvm_lsl3_vm *vm, const char *event, const struct json_t *args,
                              bool *queued, gsvm_error *err);
/* Runs at most `budget` instructions: FINISHED when idle (nothing queued),
 * SLEEPING when waiting for time, YIELDED with work left, ERROR on a fault. */
gsvm_lsl_run_status gsvm_lsl3_vm_run(gsvm_lsl3_vm *vm, uint64_t budget);
/* Advances simulation time by at most `ms`, stopping early at the next
 * timer deadline (whose timer event it queues); returns the ms advanced.
 * Call it again (after running) until the whole span has passed. */
uint64_t gsvm_lsl3_vm_advance(gsvm_lsl3_vm *vm, uint64_t ms);
uint64_t gsvm_lsl3_vm_now_ms(const gsvm_lsl3_vm *vm);
/* When the script sleeps (llSleep, a forced delay): the simulation time it wakes at; else 0. */
uint64_t gsvm_lsl3_vm_wake_ms(const gsvm_lsl3_vm *vm);
uint64_t gsvm_lsl3_vm_total(const gsvm_lsl3_vm *vm);
const char *gsvm_lsl3_vm_fault(const gsvm_lsl3_vm *vm);
uint64_t gsvm_lsl3_vm_fault_ip(const gsvm_lsl3_vm *vm);
/* The source line:column of the last fault (false, 0:0, when none or unknown). */
bool gsvm_lsl3_vm_fault_line(const gsvm_lsl3_vm *vm, uint32_t *line, uint32_t *col);
/* True while the VM is inside its own host callback: run() is refused
 * (GSVM_LSL_ERROR without running, the script not faulted), restore is
 * refused (GSVM_ERR_USAGE), and a snapshot is of the state after the call
 * (so a restored VM does not call again) when the function returns nothing
 * and forces no delay, else refused naming the function. */
bool gsvm_lsl3_vm_in_host_call(const gsvm_lsl3_vm *vm);
/* Memory accounting as llGetUsedMemory reports it, and the limit. */
size_t gsvm_lsl3_vm_used_memory(const gsvm_lsl3_vm *vm);
/* A global as JSON (new reference), NULL when out of range. */
struct json_t *gsvm_lsl3_vm_global(const gsvm_lsl3_vm *vm, size_t slot);

/* Fair slicing of many scripts: one tick gives each VM that has work the
 * same `budget`; statuses (may be NULL) receive each VM's result.  Returns
 * how many VMs still have work (YIELDED). */
size_t gsvm_lsl3_tick(gsvm_lsl3_vm **vms, size_t n, uint64_t budget, gsvm_lsl_run_status *statuses);

/* The ABI-3 snapshot ("HWZS" version 3): everything needed to continue
 * elsewhere.  Restore rejects another program (by hash) or any bad field
 * and leaves the VM untouched on error. */
gsvm_status gsvm_lsl3_vm_snapshot(const gsvm_lsl3_vm *vm, uint8_t **out, size_t *len,
                                  gsvm_error *err);
gsvm_status gsvm_lsl3_vm_restore(gsvm_lsl3_vm *vm, const uint8_t *data, size_t len,
                                 const char *file, gsvm_error *err);
/* The ABI of a snapshot blob (2 or 3), 0 when it is not one. */
int gsvm_lsl_snapshot_abi(const uint8_t *data, size_t len);

/* ---- ABI 3: what a host running many scripts reads of each one ----------
 * (src/lsl/vm3_inspect.c; all read-only, valid until the VM next runs) */

/* The event whose handler is running or ran last (its name, NULL before the
 * first) and the host tag its queue entry carried (0 if none, see
 * gsvm_lsl3_vm_post_tagged): how a host answers llDetected* for the event
 * actually being handled when several wait in the queue. */
const char *gsvm_lsl3_vm_current_event(const gsvm_lsl3_vm *vm, uint32_t *tag);
/* gsvm_lsl3_vm_post with a host tag (nonzero) on the queued entry. */
gsvm_status gsvm_lsl3_vm_post_tagged(gsvm_lsl3_vm *vm, const char *event, const struct json_t *args,
                                     uint32_t tag, bool *queued, gsvm_error *err);
/* Events waiting in the queue. */
size_t gsvm_lsl3_vm_queue_length(const gsvm_lsl3_vm *vm);
/* The next time (simulation ms) something happens by itself: a timer due or
 * the end of a sleep; false when nothing is pending. */
bool gsvm_lsl3_vm_next_deadline(const gsvm_lsl3_vm *vm, uint64_t *at_ms);
/* The current state's name ("default", ...). */
const char *gsvm_lsl3_vm_state(const gsvm_lsl3_vm *vm);
/* The open listens, in creation order.  name/key/msg are "" for no filter. */
typedef struct gsvm_lsl3_listen_info {
    int32_t handle, channel;
    bool active;
    const char *name, *key, *msg;
} gsvm_lsl3_listen_info;
size_t gsvm_lsl3_vm_listen_count(const gsvm_lsl3_vm *vm);
bool gsvm_lsl3_vm_listen(const gsvm_lsl3_vm *vm, size_t i, gsvm_lsl3_listen_info *out);
/* A global by its source name as JSON (new reference), NULL if none. */
struct json_t *gsvm_lsl3_vm_global_by_name(const gsvm_lsl3_vm *vm, const char *name);

/* ==== The one API: running and reading a VM of either ABI =================
 *
 * Each call does for an ABI-3 VM what its gsvm_lsl3_vm_* namesake above
 * documents, and the same for an ABI-2 VM, which the one API gives an
 * event queue (Second Life's rules, as ABI 3's: 64 at most, FIFO,
 * state_entry first, an event without a handler dropped) and a clock.
 * ABI 2 has one state, no timers, sleeps or listens: the readers say so. */
typedef gsvm_lsl3_listen_info gsvm_lsl_listen_info;

int gsvm_lsl_vm_abi(const gsvm_lsl_vm *vm);
/* The same VM as the ABI-3 engine's type (NULL unless ABI 3). */
gsvm_lsl3_vm *gsvm_lsl_vm_abi3(gsvm_lsl_vm *vm);
/* state_entry (when the script has one) becomes the first thing run() does. */
gsvm_status gsvm_lsl_vm_start(gsvm_lsl_vm *vm, gsvm_error *err);
/* Queues an event with JSON arguments (an array, or NULL for none) checked
 * against the handler; *queued false when dropped.  ABI 2 takes integers
 * and strings. */
gsvm_status gsvm_lsl_vm_post(gsvm_lsl_vm *vm, const char *event, const struct json_t *args,
                             bool *queued, gsvm_error *err);
gsvm_status gsvm_lsl_vm_post_tagged(gsvm_lsl_vm *vm, const char *event, const struct json_t *args,
                                    uint32_t tag, bool *queued, gsvm_error *err);
/* Simulation time: advance returns the ms advanced (ABI 2: all of `ms`). */
uint64_t gsvm_lsl_vm_advance(gsvm_lsl_vm *vm, uint64_t ms);
uint64_t gsvm_lsl_vm_now_ms(const gsvm_lsl_vm *vm);
/* The event running or run last and its tag (ABI 2, after a restore: the
 * handler whose code holds the ip, tag 0). */
const char *gsvm_lsl_vm_current_event(const gsvm_lsl_vm *vm, uint32_t *tag);
size_t gsvm_lsl_vm_queue_length(const gsvm_lsl_vm *vm);
bool gsvm_lsl_vm_next_deadline(const gsvm_lsl_vm *vm, uint64_t *at_ms);
const char *gsvm_lsl_vm_state(const gsvm_lsl_vm *vm);
size_t gsvm_lsl_vm_listen_count(const gsvm_lsl_vm *vm);
bool gsvm_lsl_vm_listen(const gsvm_lsl_vm *vm, size_t i, gsvm_lsl_listen_info *out);
/* A global by its source name as JSON (new reference), NULL if none. */
struct json_t *gsvm_lsl_vm_global_named(const gsvm_lsl_vm *vm, const char *name);

/* ==== Typed host functions (both ABIs) =====================================
 *
 * A host registers each function it answers by name, as a C callback that
 * reads its arguments and sets its result through typed accessors: no JSON
 * and no name comparison on the call path (src/lsl/hostcall.c).  One table
 * serves any number of VMs of either ABI; a function the table lacks goes
 * to the VM's untyped host callback if it has one (set_host), else gets the
 * type-correct default (ABI 3) or faults as a missing host (ABI 2).
 *
 *     gsvm_lsl_hosts *h;
 *     gsvm_lsl_hosts_new(&h, &err);
 *     gsvm_lsl_hosts_add(h, "llOwnerSay", my_owner_say, NULL, &err);
 *     gsvm_lsl_vm_set_hosts(vm, h, script_data);      // a script of either ABI
 *     gsvm_lsl3_vm_set_hosts(vm3, h, script_data);    // the same, on the ABI-3 type
 *
 * In a callback: gsvm_lsl_call_argc / gsvm_lsl_arg give the arguments,
 * gsvm_lsl_return_* the result; a result of the wrong type, a second
 * result, or a non-OK status faults the script naming the function. */

/* Value types as LSL numbers them (TYPE_INTEGER ... ; list = 7). */
typedef enum gsvm_lsl_vtype {
    GSVM_LSL_T_VOID = 0,
    GSVM_LSL_T_INTEGER = 1,
    GSVM_LSL_T_FLOAT = 2,
    GSVM_LSL_T_STRING = 3,
    GSVM_LSL_T_KEY = 4,
    GSVM_LSL_T_VECTOR = 5,
    GSVM_LSL_T_ROTATION = 6,
    GSVM_LSL_T_LIST = 7
} gsvm_lsl_vtype;

/* A view of one argument or list element, valid during the call: `i` for
 * integers, `f` for floats, `s`/`len` for strings and keys (not
 * NUL-terminated in general), `v` for vectors (3) and rotations (4), and
 * `len` = element count for lists.  A list the host gives (a result's
 * elements, a posted event's list argument) has its elements in `list`;
 * in an argument view `list` is NULL (gsvm_lsl_arg_list_item reads them). */
typedef struct gsvm_lsl_item {
    gsvm_lsl_vtype type;
    int32_t i;
    double f;
    const char *s;
    size_t len;
    float v[4];
    const struct gsvm_lsl_item *list;
} gsvm_lsl_item;

typedef struct gsvm_lsl_call gsvm_lsl_call;
typedef struct gsvm_lsl_hosts gsvm_lsl_hosts;
/* `fn_user` is the pointer given to hosts_add, `vm_user` the VM's (set_hosts). */
typedef gsvm_status (*gsvm_lsl_host_cb)(void *fn_user, void *vm_user, gsvm_lsl_call *call,
                                        gsvm_error *err);

gsvm_status gsvm_lsl_hosts_new(gsvm_lsl_hosts **out, gsvm_error *err);
void gsvm_lsl_hosts_free(gsvm_lsl_hosts *h);
/* Registers (or replaces) `name`, which must be a builtin that crosses the
 * host boundary (not one the library or the VM answers): GSVM_ERR_USAGE
 * naming it otherwise.  The table must outlive the VMs using it and must
 * not change while they run. */
gsvm_status gsvm_lsl_hosts_add(gsvm_lsl_hosts *h, const char *name, gsvm_lsl_host_cb cb,
                               void *fn_user, gsvm_error *err);
void gsvm_lsl3_vm_set_hosts(gsvm_lsl3_vm *vm, const gsvm_lsl_hosts *h, void *vm_user);
void gsvm_lsl_vm_set_hosts(gsvm_lsl_vm *vm, const gsvm_lsl_hosts *h, void *vm_user);

/* The function being called, its arguments (false: no argument i) and
 * its list arguments' elements. */
const char *gsvm_lsl_call_name(const gsvm_lsl_call *c);
size_t gsvm_lsl_call_argc(const gsvm_lsl_call *c);
bool gsvm_lsl_arg(const gsvm_lsl_call *c, size_t i, gsvm_lsl_item *out);
bool gsvm_lsl_arg_list_item(const gsvm_lsl_call *c, size_t i, size_t k, gsvm_lsl_item *out);
/* Shorthands: 0 / 0.0 / "" when argument i is absent or of another type. */
int32_t gsvm_lsl_arg_int(const gsvm_lsl_call *c, size_t i);
double gsvm_lsl_arg_float(const gsvm_lsl_call *c, size_t i);
const char *gsvm_lsl_arg_str(const gsvm_lsl_call *c, size_t i, size_t *len);
/* The result (copied by the VM); each returns GSVM_ERR_USAGE, and the call
 * faults naming the function, when the function returns another type. */
gsvm_status gsvm_lsl_return_int(gsvm_lsl_call *c, int32_t v);
gsvm_status gsvm_lsl_return_float(gsvm_lsl_call *c, double v);
gsvm_status gsvm_lsl_return_string(gsvm_lsl_call *c, const char *s, size_t len);
gsvm_status gsvm_lsl_return_key(gsvm_lsl_call *c, const char *s, size_t len);
gsvm_status gsvm_lsl_return_vector(gsvm_lsl_call *c, const float v[3]);
gsvm_status gsvm_lsl_return_rotation(gsvm_lsl_call *c, const float v[4]);
gsvm_status gsvm_lsl_return_list(gsvm_lsl_call *c, const gsvm_lsl_item *items, size_t n);

/* ---- Typed events: posting without JSON -----------------------------------
 *
 * gsvm_lsl_vm_post_tagged with each argument an item of the handler's
 * parameter type (a string for a key and the reverse; a list's elements
 * in `list`, none a list): what a host that posts many events a frame
 * uses.  The same checks, queue and answers as the JSON post.
 *
 *     gsvm_lsl_item n = {.type = GSVM_LSL_T_INTEGER, .i = 1};
 *     gsvm_lsl_vm_post_items(vm, "touch_start", &n, 1, 0, &queued, &err);
 */
gsvm_status gsvm_lsl_vm_post_items(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_item *args, size_t argc,
                                   uint32_t tag, bool *queued, gsvm_error *err);
gsvm_status gsvm_lsl3_vm_post_items(gsvm_lsl3_vm *vm, const char *event, const gsvm_lsl_item *args,
                                    size_t argc, uint32_t tag, bool *queued, gsvm_error *err);

#ifdef __cplusplus
}
#endif
#endif
