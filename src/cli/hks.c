/* gsvm hks: argument parsing and printing for the HavokScript chunk tools. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/engines.h"
#include "cli/hks_cli.h"
#include "cli/hks_compile.h"
#include "cli/verb.h"
#include "gsvm/hks.h"

/* Options shared by the verbs that load chunks.  A file that does not
 * start with a chunk (a tag, an archive entry) is searched for one unless
 * --offset or --no-scan says where it must be. */
#define LOAD_OPTS                                                                            \
    {"--offset", 0, OPT_U64, "N", "the chunk starts at byte N of the file"},                 \
    {"--profile", 0, OPT_STRING, "NAME", "opcode table: auto (default), base, bo3 or ghosts"}, \
    {"--structs", 0, OPT_STRING, "LAYOUT",                                                   \
     "structure block layout: auto (default), plain or halo"},                               \
    {"--scan", 0, OPT_FLAG, NULL,                                                            \
     "a file that does not start with a chunk: load the first one inside (default)"},        \
    {"--no-scan", 0, OPT_FLAG, NULL, "the chunk must start at byte 0 (or at --offset)"}

/* The load options of a verb with LOAD_OPTS; 0 or the exit code. */
static int load_options(const gsvm_cli_call *c, gsvm_hks_load_options *o)
{
    memset(o, 0, sizeof *o);
    o->scan = !gsvm_cli_flag(c, "--no-scan") && !gsvm_cli_given(c, "--offset");
    o->offset = (size_t)gsvm_cli_u64(c, "--offset", 0);
    const char *profile = gsvm_cli_str(c, "--profile", NULL);
    if (profile && !gsvm_hks_profile_parse(profile, &o->profile))
        return gsvm_cli_bad_value(c, "unknown profile '%s' (auto, base, bo3, ghosts)", profile);
    const char *structs = gsvm_cli_str(c, "--structs", "auto");
    if (strcmp(structs, "auto") == 0)
        o->structs = GSVM_HKS_STRUCTS_AUTO;
    else if (strcmp(structs, "plain") == 0)
        o->structs = GSVM_HKS_STRUCTS_PLAIN;
    else if (strcmp(structs, "halo") == 0)
        o->structs = GSVM_HKS_STRUCTS_HALO;
    else
        return gsvm_cli_bad_value(c, "unknown structure layout '%s' (auto, plain, halo)", structs);
    return 0;
}

/* Reads and loads one chunk; 0 on success or the exit code. */
static int load_chunk(const char *path, const gsvm_hks_load_options *o, gsvm_hks_chunk **out)
{
    gsvm_buf b;
    int rc = gsvm_cli_read(path, &b);
    if (rc)
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_status st = gsvm_hks_chunk_load(b.data, b.len, o, path, out, &err);
    gsvm_buf_free(&b);
    return st != GSVM_OK ? gsvm_cli_fail(&err) : 0;
}

/* ------------------------------------------------------------------ list */

static const gsvm_cli_opt list_opts[] = {
    {"--output", 'o', OPT_STRING, "FILE", "write the listing to FILE"},
    LOAD_OPTS,
    {NULL, 0, 0, NULL, NULL},
};

static int verb_list(const gsvm_cli_call *call)
{
    gsvm_hks_load_options o;
    gsvm_hks_chunk *c;
    int rc = load_options(call, &o);
    if (rc || (rc = load_chunk(call->pos[0], &o, &c)))
        return rc;
    char *text;
    size_t len;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_status st = gsvm_hks_list(c, &text, &len, &err);
    gsvm_hks_chunk_free(c);
    return gsvm_cli_output(call, st, &err, text, len);
}

/* ------------------------------------------------------------------- asm */

static const gsvm_cli_opt asm_opts[] = {
    {"--output", 'o', OPT_STRING, "CHUNK", "write the chunk to CHUNK (default stdout)"},
    {NULL, 0, 0, NULL, NULL},
};

