/* gsvm hks run --world: the world-layer runtime's CLI (filled in below). */
#include <stdio.h>

#include "cli/args.h"
#include "cli/hks_cli.h"

int hks_cli_run_world(const hks_run_args *ra)
{
    fprintf(stderr, "gsvm hks run: --world %s: the world runtime is not in this build yet\n",
            ra->world);
    return EXIT_USAGE;
}
