/* Shared between the hks CLI files (src/cli/hks.c, src/cli/hks_*.c). */
#ifndef GSVM_CLI_HKS_CLI_H
#define GSVM_CLI_HKS_CLI_H

/* gsvm hks decompile */
int gsvm_cli_hks_decompile(int argc, char **argv);

#endif
