/* Internal to the HavokScript decompiler (decompile*.c). */
#ifndef GSVM_HKS_DECOMPILE_H
#define GSVM_HKS_DECOMPILE_H

#include <stdbool.h>

#include "base/buf.h"
#include "gsvm/hks.h"

/* Lua 5.1 precedence, low to high; DX_PREFIX is what may be called or
 * indexed (names, calls, fields, parenthesised expressions); DX_CALL is a
 * call (a prefix too) that must be parenthesised when it ends a list and
 * stands for one value. */
enum { DX_OR = 1, DX_AND, DX_CMP, DX_CONCAT, DX_ADD, DX_MUL, DX_UNARY, DX_POW, DX_ATOM,
       DX_PREFIX, DX_CALL };

/* An expression's text (malloc'd) and precedence. */
typedef struct dx {
    char *s;
    int prec;
} dx;

dx dx_make(int prec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
dx dx_take(int prec, gsvm_buf *b);
void dx_free(dx *e);
const char *dx_str(const dx *e);
dx dx_wrap(dx e, int min);
dx dx_const(const gsvm_hks_chunk *c, const gsvm_hks_const *k);
dx dx_index(dx base, const gsvm_hks_const *key, dx keytext);
dx dx_binary(dx a, const char *op, int prec, dx b);
dx dx_unary(const char *op, dx a);
dx dx_not(dx a);
bool dx_is_name(const char *s, size_t n);
void dx_put_string(gsvm_buf *b, const char *s, size_t n);

/* structures (decompile_struct.c): a structure's index by id (-1 none), a
 * slot by position, the structure a slot is typed with (-1 none), the slot
 * a slot instruction names from the base's structure s (-1 unknown) and its
 * tag chain (NULL: the position pos), and the block as declarations */
int dst_find(const gsvm_hks_chunk *c, uint64_t id);
const gsvm_hks_slot *dst_slot_at(const gsvm_hks_chunk *c, int s, uint64_t pos);
int dst_slot_struct(const gsvm_hks_chunk *c, const gsvm_hks_slot *sl);
const gsvm_hks_slot *dst_resolve(const gsvm_hks_chunk *c, int s, const uint32_t *words, int n,
                                 uint64_t pos);
bool dst_declare(const gsvm_hks_chunk *c, gsvm_buf *b);

#endif
