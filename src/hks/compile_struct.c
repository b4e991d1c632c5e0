/* HKS structures in the compiler: slot positions, slot lookup through the
 * meta structures (the tag chain of GETSLOTMT / SELFSLOTMT), and the
 * structure block written after the main function.
 *
 * What the golden chunks of hksc show, and this file reproduces:
 * - every structure has three reserved slots before its own: an internal
 *   one ("__testdummy", position 0), the meta slot ("__structmeta") and the
 *   backing table ("__structbacking"); its own slots follow in declaration
 *   order;
 * - slot n sits at position size * n / (size - 1) + 1 for a slot size of the
 *   target's size_t: one position in every `size` holds the type tags of the
 *   slots before it, so with 8-byte slots the 8th slot is at 9, not 8;
 * - a structure's id is its declaration number (from 1);
 * - the block holds the structures the code names, in the order of hksc's
 *   walk over a table of their ids (see "the block's order" below).
 */
#include <stdlib.h>
#include <string.h>

#include "hks/compile.h"

int hc_slot_position(const hc_compiler *C, int index)
{
    if (index == 0)
        return 0;
    int size = C->o.size_size;
    return size * index / (size - 1) + 1;
}

const hc_slotdef *hc_find_slot(const hc_struct *s, const hc_str *name)
{
    for (int i = 0; i < s->nslots; i++)
        if (s->slots[i].name == name)
            return &s->slots[i];
    return NULL;
}

/* A slot reached from structure `sid`: one (A, Bx) pair per structure on
 * the way.  A structure that lacks the name contributes (0, position of the
 * tag-method slot `tm` ("__index" for reads, "__newindex" for stores) in its
 * meta structure) and the search goes on in the structure that slot is typed
 * with; the one that has it contributes (position, 0).  Returns the number
 * of pairs in `words` (2 per pair), 0 when the name is not found through
 * structure-typed slots alone. */
static int chain(const hc_compiler *C, int sid, const hc_str *name, const char *tm,
                 uint32_t *words, int max, const hc_slotdef **found)
{
    const hc_str *index_name = NULL;
    size_t tmlen = strlen(tm);
    for (int n = 0; n < max; n++) {
        const hc_struct *s = &C->sdefs[sid];
        const hc_slotdef *d = hc_find_slot(s, name);
        if (d) {
            words[2 * n] = (uint32_t)d->pos;
            words[2 * n + 1] = 0;
            *found = d;
            return n + 1;
        }
        if (s->meta_type != HC_TSTRUCT)
            return 0;
        const hc_struct *m = &C->sdefs[s->meta_sid];
        if (!index_name) {
            /* the name is interned only when some structure declares it */
            for (int i = 0; i < m->nslots && !index_name; i++)
                if (m->slots[i].name->len == tmlen && memcmp(m->slots[i].name->data, tm, tmlen) == 0)
                    index_name = m->slots[i].name;
            if (!index_name)
                return 0;
        }
        const hc_slotdef *ix = hc_find_slot(m, index_name);
        if (!ix || ix->type != HC_TSTRUCT)
            return 0;
        words[2 * n] = 0;
        words[2 * n + 1] = (uint32_t)ix->pos;
        sid = ix->sid;
    }
    return 0;
}

int hc_slot_chain(const hc_compiler *C, int sid, const hc_str *name, uint32_t *words, int max)
{
    const hc_slotdef *d;
    return chain(C, sid, name, "__index", words, max, &d);
}

int hc_store_chain(const hc_compiler *C, int sid, const hc_str *name, uint32_t *words, int max,
                   const hc_slotdef **found)
{
    *found = NULL;
    return chain(C, sid, name, "__newindex", words, max, found);
}

const hc_slotdef *hc_chain_end(const hc_compiler *C, int sid, const hc_str *name)
{
    uint32_t words[2 * HC_MAX_CHAIN];
    const hc_slotdef *d = NULL;
    chain(C, sid, name, "__index", words, HC_MAX_CHAIN, &d);
    return d;
}

