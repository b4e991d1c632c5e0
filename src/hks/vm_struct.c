/* HavokScript structures (hstructure / hmake): fixed slot arrays described
 * by the chunk's structure block.
 *
 * A slot's number in an instruction (SETSLOTI 1 9 2) is the slot's
 * *position* from the block, not its index in the list, so an instance has
 * max(position) + 1 slots.  Three slots are the compiler's own: flag 3
 * "__testdummy", flag 1 "__structmeta" (the metastructure or metatable that
 * setmetatable stores) and flag 2 "__structbacking" (the table behind a
 * `proxytable` structure, which takes every key that is not a slot).  By
 * name (GETFIELD, SETFIELD) only the declared slots are found; a
 * structure's `__index` slot works like a metatable's. */
#include <string.h>

#include "hks/vm.h"

enum { SLOT_PLAIN = 0, SLOT_META = 1, SLOT_BACKING = 2, SLOT_DUMMY = 3, MAX_SLOTS = 4096 };

static const gsvm_hks_struct *find_def(hv_thread *L, uint64_t id)
{
    hv_vm *vm = L->vm;
    for (size_t c = 0; c < vm->nchunks; c++) {
        gsvm_hks_chunk *ch = vm->chunks[c];
        for (uint32_t i = 0; i < ch->nstructs; i++)
            if (ch->structs[i].id == id)
                return &ch->structs[i];
    }
    return NULL;
}

hv_struct *hv_struct_new(hv_thread *L, uint64_t id)
{
    const gsvm_hks_struct *d = find_def(L, id);
    uint32_t n = 0;
    int meta = -1, back = -1;
    if (d)
        for (uint64_t i = 0; i < d->nslots; i++) {
            uint64_t pos = d->slots[i].d;
            if (pos >= MAX_SLOTS)
                continue;
            if (pos + 1 > n)
                n = (uint32_t)pos + 1;
            if (d->slots[i].c == SLOT_META)
                meta = (int)pos;
            else if (d->slots[i].c == SLOT_BACKING)
                back = (int)pos;
        }
    hv_struct *s = (hv_struct *)hv_newobj(L, HV_TSTRUCT, sizeof(hv_struct) + n * sizeof(hv_value));
    s->nslots = n;
    s->id = id;
    s->def = d;
    s->metaslot = meta;
    s->backslot = back;
    /* the structure block's second int says `proxytable` */
    s->proxy = d && d->y != 0 && back >= 0;
    for (uint32_t i = 0; i < n; i++)
        hv_setnil(&s->slot[i]);
    return s;
}

const char *hv_struct_name(const hv_struct *s)
{
    return s->def && s->def->name.size ? s->def->name.data : "?";
}

const gsvm_hks_slot *hv_struct_slot(const hv_struct *s, const hv_str *key)
{
    if (!s->def)
        return NULL;
    for (uint64_t i = 0; i < s->def->nslots; i++) {
        const gsvm_hks_slot *sl = &s->def->slots[i];
        if (sl->c == SLOT_PLAIN && sl->d < s->nslots && sl->name.size &&
            sl->name.size - 1 == key->len && memcmp(sl->name.data, key->data, key->len) == 0)
            return sl;
    }
    return NULL;
}

const gsvm_hks_slot *hv_struct_slot_at(const hv_struct *s, uint32_t pos)
{
    if (!s->def)
        return NULL;
    for (uint64_t i = 0; i < s->def->nslots; i++)
        if (s->def->slots[i].d == pos)
            return &s->def->slots[i];
    return NULL;
}

bool hv_struct_typeok(hv_thread *L, const gsvm_hks_slot *sl, const hv_value *v)
{
    (void)L;
    if (v->tt == HV_TNIL || sl->b == HV_TNIL) /* nil fits every slot; TNIL: any value */
        return true;
    if (sl->b == HV_TSTRUCT)
        return v->tt == HV_TSTRUCT && (sl->a == 0xFFFF || ((hv_struct *)v->v.gc)->id == sl->a);
    if (sl->b == HV_TFUNC)
        return v->tt == HV_TLFN || v->tt == HV_TCFN;
    return v->tt == sl->b;
}

hv_table *hv_struct_backing(hv_thread *L, hv_struct *s, bool create)
{
    if (!s->proxy)
        return NULL;
    hv_value *b = &s->slot[s->backslot];
    if (b->tt == HV_TTAB)
        return hv_tabv(b);
    if (!create)
        return NULL;
    hv_table *t = hv_table_new(L, 0, 0);
    hv_setgc(b, HV_TTAB, t);
    return t;
}

const hv_value *hv_struct_meta(const hv_struct *s)
{
    if (s->metaslot >= 0 && s->slot[s->metaslot].tt == HV_TSTRUCT)
        return &s->slot[s->metaslot];
    return NULL;
}

/* GETSLOTMT / SELFSLOTMT / SETSLOTMT's tag chain, as hksc writes it for
 * `obj:method()` on a structure whose method lives in its metastructure:
 * each word but the last steps to the current structure's metastructure and
 * through that one's slot Bx (its `__index`); the last word's A is the slot
 * read or written there.  NULL: the chain does not lead to a structure. */
hv_struct *hv_struct_chain(hv_struct *s, const uint32_t *w, uint32_t n, uint32_t *slot)
{
    for (uint32_t j = 0; j + 1 < n; j++) {
        const hv_value *m = hv_struct_meta(s);
        if (!m)
            return NULL;
        hv_struct *ms = (hv_struct *)m->v.gc;
        uint32_t via = GSVM_HKS_BX(w[j]);
        if (via >= ms->nslots || ms->slot[via].tt != HV_TSTRUCT)
            return NULL;
        s = (hv_struct *)ms->slot[via].v.gc;
    }
    *slot = GSVM_HKS_A(w[n - 1]);
    return *slot < s->nslots ? s : NULL;
}
