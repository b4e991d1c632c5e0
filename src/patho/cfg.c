/* The control-flow graph of one task as Graphviz dot.
 *
 * A task's code is what its event handlers reach, plus RunOp when it is the
 * RunTask, plus the function a `TaskCall N; Call F` pair enters (the task
 * body).  Blocks end at jumps, branches, calls and returns; call edges are
 * dashed and go to the callee's first block, the return comes back on the
 * solid edge to the next block. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "patho/internal.h"
#include "patho/isa.h"

static bool ends_block(const gsvm_patho_insn *in)
{
    gsvm_patho_class c = gsvm_patho_ops[in->op].cls;
    return c == GSVM_PATHO_C_JUMP || c == GSVM_PATHO_C_JUMPB || c == GSVM_PATHO_C_RETURN ||
           c == GSVM_PATHO_C_CALL;
}

static void put_escaped(gsvm_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"' || c == '\\')
            gsvm_buf_putc(b, '\\');
        gsvm_buf_putc(b, c);
    }
}

gsvm_status gsvm_patho_cfg_dot(const gsvm_patho_program *p, uint32_t task, char **text,
                               size_t *len, gsvm_error *err)
{
    gsvm_error_clear(err);
    *text = NULL;
    *len = 0;
    if (task >= p->ntasks)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "task %u does not exist (%u tasks)", task,
                              p->ntasks);
    uint32_t n = p->ninsns;
    uint8_t *reach = calloc(n + 1, 1), *leader = calloc(n + 1, 1);
    uint32_t *work = malloc((n + 1) * sizeof *work);
    if (!reach || !leader || !work) {
        free(reach);
        free(leader);
        free(work);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    size_t nwork = 0;
#define ROOT(op)                               \
    do {                                       \
        uint32_t r_ = (op);                    \
        if (r_ < n) {                          \
            leader[r_] = 1;                    \
            if (!reach[r_]) {                  \
                reach[r_] = 1;                 \
                work[nwork++] = r_;            \
            }                                  \
        }                                      \
    } while (0)
    const gsvm_patho_task *t = &p->tasks[task];
    for (uint32_t e = 0; e < t->nevents; e++)
        ROOT(t->events[e].op);
    if (p->run_task == task)
        ROOT(p->run_op);
    for (uint32_t i = 0; i + 1 < n; i++)
        if (p->insns[i].op == GSVM_PATHO_OP_TaskCall && p->insns[i].a[0] == task) {
            /* the task body: the first Call after the TaskCall */
            for (uint32_t k = i + 1; k < n && k < i + 4; k++)
                if (p->insns[k].op == GSVM_PATHO_OP_Call) {
                    ROOT(p->insns[k].a[0]);
                    break;
                }
        }
    while (nwork) {
        uint32_t i = work[--nwork];
        const gsvm_patho_insn *in = &p->insns[i];
        gsvm_patho_class c = gsvm_patho_ops[in->op].cls;
        uint32_t tgt = UINT32_MAX;
        if (c == GSVM_PATHO_C_JUMP || c == GSVM_PATHO_C_CALL)
            tgt = in->a[0];
        else if (c == GSVM_PATHO_C_JUMPB)
            tgt = in->a[1];
        if (tgt != UINT32_MAX)
            ROOT(tgt);
        if (c != GSVM_PATHO_C_JUMP && c != GSVM_PATHO_C_RETURN && i + 1 < n) {
            if (ends_block(in))
                leader[i + 1] = 1;
            if (!reach[i + 1]) {
                reach[i + 1] = 1;
                work[nwork++] = i + 1;
            }
        }
    }
#undef ROOT
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_printf(&b, "digraph task%u {\n", task);
    gsvm_buf_puts(&b, "    node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for (uint32_t e = 0; e < t->nevents; e++)
        if (t->events[e].op < n)
            gsvm_buf_printf(&b, "    ev%u_%u [shape=oval, label=\"event %u\"];\n    ev%u_%u -> b%u;\n", task,
                            e, t->events[e].id, task, e, t->events[e].op);
    if (p->run_task == task && p->run_op < n)
        gsvm_buf_printf(&b, "    entry [shape=oval, label=\"RunOp\"];\n    entry -> b%u;\n", p->run_op);
    gsvm_buf line;
    gsvm_buf_init(&line);
    for (uint32_t i = 0; i < n; i++) {
        if (!reach[i] || !leader[i])
            continue;
        /* the block: i .. last */
        uint32_t last = i;
        while (last + 1 < n && !ends_block(&p->insns[last]) && !leader[last + 1])
            last++;
        gsvm_buf_printf(&b, "    b%u [label=\"L%04x:\\l", i, i);
        for (uint32_t k = i; k <= last; k++) {
            line.len = 0;
            patho_format_insn(p, &p->insns[k], &line);
            gsvm_buf_puts(&b, "  ");
            put_escaped(&b, (const char *)line.data, line.len);
            gsvm_buf_puts(&b, "\\l");
        }
        gsvm_buf_puts(&b, "\"];\n");
        const gsvm_patho_insn *in = &p->insns[last];
        gsvm_patho_class c = gsvm_patho_ops[in->op].cls;
        if (c == GSVM_PATHO_C_JUMP && in->a[0] < n)
            gsvm_buf_printf(&b, "    b%u -> b%u;\n", i, in->a[0]);
        else if (c == GSVM_PATHO_C_JUMPB) {
            if (in->a[1] < n)
                gsvm_buf_printf(&b, "    b%u -> b%u [label=\"== %u\"];\n", i, in->a[1], in->a[2]);
            if (last + 1 < n)
                gsvm_buf_printf(&b, "    b%u -> b%u [label=\"else\"];\n", i, last + 1);
        } else if (c == GSVM_PATHO_C_CALL) {
            if (in->a[0] < n)
                gsvm_buf_printf(&b, "    b%u -> b%u [style=dashed, label=\"call\"];\n", i, in->a[0]);
            if (last + 1 < n)
                gsvm_buf_printf(&b, "    b%u -> b%u;\n", i, last + 1);
        } else if (c != GSVM_PATHO_C_RETURN && last + 1 < n) {
            gsvm_buf_printf(&b, "    b%u -> b%u;\n", i, last + 1);
        }
    }
    gsvm_buf_puts(&b, "}\n");
    gsvm_buf_free(&line);
    free(reach);
    free(leader);
    free(work);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    gsvm_buf_cstr(&b);
    *text = (char *)gsvm_buf_take(&b, len);
    return GSVM_OK;
}
