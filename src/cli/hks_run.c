/* gsvm hks run: argument parsing and printing for the HavokScript VM.
 *
 * Without --world the chunk's main function runs once.  print() writes
 * JSON Lines ({"host": "print", "args": [...]}) like every engine's host
 * calls, or with --print text exactly what Lua 5.1's print writes.  With
 * --world the layer runtime runs (hks_world.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/verb.h"
#include "cli/hks_cli.h"
#include "cli/verb.h"
#include "gsvm/hks.h"

/* print() as Lua 5.1 writes it: the values tab-separated, one line */
void hks_cli_print_text(void *ctx, const char *const *parts, const size_t *lens, int n)
{
    FILE *f = ctx;
    for (int i = 0; i < n; i++) {
        if (i)
            fputc('\t', f);
        fwrite(parts[i], 1, lens[i], f);
    }
    fputc('\n', f);
}

/* print() as a host line {"host":"print","args":[...]} */
void hks_cli_print_json(void *ctx, const char *const *parts, const size_t *lens, int n)
{
    FILE *f = ctx;
    json_t *args = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(args, json_stringn(parts[i], lens[i]));
    json_t *o = json_pack("{s:s,s:o}", "host", "print", "args", args);
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (s) {
        fputs(s, f);
        fputc('\n', f);
        free(s);
    }
    json_decref(o);
}

/* Prints a fault (JSON Lines or text) and returns the exit code. */
int hks_cli_report_fault(gsvm_hks_vm *vm, gsvm_status st, const gsvm_error *err, bool json,
                         const char *file)
{
    gsvm_hks_fault f;
    bool have = gsvm_hks_vm_fault(vm, &f);
    int code = st == GSVM_ERR_LIMIT ? EXIT_LIMIT : st == GSVM_ERR_FAULT ? EXIT_FAULT
                                                                         : gsvm_cli_exit_code(st);
    if (!have)
        return gsvm_cli_fail(err);
    if (json) {
        json_t *o = json_pack("{s:s,s:s,s:s}", st == GSVM_ERR_LIMIT ? "limit" : "fault",
                              f.message, "function", f.function, "source", f.source);
        json_object_set_new(o, "pc", json_integer(f.pc));
        json_object_set_new(o, "line", json_integer(f.line));
        json_object_set_new(o, "steps", json_integer((json_int_t)gsvm_hks_vm_steps(vm)));
        char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (s) {
            puts(s);
            free(s);
        }
        json_decref(o);
    }
    fflush(stdout);
    fprintf(stderr, "%s: %s: %s (function %s, pc %ld", file,
            st == GSVM_ERR_LIMIT ? "limit" : "fault", f.message, f.function[0] ? f.function : "?",
            f.pc);
    if (f.line > 0)
        fprintf(stderr, ", line %ld", f.line);
    fprintf(stderr, ")\n");
    return code;
}

/* Compiles Lua source (a file, or a SCRI payload's flag-1 body). */
static int compile_source(const char *path, const uint8_t *data, size_t len, const char *target,
                          gsvm_hks_chunk **out)
{
    gsvm_hks_compile_options co;
    if (!gsvm_hks_compile_preset(target ? target : "sow", &co)) {
        fprintf(stderr, "gsvm hks run: unknown --target '%s' (sekiro, sow, ghosts, doubles, bo2, "
                        "bo3)\n",
                target);
        return EXIT_USAGE;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char chunkname[512];
    snprintf(chunkname, sizeof chunkname, "@%s", base);
    co.chunkname = chunkname;
    co.file = path;
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_hks_compile((const char *)data, len, &co, out, &err) != GSVM_OK)
        return gsvm_cli_fail(&err);
    return -1;
}

/* Reads LAYER: a chunk, a SCRI payload (bytecode or source) or Lua source.
 * *script_id is the FNV-1a hash of the layer's bytes (the reinstall key).
 * With out NULL only the id is computed (nothing is loaded or compiled). */
int hks_cli_load_layer(const char *path, const gsvm_hks_load_options *o, const char *target,
                       gsvm_hks_chunk **out, uint32_t *script_id)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_buf b;
    gsvm_status st = gsvm_file_read(path, &b, &err);
    if (st != GSVM_OK) {
        gsvm_buf_free(&b);
        return gsvm_cli_fail(&err);
    }
    const uint8_t *data = b.data;
    size_t len = b.len;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ data[i]) * 16777619u;
    if (script_id)
        *script_id = h;
    if (!out) {
        gsvm_buf_free(&b);
        return -1;
    }
    bool source = !(len >= 4 && memcmp(data, "\x1bLua", 4) == 0);
    if (len >= 4 && memcmp(data, "SCRI", 4) == 0) {
        gsvm_hks_scri sc;
        st = gsvm_hks_scri_unpack(data, len, path, &sc, &err);
        if (st != GSVM_OK) {
            gsvm_buf_free(&b);
            return gsvm_cli_fail(&err);
        }
        data = sc.body;
        len = sc.body_len;
        source = sc.flag == 1;
    } else if (source && o->offset == 0) {
        /* a chunk inside another file (a tag) is found by the loader's scan */
        for (size_t i = 0; i + 5 <= len; i++)
            if (memcmp(data + i, "\x1bLuaQ", 5) == 0) {
                source = false;
                break;
            }
    }
    int rc = -1;
    if (source) {
        rc = compile_source(path, data, len, target, out);
    } else {
        st = gsvm_hks_chunk_load(data, len, o, path, out, &err);
        if (st != GSVM_OK)
            rc = gsvm_cli_fail(&err);
    }
    gsvm_buf_free(&b);
    return rc;
}

