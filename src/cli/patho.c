/* gsvm patho: the verb table.  Argument parsing and printing only; the work
 * is in src/patho/.  `run` lives in patho_run.c (the VM's CLI host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/engines.h"
#include "cli/verb.h"
#include "gsvm/patho.h"

#include "cli/patho_cli.h"

#define LAYOUT_OPT {"--layout", 0, OPT_STRING, "alpha|hd", "opcode numbering (default: detect)"}

int patho_layout_of(const gsvm_cli_call *c, gsvm_patho_layout *out)
{
    *out = GSVM_PATHO_LAYOUT_AUTO;
    const char *s = gsvm_cli_str(c, "--layout", NULL);
    if (s && !gsvm_patho_layout_parse(s, out))
        return gsvm_cli_bad_value(c, "unknown layout '%s' (alpha or hd)", s);
    return 0;
}

/* The --layout option and one .bin file, loaded: 0 when `*out` holds the
 * program, else the exit code (the problem already printed). */
static int load_program(const gsvm_cli_call *c, const char *path, gsvm_patho_program **out)
{
    gsvm_patho_layout layout;
    int rc = patho_layout_of(c, &layout);
    if (rc)
        return rc;
    gsvm_error err;
    if (gsvm_patho_load_file(path, layout, out, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    return 0;
}

static const gsvm_cli_opt list_opts[] = {
    LAYOUT_OPT,
    {"--output", 'o', OPT_STRING, "FILE", "write the listing to FILE (default stdout)"},
    {"--compact", 0, OPT_FLAG, NULL,
     "no comment columns (indices, offsets): listings of two versions diff cleanly"},
    {NULL, 0, 0, NULL, NULL},
};

/* A verb that loads one .bin (its --layout) and writes text made from it to
 * --output (stdout when absent).  `make` returns 0 with the text, or the exit
 * code after saying what is wrong. */
static int program_text(const gsvm_cli_call *c,
                        int (*make)(const gsvm_cli_call *c, const gsvm_patho_program *p,
                                    char **text, size_t *len))
{
    gsvm_patho_program *p;
    int rc = load_program(c, c->pos[0], &p);
    if (rc)
        return rc;
    char *text = NULL;
    size_t len = 0;
    rc = make(c, p, &text, &len);
    gsvm_patho_free(p);
    if (rc)
        return rc;
    rc = gsvm_cli_write(gsvm_cli_str(c, "--output", NULL), text, len);
    free(text);
    return rc;
}

static int list_text(const gsvm_cli_call *c, const gsvm_patho_program *p, char **text, size_t *len)
{
    gsvm_error err;
    unsigned flags = gsvm_cli_flag(c, "--compact") ? GSVM_PATHO_LIST_COMPACT : 0;
    return gsvm_patho_list(p, flags, text, len, &err) == GSVM_OK ? 0 : gsvm_cli_fail(&err);
}

static int cmd_list(const gsvm_cli_call *c)
{
    return program_text(c, list_text);
}

static void print_warning(void *user, const gsvm_error *w)
{
    (void)user;
    fprintf(stderr, "%s:%ld:%ld: warning: %s\n", w->file, w->line, w->column, w->message);
}

static const gsvm_cli_opt asm_opts[] = {
    {"--output", 'o', OPT_STRING, "FILE", "write the .bin to FILE (default stdout)"},
    {"--layout", 0, OPT_STRING, "alpha|hd",
     "opcode numbering (default: what the listing says, else hd)"},
    {"--from", 0, OPT_STRING, "SYNTAX",
     "listing syntax: gsvm (default) or pathologic_re (the community disassembler)"},
    {"--strict", 0, OPT_FLAG, NULL,
     "pathologic_re: refuse a listing that lost fields (release 2) instead of warning"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_asm(const gsvm_cli_call *c)
{
    gsvm_patho_layout layout;
    int rc = patho_layout_of(c, &layout);
    if (rc)
        return rc;
    const char *from = gsvm_cli_str(c, "--from", "gsvm");
    bool re = strcmp(from, "pathologic_re") == 0;
    if (!re && strcmp(from, "gsvm") != 0)
        return gsvm_cli_bad_value(c, "unknown syntax '%s' (gsvm or pathologic_re)", from);
    gsvm_buf text;
    if ((rc = gsvm_cli_read(c->pos[0], &text)))
        return rc;
    gsvm_error err;
    gsvm_patho_program *p;
    gsvm_patho_import_opts io = {layout, gsvm_cli_flag(c, "--strict"), print_warning, NULL};
    const char *name = c->pos[0];
    gsvm_status st = re ? gsvm_patho_import_re_opts((const char *)text.data, text.len, name, &io, &p, &err)
                        : gsvm_patho_asm((const char *)text.data, text.len, name, layout, &p, &err);
    gsvm_buf_free(&text);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    uint8_t *data;
    size_t len;
    st = gsvm_patho_save(p, &data, &len, &err);
    gsvm_patho_free(p);
    return gsvm_cli_output(c, st, &err, data, len);
}

static const gsvm_cli_opt verify_opts[] = {
    LAYOUT_OPT,
    {"--quiet", 'q', OPT_FLAG, NULL, "print nothing when the script is clean"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_verify(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    bool quiet = gsvm_cli_flag(c, "--quiet");
    gsvm_patho_program *p;
    int rc = load_program(c, pos[0], &p);
    if (rc)
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

static const gsvm_cli_opt stats_opts[] = {
    LAYOUT_OPT,
    {"--json", 0, OPT_FLAG, NULL, "one JSON object per file instead of text"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_stats(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    int npos = c->npos;
    bool json = gsvm_cli_flag(c, "--json");
    gsvm_patho_layout layout;
    int rc = patho_layout_of(c, &layout);
    if (rc)
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

static const gsvm_cli_opt cfg_opts[] = {
    {"--task", 0, OPT_U64, "N", "the task to draw (default: RunTask)"},
    {"--output", 'o', OPT_STRING, "FILE", "write the dot text to FILE (default stdout)"},
    LAYOUT_OPT,
    {NULL, 0, 0, NULL, NULL},
};

static int cfg_text(const gsvm_cli_call *c, const gsvm_patho_program *p, char **text, size_t *len)
{
    uint64_t task = gsvm_cli_u64(c, "--task", p->run_task);
    if (task >= p->ntasks)
        return gsvm_cli_bad_value(c, "task %llu does not exist (%u tasks)", (unsigned long long)task,
                                  p->ntasks);
    gsvm_error err;
    return gsvm_patho_cfg_dot(p, (uint32_t)task, text, len, &err) == GSVM_OK ? 0
                                                                            : gsvm_cli_fail(&err);
}

static int cmd_cfg(const gsvm_cli_call *c)
{
    return program_text(c, cfg_text);
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

static const gsvm_cli_opt roundtrip_opts[] = {
    LAYOUT_OPT,
    {"--compact", 0, OPT_FLAG, NULL, "go through the listing without comment columns"},
    {"--repeat", 0, OPT_U64, "N", "go through the files N times (for timing)"},
    {"--timing", 0, OPT_FLAG, NULL, "print the in-process time of each phase"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_roundtrip(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    int npos = c->npos;
    uint64_t repeat = gsvm_cli_u64(c, "--repeat", 1);
    bool timing = gsvm_cli_flag(c, "--timing"), compact = gsvm_cli_flag(c, "--compact");
    gsvm_patho_layout layout;
    int rc = patho_layout_of(c, &layout);
    if (rc)
        return rc;
    if (repeat == 0 || repeat > 1000000)
        return gsvm_cli_bad_value(c, "--repeat must be 1 to 1000000");
    gsvm_buf *bins = calloc((size_t)npos, sizeof *bins);
    if (!bins)
        return EXIT_INPUT;
    size_t bytes = 0;
    int bad = 0;
    for (int f = 0; f < npos; f++) {
        if ((rc = gsvm_cli_read(pos[f], &bins[f]))) {
            for (int k = 0; k < f; k++)
                gsvm_buf_free(&bins[k]);
            free(bins);
            return rc;
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

static const gsvm_cli_opt isa_opts[] = {
    {"--markdown", 0, OPT_FLAG, NULL, "a Markdown table"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_isa(const gsvm_cli_call *c)
{
    bool markdown = gsvm_cli_flag(c, "--markdown");
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

static const gsvm_cli_verb verbs[] = {
    {"list", "print a lossless listing of a .bin script", "FILE.bin [--layout alpha|hd] [-o OUT]",
     "Print a lossless, readable listing of a .bin script: pool strings with offsets,\n"
     "imports, tasks, events and code with addressing modes and labels.\n"
     "`gsvm patho asm` turns it back into the same bytes.",
     list_opts, 1, 1, cmd_list},
    {"asm", "assemble a listing (ours or pathologic_re's) into a .bin",
     "LISTING [-o FILE.bin] [--layout alpha|hd] [--from pathologic_re [--strict]]",
     "Assemble a listing into a .bin script.  A listing printed by `gsvm patho list` comes\n"
     "back byte for byte; --from pathologic_re reads the community's .asm listings.",
     asm_opts, 1, 1, cmd_asm},
    {"verify", "check operand ranges and stack depth; exit 1 listing each violation",
     "FILE.bin [--layout alpha|hd]",
     "Check a .bin script: operand ranges (pool offsets on strings of the right width,\n"
     "imports, tasks, globals, targets, types) and the stack depth along every path.\n"
     "Exit 1 listing each violation.",
     verify_opts, 1, 1, cmd_verify},
    {"roundtrip", "check files survive load -> list -> asm byte for byte (and time it)",
     "FILE.bin... [--repeat N] [--timing]",
     "Check that every file survives load -> list -> asm -> save byte for byte.\n"
     "Prints one line per file that differs and a summary; exit 1 if any differs.",
     roundtrip_opts, 1, 65536, cmd_roundtrip},
    {"stats", "figures: sections, strings, functions, max stack, opcode counts",
     "FILE.bin... [--json] [--layout alpha|hd]",
     "Figures about .bin scripts: sections, pool strings, functions, the deepest stack\n"
     "and how often each opcode occurs.",
     stats_opts, 1, 4096, cmd_stats},
    {"cfg", "control-flow graph of a task as Graphviz dot", "FILE.bin [--task N] [-o OUT.dot]",
     "The control-flow graph of one task as Graphviz dot: basic blocks reached from its\n"
     "event handlers (and RunOp), calls dashed.  Render with: dot -Tsvg OUT.dot",
     cfg_opts, 1, 1, cmd_cfg},
    {"isa", "the instruction set: opcodes in both layouts, operand syntax, meaning", "[--markdown]",
     "The instruction set (src/patho/isa.def): opcode numbers in both layouts, operands as a\n"
     "listing writes them, and what each instruction does.",
     isa_opts, 0, 0, cmd_isa},
    {"run", "run a script from RunTask/RunOp with a JSON Lines host",
     "FILE.bin [--layout alpha|hd] [--events EVENTS.jsonl] [--natives NATIVES.json]\n"
     "       [--frame-instructions N] [--max-instructions N] [-o FILE]\n"
     "       [--save-state STATE] [--resume STATE]",
     "Runs a script from RunTask at RunOp, frame by frame, against a JSON Lines timeline.\n"
     "Every native it imports must be declared (built in, or --natives); every call prints\n"
     "{\"host\":NAME,\"args\":[...]}.  Latent natives wait as declared: Sleep(t) on\n"
     "simulation time ({\"advance_ms\":N} advances it and runs a frame), Hold() until the\n"
     "script calls StopGroup0(), sync() for the next frame, WaitForAnimEnd until\n"
     "{\"anim_end\":true}; {\"event\":ID,\"args\":[...]} sends an event and runs its\n"
     "handler at once.  A script error prints {\"fault\":MESSAGE,\"op\":N} (exit 3); an\n"
     "instruction cap prints {\"stopped\":\"instruction limit\"} (exit 4).",
     patho_run_opts, 1, 1, patho_run_body},
    {NULL, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

static const gsvm_cli_engine engine = {"patho", "Pathologic .bin scripts: list, assemble, verify, run",
                                       verbs};

int gsvm_cli_patho(int argc, char **argv)
{
    return gsvm_cli_engine_main(&engine, argc, argv);
}
