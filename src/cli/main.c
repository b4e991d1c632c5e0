/* gsvm: one command-line tool, one subcommand per engine. */
#include <stdio.h>
#include <string.h>

#include "cli/verb.h"
#include "cli/engines.h"
#include "gsvm/gsvm.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} engines[] = {
#ifdef GSVM_WITH_LSL
    {"lsl", gsvm_cli_lsl, "Falcon VM: compile LSL to p-code, run it in budgets, snapshot it"},
#endif
#ifdef GSVM_WITH_HKS
    {"hks", gsvm_cli_hks, "HavokScript chunks: list, assemble, verify, stats, SCRI payloads"},
#endif
#ifdef GSVM_WITH_PATHO
    {"patho", gsvm_cli_patho, "Pathologic .bin scripts: list, assemble, verify, run"},
#endif
#ifdef GSVM_WITH_MISSION
    {"mission", gsvm_cli_mission, "sandboxed Lua 5.4 missions whose callbacks are transactions"},
#endif
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gsvm ENGINE VERB [ARGS...]\n\n"
               "gsvm runs, inspects and changes game scripts.\n\nengines:\n");
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        fprintf(f, "  %-9s %s\n", engines[i].name, engines[i].summary);
    fprintf(f, "\nRun 'gsvm ENGINE --help' for an engine's verbs.\n"
               "Exit codes: 0 ok, 1 input rejected, 2 usage error, 3 script fault, 4 limit reached.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gsvm %s\n", GSVM_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strcmp(argv[1], engines[i].name) == 0)
            return engines[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gsvm: unknown engine '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
