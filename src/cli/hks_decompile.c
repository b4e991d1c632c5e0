/* gsvm hks decompile: the verb's options and body (its row is in hks.c's
 * verb table); --check is hks_check.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli/hks_cli.h"
#include "cli/verb.h"
#include "gsvm/hks.h"

const gsvm_cli_opt gsvm_cli_hks_decompile_opts[] = {
    {"--output", 'o', OPT_STRING, "OUT.lua", "write the source to OUT.lua"},
    {"--function", 0, OPT_STRING, "PATH",
     "only this function (\"0/2\": the main function's third child)"},
    {"--strict", 0, OPT_FLAG, NULL, "fail when a function's structure is not recovered"},
    {"--check", 0, OPT_FLAG, NULL,
     "decompile, recompile with each chunk's own target and compare function by function"},
    {"--json", 0, OPT_FLAG, NULL,
     "with --check: the verdict of every function (and where it differs)"},
    {"--profile", 0, OPT_STRING, "NAME", "opcode table: auto (default), base, bo3 or ghosts"},
    {NULL, 0, 0, NULL, NULL},
};

int gsvm_cli_hks_decompile(const gsvm_cli_call *call)
{
    const char *profile = gsvm_cli_str(call, "--profile", NULL);
    gsvm_hks_load_options lo = {0, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, true};
    if (profile && !gsvm_hks_profile_parse(profile, &lo.profile))
        return gsvm_cli_bad_value(call, "unknown profile '%s' (auto, base, bo3, ghosts)", profile);
    if (gsvm_cli_flag(call, "--check"))
        return gsvm_cli_hks_check(call->pos, call->npos, profile, gsvm_cli_flag(call, "--json"));
    if (call->npos != 1)
        return gsvm_cli_usage_error(call, "one CHUNK (several only with --check)");
    const char *path = call->pos[0];
    gsvm_buf b;
    int rc = gsvm_cli_read(path, &b);
    if (rc)
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_hks_chunk *c = NULL;
    gsvm_status st = gsvm_hks_chunk_load(b.data, b.len, &lo, path, &c, &err);
    gsvm_buf_free(&b);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    gsvm_hks_decompile_options o = {gsvm_cli_str(call, "--function", NULL),
                                    gsvm_cli_flag(call, "--strict")};
    char *text = NULL;
    size_t len = 0;
    gsvm_hks_decompile_result res;
    st = gsvm_hks_decompile(c, &o, &text, &len, &res, &err);
    gsvm_hks_chunk_free(c);
    if (st != GSVM_OK && !err.file[0])
        snprintf(err.file, sizeof err.file, "%s", path);
    return gsvm_cli_output(call, st, &err, text, len);
}
