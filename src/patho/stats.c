/* Figures about a program for `gsvm patho stats`. */
#include <stdlib.h>
#include <string.h>

#include "patho/internal.h"
#include "patho/isa.h"
#include "patho/text.h"

_Static_assert(GSVM_PATHO_OP_COUNT <= 128, "op_counts in gsvm_patho_stats is too small");

gsvm_status gsvm_patho_stats_compute(const gsvm_patho_program *p, gsvm_patho_stats *out,
                                     gsvm_error *err)
{
    gsvm_error_clear(err);
    memset(out, 0, sizeof *out);
    out->file_size = p->file_size;
    out->code_bytes = p->file_size - p->code_offset;
    out->pool_bytes = p->pool_size;
    out->instructions = p->ninsns;
    out->globals = p->nglobals;
    out->imports = p->nimports;
    out->tasks = p->ntasks;
    for (uint32_t t = 0; t < p->ntasks; t++)
        out->task_events += p->tasks[t].nevents;
    out->global_events = p->nevents;
    uint8_t *seen = calloc(p->ninsns + 1, 1);
    uint8_t *refs = calloc(p->pool_size + 1, 1);
    if (!seen || !refs) {
        free(seen);
        free(refs);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    for (uint32_t i = 0; i < p->ninsns; i++) {
        const gsvm_patho_insn *in = &p->insns[i];
        if (in->op < sizeof out->op_counts / sizeof out->op_counts[0])
            out->op_counts[in->op]++;
        if (in->op == GSVM_PATHO_OP_Call && in->a[0] < p->ninsns && !seen[in->a[0]]) {
            seen[in->a[0]] = 1;
            out->functions++;
        }
        if (in->op == GSVM_PATHO_OP_Func)
            out->native_calls++;
        if (in->op == GSVM_PATHO_OP_ObjFunc || in->op == GSVM_PATHO_OP_TObjFunc)
            out->method_calls++;
    }
    patho_pool_refs(p, refs);
    for (uint32_t pos = 0; pos < p->pool_size;) {
        bool wide;
        uint32_t n = patho_pool_item(p->pool, p->pool_size, pos, refs[pos], &wide);
        if (!n)
            break;
        if (wide)
            out->pool_strings_wide++;
        else
            out->pool_strings_narrow++;
        pos += n;
    }
    free(seen);
    free(refs);
    return patho_max_stack(p, &out->max_stack, err);
}
