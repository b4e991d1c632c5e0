#include "cli/args.h"

#include "base/file.h"
#include "cli/verb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The gsvm_opt table as the parser's rows (NULL when out of memory). */
static gsvm_cli_opt *rows_of(const gsvm_opt *opts, size_t *n)
{
    *n = 0;
    while (opts && opts[*n].name)
        (*n)++;
    gsvm_cli_opt *rows = calloc(*n + 1, sizeof *rows);
    for (size_t k = 0; rows && k < *n; k++)
        rows[k] = (gsvm_cli_opt){opts[k].name, opts[k].short_name, opts[k].kind, opts[k].metavar,
                                 opts[k].help};
    return rows;
}

void gsvm_args_usage(const gsvm_verb_spec *spec, bool to_stderr)
{
    size_t n;
    gsvm_cli_opt *rows = rows_of(spec->opts, &n);
    gsvm_cli_print_usage(spec->command, spec->usage, spec->summary, rows, to_stderr);
    free(rows);
}

int gsvm_args_parse(const gsvm_verb_spec *spec, int argc, char **argv, const char **pos,
                    int *npos)
{
    size_t n;
    gsvm_cli_opt *rows = rows_of(spec->opts, &n);
    gsvm_cli_value *values = calloc(n + 1, sizeof *values);
    /* the caller's pos has room for max_pos entries; the parser never stores more */
    if (!rows || !values) {
        free(rows);
        free(values);
        fprintf(stderr, "%s: out of memory\n", spec->command);
        return EXIT_INPUT;
    }
    int rc = gsvm_cli_parse(spec->command, spec->usage, spec->summary, rows, spec->min_pos,
                            spec->max_pos, argc, argv, pos, npos, values);
    for (size_t k = 0; rc < 0 && k < n; k++) {
        const gsvm_opt *o = &spec->opts[k];
        if (!values[k].given)
            continue;
        if (o->seen)
            *o->seen = true;
        switch (o->kind) {
        case OPT_FLAG: *(bool *)o->out = true; break;
        case OPT_STRING: *(const char **)o->out = values[k].text; break;
        case OPT_U64: *(uint64_t *)o->out = values[k].u64; break;
        case OPT_I64: *(int64_t *)o->out = values[k].i64; break;
        }
    }
    free(rows);
    free(values);
    return rc;
}

int gsvm_cli_exit_code(gsvm_status st)
{
    switch (st) {
    case GSVM_OK: return 0;
    case GSVM_ERR_USAGE: return EXIT_USAGE;
    case GSVM_ERR_FAULT: return EXIT_FAULT;
    case GSVM_ERR_LIMIT: return EXIT_LIMIT;
    default: return EXIT_INPUT;
    }
}

int gsvm_cli_fail(const gsvm_error *err)
{
    char msg[1024];
    gsvm_error_format(err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return gsvm_cli_exit_code(err->status);
}

int gsvm_cli_write(const char *path, const void *data, size_t len)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_file_write(path ? path : "-", data, len, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    return 0;
}
