/* Shared between the hks CLI files (src/cli/hks.c, src/cli/hks_*.c):
 * gsvm hks decompile, and gsvm hks run's pieces (hks_run.c: chunks,
 * hks_world.c: world layers). */
#ifndef GSVM_CLI_HKS_CLI_H
#define GSVM_CLI_HKS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/verb.h"
#include "gsvm/hks.h"

#include "cli/verb.h"

/* gsvm hks decompile: its options and body (hks_decompile.c) */
extern const gsvm_cli_opt gsvm_cli_hks_decompile_opts[];
int gsvm_cli_hks_decompile(const gsvm_cli_call *call);
/* gsvm hks decompile --check FILES: the figures line; exit 0 iff none differ */
int gsvm_cli_hks_check(const char **files, int nfiles, const char *profile, bool json);

/* gsvm hks run's options, read once (hks_run.c) for both modes */
typedef struct hks_run_args {
    const char *layer, *target, *profile, *world, *events, *natives;
    bool json, checked;
    uint64_t budget, max_instr, max_mem, max_depth;
    gsvm_hks_load_options load;
    gsvm_hks_vm_options vm; /* the limits and mode of the options above */
} hks_run_args;

/* gsvm hks run: a row of hks.c's verb table */
#define HKS_CLI_RUN_USAGE "LAYER [--print text] [--checked] [--budget N] [--world W --events T]"
#define HKS_CLI_RUN_HELP \
    "Run a HavokScript chunk, a SCRI payload or Lua source (compiled first) on the VM.  Without\n--world " \
    "the main function runs once; with --world the layer runs as the game runs\nit: " \
    "StartupCommands threads, ScriptBind events, records, natives, simulated time."
extern const gsvm_cli_opt hks_cli_run_opts[];
int hks_cli_run(const gsvm_cli_call *call);
int hks_cli_run_world(const hks_run_args *ra);
int hks_cli_load_layer(const char *path, const gsvm_hks_load_options *o, const char *target,
                       gsvm_hks_chunk **out, uint32_t *script_id);
int hks_cli_report_fault(gsvm_hks_vm *vm, gsvm_status st, const gsvm_error *err, bool json,
                         const char *file);
/* print() callbacks of the VM: JSON host lines, or Lua 5.1's text */
void hks_cli_print_json(void *ctx, const char *const *parts, const size_t *lens, int n);
void hks_cli_print_text(void *ctx, const char *const *parts, const size_t *lens, int n);

#endif
