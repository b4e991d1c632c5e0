/* A small hash map from names (not owned; they live in the parse arena) to
 * numbers, so name lookups in the compiler stay constant time however many
 * globals or locals a script declares. */
#ifndef GSVM_LSL_NAMES_H
#define GSVM_LSL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct lsl_names {
    const char **keys;
    long *values;
    size_t cap, count;
} lsl_names;

void lsl_names_free(lsl_names *m);
void lsl_names_clear(lsl_names *m);
bool lsl_names_get(const lsl_names *m, const char *name, long *value);
/* Adds or replaces; false when out of memory. */
bool lsl_names_set(lsl_names *m, const char *name, long value);

#endif
