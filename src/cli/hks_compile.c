/* gsvm hks compile: argument parsing for the HavokScript compiler, and the
 * source-to-chunk step that `gsvm hks scri pack --compile` shares. */
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "base/buf.h"
#include "base/file.h"
#include "cli/verb.h"
#include "cli/hks_compile.h"
#include "gsvm/hks.h"

static int bad(const char *command, const char *what, const char *value, const char *choices)
{
    fprintf(stderr, "%s: unknown %s '%s' (%s)\n", command, what, value, choices);
    return EXIT_USAGE;
}

int hks_compile_options(const hks_compile_args *a, const char *command,
                        gsvm_hks_compile_options *o)
{
    const char *target = a->target ? a->target : "sekiro";
    if (!gsvm_hks_compile_preset(target, o))
        return bad(command, "target", target, "sekiro, sow, ghosts, doubles, bo2, bo3");
    if (a->debug) {
        if (strcmp(a->debug, "full") == 0)
            o->debug = GSVM_HKS_DEBUG_FULL;
        else if (strcmp(a->debug, "profile") == 0)
            o->debug = GSVM_HKS_DEBUG_PROFILE;
        else if (strcmp(a->debug, "none") == 0)
            o->debug = GSVM_HKS_DEBUG_NONE;
        else
            return bad(command, "debug level", a->debug, "full, profile, none");
    }
    if (a->endian) {
        if (strcmp(a->endian, "big") == 0)
            o->big_endian = true;
        else if (strcmp(a->endian, "little") == 0)
            o->big_endian = false;
        else
            return bad(command, "byte order", a->endian, "big, little");
    }
    if (a->size_t_seen) {
        if (a->size_size != 4 && a->size_size != 8) {
            fprintf(stderr, "%s: --size-t must be 4 or 8\n", command);
            return EXIT_USAGE;
        }
        o->size_size = (uint8_t)a->size_size;
    }
    if (a->number) {
        if (strcmp(a->number, "float32") == 0)
            o->number_size = 4;
        else if (strcmp(a->number, "float64") == 0)
            o->number_size = 8;
        else
            return bad(command, "number type", a->number, "float32, float64");
    }
    if (a->format_seen) {
        if (a->format != 13 && a->format != 14) {
            fprintf(stderr, "%s: --format must be 13 or 14\n", command);
            return EXIT_USAGE;
        }
        o->format = (uint8_t)a->format;
    }
    if (a->flags_seen) {
        if (a->flags > 255) {
            fprintf(stderr, "%s: --build-flags must be 0..255\n", command);
            return EXIT_USAGE;
        }
        o->build_flags = (uint8_t)a->flags;
    }
    if (a->profile) {
        if (!gsvm_hks_profile_parse(a->profile, &o->profile) ||
            o->profile == GSVM_HKS_PROFILE_AUTO)
            return bad(command, "profile", a->profile, "base, bo3, ghosts");
    }
    if (a->arg_table) {
        if (strcmp(a->arg_table, "yes") == 0)
            o->no_arg_table = false;
        else if (strcmp(a->arg_table, "no") == 0)
            o->no_arg_table = true;
        else
            return bad(command, "--arg-table value", a->arg_table, "yes, no");
    }
    if (a->hash) {
        if (strcmp(a->hash, "none") == 0)
            o->hash = GSVM_HKS_HASH_NONE;
        else if (strcmp(a->hash, "t6") == 0)
            o->hash = GSVM_HKS_HASH_T6;
        else if (strcmp(a->hash, "t7") == 0)
            o->hash = GSVM_HKS_HASH_T7;
        else
            return bad(command, "hash form", a->hash, "none, t6, t7");
    }
    return -1;
}

/* A big compile touches fresh heap for about 12 bytes per byte of source,
 * and on a virtual machine each 4 kB page fault costs as much as compiling a
 * line.  For a big source (Linux, glibc) the heap is grown once by that much
 * and marked for transparent huge pages: one fault per 2 MB, and a 1 MB
 * program compiles in two thirds of the time. */