static int verb_asm(const gsvm_cli_call *call)
{
    gsvm_buf b;
    int rc = gsvm_cli_read(call->pos[0], &b);
    if (rc)
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_hks_chunk *c;
    gsvm_status st = gsvm_hks_asm((const char *)b.data, b.len, call->pos[0], &c, &err);
    gsvm_buf_free(&b);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    uint8_t *bytes;
    size_t len;
    st = gsvm_hks_chunk_dump(c, &bytes, &len, &err);
    gsvm_hks_chunk_free(c);
    return gsvm_cli_output(call, st, &err, bytes, len);
}

/* ---------------------------------------------------------------- verify */

typedef struct vprint {
    const char *file;
    bool quiet;
} vprint;

static void on_violation(void *ctx, const char *path, uint64_t pc, const char *message)
{
    vprint *v = ctx;
    if (!v->quiet)
        printf("%s: function %s pc %llu: %s\n", v->file, path, (unsigned long long)pc, message);
}

static const gsvm_cli_opt verify_opts[] = {
    LOAD_OPTS,
    {"--hypothesis", 0, OPT_STRING, "H",
     "re-run the check reading the words another way (swap-ab, op-low-bit) and report the count"},
    {"--quiet", 'q', OPT_FLAG, NULL, "print only the summary"},
    {NULL, 0, 0, NULL, NULL},
};

static int verb_verify(const gsvm_cli_call *call)
{
    const char *const *pos = call->pos;
    int npos = call->npos;
    bool quiet = gsvm_cli_flag(call, "--quiet");
    gsvm_hks_load_options o;
    int rc = load_options(call, &o);
    if (rc)
        return rc;
    const char *hyp = gsvm_cli_str(call, "--hypothesis", NULL);
    gsvm_hks_hypothesis h = GSVM_HKS_HYP_NONE;
    if (hyp) {
        if (strcmp(hyp, "swap-ab") == 0)
            h = GSVM_HKS_HYP_SWAP_AB;
        else if (strcmp(hyp, "op-low-bit") == 0)
            h = GSVM_HKS_HYP_OP_LOW_BIT;
        else if (strcmp(hyp, "none") != 0)
            return gsvm_cli_bad_value(call, "unknown hypothesis '%s' (swap-ab, op-low-bit)", hyp);
    }
    gsvm_hks_verify_result total = {0, 0, 0, 0};
    int worst = 0;
    for (int i = 0; i < npos; i++) {
        gsvm_hks_chunk *c;
        if ((rc = load_chunk(pos[i], &o, &c))) {
            worst = rc;
            continue;
        }
        vprint vp = {pos[i], quiet || h != GSVM_HKS_HYP_NONE};
        gsvm_hks_verify_result r;
        gsvm_error err;
        gsvm_error_clear(&err);
        if (gsvm_hks_verify(c, h, on_violation, &vp, &r, &err) != GSVM_OK) {
            gsvm_hks_chunk_free(c);
            return gsvm_cli_fail(&err);
        }
        gsvm_hks_chunk_free(c);
        total.functions += r.functions;
        total.instructions += r.instructions;
        total.violations += r.violations;
        total.flagged += r.flagged;
    }
    if (h)
        printf("hypothesis %s: ", hyp);
    printf("%d files, %llu functions, %llu instructions, %llu violations", npos,
           (unsigned long long)total.functions, (unsigned long long)total.instructions,
           (unsigned long long)total.violations);
    if (h)
        printf(" in %llu instructions", (unsigned long long)total.flagged);
    putchar('\n');
    if (worst)
        return worst;
    return h == GSVM_HKS_HYP_NONE && total.violations ? EXIT_INPUT : 0;
}

/* ----------------------------------------------------------------- stats */

static const gsvm_cli_opt stats_opts[] = {
    LOAD_OPTS,
    {"--json", 0, OPT_FLAG, NULL, "print one JSON object"},
    {NULL, 0, 0, NULL, NULL},
};

