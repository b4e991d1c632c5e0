/* A bump allocator for the front end: the AST, names and decoded literals
 * of one compilation live in one arena, freed at once. */
#ifndef GSVM_LSL_ARENA_H
#define GSVM_LSL_ARENA_H

#include <stddef.h>

typedef struct lsl_arena lsl_arena;

lsl_arena *lsl_arena_new(void);
void lsl_arena_free(lsl_arena *a);
/* Zeroed memory, or NULL when out of memory. */
void *lsl_arena_alloc(lsl_arena *a, size_t size);
char *lsl_arena_strndup(lsl_arena *a, const char *s, size_t len);

#endif
