/* gsvm hks decompile --check: decompile, recompile with the chunk's own
 * target, compare function by function. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "cli/verb.h"
#include "cli/hks_cli.h"
#include "gsvm/hks.h"

/* Whether f or a function inside it holds a DELETE / DELETE_BK. */
static bool has_delete(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, int depth)
{
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        const char *name = gsvm_hks_op_name(c->profile, GSVM_HKS_OP(f->code[pc]));
        if (name && strncmp(name, "DELETE", 6) == 0)
            return true;
    }
    for (uint32_t i = 0; i < f->np && depth < 200; i++)
        if (has_delete(c, &f->p[i], depth + 1))
            return true;
    return false;
}

/* The compiler settings that made the chunk, read from its header and
 * debug info. */
static void options_of(const gsvm_hks_chunk *c, gsvm_hks_compile_options *o, const char *file)
{
    memset(o, 0, sizeof *o);
    o->file = file;
    o->big_endian = c->endian == 0;
    o->size_size = c->size_size;
    o->number_size = c->size_number;
    o->format = c->format;
    o->build_flags = c->build_flags;
    o->profile = c->profile;
    /* Ghosts' table is the base one plus DELETE: code without it reads the
     * same under both, and only Ghosts reserves `hdelete` (format 13 loads
     * as Ghosts, but Black Ops 2 chunks call a global of that name) */
    if (o->profile == GSVM_HKS_PROFILE_GHOSTS && !has_delete(c, &c->main, 0))
        o->profile = GSVM_HKS_PROFILE_BASE;
    const gsvm_hks_debug *d = &c->main.debug;
    bool hashed = (c->format == 13 || c->debug_hash) && d->flag == 1;
    o->hash = !hashed ? GSVM_HKS_HASH_NONE : c->format == 13 ? GSVM_HKS_HASH_T6 : GSVM_HKS_HASH_T7;
    o->no_arg_table = hashed || c->format == 13;
    if (hashed || d->flag == 0)
        o->debug = GSVM_HKS_DEBUG_NONE;
    else if (d->nlines > 0)
        o->debug = GSVM_HKS_DEBUG_FULL;
    else if (d->source.size > 1)
        o->debug = GSVM_HKS_DEBUG_PROFILE;
    else
        o->debug = GSVM_HKS_DEBUG_NONE;
    o->chunkname = d->source.size > 1 ? d->source.data : NULL;
}

static bool same_code(const gsvm_hks_proto *a, const gsvm_hks_proto *b)
{
    if (a->ncode != b->ncode || a->nk != b->nk || a->nups != b->nups ||
        a->nparams != b->nparams || a->flags != b->flags || a->maxstack != b->maxstack ||
        a->np != b->np)
        return false;
    if (a->ncode && memcmp(a->code, b->code, (size_t)a->ncode * 4) != 0)
        return false;
    for (uint32_t i = 0; i < a->nk; i++) {
        const gsvm_hks_const *x = &a->k[i], *y = &b->k[i];
        if (x->type != y->type || x->b != y->b || x->bits != y->bits || x->s.size != y->s.size ||
            (x->s.size && memcmp(x->s.data, y->s.data, (size_t)x->s.size) != 0))
            return false;
    }
    return true;
}

/* One instruction as "OPNAME A B C" (Bx and sBx forms left to the listing). */
static void insn_text(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, uint64_t pc, char *o,
                      size_t n)
{
    uint32_t w = f->code[pc];
    const char *name = gsvm_hks_op_name(c->profile, GSVM_HKS_OP(w));
    snprintf(o, n, "%s %u %u %u", name ? name : "?", GSVM_HKS_A(w), GSVM_HKS_B(w),
             GSVM_HKS_C(w));
}

/* Where a recompiled function first differs from the original: the first
 * instruction, else the constants, else a header field. */
