/* gsvm lsl: compile, list and run Falcon programs (argument parsing and
 * printing only; the engine is in src/lsl/). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/jsonl.h"
#include "cli/args.h"
#include "cli/engines.h"
#include "cli/lsl_cli.h"
#include "gsvm/lsl.h"

/* A program of either ABI. */
typedef struct any_prog {
    gsvm_lsl_program *p2;
    gsvm_lsl3_program *p3;
} any_prog;

static void any_free(any_prog *a)
{
    gsvm_lsl_program_free(a->p2);
    gsvm_lsl3_program_free(a->p3);
    a->p2 = NULL;
    a->p3 = NULL;
}

/* Reads FILE (or "-") and turns it into a program: a .fpc (ABI 2, magic
 * HWZP) or an ABI-3 program file (magic HWZ3) is loaded; anything else is
 * compiled as LSL source.  `abi` 0 picks ABI 2 when the script fits its
 * slice and ABI 3 otherwise (both through the cache when `cache_dir` is not
 * NULL); 2 or 3 forces one (a program file must then be of that ABI). */
static gsvm_status load_any_why(const char *path, const char *cache_dir, int abi, any_prog *out,
                                char *why, size_t why_size, gsvm_error *err)
{
    out->p2 = NULL;
    out->p3 = NULL;
    gsvm_buf bytes;
    gsvm_status st = gsvm_file_read(path, &bytes, err);
    if (st != GSVM_OK)
        return st;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (gsvm_lsl_is_program_file(bytes.data, bytes.len)) {
        st = abi == 3 ? gsvm_error_set(err, GSVM_ERR_INPUT, name, "an ABI-2 program, not ABI 3")
                      : gsvm_lsl_program_load(bytes.data, bytes.len, name, &out->p2, err);
    } else if (gsvm_lsl3_is_program_file(bytes.data, bytes.len)) {
        st = abi == 2 ? gsvm_error_set(err, GSVM_ERR_INPUT, name, "an ABI-3 program, not ABI 2")
                      : gsvm_lsl3_program_load(bytes.data, bytes.len, name, &out->p3, err);
    } else {
        const char *src = bytes.data ? (const char *)bytes.data : "";
        if (abi != 3)
            st = gsvm_lsl_compile_cached(src, bytes.len, name, cache_dir, &out->p2, NULL, err);
        if (abi == 3 || (abi == 0 && st != GSVM_OK && st != GSVM_ERR_NOMEM && st != GSVM_ERR_IO)) {
            /* not in the ABI-2 slice: the whole language (its diagnostic wins) */
            if (why && abi == 0)
                snprintf(why, why_size, "%ld:%ld: %s", err->line, err->column, err->message);
            gsvm_error_clear(err);
            st = gsvm_lsl3_compile_cached(src, bytes.len, name, cache_dir, &out->p3, NULL, err);
        }
    }
    gsvm_buf_free(&bytes);
    return st;
}

static gsvm_status load_any(const char *path, const char *cache_dir, int abi, any_prog *out,
                            gsvm_error *err)
{
    return load_any_why(path, cache_dir, abi, out, NULL, 0, err);
}

static bool parse_abi(const char *verb, uint64_t abi, bool has)
{
    if (has && abi != 2 && abi != 3) {
        fprintf(stderr, "gsvm lsl %s: --abi must be 2 or 3\n", verb);
        return false;
    }
    return true;
}

static FILE *open_output(const char *path, gsvm_error *err)
{
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        gsvm_error_set(err, GSVM_ERR_IO, path, "cannot create the output file");
    return f;
}

/* ---- compile ------------------------------------------------------------------ */

