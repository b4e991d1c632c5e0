/* gsvm hks compile: argument parsing for the HavokScript compiler, and the
 * source-to-chunk step that `gsvm hks scri pack --compile` shares. */
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static int bad(const gsvm_cli_call *c, const char *what, const char *value, const char *choices)
{
    return gsvm_cli_bad_value(c, "unknown %s '%s' (%s)", what, value, choices);
}

/* One of `names`, or -1 (names ends with NULL). */
static int choice(const char *value, const char *const *names)
{
    for (int k = 0; names[k]; k++)
        if (strcmp(value, names[k]) == 0)
            return k;
    return -1;
}

int hks_compile_options(const gsvm_cli_call *c, gsvm_hks_compile_options *o)
{
    const char *target = gsvm_cli_str(c, "--target", "sekiro");
    if (!gsvm_hks_compile_preset(target, o))
        return bad(c, "target", target, "sekiro, sow, ghosts, doubles, bo2, bo3");
    const char *v;
    int k;
    if ((v = gsvm_cli_str(c, "--debug", NULL))) {
        static const char *const names[] = {"full", "profile", "none", NULL};
        static const gsvm_hks_debug_level levels[] = {GSVM_HKS_DEBUG_FULL, GSVM_HKS_DEBUG_PROFILE,
                                                GSVM_HKS_DEBUG_NONE};
        if ((k = choice(v, names)) < 0)
            return bad(c, "debug level", v, "full, profile, none");
        o->debug = levels[k];
    }
    if ((v = gsvm_cli_str(c, "--endian", NULL))) {
        static const char *const names[] = {"little", "big", NULL};
        if ((k = choice(v, names)) < 0)
            return bad(c, "byte order", v, "big, little");
        o->big_endian = k == 1;
    }
    if (gsvm_cli_given(c, "--size-t")) {
        uint64_t n = gsvm_cli_u64(c, "--size-t", 0);
        if (n != 4 && n != 8)
            return gsvm_cli_bad_value(c, "--size-t must be 4 or 8");
        o->size_size = (uint8_t)n;
    }
    if ((v = gsvm_cli_str(c, "--number", NULL))) {
        static const char *const names[] = {"float32", "float64", NULL};
        if ((k = choice(v, names)) < 0)
            return bad(c, "number type", v, "float32, float64");
        o->number_size = k ? 8 : 4;
    }
    if (gsvm_cli_given(c, "--format")) {
        uint64_t n = gsvm_cli_u64(c, "--format", 0);
        if (n != 13 && n != 14)
            return gsvm_cli_bad_value(c, "--format must be 13 or 14");
        o->format = (uint8_t)n;
    }
    if (gsvm_cli_given(c, "--build-flags")) {
        uint64_t n = gsvm_cli_u64(c, "--build-flags", 0);
        if (n > 255)
            return gsvm_cli_bad_value(c, "--build-flags must be 0..255");
        o->build_flags = (uint8_t)n;
    }
    if ((v = gsvm_cli_str(c, "--profile", NULL))) {
        if (!gsvm_hks_profile_parse(v, &o->profile) || o->profile == GSVM_HKS_PROFILE_AUTO)
            return bad(c, "profile", v, "base, bo3, ghosts");
    }
    if ((v = gsvm_cli_str(c, "--arg-table", NULL))) {
        static const char *const names[] = {"yes", "no", NULL};
        if ((k = choice(v, names)) < 0)
            return bad(c, "--arg-table value", v, "yes, no");
        o->no_arg_table = k == 1;
    }
    if ((v = gsvm_cli_str(c, "--hash-debug", NULL))) {
        static const char *const names[] = {"none", "t6", "t7", NULL};
        static const gsvm_hks_hash_form forms[] = {GSVM_HKS_HASH_NONE, GSVM_HKS_HASH_T6,
                                              GSVM_HKS_HASH_T7};
        if ((k = choice(v, names)) < 0)
            return bad(c, "hash form", v, "none, t6, t7");
        o->hash = forms[k];
    }
    return -1;
}

/* A big compile touches fresh heap for about 12 bytes per byte of source,
 * and on a virtual machine each 4 kB page fault costs as much as compiling a
 * line.  For a big source (Linux, glibc) the heap is grown once by that much
 * and marked for transparent huge pages: one fault per 2 MB, and a 1 MB
 * program compiles in two thirds of the time.  The small pages below the
 * first huge one are mapped in one call (300 kB programs: 230 faults fewer,
 * 10-15% less CPU). */
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
    uintptr_t first = (uintptr_t)block & ~(uintptr_t)4095;
    free(block);
    uintptr_t hi = (uintptr_t)sbrk(0), huge = (uintptr_t)2 << 20;
    lo = (lo + huge - 1) & ~(huge - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
    /* Below the first huge page the heap has small pages, and the first
     * blocks (the source among them) come from there: one call maps them
     * all instead of a fault per page. */
    uintptr_t small_end = lo < hi ? lo : hi;
    if (block && small_end > first)
        madvise((void *)first, small_end - first, MADV_POPULATE_WRITE);
#endif
#else
    (void)srclen;
#endif
}

int hks_compile_source(const gsvm_hks_compile_options *o, const char *path,
                       const char *chunkname, uint8_t **out, size_t *len)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    /* the heap first, so that the source is read into it too */
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        reserve_heap((size_t)sb.st_size);
    gsvm_buf src;
    if (gsvm_file_read(path, &src, &err) != GSVM_OK) {
        gsvm_buf_free(&src);
        return gsvm_cli_fail(&err);
    }
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

const gsvm_cli_opt hks_compile_opts[] = {
    {"--output", 'o', OPT_STRING, "OUT", "write the chunk to OUT (- stdout)"},
    HKS_COMPILE_OPTS,
    {"--chunkname", 0, OPT_STRING, "NAME",
     "source name kept in debug info (default: @ and the path as given)"},
    {NULL, 0, 0, NULL, NULL},
};

const char hks_compile_help[] =
    "Compiles Lua 5.1 + HavokScript source (hstructure/hmake, typed locals, 0x..hi and\n"
    "0x..hl literals, Black Ops 3 bit operators, Ghosts' hdelete) into a chunk, the\n"
    "same bytes hksc makes.  SRC - reads stdin.  A --target sets every switch below;\n"
    "the single switches then change one setting.";

int gsvm_cli_hks_compile(const gsvm_cli_call *c)
{
    const char *outp = gsvm_cli_str(c, "--output", NULL);
    if (!outp)
        return gsvm_cli_bad_value(c, "-o OUT is required (- for stdout)");
    gsvm_hks_compile_options o;
    int rc = hks_compile_options(c, &o);
    if (rc >= 0)
        return rc;
    uint8_t *out;
    size_t len;
    rc = hks_compile_source(&o, c->pos[0], gsvm_cli_str(c, "--chunkname", NULL), &out, &len);
    if (rc >= 0)
        return rc;
    rc = gsvm_cli_write(outp, out, len);
    free(out);
    return rc;
}