static void first_difference(const gsvm_hks_chunk *ca, const gsvm_hks_proto *a,
                             const gsvm_hks_chunk *cb, const gsvm_hks_proto *b, char *o, size_t n)
{
    uint64_t m = a->ncode < b->ncode ? a->ncode : b->ncode;
    for (uint64_t pc = 0; pc < m; pc++)
        if (a->code[pc] != b->code[pc]) {
            char x[96], y[96];
            insn_text(ca, a, pc, x, sizeof x);
            insn_text(cb, b, pc, y, sizeof y);
            snprintf(o, n, "pc %llu: %s / %s", (unsigned long long)pc, x, y);
            return;
        }
    if (a->ncode != b->ncode) {
        snprintf(o, n, "code length %llu / %llu", (unsigned long long)a->ncode,
                 (unsigned long long)b->ncode);
        return;
    }
    for (uint32_t i = 0; i < a->nk && i < b->nk; i++) {
        const gsvm_hks_const *x = &a->k[i], *y = &b->k[i];
        if (x->type != y->type || x->b != y->b || x->bits != y->bits || x->s.size != y->s.size ||
            (x->s.size && memcmp(x->s.data, y->s.data, (size_t)x->s.size) != 0)) {
            snprintf(o, n, "constant %u", i);
            return;
        }
    }
    if (a->nk != b->nk)
        snprintf(o, n, "constants %u / %u", a->nk, b->nk);
    else if (a->maxstack != b->maxstack)
        snprintf(o, n, "maxstack %u / %u", a->maxstack, b->maxstack);
    else if (a->nups != b->nups || a->nparams != b->nparams || a->flags != b->flags)
        snprintf(o, n, "header (upvalues, parameters or flags)");
    else
        snprintf(o, n, "functions %u / %u", a->np, b->np);
}

/* The function's string constants and its calls' argument counts, sorted:
 * what must match when the bytes do not. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static char *signature(const gsvm_hks_chunk *c, const gsvm_hks_proto *f)
{
    char **items = calloc(f->nk + f->ncode + 1, sizeof *items);
    size_t n = 0;
    if (!items)
        return NULL;
    for (uint32_t i = 0; i < f->nk; i++)
        if (f->k[i].type == GSVM_HKS_K_STRING && f->k[i].s.size) {
            gsvm_buf b;
            gsvm_buf_init(&b);
            gsvm_buf_puts(&b, "s:");
            gsvm_buf_append(&b, f->k[i].s.data, (size_t)f->k[i].s.size);
            gsvm_buf_cstr(&b);
            items[n++] = (char *)gsvm_buf_take(&b, NULL);
        }
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        const char *name = gsvm_hks_op_name(c->profile, GSVM_HKS_OP(f->code[pc]));
        if (name && (strncmp(name, "CALL", 4) == 0 || strncmp(name, "TAILCALL", 8) == 0)) {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "c:%u", GSVM_HKS_B(f->code[pc]));
            items[n++] = strdup(tmp);
        }
    }
    qsort(items, n, sizeof *items, cmp_str);
    gsvm_buf out;
    gsvm_buf_init(&out);
    for (size_t i = 0; i < n; i++) {
        if (items[i])
            gsvm_buf_puts(&out, items[i]);
        gsvm_buf_putc(&out, '\n');
        free(items[i]);
    }
    free(items);
    gsvm_buf_cstr(&out);
    return (char *)gsvm_buf_take(&out, NULL);
}

/* The first line of two signatures that differs: "calls and literals:
 * ORIGINAL / RECOMPILED" (s:TEXT a string, c:N a call with B = N). */
static void first_line_difference(const char *a, const char *b, char *o, size_t n)
{
    while (*a && *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0) {
            snprintf(o, n, "calls and literals: %.*s / %.*s", (int)(la < 100 ? la : 100), a,
                     (int)(lb < 100 ? lb : 100), b);
            return;
        }
        a += la + (a[la] != 0);
        b += lb + (b[lb] != 0);
    }
    snprintf(o, n, "calls and literals: %s", *a ? "more in the original" : "more recompiled");
}

typedef struct tally {
    uint64_t same, calls, diff;
    json_t *list;
} tally;

