/* gsvm hks decompile: argument parsing and printing for the decompiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/verb.h"
#include "cli/hks_cli.h"
#include "gsvm/hks.h"

int gsvm_cli_hks_decompile(int argc, char **argv)
{
    const char *outp = NULL, *function = NULL, *profile = NULL;
    bool strict = false, check = false, json = false;
    const gsvm_opt opts[] = {
        {"--output", 'o', OPT_STRING, &outp, "OUT.lua", "write the source to OUT.lua", NULL},
        {"--function", 0, OPT_STRING, &function, "PATH",
         "only this function (\"0/2\": the main function's third child)", NULL},
        {"--strict", 0, OPT_FLAG, &strict, NULL,
         "fail when a function's structure is not recovered", NULL},
        {"--check", 0, OPT_FLAG, &check, NULL,
         "decompile, recompile with each chunk's own target and compare function by function",
         NULL},
        {"--json", 0, OPT_FLAG, &json, NULL, "with --check: the verdict of every function", NULL},
        {"--profile", 0, OPT_STRING, &profile, "NAME",
         "opcode table: auto (default), base, bo3 or ghosts", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm hks decompile", "CHUNK [-o OUT.lua] [--function PATH] [--strict] | --check CHUNK... [--json]",
        "Print Lua 5.1 / HavokScript source for a chunk: local names from debug info where\n"
        "the chunk has it, otherwise generated ones (arg1, loc5, i, k, v).  A function whose\n"
        "control flow is not recovered is printed as a loop over its blocks (it still\n"
        "compiles and runs) with a comment; --strict makes that an error.",
        opts, 1, 100000};
    const char **pos = malloc(sizeof *pos * (size_t)(argc > 0 ? argc : 1));
    if (!pos)
        return EXIT_INPUT;
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) {
        free(pos);
        return rc;
    }
    if (check) {
        rc = gsvm_cli_hks_check(pos, npos, profile, json);
        free(pos);
        return rc;
    }
    if (npos != 1) {
        free(pos);
        fprintf(stderr, "%s: one CHUNK (several only with --check)\n", spec.command);
        return EXIT_USAGE;
    }
    gsvm_hks_load_options lo = {0, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, true};
    if (profile && !gsvm_hks_profile_parse(profile, &lo.profile)) {
        fprintf(stderr, "%s: unknown profile '%s' (auto, base, bo3, ghosts)\n", spec.command,
                profile);
        free(pos);
        return EXIT_USAGE;
    }
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_buf b;
    const char *path = pos[0];
    free(pos);
    if (gsvm_file_read(path, &b, &err) != GSVM_OK) {
        gsvm_buf_free(&b);
        return gsvm_cli_fail(&err);
    }
    gsvm_hks_chunk *c = NULL;
    gsvm_status st = gsvm_hks_chunk_load(b.data, b.len, &lo, path, &c, &err);
    gsvm_buf_free(&b);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    gsvm_hks_decompile_options o = {function, strict};
    char *text = NULL;
    size_t len = 0;
    gsvm_hks_decompile_result res;
    st = gsvm_hks_decompile(c, &o, &text, &len, &res, &err);
    gsvm_hks_chunk_free(c);
    if (st != GSVM_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", path);
        return gsvm_cli_fail(&err);
    }
    rc = gsvm_cli_write(outp, text, len);
    free(text);
    return rc;
}