static int verb_stats(const gsvm_cli_call *call)
{
    bool as_json = gsvm_cli_flag(call, "--json");
    gsvm_hks_load_options o;
    int rc = load_options(call, &o);
    if (rc)
        return rc;
    gsvm_hks_stats *s = calloc(1, sizeof *s);
    if (!s)
        return EXIT_INPUT;
    for (int i = 0; i < call->npos; i++) {
        gsvm_hks_chunk *c;
        if ((rc = load_chunk(call->pos[i], &o, &c))) {
            free(s);
            return rc;
        }
        gsvm_hks_stats_add(s, c);
        gsvm_hks_chunk_free(c);
    }
    unsigned rows = gsvm_hks_op_rows(), used = 0;
    for (unsigned i = 0; i < rows; i++)
        used += s->op_count[i] != 0;
    /* The base table's opcodes that never occur, as the document lists them
     * ("3, 5, 6, 11, 12, 18-21, ..."): numbers in the base table's order. */
    char never[1024] = "";
    size_t nl = 0;
    unsigned nnever = 0;
    for (unsigned i = 0; i < 92; i++) {
        if (s->op_count[i])
            continue;
        unsigned j = i;
        while (j + 1 < 92 && !s->op_count[j + 1])
            j++;
        nnever += j - i + 1;
        int w = j == i ? snprintf(never + nl, sizeof never - nl, "%s%u", nl ? ", " : "", i)
                       : snprintf(never + nl, sizeof never - nl, "%s%u-%u", nl ? ", " : "", i, j);
        if (w > 0 && (size_t)w < sizeof never - nl)
            nl += (size_t)w;
        i = j;
    }
    if (as_json) {
        json_t *j = json_object(), *ops = json_object(), *unused = json_array();
        json_object_set_new(j, "files", json_integer((json_int_t)s->files));
        json_object_set_new(j, "functions", json_integer((json_int_t)s->functions));
        json_object_set_new(j, "instructions", json_integer((json_int_t)s->instructions));
        json_object_set_new(j, "constants", json_integer((json_int_t)s->constants));
        json_object_set_new(j, "structures", json_integer((json_int_t)s->structures));
        for (unsigned i = 0; i < rows; i++)
            if (s->op_count[i])
                json_object_set_new(ops, gsvm_hks_op_row_name(i),
                                    json_integer((json_int_t)s->op_count[i]));
        json_object_set_new(j, "opcodes", ops);
        json_object_set_new(j, "data_words", json_integer((json_int_t)s->data_words));
        json_object_set_new(j, "opcodes_used", json_integer(used));
        for (unsigned i = 0; i < 92; i++)
            if (!s->op_count[i])
                json_array_append_new(unused, json_string(gsvm_hks_op_row_name(i)));
        json_object_set_new(j, "base_opcodes_unused", unused);
        json_object_set_new(j, "unknown_opcodes", json_integer((json_int_t)s->unknown_ops));
        char *text = json_dumps(j, JSON_PRESERVE_ORDER);
        json_decref(j);
        if (text)
            printf("%s\n", text);
        free(text);
    } else {
        printf("files         %llu\nfunctions     %llu\ninstructions  %llu  (%llu of them DATA "
               "words)\nconstants     %llu\nstructures    %llu\n",
               (unsigned long long)s->files, (unsigned long long)s->functions,
               (unsigned long long)s->instructions, (unsigned long long)s->data_words,
               (unsigned long long)s->constants, (unsigned long long)s->structures);
        printf("opcodes       %u used; of the base table's 92, %u never occur%s%s\n", used,
               nnever, nnever ? ": " : "", never);
        if (s->unknown_ops)
            printf("unknown       %llu words with an opcode outside the table\n",
                   (unsigned long long)s->unknown_ops);
        for (unsigned i = 0; i < rows; i++)
            if (s->op_count[i])
                printf("  %-26s %llu\n", gsvm_hks_op_row_name(i),
                       (unsigned long long)s->op_count[i]);
    }
    free(s);
    return 0;
}

/* ------------------------------------------------------------------ scri */