static void verdict(tally *t, const char *file, const char *path, const char *v,
                    const char *where)
{
    if (t->list) {
        json_t *o = json_pack("{s:s, s:s, s:s}", "file", file, "function", path, "verdict", v);
        if (o && where)
            json_object_set_new(o, "differs", json_string(where));
        if (o)
            json_array_append_new(t->list, o);
    }
}

static void compare(tally *t, const char *file, const gsvm_hks_chunk *ca, const gsvm_hks_proto *a,
                    const gsvm_hks_chunk *cb, const gsvm_hks_proto *b, const char *path,
                    int depth)
{
    if (!b) {
        t->diff++;
        verdict(t, file, path, "different", "not in the recompiled chunk");
    } else if (same_code(a, b)) {
        t->same++;
        verdict(t, file, path, "byte-identical", NULL);
    } else {
        char *sa = signature(ca, a), *sb = signature(cb, b);
        bool same = sa && sb && strcmp(sa, sb) == 0;
        if (same)
            t->calls++;
        else
            t->diff++;
        char where[256];
        if (t->list && !same && sa && sb)
            first_line_difference(sa, sb, where, sizeof where);
        else if (t->list)
            first_difference(ca, a, cb, b, where, sizeof where);
        free(sa);
        free(sb);
        verdict(t, file, path, same ? "same calls and literals" : "different", t->list ? where : NULL);
    }
    size_t plen = strlen(path);
    if (depth > 200 || plen > 3000)
        return; /* (the loader nests no deeper than 128) */
    for (uint32_t i = 0; i < a->np; i++) {
        char p[3100];
        memcpy(p, path, plen);
        snprintf(p + plen, sizeof p - plen, "/%u", i);
        compare(t, file, ca, &a->p[i], cb, b && i < b->np ? &b->p[i] : NULL, p, depth + 1);
    }
}

int gsvm_cli_hks_check(const char **files, int nfiles, const char *profile, bool json)
{
    tally t = {0, 0, 0, json ? json_array() : NULL};
    int rc = 0;
    for (int i = 0; i < nfiles; i++) {
        gsvm_hks_load_options lo = {0, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, true};
        if (profile)
            gsvm_hks_profile_parse(profile, &lo.profile);
        gsvm_error err;
        gsvm_error_clear(&err);
        gsvm_buf b;
        if (gsvm_file_read(files[i], &b, &err) != GSVM_OK) {
            gsvm_buf_free(&b);
            rc = gsvm_cli_fail(&err);
            continue;
        }
        gsvm_hks_chunk *c = NULL, *c2 = NULL;
        gsvm_status st = gsvm_hks_chunk_load(b.data, b.len, &lo, files[i], &c, &err);
        gsvm_buf_free(&b);
        if (st != GSVM_OK) {
            rc = gsvm_cli_fail(&err);
            continue;
        }
        char *text = NULL;
        size_t len = 0;
        gsvm_hks_decompile_result res;
        gsvm_hks_decompile_options dopt = {NULL, false};
        if (gsvm_hks_decompile(c, &dopt, &text, &len, &res, &err) == GSVM_OK) {
            gsvm_hks_compile_options co;
            options_of(c, &co, files[i]);
            gsvm_error cerr;
            gsvm_error_clear(&cerr);
            if (gsvm_hks_compile(text, len, &co, &c2, &cerr) != GSVM_OK) {
                char msg[1024];
                gsvm_error_format(&cerr, msg, sizeof msg);
                fprintf(stderr, "%s: the decompiled source does not compile: %s\n", files[i], msg);
                c2 = NULL;
            }
        }
        compare(&t, files[i], c, &c->main, c2, c2 ? &c2->main : NULL, "0", 0);
        free(text);
        gsvm_hks_chunk_free(c);
        gsvm_hks_chunk_free(c2);
    }
    if (t.list) {
        char *s = json_dumps(t.list, JSON_INDENT(1));
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(t.list);
    }
    printf("functions: %llu byte-identical, %llu same calls and literals, %llu different\n",
           (unsigned long long)t.same, (unsigned long long)t.calls, (unsigned long long)t.diff);
    if (rc)
        return rc;
    return t.diff ? EXIT_INPUT : 0;
}
