/* Shared between the lsl CLI files (src/cli/lsl.c, src/cli/lsl_run3.c). */
#ifndef GSVM_CLI_LSL_CLI_H
#define GSVM_CLI_LSL_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gsvm/lsl.h"

typedef struct lsl3_run_opts {
    uint64_t budget, max_instructions, snapshot_at;
    bool has_max, has_snapshot_at;
    const char *snapshot_out;
} lsl3_run_opts;

/* `gsvm lsl run` for an ABI-3 program: the same contract as ABI 2, plus
 * any event with typed JSON arguments and {"advance_ms": N} lines. */
int gsvm_cli_lsl_run3(const gsvm_lsl3_program *prog, const char *events_path, const char *resume,
                      const lsl3_run_opts *o, FILE *out);

/* `gsvm lsl region` (src/cli/lsl_region.c). */
int gsvm_cli_lsl_region(int argc, char **argv);

#endif
