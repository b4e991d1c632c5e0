/* Shared between the hks CLI files (src/cli/hks.c, src/cli/hks_*.c). */
#ifndef GSVM_CLI_HKS_CLI_H
#define GSVM_CLI_HKS_CLI_H

#include <stdbool.h>

/* gsvm hks decompile */
int gsvm_cli_hks_decompile(int argc, char **argv);
/* gsvm hks decompile --check FILES: the figures line; exit 0 iff none differ */
int gsvm_cli_hks_check(const char **files, int nfiles, const char *profile, bool json);

#endif
