/* What the verbs of `gsvm patho` share between patho.c (the verb table) and
 * patho_run.c (`run`, the VM's CLI host). */
#ifndef GSVM_CLI_PATHO_CLI_H
#define GSVM_CLI_PATHO_CLI_H

#include "cli/verb.h"
#include "gsvm/patho.h"

/* --layout alpha|hd (absent: detect from the bytes): 0, or the exit code
 * after saying what is wrong. */
int patho_layout_of(const gsvm_cli_call *c, gsvm_patho_layout *out);

/* `gsvm patho run`: its options and its body. */
extern const gsvm_cli_opt patho_run_opts[];
int patho_run_body(const gsvm_cli_call *c);

#endif