static void reserve_heap(size_t srclen)
{
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    const size_t max = (size_t)30 << 20; /* below glibc's highest mmap threshold */
    if (srclen < ((size_t)128 << 10))
        return;
    size_t need = srclen < max / 12 ? srclen * 12 : max;
    if (need < ((size_t)6 << 20))
        need = (size_t)6 << 20; /* two huge pages at least, whatever the alignment */
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* below it, blocks come from the heap */
    mallopt(M_TRIM_THRESHOLD, 64 << 20); /* and the heap is not given back */
    uintptr_t lo = (uintptr_t)sbrk(0);
    void *volatile block = malloc(need); /* volatile: a malloc/free pair is otherwise elided */
    free(block);
    uintptr_t hi = (uintptr_t)sbrk(0), huge = (uintptr_t)2 << 20;
    lo = (lo + huge - 1) & ~(huge - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)srclen;
#endif
}

int hks_compile_source(const gsvm_hks_compile_options *o, const char *path,
                       const char *chunkname, uint8_t **out, size_t *len)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_buf src;
    if (gsvm_file_read(path, &src, &err) != GSVM_OK) {
        gsvm_buf_free(&src);
        return gsvm_cli_fail(&err);
    }
    reserve_heap(src.len);
    gsvm_hks_compile_options opts = *o;
    const char *shown = strcmp(path, "-") == 0 ? "stdin" : path;
    char *name = NULL;
    if (chunkname)
        opts.chunkname = chunkname;
    else {
        size_t n = strlen(shown);
        name = malloc(n + 2);
        if (!name) {
            gsvm_buf_free(&src);
            fprintf(stderr, "%s: out of memory\n", shown);
            return EXIT_INPUT;
        }
        name[0] = strcmp(path, "-") == 0 ? '=' : '@';
        memcpy(name + 1, shown, n + 1);
        opts.chunkname = name;
    }
    opts.file = shown;
    gsvm_hks_chunk *c = NULL;
    gsvm_status st = gsvm_hks_compile(src.data ? (const char *)src.data : "", src.len, &opts, &c,
                                      &err);
    gsvm_buf_free(&src);
    free(name);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    st = gsvm_hks_chunk_dump(c, out, len, &err);
    gsvm_hks_chunk_free(c);
    if (st != GSVM_OK)
        return gsvm_cli_fail(&err);
    return -1;
}

int gsvm_cli_hks_compile(int argc, char **argv)
{
    const char *outp = NULL, *chunkname = NULL;
    hks_compile_args a;
    memset(&a, 0, sizeof a);
    const gsvm_opt opts[] = {
        {"--output", 'o', OPT_STRING, &outp, "OUT", "write the chunk to OUT (- stdout)", NULL},
        HKS_COMPILE_OPTS(a),
        {"--chunkname", 0, OPT_STRING, &chunkname, "NAME",
         "source name kept in debug info (default: @ and the path as given)", NULL},
        {NULL, 0, 0, NULL, NULL, NULL, NULL},
    };
    const gsvm_verb_spec spec = {
        "gsvm hks compile", "SRC.lua -o OUT [--target T] [--debug full|profile|none]",
        "Compiles Lua 5.1 + HavokScript source (hstructure/hmake, typed locals, 0x..hi and\n"
        "0x..hl literals, Black Ops 3 bit operators, Ghosts' hdelete) into a chunk, the\n"
        "same bytes hksc makes.  SRC - reads stdin.  A --target sets every switch below;\n"
        "the single switches then change one setting.",
        opts, 1, 1};
    const char *pos[1];
    int npos, rc = gsvm_args_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0)
        return rc;
    if (!outp) {
        fprintf(stderr, "%s: -o OUT is required (- for stdout)\n", spec.command);
        return EXIT_USAGE;
    }
    gsvm_hks_compile_options o;
    rc = hks_compile_options(&a, spec.command, &o);
    if (rc >= 0)
        return rc;
    uint8_t *out;
    size_t len;
    rc = hks_compile_source(&o, pos[0], chunkname, &out, &len);
    if (rc >= 0)
        return rc;
    rc = gsvm_cli_write(outp, out, len);
    free(out);
    return rc;
}
