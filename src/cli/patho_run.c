/* Placeholder for `gsvm patho run` until the VM lands (patho-vm replaces this file). */
#include <stdio.h>

int gsvm_cli_patho_run(int argc, char **argv);
int gsvm_cli_patho_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gsvm patho run: not built yet\n");
    return 2;
}
