/* ABI 3 program files ("HWZ3": saved, loaded and verified as they load),
 * the listing, and the instruction-set table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/reader.h"
#include "lsl/listing.h"
#include "lsl/prog3.h"
#include "lsl/value_codec.h"

/* ---- the program file ---------------------------------------------------- */

static void put_name(gsvm_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    gsvm_buf_u32(b, (uint32_t)n, false);
    gsvm_buf_append(b, s ? s : "", n);
}

gsvm_status gsvm_lsl3_program_save(const gsvm_lsl3_program *p, uint8_t **out, size_t *len,
                                   gsvm_error *err)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, HWZ3_MAGIC, 4);
    gsvm_buf_u16(&b, HWZ3_FORMAT, false);
    gsvm_buf_u32(&b, GSVM_LSL3_ABI_VERSION, false);
    gsvm_buf_u32(&b, (uint32_t)p->ncode, false);
    for (size_t i = 0; i < p->ncode; i++) {
        gsvm_buf_u8(&b, (uint8_t)p->code[i].op);
        gsvm_buf_u32(&b, (uint32_t)p->code[i].a, false);
        gsvm_buf_u32(&b, (uint32_t)p->code[i].b, false);
        gsvm_buf_u32(&b, (uint32_t)p->code[i].c, false);
    }
    lsl_value_encoder enc;
    lsl_value_encoder_init(&enc, &b);
    gsvm_buf_u32(&b, (uint32_t)p->nconst, false);
    for (size_t i = 0; i < p->nconst; i++)
        lsl_value_encode(&enc, &p->consts[i]);
    gsvm_buf_u32(&b, (uint32_t)p->nglobal, false);
    for (size_t i = 0; i < p->nglobal; i++) {
        put_name(&b, p->global_names[i]);
        lsl_value_encode(&enc, &p->globals[i]);
    }
    bool oom = enc.oom;
    lsl_value_encoder_free(&enc);
    gsvm_buf_u32(&b, (uint32_t)p->nfunc, false);
    for (size_t i = 0; i < p->nfunc; i++) {
        const fal3_func *f = &p->funcs[i];
        put_name(&b, f->name);
        gsvm_buf_u32(&b, f->entry, false);
        gsvm_buf_u8(&b, f->ret);
        gsvm_buf_u32(&b, (uint32_t)f->event, false);
        gsvm_buf_u32(&b, f->nparams, false);
        gsvm_buf_u32(&b, f->nslots, false);
        gsvm_buf_append(&b, f->slot_types, f->nslots);
    }
    gsvm_buf_u32(&b, (uint32_t)p->nstate, false);
    for (size_t i = 0; i < p->nstate; i++) {
        put_name(&b, p->states[i].name);
        for (int e = 0; e < FAL3_EVENT_COUNT; e++)
            gsvm_buf_u32(&b, (uint32_t)p->states[i].handler[e], false);
    }
    gsvm_buf_u32(&b, (uint32_t)p->nlines, false);
    for (size_t i = 0; i < p->nlines; i++) {
        gsvm_buf_u32(&b, p->lines[i].ip, false);
        gsvm_buf_u32(&b, p->lines[i].line, false);
        gsvm_buf_u32(&b, p->lines[i].col, false);
    }
    if (oom || b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *out = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

static char *read_name(gsvm_reader *r, const char *what)
{
    uint32_t n;
    const uint8_t *s;
    if (!gsvm_read_u32(r, &n, what))
        return NULL;
    if (n > 4096) {
        gsvm_reader_fail(r, "%s: length %u is too long", what, n);
        return NULL;
    }
    if (!gsvm_read_bytes(r, n, &s, what))
        return NULL;
    char *c = gsvm_dup_bytes(s, n);
    if (!c)
        gsvm_reader_fail(r, "out of memory");
    return c;
}

static bool read_count(gsvm_reader *r, uint32_t *n, uint32_t max, size_t min_each, const char *what)
{
    if (!gsvm_read_u32(r, n, what))
        return false;
    if (*n > max || (size_t)*n * min_each > gsvm_reader_left(r))
        return gsvm_reader_fail(r, "%s %u is out of range", what, *n);
    return true;
}

gsvm_status gsvm_lsl3_program_load(const uint8_t *data, size_t len, const char *file,
                                   gsvm_lsl3_program **out, gsvm_error *err)
{
    *out = NULL;
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, file, err);
    const uint8_t *magic;
    uint16_t fmt;
    uint32_t abi, n;
    if (!gsvm_read_bytes(&r, 4, &magic, "magic"))
        return err->status;
    if (memcmp(magic, HWZ3_MAGIC, 4) != 0) {
        r.pos = 0;
        gsvm_reader_fail(&r, "not an ABI-3 Falcon program (magic is not \"" HWZ3_MAGIC "\")");
        return err->status;
    }
    if (!gsvm_read_u16(&r, &fmt, "format version") || !gsvm_read_u32(&r, &abi, "ABI version"))
        return err->status;
    if (fmt != HWZ3_FORMAT || abi != GSVM_LSL3_ABI_VERSION) {
        gsvm_reader_fail(&r, "format %u / ABI %u is not supported (want %u / 3)", fmt, abi, HWZ3_FORMAT);
        return err->status;
    }
    gsvm_lsl3_program *p = fal3_program_new();
    if (!p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    gsvm_status st = GSVM_OK;
    if (!read_count(&r, &n, FAL3_MAX_CODE, 13, "instruction count"))
        goto bad;
    p->code = malloc((n ? n : 1) * sizeof *p->code);
    if (!p->code)
        goto nomem;
    p->capcode = n;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t o;
        uint32_t a, b, c;
        if (!gsvm_read_u8(&r, &o, "opcode") || !gsvm_read_u32(&r, &a, "operand a") ||
            !gsvm_read_u32(&r, &b, "operand b") || !gsvm_read_u32(&r, &c, "operand c"))
            goto bad;
        p->code[i] = (fal3_insn){o, (int32_t)a, (int32_t)b, (int32_t)c};
        p->ncode++;
    }
    {
        lsl_value_decoder dec;
        lsl_value_decoder_init(&dec, &r, NULL);
        bool ok = read_count(&r, &n, FAL3_MAX_CONSTS, 1, "constant count");
        if (ok && !(p->consts = calloc(n ? n : 1, sizeof *p->consts)))
            ok = false, st = GSVM_ERR_NOMEM;
        for (uint32_t i = 0; ok && i < n; i++) {
            ok = lsl_value_decode(&dec, &p->consts[i], err) == GSVM_OK;
            if (ok)
                p->nconst++;
        }
        if (ok && !read_count(&r, &n, FAL3_MAX_GLOBALS, 5, "global count"))
            ok = false;
        if (ok && (!(p->globals = calloc(n ? n : 1, sizeof *p->globals)) ||
                   !(p->global_names = calloc(n ? n : 1, sizeof *p->global_names))))
            ok = false, st = GSVM_ERR_NOMEM;
        for (uint32_t i = 0; ok && i < n; i++) {
            p->global_names[i] = read_name(&r, "global name");
            ok = p->global_names[i] && lsl_value_decode(&dec, &p->globals[i], err) == GSVM_OK;
            p->nglobal++;
        }
        lsl_value_decoder_free(&dec);
        if (st == GSVM_ERR_NOMEM)
            goto nomem;
        if (!ok)
            goto bad;
    }
    if (!read_count(&r, &n, FAL3_MAX_FUNCS, 21, "function count"))
        goto bad;
    if (!(p->funcs = calloc(n ? n : 1, sizeof *p->funcs)))
        goto nomem;
    for (uint32_t i = 0; i < n; i++) {
        fal3_func *f = &p->funcs[i];
        p->nfunc++;
        uint32_t ev;
        const uint8_t *types;
        if (!(f->name = read_name(&r, "function name")) || !gsvm_read_u32(&r, &f->entry, "entry") ||
            !gsvm_read_u8(&r, &f->ret, "return type") || !gsvm_read_u32(&r, &ev, "event") ||
            !gsvm_read_u32(&r, &f->nparams, "parameter count") ||
            !read_count(&r, &f->nslots, FAL3_MAX_SLOTS, 1, "slot count") ||
            !gsvm_read_bytes(&r, f->nslots, &types, "slot types"))
            goto bad;
        f->event = (int32_t)ev;
        if (!(f->slot_types = malloc(f->nslots ? f->nslots : 1)))
            goto nomem;
        if (f->nslots)
            memcpy(f->slot_types, types, f->nslots);
        size_t bytes = FAL3_FRAME_BYTES;
        for (uint32_t k = 0; k < f->nslots; k++) {
            lsl_value z = lsl_empty(f->slot_types[k] <= LSL_TYPE_LIST ? (lsl_type)f->slot_types[k] : LSL_TYPE_VOID);
            bytes += lsl_value_slot_size(&z);
        }
        f->frame_bytes = (uint32_t)bytes;
    }
    if (!read_count(&r, &n, FAL3_MAX_STATES, 4 + 4 * FAL3_EVENT_COUNT, "state count"))
        goto bad;
    if (!(p->states = calloc(n ? n : 1, sizeof *p->states)))
        goto nomem;
    for (uint32_t i = 0; i < n; i++) {
        p->nstate++;
        if (!(p->states[i].name = read_name(&r, "state name")))
            goto bad;
        for (int e = 0; e < FAL3_EVENT_COUNT; e++) {
            uint32_t h;
            if (!gsvm_read_u32(&r, &h, "handler"))
                goto bad;
            p->states[i].handler[e] = (int32_t)h;
        }
    }
    if (!read_count(&r, &n, (uint32_t)(p->ncode ? p->ncode : 1), 12, "line table size"))
        goto bad;
    if (n && !(p->lines = malloc(n * sizeof *p->lines)))
        goto nomem;
    p->caplines = n;
    for (uint32_t i = 0; i < n; i++) {
        fal3_line *l = &p->lines[i];
        size_t at = r.pos;
        if (!gsvm_read_u32(&r, &l->ip, "line table ip") || !gsvm_read_u32(&r, &l->line, "line") ||
            !gsvm_read_u32(&r, &l->col, "column"))
            goto bad;
        if (l->ip >= (p->ncode ? p->ncode : 1) || (i && l->ip <= p->lines[i - 1].ip) ||
            (l->line == 0) != (l->col == 0)) {
            r.pos = at;
            gsvm_reader_fail(&r, "line table entry %u (ip %u, %u:%u) is out of order or range", i, l->ip,
                             l->line, l->col);
            goto bad;
        }
        p->nlines = i + 1;
    }
    if (gsvm_reader_left(&r)) {
        gsvm_reader_fail(&r, "%zu bytes of trailing garbage", gsvm_reader_left(&r));
        goto bad;
    }
    for (size_t i = 0; i < p->nglobal; i++)
        if (p->globals[i].type < LSL_TYPE_INTEGER) {
            gsvm_error_set(err, GSVM_ERR_INPUT, file, "global %zu has no type", i);
            goto bad;
        }
    if ((st = fal3_program_seal_file(p, file, err)) != GSVM_OK) {
        gsvm_lsl3_program_free(p);
        return st;
    }
    *out = p;
    return GSVM_OK;
nomem:
    gsvm_lsl3_program_free(p);
    return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
bad:
    gsvm_lsl3_program_free(p);
    return err->status ? err->status : GSVM_ERR_INPUT;
}

