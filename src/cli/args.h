/* What every verb of the CLI shares: exit codes, the kinds of option values,
 * and the helpers that turn library results into exit codes and messages.
 * Verbs are written as rows of a verb table (cli/verb.h).  Exit codes
 * (GUIDE.md): 0 success, 1 input rejected, 2 usage error, 3 script fault,
 * 4 limit hit. */
#ifndef GSVM_CLI_ARGS_H
#define GSVM_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_FAULT = 3, EXIT_LIMIT = 4 };

typedef enum { OPT_FLAG, OPT_STRING, OPT_U64, OPT_I64 } gsvm_opt_kind;

/* For the verbs that still parse their own arguments (a verb table row with
 * `run` instead of `body`): an option whose value the parser stores through
 * `out` -- a bool (FLAG), const char * (STRING), uint64_t (U64) or int64_t
 * (I64) -- setting `*seen` when given.  A table ends with a NULL name.  The
 * parsing is cli/verb.c's. */
typedef struct gsvm_opt {
    const char *name;  /* "--budget" */
    char short_name;   /* 'o', or 0 */
    gsvm_opt_kind kind;
    void *out;
    const char *metavar;  /* "N", "FILE" (ignored for flags) */
    const char *help;
    bool *seen;
} gsvm_opt;

typedef struct gsvm_verb_spec {
    const char *command;  /* "gsvm lsl compile" */
    const char *usage;
    const char *summary;
    const gsvm_opt *opts;
    int min_pos, max_pos;  /* positional argument counts */
} gsvm_verb_spec;

/* Parses argv[1..] (argv[0] is the verb).  Returns -1 when parsing succeeded,
 * otherwise the exit code to return now: 0 after printing --help, 2 after
 * printing a usage error. */
int gsvm_args_parse(const gsvm_verb_spec *spec, int argc, char **argv, const char **pos,
                    int *npos);
void gsvm_args_usage(const gsvm_verb_spec *spec, bool to_stderr);

/* Prints `err` to stderr as "FILE:LINE:COL: error: MESSAGE" and returns the
 * exit code for its status. */
int gsvm_cli_fail(const gsvm_error *err);
/* Writes a verb's output to `path` ("-" or NULL: stdout); 0, or the exit
 * code after printing the error. */
int gsvm_cli_write(const char *path, const void *data, size_t len);
int gsvm_cli_exit_code(gsvm_status st);

#endif
