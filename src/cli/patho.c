/* gsvm patho: the verb table.  Argument parsing and printing only; the work
 * is in src/patho/.  `run` lives in patho_run.c (the VM's CLI host). */
#include <stdio.h>

#include "cli/args.h"
#include "cli/engines.h"

int gsvm_cli_patho_run(int argc, char **argv);

static const gsvm_verb verbs[] = {
    {"run", gsvm_cli_patho_run, "run a script from RunTask/RunOp with a JSON Lines host"},
    {NULL, NULL, NULL},
};

int gsvm_cli_patho(int argc, char **argv)
{
    return gsvm_cli_dispatch("patho", "Pathologic .bin scripts: list, assemble, verify, run", verbs,
                             argc, argv);
}
