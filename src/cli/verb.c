#include "cli/verb.h"

#include "base/file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gsvm_cli_print_usage(const char *command, const char *usage, const char *help,
                          const gsvm_cli_opt *opts, bool to_stderr)
{
    FILE *f = to_stderr ? stderr : stdout;
    fprintf(f, "usage: %s %s\n", command, usage);
    if (to_stderr)
        return;
    fprintf(f, "\n%s\n", help);
    if (opts && opts[0].name)
        fprintf(f, "\noptions:\n");
    for (const gsvm_cli_opt *o = opts; o && o->name; o++) {
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

static int find_opt(const gsvm_cli_opt *opts, const char *arg, size_t len)
{
    for (int k = 0; opts && opts[k].name; k++) {
        const gsvm_cli_opt *o = &opts[k];
        if (arg[1] != '-' && len == 2 && o->short_name == arg[1])
            return k;
        if (arg[1] == '-' && strlen(o->name) == len && memcmp(o->name, arg, len) == 0)
            return k;
    }
    return -1;
}

static int usage_error(const char *command, const char *usage, const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", command);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    gsvm_cli_print_usage(command, usage, NULL, NULL, true);
    return EXIT_USAGE;
}

int gsvm_cli_parse(const char *command, const char *usage, const char *help,
                   const gsvm_cli_opt *opts, int min_pos, int max_pos, int argc, char **argv,
                   const char **pos, int *npos, gsvm_cli_value *values)
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
            if (*npos >= max_pos)
                return usage_error(command, usage, "unexpected argument '%s'", arg);
            pos[(*npos)++] = arg;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            gsvm_cli_print_usage(command, usage, help, opts, false);
            return 0;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        int k = find_opt(opts, arg, len);
        if (k < 0)
            return usage_error(command, usage, "unknown option '%s'", arg);
        const gsvm_cli_opt *o = &opts[k];
        gsvm_cli_value *v = &values[k];
        v->given = true;
        v->at = i;
        if (o->kind == OPT_FLAG) {
            if (eq && arg[1] == '-')
                return usage_error(command, usage, "option '%s' takes no value", o->name);
            continue;
        }
        const char *value;
        if (eq && arg[1] == '-')
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return usage_error(command, usage, "option '%s' needs a value", o->name);
        v->text = value;
        if (o->kind == OPT_STRING)
            continue;
        char *end;
        errno = 0;
        if (o->kind == OPT_U64) {
            if (value[0] == '-' || value[0] == 0)
                return usage_error(command, usage, "'%s' is not a non-negative whole number", value);
            uintmax_t n = strtoumax(value, &end, 0);
            if (errno || *end)
                return usage_error(command, usage, "'%s' is not a non-negative whole number", value);
            v->u64 = (uint64_t)n;
        } else {
            intmax_t n = strtoimax(value, &end, 0);
            if (errno || *end || value[0] == 0)
                return usage_error(command, usage, "'%s' is not a whole number", value);
            v->i64 = (int64_t)n;
        }
    }
    if (*npos < min_pos)
        return usage_error(command, usage, "%s", "missing argument");
    return -1;
}

static void engine_usage(const gsvm_cli_engine *e, FILE *f)
{
    fprintf(f, "usage: gsvm %s VERB [ARGS...]\n\n%s\n\nverbs:\n", e->name, e->about);
    for (const gsvm_cli_verb *v = e->verbs; v->name; v++)
        fprintf(f, "  %-12s %s\n", v->name, v->summary);
    fprintf(f, "\nRun 'gsvm %s VERB --help' for a verb's options.\n", e->name);
}

