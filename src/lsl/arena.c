#include "lsl/arena.h"

#include <stdlib.h>
#include <string.h>

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} arena_block;

struct lsl_arena {
    arena_block *head;
};

lsl_arena *lsl_arena_new(void) { return calloc(1, sizeof(lsl_arena)); }

void lsl_arena_free(lsl_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void *lsl_arena_alloc(lsl_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > 65536 ? size : 65536;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *lsl_arena_strndup(lsl_arena *a, const char *s, size_t len)
{
    char *d = lsl_arena_alloc(a, len + 1);
    if (d && len)
        memcpy(d, s, len);
    return d;
}