static int cmd_compile(int argc, char **argv)
{
    const char *out_path = NULL;
    uint64_t abi = 0;
    bool has_abi = false;
    const gsvm_opt opts[] = {
        {"--output", 'o', OPT_STRING, &out_path, "OUT.fpc", "write the program here (default stdout)", NULL},
        {"--abi", 0, OPT_U64, &abi, "2|3", "force the ABI (default: 2 when the script fits its slice, else 3)", &has_abi},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm lsl compile", "FILE.lsl [-o OUT.fpc] [--abi 2|3]",
        "Compiles LSL source to a Falcon program file: ABI 2 (.fpc, magic HWZP) when the\n"
        "script fits the ABI-2 slice, else ABI 3 (the whole language, magic HWZ3).\n"
        "Diagnostics are FILE:LINE:COL: error: MESSAGE and exit 1.",
        opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    if ((!out_path || strcmp(out_path, "-") == 0) && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "gsvm lsl compile: refusing to write a binary program to a terminal; use -o OUT.fpc\n");
        return EXIT_USAGE;
    }
    if (!parse_abi("compile", abi, has_abi))
        return EXIT_USAGE;
    gsvm_error err;
    gsvm_error_clear(&err);
    any_prog prog;
    char why[sizeof err.message + 48] = "";
    if (load_any_why(pos[0], NULL, (int)abi, &prog, why, sizeof why, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    /* say which ABI the program is, and why not ABI 2 when it was picked */
    const char *name = strcmp(pos[0], "-") == 0 ? "<stdin>" : pos[0];
    if (prog.p2)
        fprintf(stderr, "%s: ABI 2\n", name);
    else if (why[0])
        fprintf(stderr, "%s: ABI 3 (ABI 2: %s)\n", name, why);
    else
        fprintf(stderr, "%s: ABI 3\n", name);
    uint8_t *data;
    size_t len;
    gsvm_status st = prog.p2 ? gsvm_lsl_program_save(prog.p2, &data, &len, &err)
                             : gsvm_lsl3_program_save(prog.p3, &data, &len, &err);
    any_free(&prog);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    rc = gsvm_cli_write(out_path, data, len);
    free(data);
    return rc;
}

/* ---- list ---------------------------------------------------------------------- */

static int cmd_list(int argc, char **argv)
{
    const char *out_path = NULL;
    const gsvm_opt opts[] = {
        {"--output", 'o', OPT_STRING, &out_path, "FILE", "write the listing here (default stdout)", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm lsl list", "FILE.lsl|FILE.fpc [-o FILE]",
        "Prints a program's constants, host functions, globals, events and code.", opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    any_prog prog;
    if (load_any(pos[0], NULL, 0, &prog, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    char *text;
    gsvm_status st = prog.p2 ? gsvm_lsl_program_list(prog.p2, &text, &err)
                             : gsvm_lsl3_program_list(prog.p3, &text, &err);
    any_free(&prog);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    rc = gsvm_cli_write(out_path, text, strlen(text));
    free(text);
    return rc;
}

/* ---- verify ---------------------------------------------------------------------- */

static int cmd_verify(int argc, char **argv)
{
    const gsvm_opt opts[] = {{NULL, 0, 0, NULL, NULL, NULL, NULL}};
    const gsvm_verb_spec spec = {
        "gsvm lsl verify", "FILE.lsl|FILE.fpc",
        "Checks statically that a program cannot fault: consistent stack depths, typed\n"
        "operands, operands inside the tables, ABI-2 host calls, every path ending in Halt.",
        opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    any_prog prog;
    if (load_any(pos[0], NULL, 0, &prog, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    /* ABI 3 programs are verified (types and stack shapes) whenever they are built or loaded */
    gsvm_status st = prog.p2 ? gsvm_lsl_program_verify(prog.p2, &err) : GSVM_OK;
    size_t n = prog.p2 ? gsvm_lsl_program_code_size(prog.p2) : gsvm_lsl3_program_code_size(prog.p3);
    any_free(&prog);
    if (st != GSVM_OK) {
        snprintf(err.file, sizeof err.file, "%s", pos[0]);
        return gsvm_cli_fail(&err);
    }
    printf("%s: verified (%zu instructions)\n", pos[0], n);
    return 0;
}

/* ---- isa ------------------------------------------------------------------------ */

static int cmd_isa(int argc, char **argv)
{
    uint64_t abi = 2;
    bool has_abi = false;
    const gsvm_opt opts[] = {
        {"--abi", 0, OPT_U64, &abi, "2|3", "which instruction set (default 2)", &has_abi},
        {NULL, 0, 0, NULL, NULL, NULL, NULL}};
    const gsvm_verb_spec spec = {"gsvm lsl isa", "[--abi 2|3]",
                                 "Prints the Falcon instruction set (ABI 2, or 3) as a Markdown table.",
                                 opts, 0, 0};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    if (!parse_abi("isa", abi, has_abi))
        return EXIT_USAGE;
    gsvm_error err;
    char *text;
    if ((abi == 3 ? gsvm_lsl3_isa_table(&text, &err) : gsvm_lsl_isa_table(&text, &err)) != GSVM_OK)
        return gsvm_cli_fail(&err);
    fputs(text, stdout);
    free(text);
    return 0;
}

/* ---- run ------------------------------------------------------------------------- */

/* A JSON string for script bytes; invalid UTF-8 (only possible from a
 * crafted program) becomes U+FFFD rather than a missing line. */
static json_t *json_text(const char *s, size_t len)
{
    json_t *j = json_stringn(s, len);
    if (j)
        return j;
    gsvm_buf b;
    gsvm_buf_init(&b);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80)
            gsvm_buf_putc(&b, c);
        else
            gsvm_buf_puts(&b, "\xEF\xBF\xBD");
    }
    j = json_stringn(b.data ? (const char *)b.data : "", b.len);
    gsvm_buf_free(&b);
    return j;
}

typedef struct run_ctx {
    FILE *out;
} run_ctx;

/* The test boundary: every call prints {"host":NAME,"args":[...]}; the two
 * ABI-2 host functions are void. */
static gsvm_status host_call(void *user, const char *name, const gsvm_lsl_hostval *args,
                             size_t argc, gsvm_lsl_hostval *result, bool *has_result,
                             gsvm_error *err)
{
    run_ctx *ctx = user;
    bool say = strcmp(name, "llSay") == 0, owner = strcmp(name, "llOwnerSay") == 0;
    if (!say && !owner)
        return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "no such host function");
    if ((say && (argc != 2 || args[0].type != GSVM_LSL_INTEGER || args[1].type != GSVM_LSL_STRING)) ||
        (owner && (argc != 1 || args[0].type != GSVM_LSL_STRING)))
        return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "expects %s",
                              say ? "(integer channel, string text)" : "(string text)");
    json_t *line = json_object(), *list = json_array();
    for (size_t i = 0; i < argc; i++)
        json_array_append_new(list, args[i].type == GSVM_LSL_INTEGER
                                        ? json_integer(args[i].integer)
                                        : json_text(args[i].str, args[i].len));
    json_object_set_new(line, "host", json_string(name));
    json_object_set_new(line, "args", list);
    gsvm_jsonl_emit(ctx->out, line);
    (void)result;
    *has_result = false;
    return GSVM_OK;
}

/* One line of the events file. */
typedef struct event_line {
    long line;
    char *name;
    gsvm_lsl_hostval args[16];
    size_t argc;
    json_t *json; /* owns the argument strings */
} event_line;

static void free_events(event_line *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ev[i].name);
        json_decref(ev[i].json);
    }
    free(ev);
}

/* Reads the events file: one {"event": NAME, "args": [...]} per line
 * ({"advance_ms": N} lines are accepted and ignored: ABI 2 has no timers).
 * Every line is checked before anything runs. */
static gsvm_status load_events(const char *path, const gsvm_lsl_program *prog, event_line **out,
                               size_t *n, gsvm_error *err)
{
    json_t *all = NULL;
    long *lines = NULL;
    *out = NULL;
    *n = 0;
    gsvm_status st = gsvm_jsonl_load_lines(path, &all, &lines, err);
    if (st != GSVM_OK)
        return st;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    size_t cap = 0;
    event_line *ev = NULL;
    for (size_t k = 0; k < json_array_size(all) && st == GSVM_OK; k++) {
        long lineno = lines[k];
        json_t *obj = json_incref(json_array_get(all, k));
        json_t *jname = json_object_get(obj, "event"), *jargs = json_object_get(obj, "args");
        if (!jname && json_object_get(obj, "advance_ms")) {
            json_decref(obj);
            continue;
        }
        const char *problem = NULL;
        if (!json_is_string(jname))
            problem = "expected {\"event\": NAME, \"args\": [...]}";
        else if (jargs && !json_is_array(jargs))
            problem = "\"args\" must be an array";
        else if (json_array_size(jargs) > 16)
            problem = "too many arguments";
        else if (!gsvm_lsl_program_has_event(prog, json_string_value(jname))) {
            st = gsvm_error_at_line(err, GSVM_ERR_INPUT, name, lineno, 1,
                                    "the script has no '%s' handler", json_string_value(jname));
            json_decref(obj);
            break;
        }
        if (!problem && cap == *n) {
            cap = cap ? cap * 2 : 16;
            event_line *ne = realloc(ev, cap * sizeof *ev);
            if (!ne) {
                json_decref(obj);
                st = gsvm_error_set(err, GSVM_ERR_NOMEM, name, "out of memory");
                break;
            }
            ev = ne;
        }
        event_line *e = problem ? NULL : &ev[*n];
        for (size_t i = 0; !problem && i < json_array_size(jargs); i++) {
            json_t *a = json_array_get(jargs, i);
            if (json_is_integer(a) && json_integer_value(a) >= INT32_MIN &&
                json_integer_value(a) <= INT32_MAX)
                e->args[i] = (gsvm_lsl_hostval){GSVM_LSL_INTEGER, (int32_t)json_integer_value(a), NULL, 0};
            else if (json_is_string(a))
                e->args[i] = (gsvm_lsl_hostval){GSVM_LSL_STRING, 0, json_string_value(a),
                                                json_string_length(a)};
            else
                problem = json_is_integer(a) ? "an integer argument does not fit in 32 bits"
                                             : "arguments must be integers or strings in ABI 2";
        }
        char buf[sizeof err->message];
        if (!problem) {
            /* the arguments against the handler's signature, in a VM of its own */
            gsvm_lsl_vm *probe;
            if (gsvm_lsl_vm_new(prog, &probe, err) != GSVM_OK) {
                json_decref(obj);
                st = err->status;
                break;
            }
            gsvm_error e2;
            gsvm_error_clear(&e2);
            if (gsvm_lsl_vm_dispatch(probe, json_string_value(jname), e->args,
                                     json_array_size(jargs), &e2) != GSVM_OK) {
                snprintf(buf, sizeof buf, "%s", e2.message);
                problem = buf;
            }
            gsvm_lsl_vm_free(probe);
        }
        if (problem) {
            json_decref(obj);
            st = gsvm_error_at_line(err, GSVM_ERR_INPUT, name, lineno, 1, "%s", problem);
            break;
        }
        e->line = lineno;
        e->name = strdup(json_string_value(jname));
        e->argc = json_array_size(jargs);
        e->json = obj;
        (*n)++;
        if (!e->name)
            st = gsvm_error_set(err, GSVM_ERR_NOMEM, name, "out of memory");
    }
    json_decref(all);
    free(lines);
    if (st != GSVM_OK) {
        free_events(ev, *n);
        *n = 0;
        return st;
    }
    *out = ev;
    return GSVM_OK;
}

typedef struct run_opts {
    uint64_t budget, max_instructions, snapshot_at;
    bool has_max, has_snapshot_at;
    const char *snapshot_out;
} run_opts;

enum { DRIVE_DONE = -1 };

static int write_snapshot(const gsvm_lsl_vm *vm, const char *path)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    uint8_t *data;
    size_t len;
    if (gsvm_lsl_vm_snapshot(vm, &data, &len, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    int rc = gsvm_cli_write(path, data, len);
    free(data);
    return rc;
}

/* Runs the current handler to its end in slices of `budget` instructions.
 * Returns DRIVE_DONE when it finished, else the exit code to return now
 * (fault 3, limit 4, or 0 after writing the --snapshot-at snapshot).
 * Slices never step past the snapshot point or the limit. */
static int drive(gsvm_lsl_vm *vm, const run_opts *o, FILE *out)
{
    for (;;) {
        uint64_t total = gsvm_lsl_vm_total(vm);
        if (o->has_snapshot_at && total >= o->snapshot_at)
            return write_snapshot(vm, o->snapshot_out);
        if (gsvm_lsl_vm_finished(vm))
            return DRIVE_DONE;
        if (o->has_max && total >= o->max_instructions) {
            json_t *line = json_object();
            json_object_set_new(line, "stopped", json_string("instruction limit"));
            json_object_set_new(line, "executed", json_integer((json_int_t)total));
            gsvm_jsonl_emit(out, line);
            return EXIT_LIMIT;
        }
        uint64_t slice = o->budget;
        if (o->has_snapshot_at && o->snapshot_at - total < slice)
            slice = o->snapshot_at - total;
        if (o->has_max && o->max_instructions - total < slice)
            slice = o->max_instructions - total;
        if (gsvm_lsl_vm_run(vm, slice) == GSVM_LSL_ERROR) {
            json_t *line = json_object();
            json_object_set_new(line, "fault", json_string(gsvm_lsl_vm_fault(vm)));
            json_object_set_new(line, "ip", json_integer((json_int_t)gsvm_lsl_vm_fault_ip(vm)));
            gsvm_jsonl_emit(out, line);
            return EXIT_FAULT;
        }
    }
}

static int run_program(gsvm_lsl_program *prog, const event_line *events, size_t nevents,
                       const char *resume, const char *events_name, const run_opts *o, FILE *out)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_vm *vm;
    if (gsvm_lsl_vm_new(prog, &vm, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    run_ctx ctx = {out};
    gsvm_lsl_vm_set_host(vm, host_call, &ctx);
    int rc = DRIVE_DONE;
    if (resume) {
        gsvm_buf snap;
        if (gsvm_file_read(resume, &snap, &err) != GSVM_OK) {
            rc = gsvm_cli_fail(&err);
        } else {
            if (gsvm_lsl_vm_restore(vm, snap.data, snap.len, resume, &err) != GSVM_OK)
                rc = gsvm_cli_fail(&err);
            gsvm_buf_free(&snap);
        }
    } else if (gsvm_lsl_program_has_event(prog, "state_entry")) {
        if (gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err) != GSVM_OK)
            rc = gsvm_cli_fail(&err);
    }
    if (rc == DRIVE_DONE)
        rc = drive(vm, o, out);
    for (size_t i = 0; rc == DRIVE_DONE && i < nevents; i++) {
        if (gsvm_lsl_vm_dispatch(vm, events[i].name, events[i].args, events[i].argc, &err) !=
            GSVM_OK) {
            snprintf(err.file, sizeof err.file, "%s", events_name);
            err.line = events[i].line;
            err.column = 1;
            rc = gsvm_cli_fail(&err);
            break;
        }
        rc = drive(vm, o, out);
    }
    if (rc == DRIVE_DONE) {
        rc = 0;
        if (o->has_snapshot_at)
            fprintf(stderr,
                    "gsvm lsl run: the run ended after %" PRIu64 " instructions, before "
                    "--snapshot-at %" PRIu64 "; the snapshot is of the end state\n",
                    gsvm_lsl_vm_total(vm), o->snapshot_at);
        if (o->snapshot_out)
            rc = write_snapshot(vm, o->snapshot_out);
    }
    gsvm_lsl_vm_free(vm);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    const char *events_path = NULL, *snapshot_out = NULL, *resume = NULL, *cache = NULL,
               *out_path = NULL;
    uint64_t budget = 1024, max_instructions = 0, snapshot_at = 0, abi = 0;
    bool no_cache = false, has_max = false, has_snapshot_at = false, has_cache = false, has_abi = false;
    const gsvm_opt opts[] = {
        {"--events", 0, OPT_STRING, &events_path, "EVENTS.jsonl",
         "events to dispatch after state_entry, one {\"event\":NAME,\"args\":[...]} per line", NULL},
        {"--frame-instructions", 0, OPT_U64, &budget, "N",
         "instructions per frame: each handler runs in slices of N (default 1024)", NULL},
        {"--budget", 0, OPT_U64, &budget, "N", "the older name of --frame-instructions", NULL},
        {"--max-instructions", 0, OPT_U64, &max_instructions, "N",
         "stop (exit 4) when N instructions have run in total", &has_max},
        {"--snapshot-at", 0, OPT_U64, &snapshot_at, "K",
         "stop after exactly K instructions in total and write --snapshot-out", &has_snapshot_at},
        {"--snapshot-out", 0, OPT_STRING, &snapshot_out, "SNAP",
         "write the HWZS snapshot here (at --snapshot-at K, else after the last event)", NULL},
        {"--resume", 0, OPT_STRING, &resume, "SNAP",
         "restore this snapshot, finish its handler, then dispatch EVENTS (no state_entry)", NULL},
        {"--cache", 0, OPT_STRING, &cache, "DIR",
         "compiled-program cache (default $XDG_CACHE_HOME/gsvm or ~/.cache/gsvm)", &has_cache},
        {"--no-cache", 0, OPT_FLAG, &no_cache, NULL, "compile without the cache", NULL},
        {"--output", 'o', OPT_STRING, &out_path, "FILE", "write the JSON Lines here (default stdout)", NULL},
        {"--abi", 0, OPT_U64, &abi, "2|3", "force the ABI of a source file (default: 2 if it fits, else 3)", &has_abi},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm lsl run",
        "FILE.lsl|FILE.fpc [--events EVENTS.jsonl] [--frame-instructions N] [--max-instructions N]\n"
        "       [--snapshot-at K] [--snapshot-out SNAP] [--resume SNAP] [--cache DIR | --no-cache]",
        "Runs a script: state_entry (unless resuming), then each event of EVENTS.\n"
        "Prints one JSON line per host call {\"host\":NAME,\"args\":[...]}; a fault prints\n"
        "{\"fault\":MESSAGE,\"ip\":N} and exits 3; the instruction limit prints\n"
        "{\"stopped\":\"instruction limit\",\"executed\":N} and exits 4.",
        opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    const char *problem = NULL;
    if (budget == 0)
        problem = "--frame-instructions must be at least 1";
    else if (has_cache && no_cache)
        problem = "--cache and --no-cache exclude each other";
    else if (has_snapshot_at && !snapshot_out)
        problem = "--snapshot-at needs --snapshot-out";
    else if (resume && strcmp(resume, "-") == 0 && (strcmp(pos[0], "-") == 0 ||
                                                   (events_path && strcmp(events_path, "-") == 0)))
        problem = "only one input may be stdin";
    else if (events_path && strcmp(events_path, "-") == 0 && strcmp(pos[0], "-") == 0)
        problem = "only one input may be stdin";
    if (problem) {
        fprintf(stderr, "gsvm lsl run: %s\n", problem);
        gsvm_args_usage(&spec, true);
        return EXIT_USAGE;
    }
    char cache_buf[4096];
    const char *cache_dir = no_cache ? NULL : cache ? cache
                                                    : gsvm_lsl_default_cache_dir(cache_buf, sizeof cache_buf);
    gsvm_error err;
    gsvm_error_clear(&err);
    if (!parse_abi("run", abi, has_abi))
        return EXIT_USAGE;
    any_prog any;
    if (load_any(pos[0], cache_dir, (int)abi, &any, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    if (any.p3) {
        FILE *out3 = open_output(out_path, &err);
        if (!out3) {
            rc = gsvm_cli_fail(&err);
        } else {
            lsl3_run_opts o3 = {budget, max_instructions, snapshot_at, has_max, has_snapshot_at, snapshot_out};
            rc = gsvm_cli_lsl_run3(any.p3, events_path, resume, &o3, out3);
            if (out3 != stdout && fclose(out3) != 0 && rc == 0) {
                gsvm_error_set(&err, GSVM_ERR_IO, out_path, "write failed");
                rc = gsvm_cli_fail(&err);
            }
        }
        any_free(&any);
        return rc;
    }
    gsvm_lsl_program *prog = any.p2;
    event_line *events = NULL;
    size_t nevents = 0;
    if (events_path && load_events(events_path, prog, &events, &nevents, &err) != GSVM_OK) {
        gsvm_lsl_program_free(prog);
        return gsvm_cli_fail(&err);
    }
    FILE *out = open_output(out_path, &err);
    if (!out) {
        rc = gsvm_cli_fail(&err);
    } else {
        run_opts o = {budget, max_instructions, snapshot_at, has_max, has_snapshot_at, snapshot_out};
        rc = run_program(prog, events, nevents, resume,
                         events_path && strcmp(events_path, "-") ? events_path : "<stdin>", &o, out);
        if (out != stdout && fclose(out) != 0 && rc == 0) {
            gsvm_error_set(&err, GSVM_ERR_IO, out_path, "write failed");
            rc = gsvm_cli_fail(&err);
        }
    }
    free_events(events, nevents);
    gsvm_lsl_program_free(prog);
    return rc;
}

static const gsvm_verb verbs[] = {
    {"compile", cmd_compile, "compile LSL source to a Falcon program file (.fpc)"},
    {"list", cmd_list, "print a program's tables and instructions"},
    {"verify", cmd_verify, "check statically that a program cannot fault"},
    {"isa", cmd_isa, "print the instruction set (from isa.def)"},
    {"run", cmd_run, "run a script: host calls and faults as JSON Lines; budgets, snapshots"},
    {"region", gsvm_cli_lsl_region, "run a world of objects and scripts on simulated frames"},
    {NULL, NULL, NULL},
};

int gsvm_cli_lsl(int argc, char **argv)
{
    return gsvm_cli_dispatch("lsl",
                             "The Falcon VM (ABI 2 and ABI 3): LSL compiled to fixed-width p-code, run in\n"
                             "instruction budgets, snapshotted after any instruction and resumed.",
                             verbs, argc, argv);
}