static const gsvm_cli_opt scri_opts[] = {
    {"--output", 'o', OPT_STRING, "FILE", "write the body (unpack) or payload (pack)"},
    {"--flag", 0, OPT_I64, "F",
     "pack: 1 Lua source, 0 bytecode (default: 0 if the body starts with \\x1bLua)"},
    {"--compile", 0, OPT_FLAG, NULL,
     "pack: BODY is Lua source; compile it (gsvm hks compile's options) into a flag-0 payload"},
    HKS_COMPILE_OPTS,
    {NULL, 0, 0, NULL, NULL},
};

static int verb_scri(const gsvm_cli_call *call)
{
    const char *const *pos = call->pos;
    const char *outp = gsvm_cli_str(call, "--output", NULL);
    int64_t flag = gsvm_cli_i64(call, "--flag", -1);
    int rc;
    bool unpack = strcmp(pos[0], "unpack") == 0;
    if (!unpack && strcmp(pos[0], "pack") != 0)
        return gsvm_cli_usage_error(call, "expected unpack or pack, not '%s'", pos[0]);
    if (flag != -1 && (flag < 0 || flag > 1))
        return gsvm_cli_bad_value(call, "--flag must be 0 or 1");
    if (gsvm_cli_flag(call, "--compile")) {
        if (unpack || flag == 1)
            return gsvm_cli_bad_value(
                call, "--compile packs compiled source (flag 0): use it with pack");
        gsvm_hks_compile_options co;
        rc = hks_compile_options(call, &co);
        if (rc >= 0)
            return rc;
        uint8_t *chunk, *out;
        size_t clen, len;
        rc = hks_compile_source(&co, pos[1], NULL, &chunk, &clen);
        if (rc >= 0)
            return rc;
        gsvm_error err;
        gsvm_error_clear(&err);
        gsvm_status st = gsvm_hks_scri_pack(0, chunk, clen, &out, &len, &err);
        free(chunk);
        if (st != GSVM_OK)
            return gsvm_cli_fail(&err);
        rc = gsvm_cli_write(outp, out, len);
        free(out);
        return rc;
    }
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_buf b;
    if (gsvm_file_read(pos[1], &b, &err) != GSVM_OK) {
        gsvm_buf_free(&b);
        return gsvm_cli_fail(&err);
    }
    if (unpack) {
        gsvm_hks_scri s;
        if (gsvm_hks_scri_unpack(b.data, b.len, pos[1], &s, &err) != GSVM_OK) {
            gsvm_buf_free(&b);
            return gsvm_cli_fail(&err);
        }
        fprintf(stderr, "%s: SCRI version %u, flag %u (%s), %zu-byte body%s\n", pos[1],
                s.version, s.flag, s.flag ? "Lua source" : "bytecode", s.body_len,
                s.trailing ? ", bytes after the body ignored" : "");
        rc = gsvm_cli_write(outp, s.body, s.body_len);
    } else {
        uint8_t f = flag >= 0 ? (uint8_t)flag
                              : (b.len >= 4 && memcmp(b.data, "\x1bLua", 4) == 0 ? 0 : 1);
        uint8_t *out;
        size_t len;
        if (gsvm_hks_scri_pack(f, b.data, b.len, &out, &len, &err) != GSVM_OK) {
            gsvm_buf_free(&b);
            return gsvm_cli_fail(&err);
        }
        rc = gsvm_cli_write(outp, out, len);
        free(out);
    }
    gsvm_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------- roundtrip */

/* CPU seconds of this process: the figure that says what the code costs on
 * one core, even when the machine is busy with other work. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const gsvm_cli_opt roundtrip_opts[] = {
    LOAD_OPTS,
    {"--timing", 0, OPT_FLAG, NULL,
     "also print the CPU seconds spent loading, listing and assembling (and MB/s)"},
    {NULL, 0, 0, NULL, NULL},
};

static int verb_roundtrip(const gsvm_cli_call *call)
{
    const char *const *pos = call->pos;
    int npos = call->npos;
    bool timing = gsvm_cli_flag(call, "--timing");
    double t_load = 0, t_list = 0, t_asm = 0, t0;
    gsvm_hks_load_options o;
    int rc = load_options(call, &o);
    if (rc)
        return rc;
    int same = 0, worst = 0;
    unsigned long long bytes = 0, text_bytes = 0;
    for (int i = 0; i < npos; i++) {
        gsvm_error err;
        gsvm_error_clear(&err);
        gsvm_buf b;
        if ((rc = gsvm_cli_read(pos[i], &b))) {
            worst = rc;
            continue;
        }
        gsvm_hks_chunk *c = NULL, *c2 = NULL;
        char *text = NULL;
        uint8_t *out = NULL;
        size_t tlen = 0, olen = 0;
        t0 = now_s();
        gsvm_status st = gsvm_hks_chunk_load(b.data, b.len, &o, pos[i], &c, &err);
        t_load += now_s() - t0;
        if (st == GSVM_OK) {
            t0 = now_s();
            st = gsvm_hks_list(c, &text, &tlen, &err);
            t_list += now_s() - t0;
        }
        if (st == GSVM_OK) {
            t0 = now_s();
            st = gsvm_hks_asm(text, tlen, pos[i], &c2, &err);
            if (st == GSVM_OK)
                st = gsvm_hks_chunk_dump(c2, &out, &olen, &err);
            t_asm += now_s() - t0;
        }
        if (st != GSVM_OK) {
            worst = gsvm_cli_fail(&err);
        } else if (olen != b.len || memcmp(out, b.data, olen) != 0) {
            size_t at = 0;
            while (at < olen && at < b.len && out[at] == b.data[at])
                at++;
            fprintf(stderr, "%s: byte %zu: error: the reassembled chunk differs here\n", pos[i],
                    at);
            worst = EXIT_INPUT;
        } else {
            same++;
            bytes += b.len;
            text_bytes += tlen;
        }
        free(out);
        free(text);
        gsvm_hks_chunk_free(c2);
        gsvm_hks_chunk_free(c);
        gsvm_buf_free(&b);
    }
    printf("%d of %d files reproduced byte for byte (%llu bytes, %llu bytes of listing)\n", same,
           npos, bytes, text_bytes);
    if (timing) {
        double total = t_load + t_list + t_asm;
        printf("load %.3f s, list %.3f s, asm+dump %.3f s, total %.3f s, %.1f MB/s\n", t_load,
               t_list, t_asm, total, total > 0 ? (double)bytes / 1e6 / total : 0.0);
    }
    return worst;
}

/* ------------------------------------------------------------------- cfg */

static const gsvm_cli_opt cfg_opts[] = {
    {"--function", 0, OPT_STRING, "PATH",
     "the function: 0 is the main function, 0/2 its third child (default 0)"},
    {"--output", 'o', OPT_STRING, "FILE", "write the graph to FILE"},
    LOAD_OPTS,
    {NULL, 0, 0, NULL, NULL},
};

static int verb_cfg(const gsvm_cli_call *call)
{
    const char *const *pos = call->pos;
    const char *fpath = gsvm_cli_str(call, "--function", "0");
    gsvm_hks_load_options o;
    gsvm_hks_chunk *c;
    int rc = load_options(call, &o);
    if (rc || (rc = load_chunk(pos[0], &o, &c)))
        return rc;
    gsvm_error err;
    gsvm_error_clear(&err);
    const gsvm_hks_proto *f = gsvm_hks_find_function(c, fpath);
    if (!f) {
        gsvm_hks_chunk_free(c);
        gsvm_error_set(&err, GSVM_ERR_INPUT, pos[0], "no function '%s' (paths look like 0/2/1)",
                       fpath);
        return gsvm_cli_fail(&err);
    }
    char *dot;
    size_t len;
    gsvm_status st = gsvm_hks_cfg_dot(c, f, fpath, &dot, &len, &err);
    gsvm_hks_chunk_free(c);
    return gsvm_cli_output(call, st, &err, dot, len);
}

static const gsvm_cli_verb verbs[] = {
    {"list", "print a lossless, luac -l style listing of a chunk",
     "CHUNK [-o LISTING] [--offset N] [--profile P]",
     "Print a lossless, luac -l style listing of a chunk: header, functions, code with\n"
     "decoded operands, constants, debug info, structures and every other byte.\n"
     "'gsvm hks asm' turns it back into the same bytes.",
     list_opts, 1, 1, verb_list},
    {"asm", "assemble a listing back into a chunk (byte for byte)", "LISTING -o CHUNK",
     "Assemble a listing (as printed by 'gsvm hks list') into a chunk.", asm_opts, 1, 1, verb_asm},
    {"verify", "check every operand against its range", "CHUNK... [--hypothesis swap-ab|op-low-bit]",
     "Check every operand against its range: registers below max stack, constants,\n"
     "prototypes, upvalues, jump targets (inside the code, not onto DATA words), DATA\n"
     "words after their owners, tests followed by JMP, string constants where names\n"
     "are needed.  Prints each violation with function and pc; exits 1 if any.\n"
     "With --hypothesis the count is the result and the exit code is 0.",
     verify_opts, 1, 100000, verb_verify},
    {"stats", "count functions, instructions, constants, opcodes", "CHUNK... [--json]",
     "Count files, functions, instructions (code words, DATA included), DATA words,\n"
     "constants, structures and each opcode's occurrences over one or more chunks.",
     stats_opts, 1, 100000, verb_stats},
    {"roundtrip", "list and reassemble chunks in memory; compare byte for byte", "CHUNK... [--timing]",
     "Load each chunk, list it, assemble the listing and compare the result with the\n"
     "file byte for byte (what 'list' then 'asm' does, without temporary files).\n"
     "Exits 1 if any file differs.",
     roundtrip_opts, 1, 100000, verb_roundtrip},
    {"compile", "compile Lua 5.1 + HavokScript source into a chunk", HKS_COMPILE_USAGE,
     hks_compile_help, hks_compile_opts, 1, 1, gsvm_cli_hks_compile},
    {"scri", "unpack or pack a SCRI script payload",
     "unpack FILE [-o BODY] | pack BODY [-o FILE] [--flag F] | pack --compile SRC.lua [--target T]",
     "The SCRI payload of a world layer's script:\n"
     "  \"SCRI\" | u32 version 1 | u8 flag | u32 length | body   (little endian)\n"
     "flag 1 = Lua source text, flag 0 = HavokScript bytecode.\n"
     "unpack writes the body and prints a summary to stderr; pack wraps a body.",
     scri_opts, 2, 2, verb_scri},
    {"cfg", "one function's control-flow graph as Graphviz dot", "CHUNK --function PATH [-o FILE.dot]",
     "Print one function's control-flow graph as Graphviz dot.", cfg_opts, 1, 1, verb_cfg},
    {"decompile", "Lua source from a chunk",
     "CHUNK [-o OUT.lua] [--function PATH] [--strict] | --check CHUNK... [--json]",
     "Print Lua 5.1 / HavokScript source for a chunk: local names from debug info where\n"
     "the chunk has it, otherwise generated ones (arg1, loc5, i, k, v).  A function whose\n"
     "control flow is not recovered is printed as a loop over its blocks (it still\n"
     "compiles and runs) with a comment; --strict makes that an error.",
     gsvm_cli_hks_decompile_opts, 1, 100000, gsvm_cli_hks_decompile},
    {"run", "run a chunk on the VM, or a world layer with --world", HKS_CLI_RUN_USAGE,
     HKS_CLI_RUN_HELP, hks_cli_run_opts, 1, 1, hks_cli_run},
    {NULL, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

static const gsvm_cli_engine engine = {
    "hks",
    "HavokScript (Havok's Lua 5.1 fork) chunks: formats 13 and 14, both byte orders,\n"
    "float32/float64 numbers, structures; opcode profiles base, bo3 and ghosts.",
    verbs};

int gsvm_cli_hks(int argc, char **argv)
{
    return gsvm_cli_engine_main(&engine, argc, argv);
}
