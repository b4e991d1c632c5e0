#include "lsl/names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (size_t)h;
}

void lsl_names_free(lsl_names *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

void lsl_names_clear(lsl_names *m)
{
    if (m->keys)
        memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->count = 0;
}

static size_t find_slot(const lsl_names *m, const char *name)
{
    size_t mask = m->cap - 1, at = hash(name) & mask;
    while (m->keys[at] && strcmp(m->keys[at], name) != 0)
        at = (at + 1) & mask;
    return at;
}

bool lsl_names_get(const lsl_names *m, const char *name, long *value)
{
    if (!m->cap)
        return false;
    size_t at = find_slot(m, name);
    if (!m->keys[at])
        return false;
    *value = m->values[at];
    return true;
}

bool lsl_names_set(lsl_names *m, const char *name, long value)
{
    if ((m->count + 1) * 2 > m->cap) {
        lsl_names bigger = {NULL, NULL, m->cap ? m->cap * 2 : 32, 0};
        bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
        bigger.values = malloc(bigger.cap * sizeof *bigger.values);
        if (!bigger.keys || !bigger.values) {
            free(bigger.keys);
            free(bigger.values);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t at = find_slot(&bigger, m->keys[i]);
                bigger.keys[at] = m->keys[i];
                bigger.values[at] = m->values[i];
                bigger.count++;
            }
        free(m->keys);
        free(m->values);
        *m = bigger;
    }
    size_t at = find_slot(m, name);
    if (!m->keys[at]) {
        m->keys[at] = name;
        m->count++;
    }
    m->values[at] = value;
    return true;
}
