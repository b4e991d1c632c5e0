/* Shared between the hks CLI files (src/cli/hks.c, src/cli/hks_*.c):
 * gsvm hks decompile, and gsvm hks run's pieces (hks_run.c: chunks,
 * hks_world.c: world layers). */
#ifndef GSVM_CLI_HKS_CLI_H
#define GSVM_CLI_HKS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "gsvm/hks.h"

#include "cli/verb.h"

/* gsvm hks decompile: its options and body (hks_decompile.c) */
extern const gsvm_cli_opt gsvm_cli_hks_decompile_opts[];
int gsvm_cli_hks_decompile(const gsvm_cli_call *call);
/* gsvm hks decompile --check FILES: the figures line; exit 0 iff none differ */
int gsvm_cli_hks_check(const char **files, int nfiles, const char *profile, bool json);

typedef struct hks_run_args {
    const char *layer, *target, *print, *profile, *world, *events, *natives;
    bool json, checked, max_instr_seen;
    uint64_t budget, max_instr, max_mem, max_depth;
    gsvm_hks_load_options load;
} hks_run_args;

int hks_cli_run(int argc, char **argv);
int hks_cli_run_world(const hks_run_args *ra);
int hks_cli_load_layer(const char *path, const gsvm_hks_load_options *o, const char *target,
                       gsvm_hks_chunk **out, uint32_t *script_id);
int hks_cli_report_fault(gsvm_hks_vm *vm, gsvm_status st, const gsvm_error *err, bool json,
                         const char *file);
int hks_cli_parse_print(const char *mode, bool *json, const char *command);

#endif
