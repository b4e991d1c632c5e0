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
#include "cli/engines.h"
#include "cli/lsl_cli.h"
#include "cli/verb.h"
#include "gsvm/lsl.h"

/* Reads FILE (or "-") and turns it into a program: a .fpc (ABI 2, magic
 * HWZP) or an ABI-3 program file (magic HWZ3) is loaded; anything else is
 * compiled as LSL source (gsvm_lsl_compile_with: `abi` 0 picks ABI 2 when
 * the script fits its slice and ABI 3 otherwise, saying why in `why` when
 * not NULL; through the cache when `cache_dir` is not NULL); 2 or 3 forces
 * one (a program file must then be of that ABI). */
static gsvm_status load_any(const char *path, const char *cache_dir, int abi, gsvm_lsl_program **out,
                            char *why, size_t why_size, gsvm_error *err)
{
    *out = NULL;
    gsvm_buf bytes;
    gsvm_status st = gsvm_file_read(path, &bytes, err);
    if (st != GSVM_OK)
        return st;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    int file_abi = gsvm_lsl_is_program_file(bytes.data, bytes.len)    ? 2
                   : gsvm_lsl3_is_program_file(bytes.data, bytes.len) ? 3
                                                                      : 0;
    if (file_abi && abi && file_abi != abi) {
        st = gsvm_error_set(err, GSVM_ERR_INPUT, name, "an ABI-%d program, not ABI %d", file_abi, abi);
    } else if (file_abi) {
        st = gsvm_lsl_program_load(bytes.data, bytes.len, name, out, err);
    } else {
        gsvm_lsl_compile_opts o = {.abi = abi, .cache_dir = cache_dir, .why = why, .why_size = why_size};
        st = gsvm_lsl_compile_with(bytes.data ? (const char *)bytes.data : "", bytes.len, name, &o, out, err);
    }
    gsvm_buf_free(&bytes);
    return st;
}

/* --abi 2|3 (0 when absent); 0 or the exit code. */
static int abi_of(const gsvm_cli_call *c, uint64_t dflt, int *abi)
{
    uint64_t a = gsvm_cli_u64(c, "--abi", dflt);
    *abi = 0;
    if (gsvm_cli_given(c, "--abi") && a != 2 && a != 3)
        return gsvm_cli_bad_value(c, "--abi must be 2 or 3");
    *abi = (int)a;
    return 0;
}

/* The program a verb's FILE names, with its --abi: 0 or the exit code
 * (after the diagnostic).  `why` as load_any's. */
