/* gsvm: one command-line tool, one subcommand per engine. */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

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

/* Scripts allocate and free in waves: a collection frees thousands of
 * objects at once and the next allocations take the memory again.  With
 * glibc's defaults the freed top of the heap goes back to the kernel and
 * comes back page fault by page fault, and large blocks are mmap'd and
 * unmapped each time (a sixth of the CPU time of an HKS program building
 * closures and tables was brk and page faults).  The tool keeps what it
 * freed, up to 64 MiB, for the next allocations.  (The library leaves the
 * allocator to its host.) */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 4 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_freed_memory();
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
