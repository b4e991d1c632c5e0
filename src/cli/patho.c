/* gsvm patho: the verb table.  Argument parsing and printing only; the work
 * is in src/patho/.  `run` lives in patho_run.c (the VM's CLI host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/args.h"
#include "cli/engines.h"
#include "gsvm/patho.h"

int gsvm_cli_patho_run(int argc, char **argv);

/* --layout alpha|hd (absent = detect) */
static int parse_layout(const char *cmd, const char *s, gsvm_patho_layout *out)
{
    *out = GSVM_PATHO_LAYOUT_AUTO;
    if (!s)
        return -1;
    if (!gsvm_patho_layout_parse(s, out)) {
        fprintf(stderr, "%s: unknown layout '%s' (alpha or hd)\n", cmd, s);
        return EXIT_USAGE;
    }
    return -1;
}

/* The --layout option and one .bin file, loaded: -1 when `*out` holds the
 * program, else the exit code (the problem already printed). */
static int load_program(const char *cmd, const char *layout_s, const char *path,
                        gsvm_patho_program **out)
{
    gsvm_patho_layout layout;
    int rc = parse_layout(cmd, layout_s, &layout);
    if (rc >= 0)
        return rc;
    gsvm_error err;
    if (gsvm_patho_load_file(path, layout, out, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    return -1;
}

static int cmd_list(int argc, char **argv)
{
    const char *layout_s = NULL, *out = NULL;
    bool compact = false;
    const gsvm_opt opts[] = {
        {"--layout", 0, OPT_STRING, &layout_s, "alpha|hd", "opcode numbering (default: detect)", NULL},
        {"--output", 'o', OPT_STRING, &out, "FILE", "write the listing to FILE (default stdout)", NULL},
        {"--compact", 0, OPT_FLAG, &compact, NULL,
         "no comment columns (indices, offsets): listings of two versions diff cleanly", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho list", "FILE.bin [--layout alpha|hd] [-o OUT]",
                                 "Print a lossless, readable listing of a .bin script: pool strings "
                                 "with offsets,\nimports, tasks, events and code with addressing "
                                 "modes and labels.\n`gsvm patho asm` turns it back into the same bytes.",
                                 opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_program *p;
    if ((rc = load_program(spec.command, layout_s, pos[0], &p)) >= 0)
        return rc;
    gsvm_error err;
    char *text;
    size_t len;
    gsvm_status st = gsvm_patho_list(p, compact ? GSVM_PATHO_LIST_COMPACT : 0, &text, &len, &err);
    gsvm_patho_free(p);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    rc = gsvm_cli_write(out, text, len);
    free(text);
    return rc;
}

static void print_warning(void *user, const gsvm_error *w)
{
    (void)user;
    fprintf(stderr, "%s:%ld:%ld: warning: %s\n", w->file, w->line, w->column, w->message);
}

static int cmd_asm(int argc, char **argv)
{
    const char *layout_s = NULL, *out = NULL, *from = NULL;
    bool strict = false;
    const gsvm_opt opts[] = {
        {"--output", 'o', OPT_STRING, &out, "FILE", "write the .bin to FILE (default stdout)", NULL},
        {"--layout", 0, OPT_STRING, &layout_s, "alpha|hd",
         "opcode numbering (default: what the listing says, else hd)", NULL},
        {"--from", 0, OPT_STRING, &from, "SYNTAX",
         "listing syntax: gsvm (default) or pathologic_re (the community disassembler)", NULL},
        {"--strict", 0, OPT_FLAG, &strict, NULL,
         "pathologic_re: refuse a listing that lost fields (release 2) instead of warning", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho asm", "LISTING [-o FILE.bin] [--layout alpha|hd] [--from pathologic_re [--strict]]",
                                 "Assemble a listing into a .bin script.  A listing printed by "
                                 "`gsvm patho list` comes\nback byte for byte; --from pathologic_re "
                                 "reads the community's .asm listings.",
                                 opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_layout layout;
    if ((rc = parse_layout(spec.command, layout_s, &layout)) >= 0)
        return rc;
    bool re = false;
    if (from && strcmp(from, "pathologic_re") == 0)
        re = true;
    else if (from && strcmp(from, "gsvm") != 0) {
        fprintf(stderr, "%s: unknown syntax '%s' (gsvm or pathologic_re)\n", spec.command, from);
        return EXIT_USAGE;
    }
    gsvm_error err;
    gsvm_buf text;
    if (gsvm_file_read(pos[0], &text, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    gsvm_patho_program *p;
    gsvm_patho_import_opts io = {layout, strict, print_warning, NULL};
    gsvm_status st = re ? gsvm_patho_import_re_opts((const char *)text.data, text.len, pos[0], &io, &p, &err)
                        : gsvm_patho_asm((const char *)text.data, text.len, pos[0], layout, &p, &err);
    gsvm_buf_free(&text);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    uint8_t *data;
    size_t len;
    st = gsvm_patho_save(p, &data, &len, &err);
    gsvm_patho_free(p);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    rc = gsvm_cli_write(out, data, len);
    free(data);
    return rc;
}

static int cmd_verify(int argc, char **argv)
{
    const char *layout_s = NULL;
    bool quiet = false;
    const gsvm_opt opts[] = {
        {"--layout", 0, OPT_STRING, &layout_s, "alpha|hd", "opcode numbering (default: detect)", NULL},
        {"--quiet", 'q', OPT_FLAG, &quiet, NULL, "print nothing when the script is clean", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho verify", "FILE.bin [--layout alpha|hd]",
                                 "Check a .bin script: operand ranges (pool offsets on strings of the "
                                 "right width,\nimports, tasks, globals, targets, types) and the stack "
                                 "depth along every path.\nExit 1 listing each violation.",
                                 opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_program *p;
    if ((rc = load_program(spec.command, layout_s, pos[0], &p)) >= 0)
        return rc;
    gsvm_error err;
    gsvm_patho_issue *issues;
    size_t n;
    gsvm_status st = gsvm_patho_verify(p, &issues, &n, &err);
    if (st != GSVM_OK) {
        gsvm_patho_free(p);
        return gsvm_cli_fail(&err);
    }
    for (size_t i = 0; i < n; i++) {
        const gsvm_patho_issue *is = &issues[i];
        if (is->insn >= 0)
            printf("%s: byte %lld: instruction 0x%lx (%s): %s\n", pos[0], is->offset, is->insn,
                   gsvm_patho_op_name(p->insns[is->insn].op), is->message);
        else
            printf("%s: %s\n", pos[0], is->message);
    }
    if (n)
        printf("%s: %zu problem%s\n", pos[0], n, n == 1 ? "" : "s");
    else if (!quiet)
        printf("%s: ok (%s layout, %u instructions)\n", pos[0], gsvm_patho_layout_name(p->layout),
               p->ninsns);
    free(issues);
    gsvm_patho_free(p);
    return n ? EXIT_INPUT : 0;
}

static int cmd_stats(int argc, char **argv)
{
    const char *layout_s = NULL;
    bool json = false;
    const gsvm_opt opts[] = {
        {"--layout", 0, OPT_STRING, &layout_s, "alpha|hd", "opcode numbering (default: detect)", NULL},
        {"--json", 0, OPT_FLAG, &json, NULL, "one JSON object per file instead of text", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho stats", "FILE.bin... [--json] [--layout alpha|hd]",
                                 "Figures about .bin scripts: sections, pool strings, functions, the "
                                 "deepest stack\nand how often each opcode occurs.",
                                 opts, 1, 4096};
    const char *pos[4096];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_layout layout;
    if ((rc = parse_layout(spec.command, layout_s, &layout)) >= 0)
        return rc;
    for (int f = 0; f < npos; f++) {
        gsvm_error err;
        gsvm_patho_program *p;
        if (gsvm_patho_load_file(pos[f], layout, &p, &err) != GSVM_OK)
            return gsvm_cli_fail(&err);
        gsvm_patho_stats s;
        gsvm_status st = gsvm_patho_stats_compute(p, &s, &err);
        gsvm_patho_layout lay = p->layout;
        gsvm_patho_free(p);
        if (st != GSVM_OK)
            return gsvm_cli_fail(&err);
        /* opcodes by count, most frequent first */
        unsigned order[128], nops = gsvm_patho_op_count();
        for (unsigned i = 0; i < nops; i++)
            order[i] = i;
        for (unsigned i = 1; i < nops; i++)
            for (unsigned j = i; j > 0 && s.op_counts[order[j]] > s.op_counts[order[j - 1]]; j--) {
                unsigned t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        if (json) {
            json_t *o = json_object(), *ops = json_object();
            json_object_set_new(o, "file", json_string(pos[f]));
            json_object_set_new(o, "layout", json_string(gsvm_patho_layout_name(lay)));
            json_object_set_new(o, "bytes", json_integer(s.file_size));
            json_object_set_new(o, "code_bytes", json_integer(s.code_bytes));
            json_object_set_new(o, "pool_bytes", json_integer(s.pool_bytes));
            json_object_set_new(o, "pool_strings_wide", json_integer(s.pool_strings_wide));
            json_object_set_new(o, "pool_strings_narrow", json_integer(s.pool_strings_narrow));
            json_object_set_new(o, "globals", json_integer(s.globals));
            json_object_set_new(o, "imports", json_integer(s.imports));
            json_object_set_new(o, "tasks", json_integer(s.tasks));
            json_object_set_new(o, "task_events", json_integer(s.task_events));
            json_object_set_new(o, "global_events", json_integer(s.global_events));
            json_object_set_new(o, "instructions", json_integer(s.instructions));
            json_object_set_new(o, "functions", json_integer(s.functions));
            json_object_set_new(o, "native_calls", json_integer(s.native_calls));
            json_object_set_new(o, "method_calls", json_integer(s.method_calls));
            json_object_set_new(o, "max_stack", json_integer(s.max_stack));
            for (unsigned i = 0; i < nops && s.op_counts[order[i]]; i++)
                json_object_set_new(ops, gsvm_patho_op_name(order[i]), json_integer(s.op_counts[order[i]]));
            json_object_set_new(o, "opcodes", ops);
            char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
            json_decref(o);
            if (!txt)
                return EXIT_INPUT;
            printf("%s\n", txt);
            free(txt);
            continue;
        }
        printf("file:           %s\n", pos[f]);
        printf("layout:         %s\n", gsvm_patho_layout_name(lay));
        printf("bytes:          %u (code %u, pool %u)\n", s.file_size, s.code_bytes, s.pool_bytes);
        printf("pool strings:   %u UTF-16, %u 8-bit\n", s.pool_strings_wide, s.pool_strings_narrow);
        printf("globals:        %u\n", s.globals);
        printf("imports:        %u\n", s.imports);
        printf("tasks:          %u (%u events)\n", s.tasks, s.task_events);
        printf("global events:  %u\n", s.global_events);
        printf("instructions:   %u\n", s.instructions);
        printf("functions:      %u\n", s.functions);
        printf("native calls:   %u Func, %u ObjFunc/TObjFunc\n", s.native_calls, s.method_calls);
        printf("max stack:      %u\n", s.max_stack);
        printf("opcodes:\n");
        for (unsigned i = 0; i < nops && s.op_counts[order[i]]; i++)
            printf("  %-14s %u\n", gsvm_patho_op_name(order[i]), s.op_counts[order[i]]);
        if (f + 1 < npos)
            printf("\n");
    }
    return 0;
}

static int cmd_cfg(int argc, char **argv)
{
    const char *layout_s = NULL, *out = NULL;
    uint64_t task = 0;
    bool task_seen = false;
    const gsvm_opt opts[] = {
        {"--task", 0, OPT_U64, &task, "N", "the task to draw (default: RunTask)", &task_seen},
        {"--output", 'o', OPT_STRING, &out, "FILE", "write the dot text to FILE (default stdout)", NULL},
        {"--layout", 0, OPT_STRING, &layout_s, "alpha|hd", "opcode numbering (default: detect)", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho cfg", "FILE.bin [--task N] [-o OUT.dot]",
                                 "The control-flow graph of one task as Graphviz dot: basic blocks "
                                 "reached from its\nevent handlers (and RunOp), calls dashed.  "
                                 "Render with: dot -Tsvg OUT.dot",
                                 opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_program *p;
    if ((rc = load_program(spec.command, layout_s, pos[0], &p)) >= 0)
        return rc;
    gsvm_error err;
    if (!task_seen)
        task = p->run_task;
    if (task >= p->ntasks) {
        fprintf(stderr, "%s: task %llu does not exist (%u tasks)\n", spec.command,
                (unsigned long long)task, p->ntasks);
        gsvm_patho_free(p);
        return EXIT_USAGE;
    }
    char *text;
    size_t len;
    gsvm_status st = gsvm_patho_cfg_dot(p, (uint32_t)task, &text, &len, &err);
    gsvm_patho_free(p);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    rc = gsvm_cli_write(out, text, len);
    free(text);
    return rc;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One file through load -> list -> asm -> save; 0 when the bytes match. */
static int roundtrip_one(const char *path, const gsvm_buf *bin, gsvm_patho_layout layout,
                         unsigned flags, bool quiet, double *t_load, double *t_list, double *t_asm)
{
    gsvm_error err;
    gsvm_patho_program *p, *q;
    double t0 = seconds();
    if (gsvm_patho_load(bin->data, bin->len, layout, path, &p, &err) != GSVM_OK)
        return quiet ? EXIT_INPUT : gsvm_cli_fail(&err);
    double t1 = seconds();
    char *text;
    size_t tlen;
    gsvm_status st = gsvm_patho_list(p, flags, &text, &tlen, &err);
    double t2 = seconds();
    gsvm_patho_layout lay = p->layout;
    gsvm_patho_free(p);
    if (st != GSVM_OK)
        return quiet ? EXIT_INPUT : gsvm_cli_fail(&err);
    st = gsvm_patho_asm(text, tlen, path, lay, &q, &err);
    free(text);
    if (st != GSVM_OK)
        return quiet ? EXIT_INPUT : gsvm_cli_fail(&err);
    uint8_t *out;
    size_t len;
    st = gsvm_patho_save(q, &out, &len, &err);
    gsvm_patho_free(q);
    double t3 = seconds();
    if (st != GSVM_OK)
        return quiet ? EXIT_INPUT : gsvm_cli_fail(&err);
    int same = len == bin->len && memcmp(out, bin->data, len) == 0;
    free(out);
    if (!same && !quiet)
        printf("%s: differs after list -> asm\n", path);
    *t_load += t1 - t0;
    *t_list += t2 - t1;
    *t_asm += t3 - t2;
    return same ? 0 : EXIT_INPUT;
}

static int cmd_roundtrip(int argc, char **argv)
{
    const char *layout_s = NULL;
    uint64_t repeat = 1;
    bool timing = false, compact = false;
    const gsvm_opt opts[] = {
        {"--layout", 0, OPT_STRING, &layout_s, "alpha|hd", "opcode numbering (default: detect)", NULL},
        {"--compact", 0, OPT_FLAG, &compact, NULL, "go through the listing without comment columns", NULL},
        {"--repeat", 0, OPT_U64, &repeat, "N", "go through the files N times (for timing)", NULL},
        {"--timing", 0, OPT_FLAG, &timing, NULL, "print the in-process time of each phase", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho roundtrip", "FILE.bin... [--repeat N] [--timing]",
                                 "Check that every file survives load -> list -> asm -> save byte for "
                                 "byte.\nPrints one line per file that differs and a summary; exit 1 "
                                 "if any differs.",
                                 opts, 1, 65536};
    static const char *pos[65536];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_patho_layout layout;
    if ((rc = parse_layout(spec.command, layout_s, &layout)) >= 0)
        return rc;
    if (repeat == 0 || repeat > 1000000) {
        fprintf(stderr, "%s: --repeat must be 1 to 1000000\n", spec.command);
        return EXIT_USAGE;
    }
    gsvm_buf *bins = calloc((size_t)npos, sizeof *bins);
    if (!bins)
        return EXIT_INPUT;
    size_t bytes = 0;
    int bad = 0;
    for (int f = 0; f < npos; f++) {
        gsvm_error err;
        if (gsvm_file_read(pos[f], &bins[f], &err) != GSVM_OK) {
            for (int k = 0; k < f; k++)
                gsvm_buf_free(&bins[k]);
            free(bins);
            return gsvm_cli_fail(&err);
        }
        bytes += bins[f].len;
    }
    double t_load = 0, t_list = 0, t_asm = 0;
    for (uint64_t r = 0; r < repeat; r++)
        for (int f = 0; f < npos; f++) {
            rc = roundtrip_one(pos[f], &bins[f], layout, compact ? GSVM_PATHO_LIST_COMPACT : 0, r > 0,
                               &t_load, &t_list, &t_asm);
            if (rc != 0 && r == 0)
                bad++;
        }
    for (int f = 0; f < npos; f++)
        gsvm_buf_free(&bins[f]);
    free(bins);
    printf("%d file%s, %zu bytes: %d identical, %d not\n", npos, npos == 1 ? "" : "s", bytes,
           npos - bad, bad);
    if (timing) {
        double mb = (double)bytes * (double)repeat / 1e6, total = t_load + t_list + t_asm;
        printf("timing: load %.6f s, list %.6f s, asm+save %.6f s, total %.6f s for %.3f MB = %.1f MB/s\n",
               t_load, t_list, t_asm, total, mb, total > 0 ? mb / total : 0.0);
    }
    return bad ? EXIT_INPUT : 0;
}

/* How each operand letter of isa.def is written in a listing. */
static const char *operand_syntax(char c)
{
    switch (c) {
    case 'v': return "sN";
    case 't': return "tN";
    case 'm': case 'a': return "sN|tN";
    case 'f': case 'h': return "pop=N";
    case 'T': return "[mode=N]";
    case 'b': return "B";
    case 'i': return "INT";
    case 'x': return "I8";
    case 'r': return "FLOAT";
    case 's': return "@OFF \"text\"";
    case 'n': return "@OFF \"name\"";
    case 'j': return "LABEL";
    case 'p': return "N";
    case 'g': return "gN";
    case 'k': return "TASK";
    case 'E': return "EVENT";
    case 'F': return "Name(args)";
    case 'R': return "(args)";
    case 'L': return "(types)";
    case 'P': return "[pad=N]";
    case 'Q': return "[keep]";
    case 'G': return "[keep]";
    default: return "?";
    }
}

static int cmd_isa(int argc, char **argv)
{
    bool markdown = false;
    const gsvm_opt opts[] = {
        {"--markdown", 0, OPT_FLAG, &markdown, NULL, "a Markdown table", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {"gsvm patho isa", "[--markdown]",
                                 "The instruction set (src/patho/isa.def): opcode numbers in both "
                                 "layouts, operands as a\nlisting writes them, and what each "
                                 "instruction does.",
                                 opts, 0, 0};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    if (markdown)
        printf("| op | alpha | hd | operands | meaning |\n|---|---|---|---|---|\n");
    for (unsigned op = 0; op < gsvm_patho_op_count(); op++) {
        char operands[160] = "";
        size_t n = 0;
        const char *letters = gsvm_patho_op_operands(op);
        for (unsigned k = 0; letters[k] && n < sizeof operands - 40; k++)
            n += (size_t)snprintf(operands + n, sizeof operands - n, "%s%s", k ? ", " : "",
                                  operand_syntax(letters[k]));
        int a = gsvm_patho_op_code(op, GSVM_PATHO_LAYOUT_ALPHA), h = gsvm_patho_op_code(op, GSVM_PATHO_LAYOUT_HD);
        char as[8], hs[8];
        snprintf(as, sizeof as, a < 0 ? "-" : "%02X", a);
        snprintf(hs, sizeof hs, "%02X", h);
        if (markdown)
            printf("| %s | %s | %s | `%s` | %s |\n", gsvm_patho_op_name(op), as, hs, operands,
                   gsvm_patho_op_meaning(op));
        else
            printf("%-13s %-3s %-3s %-36s %s\n", gsvm_patho_op_name(op), as, hs, operands,
                   gsvm_patho_op_meaning(op));
    }
    return 0;
}

static const gsvm_verb verbs[] = {
    {"list", cmd_list, "print a lossless listing of a .bin script"},
    {"asm", cmd_asm, "assemble a listing (ours or pathologic_re's) into a .bin"},
    {"verify", cmd_verify, "check operand ranges and stack depth; exit 1 listing each violation"},
    {"roundtrip", cmd_roundtrip, "check files survive load -> list -> asm byte for byte (and time it)"},
    {"stats", cmd_stats, "figures: sections, strings, functions, max stack, opcode counts"},
    {"cfg", cmd_cfg, "control-flow graph of a task as Graphviz dot"},
    {"isa", cmd_isa, "the instruction set: opcodes in both layouts, operand syntax, meaning"},
    {"run", gsvm_cli_patho_run, "run a script from RunTask/RunOp with a JSON Lines host"},
    {NULL, NULL, NULL},
};

int gsvm_cli_patho(int argc, char **argv)
{
    return gsvm_cli_dispatch("patho", "Pathologic .bin scripts: list, assemble, verify, run", verbs,
                             argc, argv);
}