/* ---- the block's order ----
 * hksc writes the structures that the code refers to, in this order: while it
 * writes the functions (each before its children) it puts the id of every
 * structure an instruction names into a Lua table keyed by the id as a light
 * userdata (NEWSTRUCT, SETSLOTS and a structure-typed SETSLOTMT: the Bx of
 * the word after it; CHECKTYPES and CHECKTYPE_D: their own Bx), then adds the
 * key `true`, walks the table with `next`, and writes each structure it meets
 * followed (depth first, slot order) by the structures its slots are typed
 * with, each structure once.  So the order is the table's, and the table is
 * modelled here node for node:
 * - a key that is neither number nor string goes to node
 *   ((pointer >> 3) * 0x9e3779b1) mod size (hksc's hash); `true` is a
 *   pointer-sized value whose low word is 1, whatever the other bytes are its
 *   product is a multiple of 2^29, so it always hashes to node 0;
 * - collisions, the free-node scan from the top and growth to the next power
 *   of two (old nodes re-inserted from the last to the first) are Lua 5.1's;
 * - Ghosts' build walks nodes by index; the FromSoftware builds keep a list of
 *   insertions and walk it from the newest key back (their tables' traversal
 *   order).  When a colliding key moves to a free node, that list is not told
 *   (only "newest" follows the move): the key inserted after the moved one
 *   then links to the moved-to node's new key, as in hksc.
 * These rules give the orders of both kinds of golden chunks: Ghosts Point,
 * PointMeta, Bag and FromSoftware Bag, Point, PointMeta for ids 1, 2, 3. */
enum { K_FREE = -2, K_TRUE = -1 }; /* other keys: the ids as found (0..) */

typedef struct tnode {
    int key;
    int next;     /* collision chain, -1 end */
    int prev_ins; /* the key inserted before this one (FromSoftware walk), -1 none */
} tnode;

typedef struct ttab {
    tnode *n;
    int size; /* 0: the empty table, no node can be used */
    int lastfree;
    int last_ins; /* the newest key's node, -1 none */
} ttab;

static int t_mainpos(const ttab *t, int key)
{
    uint64_t ptr = key == K_TRUE ? 1u : (uint64_t)key;
    uint32_t h = (uint32_t)(ptr >> 3) * 0x9e3779b1u;
    return (int)(h % (uint32_t)t->size);
}

static bool t_has(const ttab *t, int key)
{
    if (t->size == 0)
        return false;
    for (int i = t_mainpos(t, key); i >= 0; i = t->n[i].next)
        if (t->n[i].key == key)
            return true;
    return false;
}

static int t_freepos(ttab *t)
{
    while (t->lastfree > 0)
        if (t->n[--t->lastfree].key == K_FREE)
            return t->lastfree;
    return -1;
}

/* Puts a new key in place; false when the table has no free node. */
static bool t_place(ttab *t, int key)
{
    if (t->size == 0)
        return false;
    int mp = t_mainpos(t, key);
    if (t->n[mp].key != K_FREE) {
        int f = t_freepos(t);
        if (f < 0)
            return false;
        int other = t_mainpos(t, t->n[mp].key);
        if (other != mp) {
            /* the node in the way is not in its main position: it moves */
            while (t->n[other].next != mp)
                other = t->n[other].next;
            t->n[other].next = f;
            t->n[f] = t->n[mp];
            t->n[mp].next = -1;
            if (t->last_ins == mp)
                t->last_ins = f;
        } else {
            t->n[f].next = t->n[mp].next;
            t->n[mp].next = f;
            mp = f;
        }
    }
    t->n[mp].key = key;
    if (t->last_ins >= 0)
        t->n[mp].prev_ins = t->last_ins;
    t->last_ins = mp;
    return true;
}