const gsvm_cli_opt hks_cli_run_opts[] = {
    {"--print", 0, OPT_STRING, "MODE",
     "json (default: host lines) or text (exactly what Lua 5.1's print writes)"},
    {"--checked", 0, OPT_FLAG, NULL,
     "mode 2: every fetch must lie inside the function's code (else a fault)"},
    {"--budget", 0, OPT_U64, "N", "run in slices of N instructions (preempted and resumed exactly)"},
    {"--max-instructions", 0, OPT_U64, "N",
     "end the run with exit 4 after N instructions (default 1000000000; 0: none)"},
    {"--max-memory", 0, OPT_U64, "BYTES", "memory limit (default 64 MiB)"},
    {"--max-depth", 0, OPT_U64, "N", "nested calls (default 200000)"},
    {"--profile", 0, OPT_STRING, "NAME", "opcode table: auto (default), base, bo3 or ghosts"},
    {"--target", 0, OPT_STRING, "T",
     "compile a source LAYER for target T (sow by default; doubles: float64)"},
    {"--world", 0, OPT_STRING, "WORLD.json",
     "run LAYER as a world layer: records, ScriptBind, natives"},
    {"--events", 0, OPT_STRING, "TIMELINE.jsonl", "the world's timeline of events and time steps"},
    {"--natives", 0, OPT_STRING, "NATIVES.json",
     "the natives declaration file (default: the world's \"natives\" entry)"},
    {NULL, 0, 0, NULL, NULL},
};

/* The options of both modes (a chunk run, a world layer), read once. */
static int run_args(const gsvm_cli_call *call, hks_run_args *ra)
{
    memset(ra, 0, sizeof *ra);
    ra->layer = call->pos[0];
    ra->target = gsvm_cli_str(call, "--target", NULL);
    ra->profile = gsvm_cli_str(call, "--profile", NULL);
    ra->world = gsvm_cli_str(call, "--world", NULL);
    ra->events = gsvm_cli_str(call, "--events", NULL);
    ra->natives = gsvm_cli_str(call, "--natives", NULL);
    ra->checked = gsvm_cli_flag(call, "--checked");
    ra->budget = gsvm_cli_u64(call, "--budget", 0);
    ra->max_instr = gsvm_cli_u64(call, "--max-instructions", 1000000000ull);
    ra->max_mem = gsvm_cli_u64(call, "--max-memory", 0);
    ra->max_depth = gsvm_cli_u64(call, "--max-depth", 0);
    const char *mode = gsvm_cli_str(call, "--print", "json");
    if (strcmp(mode, "json") != 0 && strcmp(mode, "text") != 0) {
        fprintf(stderr, "%s: --print must be json or text\n", call->command);
        return EXIT_USAGE;
    }
    ra->json = strcmp(mode, "json") == 0;
    ra->load.scan = true;
    if (ra->profile && !gsvm_hks_profile_parse(ra->profile, &ra->load.profile)) {
        fprintf(stderr, "%s: unknown profile '%s' (auto, base, bo3, ghosts)\n", call->command,
                ra->profile);
        return EXIT_USAGE;
    }
    if (ra->events && !ra->world) {
        fprintf(stderr, "%s: --events needs --world\n", call->command);
        return EXIT_USAGE;
    }
    ra->vm.limits.max_instructions = ra->max_instr;
    ra->vm.limits.max_memory = ra->max_mem;
    ra->vm.limits.max_call_depth = (uint32_t)ra->max_depth;
    ra->vm.mode = ra->checked ? GSVM_HKS_MODE_2 : GSVM_HKS_MODE_0;
    return -1;
}

int hks_cli_run(const gsvm_cli_call *call)
{
    hks_run_args ra;
    int rc = run_args(call, &ra);
    if (rc >= 0)
        return rc;
    if (ra.world)
        return hks_cli_run_world(&ra);

    gsvm_hks_chunk *c;
    if ((rc = hks_cli_load_layer(ra.layer, &ra.load, ra.target, &c, NULL)) >= 0)
        return rc;
    gsvm_hks_vm *vm;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_status st = gsvm_hks_vm_new(&ra.vm, &vm, &err);
    if (st != GSVM_OK) {
        gsvm_hks_chunk_free(c);
        return gsvm_cli_fail(&err);
    }
    gsvm_hks_vm_set_print(vm, ra.json ? hks_cli_print_json : hks_cli_print_text, stdout);
    st = gsvm_hks_vm_load(vm, c, &err);
    if (st != GSVM_OK) {
        if (err.file[0] == 0)
            snprintf(err.file, sizeof err.file, "%s", ra.layer);
        rc = st == GSVM_ERR_FAULT || st == GSVM_ERR_LIMIT
                 ? hks_cli_report_fault(vm, st, &err, ra.json, ra.layer)
                 : gsvm_cli_fail(&err);
        gsvm_hks_vm_free(vm);
        return rc;
    }
    bool done = false;
    uint64_t slices = 0;
    while (!done) {
        st = gsvm_hks_vm_run(vm, ra.budget, &done, &err);
        if (st != GSVM_OK)
            break;
        slices++;
    }
    if (st == GSVM_OK)
        st = gsvm_hks_vm_close(vm, &err); /* __gc of the userdata left, as lua5.1 at exit */
    rc = 0;
    if (st != GSVM_OK)
        rc = hks_cli_report_fault(vm, st, &err, ra.json, ra.layer);
    else if (ra.json && ra.budget) {
        printf("{\"done\":true,\"steps\":%llu,\"slices\":%llu}\n",
               (unsigned long long)gsvm_hks_vm_steps(vm), (unsigned long long)slices);
    }
    fflush(stdout);
    gsvm_hks_vm_free(vm);
    return rc;
}
