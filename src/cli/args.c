#include "cli/args.h"

#include "base/file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gsvm_args_usage(const gsvm_verb_spec *spec, bool to_stderr)
{
    FILE *f = to_stderr ? stderr : stdout;
    fprintf(f, "usage: %s %s\n", spec->command, spec->usage);
    if (to_stderr)
        return;
    fprintf(f, "\n%s\n", spec->summary);
    if (spec->opts && spec->opts[0].name)
        fprintf(f, "\noptions:\n");
    for (const gsvm_opt *o = spec->opts; o && o->name; o++) {
        char left[64];
        if (o->kind == OPT_FLAG)
            snprintf(left, sizeof left, "%s%c%c%s", o->short_name ? "-" : "",
                     o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name);
        else
            snprintf(left, sizeof left, "%s%c%c%s %s", o->short_name ? "-" : "",
                     o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
                     o->metavar ? o->metavar : "VALUE");
        fprintf(f, "  %-28s %s\n", left, o->help);
    }
    fprintf(f, "  %-28s %s\n", "   --help", "show this help");
}

static const gsvm_opt *find_opt(const gsvm_verb_spec *spec, const char *arg, size_t len)
{
    for (const gsvm_opt *o = spec->opts; o && o->name; o++) {
        if (arg[1] != '-' && len == 2 && o->short_name == arg[1])
            return o;
        if (arg[1] == '-' && strlen(o->name) == len && memcmp(o->name, arg, len) == 0)
            return o;
    }
    return NULL;
}

static int usage_error(const gsvm_verb_spec *spec, const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", spec->command);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    gsvm_args_usage(spec, true);
    return EXIT_USAGE;
}

int gsvm_args_parse(const gsvm_verb_spec *spec, int argc, char **argv, const char **pos,
                    int *npos)
{
    *npos = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (options_done || arg[0] != '-' || arg[1] == 0) {
            if (*npos >= spec->max_pos)
                return usage_error(spec, "unexpected argument '%s'", arg);
            pos[(*npos)++] = arg;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            gsvm_args_usage(spec, false);
            return 0;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const gsvm_opt *o = find_opt(spec, arg, len);
        if (!o)
            return usage_error(spec, "unknown option '%s'", arg);
        if (o->seen)
            *o->seen = true;
        if (o->kind == OPT_FLAG) {
            if (eq && arg[1] == '-')
                return usage_error(spec, "option '%s' takes no value", o->name);
            *(bool *)o->out = true;
            continue;
        }
        const char *value;
        if (eq && arg[1] == '-')
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return usage_error(spec, "option '%s' needs a value", o->name);
        if (o->kind == OPT_STRING) {
            *(const char **)o->out = value;
            continue;
        }
        char *end;
        errno = 0;
        if (o->kind == OPT_U64) {
            if (value[0] == '-' || value[0] == 0)
                return usage_error(spec, "'%s' is not a non-negative whole number", value);
            uintmax_t v = strtoumax(value, &end, 0);
            if (errno || *end)
                return usage_error(spec, "'%s' is not a non-negative whole number", value);
            *(uint64_t *)o->out = (uint64_t)v;
        } else {
            intmax_t v = strtoimax(value, &end, 0);
            if (errno || *end || value[0] == 0)
                return usage_error(spec, "'%s' is not a whole number", value);
            *(int64_t *)o->out = (int64_t)v;
        }
    }
    if (*npos < spec->min_pos)
        return usage_error(spec, "%s", "missing argument");
    return -1;
}

int gsvm_cli_dispatch(const char *engine, const char *about, const gsvm_verb *verbs, int argc,
                      char **argv)
{
    bool help = argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
    if (!help) {
        for (const gsvm_verb *v = verbs; v->name; v++)
            if (strcmp(v->name, argv[1]) == 0)
                return v->run(argc - 1, argv + 1);
    }
    FILE *f = help && argc >= 2 ? stdout : stderr;
    if (!help)
        fprintf(f, "gsvm %s: unknown verb '%s'\n", engine, argv[1]);
    fprintf(f, "usage: gsvm %s VERB [ARGS...]\n\n%s\n\nverbs:\n", engine, about);
    for (const gsvm_verb *v = verbs; v->name; v++)
        fprintf(f, "  %-12s %s\n", v->name, v->summary);
    fprintf(f, "\nRun 'gsvm %s VERB --help' for a verb's options.\n", engine);
    return help && argc >= 2 ? 0 : EXIT_USAGE;
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
