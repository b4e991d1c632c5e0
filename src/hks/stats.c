/* Corpus figures: files, functions, code words, constants, structures and
 * how often each opcode occurs (the numbers the document quotes). */
#include "hks/isa.h"

unsigned gsvm_hks_op_rows(void) { return HKS_I_COUNT; }

const char *gsvm_hks_op_row_name(unsigned row)
{
    return row < HKS_I_COUNT ? hks_ops[row].name : NULL;
}

static void add_function(gsvm_hks_stats *s, const gsvm_hks_chunk *c, const gsvm_hks_proto *f)
{
    s->functions++;
    s->instructions += f->ncode;
    s->constants += f->nk;
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        unsigned iop = hks_decode_op(c->profile, GSVM_HKS_OP(f->code[pc]));
        if (iop == HKS_NO_OP) {
            s->unknown_ops++;
            continue;
        }
        s->op_count[iop]++;
        if (iop == HKS_I_DATA)
            s->data_words++;
    }
    for (uint32_t i = 0; i < f->np; i++)
        add_function(s, c, &f->p[i]);
}

void gsvm_hks_stats_add(gsvm_hks_stats *s, const gsvm_hks_chunk *c)
{
    s->files++;
    s->structures += c->nstructs;
    add_function(s, c, &c->main);
}