static int load_input(const gsvm_cli_call *c, const char *path, const char *cache_dir, gsvm_lsl_program **out,
                      char *why, size_t why_size)
{
    int abi = 0, rc;
    if ((rc = abi_of(c, 0, &abi)))
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    if (load_any(path, cache_dir, abi, out, why, why_size, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    return 0;
}

/* ---- compile ------------------------------------------------------------------ */

static const gsvm_cli_opt compile_opts[] = {
    {"--output", 'o', OPT_STRING, "OUT.fpc", "write the program here (default stdout)"},
    {"--abi", 0, OPT_U64, "2|3", "force the ABI (default: 2 when the script fits its slice, else 3)"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_compile(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    const char *out_path = gsvm_cli_str(c, "--output", NULL);
    if ((!out_path || strcmp(out_path, "-") == 0) && isatty(STDOUT_FILENO))
        return gsvm_cli_bad_value(c, "refusing to write a binary program to a terminal; use -o OUT.fpc");
    gsvm_lsl_program *prog;
    char why[sizeof ((gsvm_error *)0)->message + 48] = "";
    int rc = load_input(c, pos[0], NULL, &prog, why, sizeof why);
    if (rc)
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    /* say which ABI the program is, and why not ABI 2 when it was picked */
    const char *name = strcmp(pos[0], "-") == 0 ? "<stdin>" : pos[0];
    if (gsvm_lsl_program_abi(prog) == 2)
        fprintf(stderr, "%s: ABI 2\n", name);
    else if (why[0])
        fprintf(stderr, "%s: ABI 3 (ABI 2: %s)\n", name, why);
    else
        fprintf(stderr, "%s: ABI 3\n", name);
    uint8_t *data;
    size_t len;
    gsvm_status st = gsvm_lsl_program_save(prog, &data, &len, &err);
    gsvm_lsl_program_release(prog);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    rc = gsvm_cli_write(out_path, data, len);
    free(data);
    return rc;
}

/* ---- list ---------------------------------------------------------------------- */

static const gsvm_cli_opt list_opts[] = {
    {"--output", 'o', OPT_STRING, "FILE", "write the listing here (default stdout)"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_list(const gsvm_cli_call *c)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_program *prog;
    if (load_any(c->pos[0], NULL, 0, &prog, NULL, 0, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    char *text;
    gsvm_status st = gsvm_lsl_program_list(prog, &text, &err);
    gsvm_lsl_program_release(prog);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    int rc = gsvm_cli_write(gsvm_cli_str(c, "--output", NULL), text, strlen(text));
    free(text);
    return rc;
}

/* ---- verify ---------------------------------------------------------------------- */

static int cmd_verify(const gsvm_cli_call *c)
{
    const char *const *pos = c->pos;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_program *prog;
    if (load_any(pos[0], NULL, 0, &prog, NULL, 0, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    /* ABI 3 programs are verified (types and stack shapes) whenever they are built or loaded */
    gsvm_status st = gsvm_lsl_program_verify(prog, &err);
    size_t n = gsvm_lsl_program_code_size(prog);
    gsvm_lsl_program_release(prog);
    if (st != GSVM_OK) {
        snprintf(err.file, sizeof err.file, "%s", pos[0]);
        return gsvm_cli_fail(&err);
    }
    printf("%s: verified (%zu instructions)\n", pos[0], n);
    return 0;
}

/* ---- isa ------------------------------------------------------------------------ */

static const gsvm_cli_opt isa_opts[] = {
    {"--abi", 0, OPT_U64, "2|3", "which instruction set (default 2)"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_isa(const gsvm_cli_call *c)
{
    int abi = 0, rc;
    if ((rc = abi_of(c, 2, &abi)))
        return rc;
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

/* An event line's arguments as ABI-2 host values: NULL, or what is wrong. */
static const char *hostvals_of(const json_t *jargs, gsvm_lsl_hostval *out, size_t *argc)
{
    *argc = json_array_size(jargs);
    if (*argc > LSL_CLI_MAX_ARGS)
        return "too many arguments";
    for (size_t i = 0; i < *argc; i++) {
        json_t *a = json_array_get(jargs, i);
        if (json_is_integer(a) && json_integer_value(a) >= INT32_MIN &&
            json_integer_value(a) <= INT32_MAX)
            out[i] = (gsvm_lsl_hostval){GSVM_LSL_INTEGER, (int32_t)json_integer_value(a), NULL, 0};
        else if (json_is_string(a))
            out[i] = (gsvm_lsl_hostval){GSVM_LSL_STRING, 0, json_string_value(a), json_string_length(a)};
        else
            return json_is_integer(a) ? "an integer argument does not fit in 32 bits"
                                      : "arguments must be integers or strings in ABI 2";
    }
    return NULL;
}

/* One line of an ABI-2 events file: {"event": NAME, "args": [...]} with a
 * handler the script has and arguments of its types ({"advance_ms": N} is
 * accepted and ignored: ABI 2 has no timers). */
static gsvm_status check_event(void *ctx, json_t *obj, char *problem, size_t size, gsvm_error *err)
{
    const gsvm_lsl_program *prog = ctx;
    json_t *jname = json_object_get(obj, "event"), *jargs = json_object_get(obj, "args");
    if (!jname && json_object_get(obj, "advance_ms"))
        return GSVM_OK;
    const char *why = NULL;
    gsvm_lsl_hostval args[LSL_CLI_MAX_ARGS];
    size_t argc = 0;
    if (!json_is_string(jname))
        why = "expected {\"event\": NAME, \"args\": [...]}";
    else if (jargs && !json_is_array(jargs))
        why = "\"args\" must be an array";
    else if (!gsvm_lsl_program_has_event(prog, json_string_value(jname))) {
        snprintf(problem, size, "the script has no '%s' handler", json_string_value(jname));
        return GSVM_OK;
    } else
        why = hostvals_of(jargs, args, &argc);
    if (why) {
        snprintf(problem, size, "%s", why);
        return GSVM_OK;
    }
    /* the arguments against the handler's signature, in a VM of its own */
    gsvm_lsl_vm *probe;
    if (gsvm_lsl_vm_new(prog, &probe, err) != GSVM_OK)
        return err->status;
    gsvm_error e2;
    gsvm_error_clear(&e2);
    if (gsvm_lsl_vm_dispatch(probe, json_string_value(jname), args, argc, &e2) != GSVM_OK)
        snprintf(problem, size, "%s", e2.message);
    gsvm_lsl_vm_free(probe);
    return GSVM_OK;
}

static int write_snapshot(const gsvm_lsl_vm *vm, const char *path)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    uint8_t *data = NULL;
    size_t len = 0;
    gsvm_status st = gsvm_lsl_vm_snapshot(vm, &data, &len, &err);
    return lsl_cli_save_snapshot(path, st, data, len, &err);
}

/* Runs the current handler to its end in slices of `budget` instructions.
 * Returns LSL_DRIVE_DONE when it finished, else the exit code to return now
 * (fault 3, limit 4, or 0 after writing the --snapshot-at snapshot).
 * Slices never step past the snapshot point or the limit. */
static int drive(gsvm_lsl_vm *vm, const lsl_run_opts *o, FILE *out)
{
    for (;;) {
        uint64_t total = gsvm_lsl_vm_total(vm);
        if (o->has_snapshot_at && total >= o->snapshot_at)
            return write_snapshot(vm, o->snapshot_out);
        if (gsvm_lsl_vm_finished(vm))
            return LSL_DRIVE_DONE;
        if (o->has_max && total >= o->max_instructions)
            return lsl_cli_emit_limit(out, total);
        if (gsvm_lsl_vm_run(vm, lsl_cli_slice(o, total)) == GSVM_LSL_ERROR) {
            uint32_t ln, col;
            bool has_pos = gsvm_lsl_vm_fault_line(vm, &ln, &col);
            return lsl_cli_emit_fault(out, gsvm_lsl_vm_fault(vm), gsvm_lsl_vm_fault_ip(vm), has_pos, ln, col);
        }
    }
}

static int run_program(gsvm_lsl_program *prog, const lsl_lines *events, const char *resume,
                       const lsl_run_opts *o, FILE *out)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_vm *vm;
    if (gsvm_lsl_vm_new(prog, &vm, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    run_ctx ctx = {out};
    gsvm_lsl_vm_set_host(vm, host_call, &ctx);
    int rc = LSL_DRIVE_DONE;
    if (resume) {
        gsvm_buf snap;
        if ((rc = gsvm_cli_read(resume, &snap)) == 0) {
            rc = LSL_DRIVE_DONE;
            if (gsvm_lsl_vm_restore(vm, snap.data, snap.len, resume, &err) != GSVM_OK)
                rc = gsvm_cli_fail(&err);
            gsvm_buf_free(&snap);
        }
    } else if (gsvm_lsl_program_has_event(prog, "state_entry")) {
        if (gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err) != GSVM_OK)
            rc = gsvm_cli_fail(&err);
    }
    if (rc == LSL_DRIVE_DONE)
        rc = drive(vm, o, out);
    for (size_t i = 0; rc == LSL_DRIVE_DONE && i < events->n; i++) {
        json_t *obj = json_array_get(events->all, i);
        json_t *jname = json_object_get(obj, "event");
        if (!jname)
            continue; /* {"advance_ms": N} */
        gsvm_lsl_hostval args[LSL_CLI_MAX_ARGS];
        size_t argc;
        hostvals_of(json_object_get(obj, "args"), args, &argc); /* checked when loaded */
        if (gsvm_lsl_vm_dispatch(vm, json_string_value(jname), args, argc, &err) != GSVM_OK) {
            rc = lsl_cli_line_fail(events, i, &err);
            break;
        }
        rc = drive(vm, o, out);
    }
    if (rc == LSL_DRIVE_DONE) {
        rc = 0;
        lsl_cli_note_early_end(o, gsvm_lsl_vm_total(vm));
        if (o->snapshot_out)
            rc = write_snapshot(vm, o->snapshot_out);
    }
    gsvm_lsl_vm_free(vm);
    return rc;
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

static const gsvm_cli_opt run_opts[] = {
    {"--events", 0, OPT_STRING, "EVENTS.jsonl",
     "events to dispatch after state_entry, one {\"event\":NAME,\"args\":[...]} per line"},
    {"--frame-instructions", 0, OPT_U64, "N",
     "instructions per frame: each handler runs in slices of N (default 1024)"},
    {"--budget", 0, OPT_U64, "N", "the older name of --frame-instructions"},
    {"--max-instructions", 0, OPT_U64, "N", "stop (exit 4) when N instructions have run in total"},
    {"--snapshot-at", 0, OPT_U64, "K", "stop after exactly K instructions in total and write --snapshot-out"},
    {"--snapshot-out", 0, OPT_STRING, "SNAP",
     "write the HWZS snapshot here (at --snapshot-at K, else after the last event)"},
    {"--resume", 0, OPT_STRING, "SNAP",
     "restore this snapshot, finish its handler, then dispatch EVENTS (no state_entry)"},
    {"--cache", 0, OPT_STRING, "DIR", "compiled-program cache (default $XDG_CACHE_HOME/gsvm or ~/.cache/gsvm)"},
    {"--no-cache", 0, OPT_FLAG, NULL, "compile without the cache"},
    {"--output", 'o', OPT_STRING, "FILE", "write the JSON Lines here (default stdout)"},
    {"--abi", 0, OPT_U64, "2|3", "force the ABI of a source file (default: 2 if it fits, else 3)"},
    {NULL, 0, 0, NULL, NULL},
};

static int cmd_run(const gsvm_cli_call *c)
{
    const char *file = c->pos[0];
    const char *events_path = gsvm_cli_str(c, "--events", NULL);
    const char *resume = gsvm_cli_str(c, "--resume", NULL), *cache = gsvm_cli_str(c, "--cache", NULL);
    const char *out_path = gsvm_cli_str(c, "--output", NULL);
    /* --budget and --frame-instructions are one option: the later one wins */
    const char *budget_opt = gsvm_cli_later(c, "--frame-instructions", "--budget");
    uint64_t budget = budget_opt ? gsvm_cli_u64(c, budget_opt, 0) : 1024;
    lsl_run_opts o = {budget,
                      gsvm_cli_u64(c, "--max-instructions", 0),
                      gsvm_cli_u64(c, "--snapshot-at", 0),
                      gsvm_cli_given(c, "--max-instructions"),
                      gsvm_cli_given(c, "--snapshot-at"),
                      gsvm_cli_str(c, "--snapshot-out", NULL)};
    bool no_cache = gsvm_cli_flag(c, "--no-cache");
    bool stdin_events = events_path && strcmp(events_path, "-") == 0;
    const char *problem = NULL;
    if (budget == 0)
        problem = "--frame-instructions must be at least 1";
    else if (cache && no_cache)
        problem = "--cache and --no-cache exclude each other";
    else if (o.has_snapshot_at && !o.snapshot_out)
        problem = "--snapshot-at needs --snapshot-out";
    else if (resume && strcmp(resume, "-") == 0 && (strcmp(file, "-") == 0 || stdin_events))
        problem = "only one input may be stdin";
    else if (stdin_events && strcmp(file, "-") == 0)
        problem = "only one input may be stdin";
    if (problem)
        return gsvm_cli_usage_error(c, "%s", problem);
    char cache_buf[4096];
    const char *cache_dir = no_cache ? NULL : cache ? cache
                                                    : gsvm_lsl_default_cache_dir(cache_buf, sizeof cache_buf);
    gsvm_lsl_program *prog;
    int rc = load_input(c, file, cache_dir, &prog, NULL, 0);
    if (rc)
        return rc;
    /* ABI 3 runs with its timers, sleeps and queue (lsl_run3.c); ABI 2 as
     * the document's VM, dispatching each event as its line comes */
    const gsvm_lsl3_program *p3 = gsvm_lsl_program_abi3(prog);
    gsvm_error err;
    gsvm_error_clear(&err);
    lsl_lines events = {NULL, NULL, 0, NULL};
    gsvm_status st = GSVM_OK;
    if (events_path)
        st = p3 ? gsvm_cli_lsl3_load_timeline(events_path, p3, &events, &err)
                : lsl_cli_load_lines(events_path, check_event, prog, &events, &err);
    FILE *out = st == GSVM_OK ? open_output(out_path, &err) : NULL;
    if (!out) {
        rc = gsvm_cli_fail(&err);
    } else {
        rc = p3 ? gsvm_cli_lsl_run3(p3, &events, resume, &o, out) : run_program(prog, &events, resume, &o, out);
        if (out != stdout && fclose(out) != 0 && rc == 0) {
            gsvm_error_set(&err, GSVM_ERR_IO, out_path, "write failed");
            rc = gsvm_cli_fail(&err);
        }
    }
    lsl_cli_free_lines(&events);
    gsvm_lsl_program_release(prog);
    return rc;
}

/* ---- what both ABIs' run loops share (lsl_cli.h) ---------------------------------- */

gsvm_status lsl_cli_load_lines(const char *path, lsl_line_check check, void *ctx, lsl_lines *out,
                               gsvm_error *err)
{
    out->all = NULL;
    out->line = NULL;
    out->n = 0;
    out->name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    gsvm_status st = gsvm_jsonl_load_lines(path, &out->all, &out->line, err);
    for (size_t k = 0; st == GSVM_OK && k < json_array_size(out->all); k++) {
        char problem[sizeof err->message] = "";
        st = check(ctx, json_array_get(out->all, k), problem, sizeof problem, err);
        if (st == GSVM_OK && problem[0])
            st = gsvm_error_at_line(err, GSVM_ERR_INPUT, out->name, out->line[k], 1, "%s", problem);
    }
    if (st != GSVM_OK) {
        lsl_cli_free_lines(out);
        return st;
    }
    out->n = json_array_size(out->all);
    return GSVM_OK;
}

void lsl_cli_free_lines(lsl_lines *l)
{
    json_decref(l->all);
    free(l->line);
    l->all = NULL;
    l->line = NULL;
    l->n = 0;
}

int lsl_cli_line_fail(const lsl_lines *l, size_t i, gsvm_error *err)
{
    snprintf(err->file, sizeof err->file, "%s", l->name);
    err->line = l->line[i];
    err->column = 1;
    return gsvm_cli_fail(err);
}

uint64_t lsl_cli_slice(const lsl_run_opts *o, uint64_t total)
{
    uint64_t slice = o->budget;
    if (o->has_snapshot_at && o->snapshot_at - total < slice)
        slice = o->snapshot_at - total;
    if (o->has_max && o->max_instructions - total < slice)
        slice = o->max_instructions - total;
    return slice;
}

int lsl_cli_emit_fault(FILE *out, const char *message, uint64_t ip, bool has_pos, uint32_t ln,
                       uint32_t col)
{
    json_t *line = json_object();
    json_object_set_new(line, "fault", json_string(message));
    json_object_set_new(line, "ip", json_integer((json_int_t)ip));
    if (has_pos) {
        json_object_set_new(line, "line", json_integer(ln));
        json_object_set_new(line, "col", json_integer(col));
    }
    gsvm_jsonl_emit(out, line);
    return EXIT_FAULT;
}

int lsl_cli_emit_limit(FILE *out, uint64_t total)
{
    json_t *line = json_object();
    json_object_set_new(line, "stopped", json_string("instruction limit"));
    json_object_set_new(line, "executed", json_integer((json_int_t)total));
    gsvm_jsonl_emit(out, line);
    return EXIT_LIMIT;
}

int lsl_cli_save_snapshot(const char *path, gsvm_status st, uint8_t *data, size_t len,
                          const gsvm_error *err)
{
    int rc = st == GSVM_OK ? gsvm_cli_write(path, data, len) : gsvm_cli_fail(err);
    free(data);
    return rc;
}

void lsl_cli_note_early_end(const lsl_run_opts *o, uint64_t total)
{
    if (o->has_snapshot_at)
        fprintf(stderr,
                "gsvm lsl run: the run ended after %" PRIu64 " instructions, before "
                "--snapshot-at %" PRIu64 "; the snapshot is of the end state\n",
                total, o->snapshot_at);
}

static const gsvm_cli_verb verbs[] = {
    {"compile", "compile LSL source to a Falcon program file (.fpc)", "FILE.lsl [-o OUT.fpc] [--abi 2|3]",
     "Compiles LSL source to a Falcon program file: ABI 2 (.fpc, magic HWZP) when the\n"
     "script fits the ABI-2 slice, else ABI 3 (the whole language, magic HWZ3).\n"
     "Diagnostics are FILE:LINE:COL: error: MESSAGE and exit 1.",
     compile_opts, 1, 1, cmd_compile},
    {"list", "print a program's tables and instructions", "FILE.lsl|FILE.fpc [-o FILE]",
     "Prints a program's constants, host functions, globals, events and code.", list_opts, 1, 1,
     cmd_list},
    {"verify", "check statically that a program cannot fault", "FILE.lsl|FILE.fpc",
     "Checks statically that a program cannot fault: consistent stack depths, typed\n"
     "operands, operands inside the tables, ABI-2 host calls, every path ending in Halt.",
     NULL, 1, 1, cmd_verify},
    {"isa", "print the instruction set (from isa.def)", "[--abi 2|3]",
     "Prints the Falcon instruction set (ABI 2, or 3) as a Markdown table.", isa_opts, 0, 0,
     cmd_isa},
    {"run", "run a script: host calls and faults as JSON Lines; budgets, snapshots",
     "FILE.lsl|FILE.fpc [--events EVENTS.jsonl] [--frame-instructions N] [--max-instructions N]\n"
     "       [--snapshot-at K] [--snapshot-out SNAP] [--resume SNAP] [--cache DIR | --no-cache]",
     "Runs a script: state_entry (unless resuming), then each event of EVENTS.\n"
     "Prints one JSON line per host call {\"host\":NAME,\"args\":[...]}; a fault prints\n"
     "{\"fault\":MESSAGE,\"ip\":N} and exits 3; the instruction limit prints\n"
     "{\"stopped\":\"instruction limit\",\"executed\":N} and exits 4.",
     run_opts, 1, 1, cmd_run},
    {"region", "run a world of objects and scripts on simulated frames", GSVM_CLI_LSL_REGION_USAGE,
     GSVM_CLI_LSL_REGION_HELP, gsvm_cli_lsl_region_opts, 1, 1, gsvm_cli_lsl_region},
    {NULL, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

static const gsvm_cli_engine engine = {
    "lsl",
    "The Falcon VM (ABI 2 and ABI 3): LSL compiled to fixed-width p-code, run in\n"
    "instruction budgets, snapshotted after any instruction and resumed.",
    verbs};

int gsvm_cli_lsl(int argc, char **argv)
{
    return gsvm_cli_engine_main(&engine, argc, argv);
}
