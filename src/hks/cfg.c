/* One function's control-flow graph as Graphviz dot.  A block starts at pc 0,
 * at every jump target and after every branch; DATA words stay with their
 * owner.  Conditional instructions (tests, LOADBOOL with C, TFORLOOP) may
 * skip the next instruction; RETURN and the tail calls end the function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "hks/isa.h"
#include "hks/text.h"

const gsvm_hks_proto *gsvm_hks_find_function(const gsvm_hks_chunk *c, const char *path)
{
    /* "0" (or "main") is the main function, "0/2" its third child; '.' and
     * ':' separate as well as '/' */
    if (!path)
        return NULL;
    const char *p;
    if (strncmp(path, "main", 4) == 0)
        p = path + 4;
    else if (path[0] == '0')
        p = path + 1;
    else
        return NULL;
    const gsvm_hks_proto *f = &c->main;
    while (*p) {
        if (*p != '/' && *p != '.' && *p != ':')
            return NULL;
        p++;
        char *end;
        unsigned long i = strtoul(p, &end, 10);
        if (end == p || i >= f->np)
            return NULL;
        f = &f->p[i];
        p = end;
    }
    return f;
}

enum { ENDS = 1, SKIPS = 2, JUMPS = 4 };

/* "pc: NAME operands" in the listing's convention (constants as -1-k). */
static void put_insn(gsvm_buf *b, uint64_t pc, unsigned iop, uint32_t w)
{
    gsvm_buf_printf(b, "%llu: ", (unsigned long long)pc);
    if (iop == HKS_NO_OP) {
        gsvm_buf_printf(b, ".word 0x%08x\\l", w);
        return;
    }
    const hks_opinfo *o = &hks_ops[iop];
    long a = (long)GSVM_HKS_A(w), bb = (long)GSVM_HKS_B(w), c = (long)GSVM_HKS_C(w);
    long bx = (long)GSVM_HKS_BX(w);
    if (o->mode == HKS_ABC) {
        if (o->b == HKS_K)
            bb = -1 - bb;
        if (o->c == HKS_K)
            c = -1 - c;
        else if (o->c == HKS_RK && c >= 256)
            c = -1 - (c - 256);
        gsvm_buf_printf(b, "%s %ld %ld %ld\\l", o->name, a, bb, c);
    } else if (o->mode == HKS_ABX) {
        gsvm_buf_printf(b, "%s %ld %ld\\l", o->name, a, o->b == HKS_K ? -1 - bx : bx);
    } else {
        gsvm_buf_printf(b, "%s %ld %d (to %lld)\\l", o->name, a, GSVM_HKS_SBX(w),
                        (long long)pc + 1 + GSVM_HKS_SBX(w));
    }
}

static int flow(unsigned iop, uint32_t w)
{
    if (iop == HKS_NO_OP)
        return 0;
    switch (iop) {
    case HKS_I_RETURN: case HKS_I_TAILCALL: case HKS_I_TAILCALL_I: case HKS_I_TAILCALL_C:
    case HKS_I_TAILCALL_M: case HKS_I_TAILCALL_I_R1:
        return ENDS;
    case HKS_I_JMP: case HKS_I_FORPREP: return JUMPS | ENDS;
    case HKS_I_FORLOOP: return JUMPS;
    case HKS_I_LOADBOOL: return GSVM_HKS_C(w) ? SKIPS : 0;
    default: return (hks_ops[iop].checks & HKS_XTEST) ? SKIPS : 0;
    }
}

gsvm_status gsvm_hks_cfg_dot(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, const char *path,
                             char **out, size_t *len, gsvm_error *err)
{
    uint64_t n = f->ncode;
    uint8_t *leader = calloc(n + 1, 1), *data = calloc(n + 1, 1);
    if (!leader || !data) {
        free(leader);
        free(data);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    if (n)
        leader[0] = 1;
    for (uint64_t pc = 0; pc < n; pc++) {
        if (data[pc])
            continue;
        uint32_t w = f->code[pc];
        unsigned iop = hks_decode_op(c->profile, GSVM_HKS_OP(w));
        unsigned nd = iop == HKS_NO_OP ? 0 : hks_data_words(f, iop, w);
        for (unsigned i = 1; i <= nd && pc + i < n; i++)
            data[pc + i] = 1;
        uint64_t next = pc + 1 + nd;
        int fl = flow(iop, w);
        if (fl && next < n)
            leader[next] = 1;
        if (fl & SKIPS && next + 1 < n)
            leader[next + 1] = 1;
        if (fl & JUMPS) {
            int64_t t = (int64_t)pc + 1 + GSVM_HKS_SBX(w);
            if (t >= 0 && (uint64_t)t < n)
                leader[t] = 1;
        }
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_printf(&b, "digraph \"%s\" {\n  node [shape=box fontname=monospace];\n", path);
    gsvm_buf_puts(&b, "  entry [shape=oval];\n  exit [shape=oval];\n");
    if (n)
        gsvm_buf_puts(&b, "  entry -> b0;\n");
    for (uint64_t start = 0; start < n;) {
        uint64_t end = start + 1;
        while (end < n && !leader[end])
            end++;
        gsvm_buf_printf(&b, "  b%llu [label=\"", (unsigned long long)start);
        uint64_t last = start;
        for (uint64_t pc = start; pc < end; pc++) {
            uint32_t w = f->code[pc];
            unsigned iop = hks_decode_op(c->profile, GSVM_HKS_OP(w));
            if (!data[pc])
                last = pc;
            put_insn(&b, pc, iop, w);
        }
        gsvm_buf_puts(&b, "\"];\n");
        uint32_t w = f->code[last];
        unsigned iop = hks_decode_op(c->profile, GSVM_HKS_OP(w));
        int fl = flow(iop, w);
        if (fl & JUMPS) {
            int64_t t = (int64_t)last + 1 + GSVM_HKS_SBX(w);
            if (t >= 0 && (uint64_t)t < n)
                gsvm_buf_printf(&b, "  b%llu -> b%lld [label=\"jump\"];\n",
                                (unsigned long long)start, (long long)t);
        }
        if (fl & SKIPS && end + 1 <= n) {
            uint64_t t = end + 1 < n ? end + 1 : n;
            if (t < n)
                gsvm_buf_printf(&b, "  b%llu -> b%llu [label=\"skip\"];\n",
                                (unsigned long long)start, (unsigned long long)t);
        }
        if ((fl & ENDS) && !(fl & JUMPS))
            gsvm_buf_printf(&b, "  b%llu -> exit;\n", (unsigned long long)start);
        else if (!(fl & ENDS)) {
            if (end < n)
                gsvm_buf_printf(&b, "  b%llu -> b%llu;\n", (unsigned long long)start,
                                (unsigned long long)end);
            else
                gsvm_buf_printf(&b, "  b%llu -> exit;\n", (unsigned long long)start);
        }
        start = end;
    }
    gsvm_buf_puts(&b, "}\n");
    free(leader);
    free(data);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    gsvm_buf_cstr(&b);
    *out = (char *)gsvm_buf_take(&b, len);
    return GSVM_OK;
}
