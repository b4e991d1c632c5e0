/* The variable map: names to scalar values, open addressing with linear
 * probing.  Lookups, inserts and removals are O(1) on average, so a commit
 * that changes one variable costs the same with 10 or 10,000 variables in the
 * record; name order is produced only when someone asks (ms_vmap_sorted). */
#include <stdlib.h>
#include <string.h>

#include "mission/internal.h"

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 16777619u;
    }
    return h;
}

void ms_vmap_init(vmap *m)
{
    m->slots = NULL;
    m->cap = m->count = 0;
}

void ms_vmap_free(vmap *m)
{
    for (uint32_t i = 0; i < m->cap; i++)
        free(m->slots[i]);
    free(m->slots);
    ms_vmap_init(m);
}

static uint32_t find_slot(const vmap *m, const char *name, size_t nlen)
{
    uint32_t mask = m->cap - 1, i = hash_name(name, nlen) & mask;
    while (m->slots[i]) {
        if (m->slots[i]->nlen == nlen && memcmp(m->slots[i]->name, name, nlen) == 0)
            return i;
        i = (i + 1) & mask;
    }
    return i;
}

mvar *ms_vmap_get(const vmap *m, const char *name, size_t nlen)
{
    if (!m->cap)
        return NULL;
    return m->slots[find_slot(m, name, nlen)];
}

static bool grow(vmap *m)
{
    uint32_t ncap = m->cap ? m->cap * 2 : 16;
    mvar **ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    for (uint32_t i = 0; i < m->cap; i++) {
        mvar *v = m->slots[i];
        if (!v)
            continue;
        uint32_t j = hash_name(v->name, v->nlen) & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = v;
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return true;
}

bool ms_vmap_put(vmap *m, mvar *v)
{
    if ((m->count + 1) * 4 > m->cap * 3 && !grow(m))
        return false;
    uint32_t i = find_slot(m, v->name, v->nlen);
    if (m->slots[i]) {
        free(m->slots[i]);
    } else {
        m->count++;
    }
    m->slots[i] = v;
    return true;
}

bool ms_vmap_reserve(vmap *m, uint32_t extra)
{
    while ((uint64_t)(m->count + 1 + (uint64_t)extra) * 4 > (uint64_t)m->cap * 3)
        if (!grow(m))
            return false;
    return true;
}

mvar *ms_vmap_remove(vmap *m, const char *name, size_t nlen)
{
    if (!m->cap)
        return NULL;
    uint32_t mask = m->cap - 1, i = find_slot(m, name, nlen);
    mvar *out = m->slots[i];
    if (!out)
        return NULL;
    m->slots[i] = NULL;
    m->count--;
    /* Backward-shift deletion keeps every probe chain unbroken. */
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        mvar *v = m->slots[j];
        if (!v)
            break;
        uint32_t home = hash_name(v->name, v->nlen) & mask;
        bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->slots[i] = v;
            m->slots[j] = NULL;
            i = j;
        }
    }
    return out;
}

static int cmp_var(const void *a, const void *b)
{
    const mvar *x = *(mvar *const *)a, *y = *(mvar *const *)b;
    size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (int)x->nlen - (int)y->nlen;
}

mvar **ms_vmap_sorted(const vmap *m)
{
    mvar **out = malloc((m->count ? m->count : 1) * sizeof *out);
    if (!out)
        return NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->slots[i])
            out[n++] = m->slots[i];
    qsort(out, n, sizeof *out, cmp_var);
    return out;
}