/* ---- listing ------------------------------------------------------------- */

static void list_value(gsvm_buf *b, const lsl_value *v)
{
    json_t *j = lsl_value_to_json(v);
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    gsvm_buf_puts(b, s ? s : "?");
    free(s);
    json_decref(j);
}

gsvm_status gsvm_lsl3_program_list(const gsvm_lsl3_program *p, char **out, gsvm_error *err)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    char hex[65];
    gsvm_hex(p->hash, 32, hex);
    gsvm_buf_printf(&b, "abi_version: 3\nhash: %s\n", hex);
    gsvm_buf_printf(&b, "globals: %zu\n", p->nglobal);
    for (size_t i = 0; i < p->nglobal; i++) {
        gsvm_buf_printf(&b, "  [%zu] %s %s = ", i, lsl_type_name(p->globals[i].type), p->global_names[i]);
        list_value(&b, &p->globals[i]);
        gsvm_buf_putc(&b, '\n');
    }
    gsvm_buf_printf(&b, "constants: %zu\n", p->nconst);
    for (size_t i = 0; i < p->nconst; i++) {
        gsvm_buf_printf(&b, "  [%zu] %s ", i, lsl_type_name(p->consts[i].type));
        list_value(&b, &p->consts[i]);
        gsvm_buf_putc(&b, '\n');
    }
    gsvm_buf_printf(&b, "states: %zu\n", p->nstate);
    for (size_t i = 0; i < p->nstate; i++) {
        gsvm_buf_printf(&b, "  [%zu] %s:", i, p->states[i].name);
        for (int e = 0; e < FAL3_EVENT_COUNT; e++)
            if (p->states[i].handler[e] >= 0)
                gsvm_buf_printf(&b, " %s=f%d", p->funcs[p->states[i].handler[e]].name, p->states[i].handler[e]);
        gsvm_buf_putc(&b, '\n');
    }
    for (size_t i = 0; i < p->nfunc; i++) {
        const fal3_func *f = &p->funcs[i];
        gsvm_buf_printf(&b, "f%zu %s %s(%u params, %u slots:", i, lsl_type_name((lsl_type)f->ret), f->name,
                        f->nparams, f->nslots);
        for (uint32_t k = 0; k < f->nslots; k++)
            gsvm_buf_printf(&b, " %s", lsl_type_name((lsl_type)f->slot_types[k]));
        gsvm_buf_printf(&b, ") entry %u, frame %u bytes\n", f->entry, f->frame_bytes);
    }
    gsvm_buf_puts(&b, "code:\n");
    size_t li = 0;
    for (size_t ip = 0; ip < p->ncode; ip++) {
        for (size_t i = 0; i < p->nfunc; i++)
            if (p->funcs[i].entry == ip)
                gsvm_buf_printf(&b, "%s:\n", p->funcs[i].name);
        const fal3_insn *in = &p->code[ip];
        const fal3_op_info *oi = &fal3_ops[in->op];
        char pos[24] = ""; /* the source line:column, where a new one starts */
        while (li < p->nlines && p->lines[li].ip < ip)
            li++;
        if (li < p->nlines && p->lines[li].ip == ip && p->lines[li].line)
            snprintf(pos, sizeof pos, "%u:%u", p->lines[li].line, p->lines[li].col);
        gsvm_buf_printf(&b, "  %-9s %5zu  %-12s", pos, ip, oi->mnemonic);
        int32_t ops[3] = {in->a, in->b, in->c};
        for (int k = 0; oi->operands[k]; k++) {
            gsvm_buf_printf(&b, "%s%d", k ? ", " : " ", ops[k]);
            if (oi->operands[k] == 'f') {
                float f;
                memcpy(&f, &ops[k], 4);
                gsvm_buf_printf(&b, " (%g)", (double)f);
            } else if (oi->operands[k] == 'B') {
                const lsl_builtin *bi = lsl_builtin_by_id(ops[k]);
                gsvm_buf_printf(&b, " (%s)", bi ? bi->name : "?");
            } else if (oi->operands[k] == 'F' && ops[k] >= 0 && (size_t)ops[k] < p->nfunc) {
                gsvm_buf_printf(&b, " (%s)", p->funcs[ops[k]].name);
            } else if (oi->operands[k] == 'S' && ops[k] >= 0 && (size_t)ops[k] < p->nstate) {
                gsvm_buf_printf(&b, " (%s)", p->states[ops[k]].name);
            } else if (oi->operands[k] == 'T') {
                gsvm_buf_printf(&b, " (%s)", lsl_type_name((lsl_type)ops[k]));
            }
        }
        gsvm_buf_putc(&b, '\n');
    }
    return lsl_listing_take(&b, out, err);
}

gsvm_status gsvm_lsl3_isa_table(char **out, gsvm_error *err)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_isa_header(&b);
    for (int op = 0; op < F3_COUNT; op++) {
        const fal3_op_info *i = &fal3_ops[op];
        lsl_isa_row(&b, op, i->mnemonic, i->operands[0] ? i->operands : "-", i->pops, "var", i->pushes,
                    "var", i->meaning);
    }
    return lsl_listing_take(&b, out, err);
}

size_t gsvm_lsl3_program_code_size(const gsvm_lsl3_program *p)
{
    return p->ncode;
}
