/* The one way a verb of the CLI is written: a row of its engine's verb table
 * (name, summary, usage, help, options, how many positional arguments) and a
 * body.  The table's driver parses the arguments -- --help, unknown options,
 * missing values, numbers, argument counts all answered the same way for
 * every verb -- and calls the body with what it found:
 *
 *     static const gsvm_cli_opt list_opts[] = {
 *         {"--output", 'o', OPT_STRING, "FILE", "write the listing to FILE"},
 *         {NULL},
 *     };
 *     static int list_body(const gsvm_cli_call *c)
 *     {
 *         const char *out = gsvm_cli_str(c, "--output", NULL);
 *         ... c->pos[0] ...
 *     }
 *     static const gsvm_cli_verb verbs[] = {
 *         {"list", "print a listing", "FILE [-o OUT]", "Prints ...", list_opts, 1, 1, list_body},
 *         {NULL},
 *     };
 *     int gsvm_cli_x(int argc, char **argv) { return gsvm_cli_engine_main(&engine, argc, argv); }
 *
 * Exit codes: below. */
#ifndef GSVM_CLI_VERB_H
#define GSVM_CLI_VERB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "gsvm/gsvm.h"

/* Exit codes (GUIDE.md): 0 success, 1 input rejected, 2 usage error, 3 script
 * fault, 4 limit hit. */
enum { EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_FAULT = 3, EXIT_LIMIT = 4 };

typedef enum { OPT_FLAG, OPT_STRING, OPT_U64, OPT_I64 } gsvm_opt_kind;

/* One option: "--name" and an optional one-letter form, whether it takes a
 * value (and of which kind), the value's name in the help, the help text.
 * A table ends with a row whose name is NULL. */
typedef struct gsvm_cli_opt {
    const char *name;
    char short_name;
    gsvm_opt_kind kind;
    const char *metavar;
    const char *help;
} gsvm_cli_opt;

typedef struct gsvm_cli_call gsvm_cli_call;

typedef struct gsvm_cli_verb {
    const char *name;
    const char *summary;      /* one line, in the engine's verb list */
    const char *usage;        /* what follows "gsvm ENGINE VERB" on the usage line */
    const char *help;         /* the paragraph --help prints */
    const gsvm_cli_opt *opts; /* NULL: none */
    int min_pos, max_pos;     /* positional arguments */
    int (*body)(const gsvm_cli_call *c);
} gsvm_cli_verb;

typedef struct gsvm_cli_engine {
    const char *name;  /* "lsl" */
    const char *about; /* the paragraph of `gsvm ENGINE --help` */
    const gsvm_cli_verb *verbs;
} gsvm_cli_engine;

/* What the body gets: the verb, "gsvm ENGINE VERB", the positional
 * arguments, and the options given (read them with the functions below). */
typedef struct gsvm_cli_value {
    bool given;
    int at;           /* where in argv it was last given (which of two spellings came later) */
    const char *text; /* the last value given */
    uint64_t u64;
    int64_t i64;
} gsvm_cli_value;

struct gsvm_cli_call {
    const gsvm_cli_verb *verb;
    char command[64];
    const char **pos;
    int npos;
    gsvm_cli_value *values; /* one per row of verb->opts */
};

/* `gsvm ENGINE ...` (argv[0] is the engine): --help, the verb list, or the
 * verb's body after its arguments parsed. */
int gsvm_cli_engine_main(const gsvm_cli_engine *e, int argc, char **argv);

/* The options, by their long name.  Asking for a name the verb does not
 * declare (or with the wrong kind) is a bug in the CLI: it aborts. */
bool gsvm_cli_given(const gsvm_cli_call *c, const char *name);
bool gsvm_cli_flag(const gsvm_cli_call *c, const char *name);
const char *gsvm_cli_str(const gsvm_cli_call *c, const char *name, const char *dflt);
/* Of two names of one option (a new and an old), the one given later on the
 * command line; NULL when neither was given. */
const char *gsvm_cli_later(const gsvm_cli_call *c, const char *a, const char *b);
uint64_t gsvm_cli_u64(const gsvm_cli_call *c, const char *name, uint64_t dflt);
int64_t gsvm_cli_i64(const gsvm_cli_call *c, const char *name, int64_t dflt);

/* Prints "gsvm ENGINE VERB: MESSAGE" and the usage line to stderr; returns
 * EXIT_USAGE. */
int gsvm_cli_usage_error(const gsvm_cli_call *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints "gsvm ENGINE VERB: MESSAGE" to stderr (no usage line); returns
 * EXIT_USAGE. */
int gsvm_cli_bad_value(const gsvm_cli_call *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The end of a verb that makes one output: when `st` is GSVM_OK, writes
 * `data` to --output (stdout when absent) and frees it; otherwise prints
 * `err`.  Returns the exit code. */
int gsvm_cli_output(const gsvm_cli_call *c, gsvm_status st, const gsvm_error *err, void *data,
                    size_t len);

/* The parser itself (gsvm_cli_engine_main's): -1 when parsing succeeded, else the exit
 * code to return now (0 after printing --help, 2 after a usage error).
 * `pos` has room for argc entries, `values` one per row of `opts`. */
int gsvm_cli_parse(const char *command, const char *usage, const char *help,
                   const gsvm_cli_opt *opts, int min_pos, int max_pos, int argc, char **argv,
                   const char **pos, int *npos, gsvm_cli_value *values);
/* "usage: COMMAND USAGE"; to stdout with the help and the options. */
void gsvm_cli_print_usage(const char *command, const char *usage, const char *help,
                          const gsvm_cli_opt *opts, bool to_stderr);

/* Reads a whole file ("-": stdin) into `out`: 0, or the exit code after
 * printing the error, which names the file. */
int gsvm_cli_read(const char *path, gsvm_buf *out);

/* Library results as exit codes and messages.  gsvm_cli_fail prints `err`
 * to stderr as "FILE:LINE:COL: error: MESSAGE" and returns the exit code for
 * its status. */
int gsvm_cli_fail(const gsvm_error *err);
/* Writes a verb's output to `path` ("-" or NULL: stdout); 0, or the exit
 * code after printing the error. */
int gsvm_cli_write(const char *path, const void *data, size_t len);
int gsvm_cli_exit_code(gsvm_status st);

#endif
