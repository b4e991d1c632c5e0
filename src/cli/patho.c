#include <stdio.h>

#include "cli/args.h"
#include "cli/engines.h"

static const gsvm_verb verbs[] = {
    {NULL, NULL, NULL},
};

int gsvm_cli_patho(int argc, char **argv)
{
    return gsvm_cli_dispatch("patho", "(not built yet)", verbs, argc, argv);
}
