#include <stdio.h>

#include "cli/args.h"
#include "cli/engines.h"

static const gsvm_verb verbs[] = {
    {NULL, NULL, NULL},
};

int gsvm_cli_mission(int argc, char **argv)
{
    return gsvm_cli_dispatch("mission", "(not built yet)", verbs, argc, argv);
}
