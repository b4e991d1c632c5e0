/* Shared between the lsl CLI files (src/cli/lsl.c, src/cli/lsl_run3.c,
 * src/cli/lsl_region.c): what `gsvm lsl run` does alike for both ABIs. */
#ifndef GSVM_CLI_LSL_CLI_H
#define GSVM_CLI_LSL_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "gsvm/lsl.h"
#include "cli/verb.h"

enum { LSL_CLI_MAX_ARGS = 16, LSL_DRIVE_DONE = -1 };

typedef struct lsl_run_opts {
    uint64_t budget, max_instructions, snapshot_at;
    bool has_max, has_snapshot_at;
    const char *snapshot_out;
} lsl_run_opts;

/* An events file (JSON Lines), every line checked before anything runs. */
typedef struct lsl_lines {
    json_t *all;      /* one object per line */
    long *line;       /* each object's line number */
    size_t n;
    const char *name; /* the file, or "<stdin>" */
} lsl_lines;

/* Checks one line: leaves `problem` empty when it is fine, else writes what
 * is wrong (reported as FILE:LINE:1); a status other than GSVM_OK (with
 * `err` set) stops the load. */
typedef gsvm_status (*lsl_line_check)(void *ctx, json_t *obj, char *problem, size_t size,
                                      gsvm_error *err);
gsvm_status lsl_cli_load_lines(const char *path, lsl_line_check check, void *ctx, lsl_lines *out,
                               gsvm_error *err);
void lsl_cli_free_lines(lsl_lines *l);
/* Prints `err` as the error of line i of the file; returns the exit code. */
int lsl_cli_line_fail(const lsl_lines *l, size_t i, gsvm_error *err);

/* The next slice: at most the budget, never past --snapshot-at or the limit. */
uint64_t lsl_cli_slice(const lsl_run_opts *o, uint64_t total);
/* Print {"fault":MESSAGE,"ip":N} (plus "line"/"col" when has_pos: the source
 * position from an ABI-3 program's line table) / {"stopped":"instruction
 * limit","executed":N} and return the exit code (3 / 4). */
int lsl_cli_emit_fault(FILE *out, const char *message, uint64_t ip, bool has_pos, uint32_t ln,
                       uint32_t col);
int lsl_cli_emit_limit(FILE *out, uint64_t total);
/* Writes a snapshot the VM made (`st` its status) and frees it; 0 or the exit code. */
int lsl_cli_save_snapshot(const char *path, gsvm_status st, uint8_t *data, size_t len,
                          const gsvm_error *err);
/* Says on stderr when the run ended before --snapshot-at. */
void lsl_cli_note_early_end(const lsl_run_opts *o, uint64_t total);

/* `gsvm lsl run` for an ABI-3 program (lsl_run3.c): the same contract as
 * ABI 2, plus any event with typed JSON arguments and {"advance_ms": N}
 * lines.  The timeline is loaded (and checked) first. */
gsvm_status gsvm_cli_lsl3_load_timeline(const char *path, const gsvm_lsl3_program *prog,
                                        lsl_lines *out, gsvm_error *err);
int gsvm_cli_lsl_run3(const gsvm_lsl3_program *prog, const lsl_lines *timeline, const char *resume,
                      const lsl_run_opts *o, FILE *out);

/* `gsvm lsl region` (src/cli/lsl_region.c): its row of lsl.c's verb table. */
#define GSVM_CLI_LSL_REGION_USAGE "WORLD.json [--events TIMELINE.jsonl] [--print-chat] [budgets...]"
#define GSVM_CLI_LSL_REGION_HELP                                                              \
    "Runs every script of a world's objects on simulated frames, applies the timeline\n"     \
    "and prints one JSON line per host effect, each naming its \"object\" and \"script\"\n" \
    "beside \"host\" and \"args\".  Exits 3 when a script faulted, 4 when scripts still\n"  \
    "had work after --drain-ms."
extern const gsvm_cli_opt gsvm_cli_lsl_region_opts[];
int gsvm_cli_lsl_region(const gsvm_cli_call *c);

#endif
