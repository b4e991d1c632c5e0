/* One entry point per engine's CLI (src/cli/<engine>.c); argv[0] is the engine name. */
#ifndef GSVM_CLI_ENGINES_H
#define GSVM_CLI_ENGINES_H

int gsvm_cli_lsl(int argc, char **argv);
int gsvm_cli_hks(int argc, char **argv);
int gsvm_cli_patho(int argc, char **argv);
int gsvm_cli_mission(int argc, char **argv);

#endif
