/* The program listing: header tables, then every instruction with its
 * operands decoded through isa.def (constants shown inline, jump targets
 * and host names named), each handler's entry labelled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "lsl/listing.h"
#include "lsl/abi2.h"

gsvm_status lsl_listing_take(gsvm_buf *b, char **out, gsvm_error *err)
{
    gsvm_buf_cstr(b);
    if (b->oom) {
        gsvm_buf_free(b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    size_t len;
    *out = (char *)gsvm_buf_take(b, &len);
    return GSVM_OK;
}

void lsl_isa_header(gsvm_buf *b)
{
    gsvm_buf_puts(b, "| # | opcode | operands | pops | pushes | meaning |\n|---|---|---|---|---|---|\n");
}

void lsl_isa_row(gsvm_buf *b, int op, const char *mnemonic, const char *operands, int pops,
                 const char *var_pops, int pushes, const char *var_pushes, const char *meaning)
{
    char po[12], pu[12];
    snprintf(po, sizeof po, "%d", pops);
    snprintf(pu, sizeof pu, "%d", pushes);
    gsvm_buf_printf(b, "| %d | %s | %s | %s | %s | %s |\n", op, mnemonic, operands,
                    pops < 0 ? var_pops : po, pushes < 0 ? var_pushes : pu, meaning);
}

static void put_quoted(gsvm_buf *b, const char *s, size_t len)
{
    gsvm_buf_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            gsvm_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            gsvm_buf_puts(b, "\\n");
        else if (c < 0x20 || c == 0x7F)
            gsvm_buf_printf(b, "\\x%02X", c);
        else
            gsvm_buf_putc(b, (int)c);
    }
    gsvm_buf_putc(b, '"');
}

static void put_value(gsvm_buf *b, const fal_pvalue *v)
{
    if (v->type == GSVM_LSL_INTEGER)
        gsvm_buf_printf(b, "integer %d", (int)v->i);
    else {
        gsvm_buf_puts(b, "string ");
        put_quoted(b, v->s, v->len);
    }
}

static const char *ptype(uint8_t t) { return t == GSVM_LSL_INTEGER ? "integer" : "string"; }

/* Sorts event indexes by entry ip, keeping table order for equal entries
 * (a bottom-up merge sort: no global state, n log n). */
static void sort_events_by_entry(size_t *order, const gsvm_lsl_program *p)
{
    size_t n = p->nevent;
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return; /* labels then come out in table order: still correct text */
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = p->events[order[j]].entry_ip < p->events[order[i]].entry_ip ? order[j++]
                                                                                        : order[i++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        memcpy(order, tmp, n * sizeof *order);
    }
    free(tmp);
}

