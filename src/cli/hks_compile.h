/* The compiler's command-line options, shared by `gsvm hks compile` and
 * `gsvm hks scri pack --compile`. */
#ifndef GSVM_CLI_HKS_COMPILE_H
#define GSVM_CLI_HKS_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/verb.h"
#include "gsvm/hks.h"

/* The compiler's option rows, for a verb's option table; the verb reads
 * them back with hks_compile_options. */
#define HKS_COMPILE_OPTS                                                                       \
    {"--target", 0, OPT_STRING, "T", "sekiro (default), sow, ghosts, doubles, bo2 or bo3"},     \
    {"--debug", 0, OPT_STRING, "LEVEL",                                                        \
     "full (default), profile (line defined, source, name) or none"},                          \
    {"--endian", 0, OPT_STRING, "ORDER", "byte order: big or little"},                         \
    {"--size-t", 0, OPT_U64, "N", "size_t bytes: 4 or 8"},                                     \
    {"--number", 0, OPT_STRING, "TYPE", "float32 or float64"},                                 \
    {"--format", 0, OPT_U64, "N", "chunk format: 13 or 14"},                                   \
    {"--build-flags", 0, OPT_U64, "N",                                                         \
     "header build flags: 1 memoization, 2 structures, 8 float64"},                            \
    {"--profile", 0, OPT_STRING, "NAME", "opcode table: base, bo3 or ghosts"},                 \
    {"--hash-debug", 0, OPT_STRING, "FORM",                                                    \
     "Call of Duty: one name hash per function instead of debug info: t6 (every second "      \
     "byte), t7 (every byte) or none"},                                                       \
    {"--arg-table", 0, OPT_STRING, "yes|no",                                                   \
     "vararg functions declare Lua 5.0's `arg` local (yes but in bo2/bo3)"}

/* Fills `o` from the options of a verb with HKS_COMPILE_OPTS; -1 on success, else the exit code. */
int hks_compile_options(const gsvm_cli_call *c, gsvm_hks_compile_options *o);
/* Reads `path` (- stdin), compiles and dumps it; -1 on success (*out is
 * malloc'd), else the exit code after printing the error. */
int hks_compile_source(const gsvm_hks_compile_options *o, const char *path,
                       const char *chunkname, uint8_t **out, size_t *len);
/* `gsvm hks compile`: the verb table's row (hks.c) names these. */
#define HKS_COMPILE_USAGE "SRC.lua -o OUT [--target T] [--debug full|profile|none]"
extern const char hks_compile_help[];
extern const gsvm_cli_opt hks_compile_opts[];
int gsvm_cli_hks_compile(const gsvm_cli_call *c);

#endif