static bool t_grow(ttab *t)
{
    int count = 1;
    for (int i = 0; i < t->size; i++)
        count += t->n[i].key != K_FREE;
    int size = 1;
    while (size < count)
        size *= 2;
    tnode *old = t->n;
    int oldsize = t->size;
    t->n = malloc((size_t)size * sizeof *t->n);
    if (!t->n) {
        t->n = old;
        return false;
    }
    for (int i = 0; i < size; i++)
        t->n[i] = (tnode){K_FREE, -1, -1};
    t->size = t->lastfree = size;
    t->last_ins = -1;
    for (int i = oldsize - 1; i >= 0; i--)
        if (old[i].key != K_FREE)
            t_place(t, old[i].key); /* always fits: size > the old count */
    free(old);
    return true;
}

static bool t_set(ttab *t, int key)
{
    if (t_has(t, key))
        return true;
    while (!t_place(t, key))
        if (!t_grow(t))
            return false;
    return true;
}

/* The ids the code of f and its children names, in hksc's order. */
static bool collect_ids(const hc_compiler *C, const gsvm_hks_proto *f, ttab *t, bool *seen)
{
    for (uint64_t i = 0; i < f->ncode; i++) {
        uint32_t insn = f->code[i];
        unsigned iop = hks_decode_op(C->o.profile, GSVM_HKS_OP(insn));
        bool next_word = iop == HKS_I_NEWSTRUCT || iop == HKS_I_SETSLOTS ||
                         (iop == HKS_I_SETSLOTMT &&
                          GSVM_HKS_B(insn) >> HKS_SLOTMT_TYPE_SHIFT == HKS_TSTRUCT);
        if (next_word) {
            if (i + 1 >= f->ncode)
                continue;
            insn = f->code[++i];
        } else if (iop != HKS_I_CHECKTYPES && iop != HKS_I_CHECKTYPE_D)
            continue;
        if (!t_set(t, (int)GSVM_HKS_BX(insn)))
            return false;
        *seen = true;
    }
    for (uint32_t k = 0; k < f->np; k++)
        if (!collect_ids(C, &f->p[k], t, seen))
            return false;
    return true;
}

/* Fills order[] with the structure indexes in the block's order; returns
 * their count, -1 when out of memory. */
static int block_order(const hc_compiler *C, int *order)
{
    int n = C->nsdefs;
    ttab t = {NULL, 0, 0, -1};
    bool seen = false;
    bool *done = calloc((size_t)n, sizeof *done);
    /* the depth-first walk's stack: every structure pushes its typed slots once */
    size_t cap = 16, top = 0;
    int *stack = malloc(cap * sizeof *stack);
    int count = -1;
    if (!done || !stack || !collect_ids(C, &C->chunk->main, &t, &seen) ||
        (seen && !t_set(&t, K_TRUE)))
        goto out;
    count = 0;
    if (!seen)
        goto out;
    /* the walk: by node index (Ghosts), or newest insertion first.  The
     * insertion list can loop after a move (hksc would never finish): the
     * walk stops after as many steps as nodes, and a second walk by index
     * then adds what the first one missed (it adds nothing otherwise). */
    bool by_index = C->o.profile == GSVM_HKS_PROFILE_GHOSTS;
    int node = by_index ? 0 : t.last_ins;
    for (int steps = 0; steps < 2 * t.size && node >= 0 && node < t.size; steps++) {
        int key = t.n[node].key;
        if (steps + 1 == t.size && !by_index) {
            by_index = true; /* the second walk */
            node = 0;
        } else
            node = by_index ? node + 1 : t.n[node].prev_ins;
        if (key < 1 || key > n)
            continue; /* an id of no structure: hksc would fail, we skip it */
        stack[top++] = key - 1;
        while (top > 0) {
            int sid = stack[--top];
            if (done[sid])
                continue;
            done[sid] = true;
            order[count++] = sid;
            const hc_struct *s = &C->sdefs[sid];
            size_t need = top + (size_t)s->nslots + 1;
            if (need > cap) {
                while (cap < need)
                    cap *= 2;
                int *grown = realloc(stack, cap * sizeof *stack);
                if (!grown) {
                    count = -1;
                    goto out;
                }
                stack = grown;
            }
            /* pushed last first, so that they come out in slot order */
            for (int j = s->nslots - 1; j >= 0; j--)
                if (s->slots[j].type == HC_TSTRUCT)
                    stack[top++] = s->slots[j].sid;
            if (s->meta_type == HC_TSTRUCT)
                stack[top++] = s->meta_sid;
        }
    }
out:
    free(t.n);
    free(done);
    free(stack);
    return count;
}

