/* The compiler's command-line options, shared by `gsvm hks compile` and
 * `gsvm hks scri pack --compile`. */
#ifndef GSVM_CLI_HKS_COMPILE_H
#define GSVM_CLI_HKS_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/hks.h"

typedef struct hks_compile_args {
    const char *target, *debug, *endian, *number, *profile, *hash, *arg_table;
    uint64_t size_size, format, flags;
    bool size_t_seen, format_seen, flags_seen;
} hks_compile_args;

#define HKS_COMPILE_OPTS(a)                                                                    \
    {"--target", 0, OPT_STRING, &(a).target, "T",                                              \
     "sekiro (default), sow, ghosts, doubles, bo2 or bo3", NULL},                              \
    {"--debug", 0, OPT_STRING, &(a).debug, "LEVEL",                                            \
     "full (default), profile (line defined, source, name) or none", NULL},                    \
    {"--endian", 0, OPT_STRING, &(a).endian, "ORDER", "byte order: big or little", NULL},     \
    {"--size-t", 0, OPT_U64, &(a).size_size, "N", "size_t bytes: 4 or 8", &(a).size_t_seen},   \
    {"--number", 0, OPT_STRING, &(a).number, "TYPE", "float32 or float64", NULL},             \
    {"--format", 0, OPT_U64, &(a).format, "N", "chunk format: 13 or 14", &(a).format_seen},    \
    {"--build-flags", 0, OPT_U64, &(a).flags, "N",                                             \
     "header build flags: 1 memoization, 2 structures, 8 float64", &(a).flags_seen},           \
    {"--profile", 0, OPT_STRING, &(a).profile, "NAME", "opcode table: base, bo3 or ghosts",    \
     NULL},                                                                                     \
    {"--hash-debug", 0, OPT_STRING, &(a).hash, "FORM",                                         \
     "Call of Duty: one name hash per function instead of debug info: t6 (every second "      \
     "byte), t7 (every byte) or none", NULL},                                                 \
    {"--arg-table", 0, OPT_STRING, &(a).arg_table, "yes|no",                                    \
     "vararg functions declare Lua 5.0's `arg` local (yes but in bo2/bo3)", NULL}

/* Fills `o` from the arguments; -1 on success, else the exit code. */
int hks_compile_options(const hks_compile_args *a, const char *command,
                        gsvm_hks_compile_options *o);
/* Reads `path` (- stdin), compiles and dumps it; -1 on success (*out is
 * malloc'd), else the exit code after printing the error. */
int hks_compile_source(const gsvm_hks_compile_options *o, const char *path,
                       const char *chunkname, uint8_t **out, size_t *len);
int gsvm_cli_hks_compile(int argc, char **argv);

#endif