gsvm_status fal2_program_list(const gsvm_lsl_program *p, char **out, gsvm_error *err)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_printf(&b, "; Falcon program: compiler %u, ABI %u, %zu instructions\n",
                    p->compiler_version, p->abi_version, p->ncode);
    gsvm_buf_printf(&b, "; constants (%zu)\n", p->nconst);
    for (size_t i = 0; i < p->nconst; i++) {
        gsvm_buf_printf(&b, ";   k%-4zu ", i);
        put_value(&b, &p->consts[i]);
        gsvm_buf_putc(&b, '\n');
    }
    gsvm_buf_printf(&b, "; host functions (%zu)\n", p->nhost);
    for (size_t i = 0; i < p->nhost; i++)
        gsvm_buf_printf(&b, ";   h%-4zu %s\n", i, p->host_names[i]);
    gsvm_buf_printf(&b, "; globals (%zu)\n", p->nglobal);
    for (size_t i = 0; i < p->nglobal; i++) {
        gsvm_buf_printf(&b, ";   g%-4zu %s = ", i, p->global_names[i] ? p->global_names[i] : "?");
        put_value(&b, &p->globals[i]);
        gsvm_buf_putc(&b, '\n');
    }
    gsvm_buf_printf(&b, "; events (%zu)\n", p->nevent);
    for (size_t i = 0; i < p->nevent; i++) {
        const fal_event *e = &p->events[i];
        gsvm_buf_printf(&b, ";   %s(", e->name);
        for (uint32_t k = 0; k < e->nparams; k++)
            gsvm_buf_printf(&b, "%s%s", k ? ", " : "", ptype(e->param_types[k]));
        gsvm_buf_printf(&b, ") entry %u, %u local%s\n", e->entry_ip, e->local_count,
                        e->local_count == 1 ? "" : "s");
    }
    /* handler labels in ip order (events sorted by entry, stable) */
    size_t *order = malloc((p->nevent ? p->nevent : 1) * sizeof *order);
    if (!order) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory writing the listing");
    }
    for (size_t i = 0; i < p->nevent; i++)
        order[i] = i;
    sort_events_by_entry(order, p);
    size_t next_label = 0;
    for (size_t ip = 0; ip < p->ncode; ip++) {
        while (next_label < p->nevent && p->events[order[next_label]].entry_ip <= ip) {
            if (p->events[order[next_label]].entry_ip == ip)
                gsvm_buf_printf(&b, "%s:\n", p->events[order[next_label]].name);
            next_label++;
        }
        const fal_insn *in = &p->code[ip];
        const fal_op_info *info = &fal_ops[in->op < FOP_COUNT ? in->op : 0];
        if (p->lines) {
            /* the source line:column where a new one starts, as ABI 3 lists it */
            char pos[24] = "";
            uint32_t line, col, bline = 0, bcol = 0;
            if (ip)
                gsvm_lsl_program_line(p, ip - 1, &bline, &bcol);
            if (gsvm_lsl_program_line(p, ip, &line, &col) && (line != bline || col != bcol))
                snprintf(pos, sizeof pos, "%u:%u", line, col);
            gsvm_buf_printf(&b, "  %-9s", pos);
        }
        if (in->op >= FOP_COUNT) {
            gsvm_buf_printf(&b, "%6zu  ?%u %d, %d\n", ip, in->op, (int)in->a, (int)in->b);
            continue;
        }
        char operands[64] = "";
        switch (info->kind) {
        case FK_NONE: break;
        case FK_CONST: snprintf(operands, sizeof operands, "k%d", (int)in->a); break;
        case FK_LOCAL: snprintf(operands, sizeof operands, "l%d", (int)in->a); break;
        case FK_GLOBAL: snprintf(operands, sizeof operands, "g%d", (int)in->a); break;
        case FK_TARGET: snprintf(operands, sizeof operands, "%d", (int)in->a); break;
        case FK_HOST: snprintf(operands, sizeof operands, "h%d, %d", (int)in->a, (int)in->b); break;
        }
        gsvm_buf_printf(&b, "%6zu  %-13s %-10s", ip, info->mnemonic, operands);
        /* A comment that saves looking things up; bad indexes say so. */
        if (info->kind == FK_CONST) {
            gsvm_buf_puts(&b, " ; ");
            if (in->a >= 0 && (size_t)in->a < p->nconst) {
                const fal_pvalue *v = &p->consts[in->a];
                if (v->type == GSVM_LSL_INTEGER)
                    gsvm_buf_printf(&b, "%d", (int)v->i);
                else
                    put_quoted(&b, v->s, v->len);
            } else {
                gsvm_buf_puts(&b, "(bad constant index)");
            }
        } else if (info->kind == FK_GLOBAL) {
            if (in->a >= 0 && (size_t)in->a < p->nglobal)
                gsvm_buf_printf(&b, " ; %s", p->global_names[in->a] ? p->global_names[in->a] : "?");
            else
                gsvm_buf_puts(&b, " ; (bad global index)");
        } else if (info->kind == FK_HOST) {
            if (in->a >= 0 && (size_t)in->a < p->nhost)
                gsvm_buf_printf(&b, " ; %s", p->host_names[in->a]);
            else
                gsvm_buf_puts(&b, " ; (bad host index)");
        }
        /* trim the padding of operand-less lines */
        while (b.len && b.data[b.len - 1] == ' ')
            b.len--;
        gsvm_buf_putc(&b, '\n');
    }
    free(order);
    return lsl_listing_take(&b, out, err);
}

gsvm_status gsvm_lsl_isa_table(char **out, gsvm_error *err)
{
    static const char *const kinds[] = {
        [FK_NONE] = "-", [FK_CONST] = "a = constant index", [FK_LOCAL] = "a = local slot",
        [FK_GLOBAL] = "a = global slot", [FK_TARGET] = "a = jump target",
        [FK_HOST] = "a = host index, b = argc",
    };
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_isa_header(&b);
    for (int op = 0; op < FOP_COUNT; op++) {
        const fal_op_info *i = &fal_ops[op];
        lsl_isa_row(&b, op, i->mnemonic, kinds[i->kind], i->pops, "b", i->pushes, "0 or 1", i->meaning);
    }
    return lsl_listing_take(&b, out, err);
}