static int run_verb(const gsvm_cli_engine *e, const gsvm_cli_verb *v, int argc, char **argv)
{
    gsvm_cli_call c;
    memset(&c, 0, sizeof c);
    c.verb = v;
    snprintf(c.command, sizeof c.command, "gsvm %s %s", e->name, v->name);
    size_t nopts = 0;
    while (v->opts && v->opts[nopts].name)
        nopts++;
    c.pos = calloc((size_t)argc + 1, sizeof *c.pos);
    c.values = calloc(nopts + 1, sizeof *c.values);
    if (!c.pos || !c.values) {
        free(c.pos);
        free(c.values);
        fprintf(stderr, "%s: out of memory\n", c.command);
        return EXIT_INPUT;
    }
    int rc = gsvm_cli_parse(c.command, v->usage, v->help, v->opts, v->min_pos, v->max_pos, argc,
                            argv, c.pos, &c.npos, c.values);
    if (rc < 0)
        rc = v->body(&c);
    free(c.pos);
    free(c.values);
    return rc;
}

int gsvm_cli_engine_main(const gsvm_cli_engine *e, int argc, char **argv)
{
    bool help = argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
    if (!help) {
        for (const gsvm_cli_verb *v = e->verbs; v->name; v++)
            if (strcmp(v->name, argv[1]) == 0)
                return run_verb(e, v, argc - 1, argv + 1);
        fprintf(stderr, "gsvm %s: unknown verb '%s'\n", e->name, argv[1]);
    }
    engine_usage(e, help && argc >= 2 ? stdout : stderr);
    return help && argc >= 2 ? 0 : EXIT_USAGE;
}

/* The value of option `name`, which must be declared with kind `kind`. */
static const gsvm_cli_value *value_of(const gsvm_cli_call *c, const char *name, int kind)
{
    for (size_t k = 0; c->verb->opts && c->verb->opts[k].name; k++) {
        const gsvm_cli_opt *o = &c->verb->opts[k];
        if (strcmp(o->name, name) == 0 && (kind < 0 || (int)o->kind == kind))
            return &c->values[k];
    }
    fprintf(stderr, "%s: internal error: no option %s of that kind\n", c->command, name);
    abort();
}

bool gsvm_cli_given(const gsvm_cli_call *c, const char *name)
{
    return value_of(c, name, -1)->given;
}

bool gsvm_cli_flag(const gsvm_cli_call *c, const char *name)
{
    return value_of(c, name, OPT_FLAG)->given;
}

const char *gsvm_cli_str(const gsvm_cli_call *c, const char *name, const char *dflt)
{
    const gsvm_cli_value *v = value_of(c, name, OPT_STRING);
    return v->given ? v->text : dflt;
}

const char *gsvm_cli_later(const gsvm_cli_call *c, const char *a, const char *b)
{
    const gsvm_cli_value *va = value_of(c, a, -1), *vb = value_of(c, b, -1);
    if (!va->given && !vb->given)
        return NULL;
    return !vb->given || (va->given && va->at > vb->at) ? a : b;
}

uint64_t gsvm_cli_u64(const gsvm_cli_call *c, const char *name, uint64_t dflt)
{
    const gsvm_cli_value *v = value_of(c, name, OPT_U64);
    return v->given ? v->u64 : dflt;
}

int64_t gsvm_cli_i64(const gsvm_cli_call *c, const char *name, int64_t dflt)
{
    const gsvm_cli_value *v = value_of(c, name, OPT_I64);
    return v->given ? v->i64 : dflt;
}

static void say(const gsvm_cli_call *c, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", c->command);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int gsvm_cli_usage_error(const gsvm_cli_call *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(c, fmt, ap);
    va_end(ap);
    gsvm_cli_print_usage(c->command, c->verb->usage, NULL, NULL, true);
    return EXIT_USAGE;
}

int gsvm_cli_bad_value(const gsvm_cli_call *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(c, fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

int gsvm_cli_output(const gsvm_cli_call *c, gsvm_status st, const gsvm_error *err, void *data,
                    size_t len)
{
    if (st != GSVM_OK)
        return gsvm_cli_fail(err);
    int rc = gsvm_cli_write(gsvm_cli_str(c, "--output", NULL), data, len);
    free(data);
    return rc;
}

int gsvm_cli_read(const char *path, gsvm_buf *out)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_file_read(path, out, &err) != GSVM_OK) {
        gsvm_buf_free(out);
        return gsvm_cli_fail(&err);
    }
    return 0;
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
