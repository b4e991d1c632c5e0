/* The decompiler's HKS structures: the `hstructure` declarations of the
 * chunk's structure block, and the slot a slot instruction names.
 *
 * A slot instruction names its slot by position only (GETSLOT, SETSLOTI..),
 * or by a tag chain through the meta structures (GETSLOTMT, SELFSLOTMT,
 * SETSLOTMT: one (0, position of __index / __newindex in the meta) pair per
 * structure passed, then (position, 0) in the one that holds it).  Which
 * structure the base register holds comes from the code (decompile.c); when
 * that is unknown, the first structure with a named slot at the position
 * answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"
#include "hks/isa.h"

enum { SLOT_META = 1, RESERVED = 3 };

static bool named(const gsvm_hks_str *s) { return s->size > 1 && s->data && dx_is_name(s->data, (size_t)s->size - 1); }

int dst_find(const gsvm_hks_chunk *c, uint64_t id)
{
    for (uint32_t i = 0; i < c->nstructs; i++)
        if (c->structs[i].id == id)
            return (int)i;
    return -1;
}

const gsvm_hks_slot *dst_slot_at(const gsvm_hks_chunk *c, int s, uint64_t pos)
{
    if (s < 0 || (uint32_t)s >= c->nstructs)
        return NULL;
    const gsvm_hks_struct *st = &c->structs[s];
    for (uint64_t i = RESERVED; i < st->nslots; i++)
        if (st->slots[i].d == pos && named(&st->slots[i].name))
            return &st->slots[i];
    return NULL;
}

int dst_slot_struct(const gsvm_hks_chunk *c, const gsvm_hks_slot *sl)
{
    return sl && sl->b == HKS_TSTRUCT ? dst_find(c, sl->a) : -1;
}

/* Any structure's slot at pos; `via` >= 0: only in structures that some
 * structure-typed slot at position `via` leads to (a chain's last step). */
static const gsvm_hks_slot *any_slot_at(const gsvm_hks_chunk *c, uint64_t pos, int64_t via)
{
    for (uint32_t i = 0; i < c->nstructs; i++) {
        const gsvm_hks_slot *sl = dst_slot_at(c, (int)i, pos);
        if (!sl)
            continue;
        if (via < 0)
            return sl;
        for (uint32_t j = 0; j < c->nstructs; j++)
            for (uint64_t k = 1; k < c->structs[j].nslots; k++) {
                const gsvm_hks_slot *t = &c->structs[j].slots[k];
                if (t->d == (uint64_t)via && t->b == HKS_TSTRUCT && t->a == c->structs[i].id)
                    return sl;
            }
    }
    return via >= 0 ? any_slot_at(c, pos, -1) : NULL;
}

const gsvm_hks_slot *dst_resolve(const gsvm_hks_chunk *c, int s, const uint32_t *words, int n,
                                 uint64_t pos)
{
    if (!words)
        return s >= 0 ? dst_slot_at(c, s, pos) : any_slot_at(c, pos, -1);
    for (int i = 0; i < n; i++) {
        uint64_t p = GSVM_HKS_A(words[i]), q = GSVM_HKS_BX(words[i]);
        if (p != 0 || i + 1 == n) {
            if (s >= 0)
                return dst_slot_at(c, s, p);
            return any_slot_at(c, p, i > 0 ? (int64_t)GSVM_HKS_BX(words[i - 1]) : -1);
        }
        if (s < 0)
            continue;
        /* through the meta structure's __index (or __newindex) slot */
        const gsvm_hks_struct *st = &c->structs[s];
        if (st->nslots <= SLOT_META || st->slots[SLOT_META].b != HKS_TSTRUCT) {
            s = -1;
            continue;
        }
        s = dst_slot_struct(c, dst_slot_at(c, dst_find(c, st->slots[SLOT_META].a), q));
    }
    return NULL;
}

/* A slot's type as a declaration names it: a structure declared before
 * (ids are declaration numbers), else the built-in name; ui64 and what has
 * no name here are `object` (our compiler holds no ui64 in a slot). */
static const char *type_name(const gsvm_hks_chunk *c, uint32_t type, uint64_t id, uint64_t self)
{
    static const char *const names[] = {"object",   "boolean",   "lightuserdata", "number",
                                        "string",   "table",     "object",        "userdata",
                                        "thread",   "ifunction", "cfunction",     "object"};
    if (type == HKS_TSTRUCT) {
        int t = dst_find(c, id);
        return t >= 0 && id <= self && named(&c->structs[t].name) ? c->structs[t].name.data
                                                                   : "object";
    }
    return type < sizeof names / sizeof *names ? names[type] : "object";
}

static int by_id(const void *a, const void *b)
{
    const gsvm_hks_struct *x = *(const gsvm_hks_struct *const *)a,
                          *y = *(const gsvm_hks_struct *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int by_pos(const void *a, const void *b)
{
    const gsvm_hks_slot *x = *(const gsvm_hks_slot *const *)a, *y = *(const gsvm_hks_slot *const *)b;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* The structure block as declarations, by id (a structure's id is its
 * declaration number, so a complete block from 1 up recompiles to the same
 * ids); own slots in position order. */
bool dst_declare(const gsvm_hks_chunk *c, gsvm_buf *b)
{
    if (c->nstructs == 0)
        return true;
    const gsvm_hks_struct **order = malloc(c->nstructs * sizeof *order);
    if (!order)
        return false;
    for (uint32_t i = 0; i < c->nstructs; i++)
        order[i] = &c->structs[i];
    qsort(order, c->nstructs, sizeof *order, by_id);
    bool ok = true;
    for (uint32_t i = 0; i < c->nstructs && ok; i++) {
        const gsvm_hks_struct *s = order[i];
        if (!named(&s->name) || (i > 0 && order[i - 1]->id == s->id)) {
            gsvm_buf_printf(b, "-- gsvm: structure %llu has no name that reads back\n",
                            (unsigned long long)s->id);
            continue;
        }
        const gsvm_hks_slot **own = malloc((s->nslots ? s->nslots : 1) * sizeof *own);
        if (!own) {
            ok = false;
            break;
        }
        uint64_t n = 0;
        for (uint64_t k = RESERVED; k < s->nslots; k++)
            if (named(&s->slots[k].name))
                own[n++] = &s->slots[k];
        qsort(own, n, sizeof *own, by_pos);
        gsvm_buf_printf(b, "hstructure %s\n", s->name.data);
        if (s->x && s->nslots > SLOT_META)
            gsvm_buf_printf(b, "  meta : %s;\n",
                            type_name(c, s->slots[SLOT_META].b, s->slots[SLOT_META].a, s->id));
        if (s->y)
            gsvm_buf_puts(b, "  proxytable;\n");
        for (uint64_t k = 0; k < n; k++)
            gsvm_buf_printf(b, "  %s : %s;%s\n", own[k]->name.data,
                            type_name(c, own[k]->b, own[k]->a, s->id),
                            own[k]->b == 11 ? " -- ui64 in the chunk" : "");
        if (n == 0 && !s->x && !s->y)
            gsvm_buf_puts(b, "  proxytable; -- (no slots in the chunk)\n");
        gsvm_buf_puts(b, "end\n");
        free(own);
    }
    free(order);
    return ok;
}