static void *alloc_or_fail(hc_compiler *C, size_t n) { return hc_alloc(C, n); }

static void set_str(hc_compiler *C, gsvm_hks_str *d, const char *s, size_t len)
{
    d->size = len + 1;
    d->data = alloc_or_fail(C, len + 2);
    memcpy(d->data, s, len);
}

static void set_slot(hc_compiler *C, gsvm_hks_slot *sl, const char *name, uint64_t a, uint32_t b,
                     uint32_t c, uint64_t d)
{
    set_str(C, &sl->name, name, strlen(name));
    sl->a = a;
    sl->b = b;
    sl->c = c;
    sl->d = d;
}

/* the size_t field of a slot: the structure id, or -1 as a 16-bit id */
static uint64_t slot_id(int type, int sid) { return type == HC_TSTRUCT ? (uint64_t)(sid + 1) : 0xFFFF; }

void hc_write_structs(hc_compiler *C)
{
    gsvm_hks_chunk *c = C->chunk;
    int n = C->nsdefs;
    if (n == 0)
        return;
    /* C->sorder: free_compiler releases it when an allocation below fails */
    int *order = C->sorder = malloc((size_t)n * sizeof *order);
    int k = order ? block_order(C, order) : -1;
    if (k < 0)
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    if (k == 0)
        return;
    /* the chunk owns what follows: gsvm_hks_chunk_free releases it on error */
    c->structs = calloc((size_t)k, sizeof *c->structs);
    if (!c->structs)
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    for (int i = 0; i < k; i++) {
        int sid = order[i];
        const hc_struct *s = &C->sdefs[sid];
        gsvm_hks_struct *o = &c->structs[i];
        c->nstructs = (uint32_t)i + 1;
        set_str(C, &o->name, s->name->data, s->name->len);
        o->id = (uint64_t)sid + 1;
        o->x = s->meta_type >= 0;
        o->y = s->proxy;
        o->slots = alloc_or_fail(C, (size_t)(s->nslots + HC_RESERVED_SLOTS) * sizeof *o->slots);
        o->nslots = (uint64_t)s->nslots + HC_RESERVED_SLOTS;
        set_slot(C, &o->slots[0], "__testdummy", 0, 0, 3, 0);
        if (s->meta_type >= 0)
            set_slot(C, &o->slots[1], "__structmeta", slot_id(s->meta_type, s->meta_sid),
                     (uint32_t)s->meta_type, 1, (uint64_t)hc_slot_position(C, 1));
        else
            set_slot(C, &o->slots[1], "__structmeta", 0, 0, 1, (uint64_t)hc_slot_position(C, 1));
        set_slot(C, &o->slots[2], "__structbacking", 0xFFFF, 5, 2,
                 (uint64_t)hc_slot_position(C, 2));
        for (int j = 0; j < s->nslots; j++) {
            const hc_slotdef *d = &s->slots[j];
            set_slot(C, &o->slots[HC_RESERVED_SLOTS + j], d->name->data, slot_id(d->type, d->sid),
                     (uint32_t)d->type, 0, (uint64_t)d->pos);
        }
    }
}
