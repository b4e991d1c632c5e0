/* Typed host functions (gsvm_lsl_hosts, gsvm_lsl_call of include/gsvm/lsl.h):
 * the table, indexed by func-id so a call finds its callback with one load,
 * and the call record both VMs fill.  Shared by hostcall.c, vm3_calls.c and the
 * ABI-2 adapter. */
#ifndef GSVM_LSL_HOSTCALL_H
#define GSVM_LSL_HOSTCALL_H

#include "gsvm/lsl.h"
#include "lsl/builtins.h"
#include "lsl/value.h"

typedef struct fal_host_entry {
    gsvm_lsl_host_cb cb;
    void *user;
} fal_host_entry;

struct gsvm_lsl_hosts {
    fal_host_entry by_id[LSL_ID_END_];
};

struct gsvm_lsl_call {
    const lsl_builtin *fn;
    size_t argc;
    /* ABI 3: the script's values (result built on `heap`) */
    const lsl_value *args;
    lsl_heap *heap;
    /* ABI 2: the host values */
    const gsvm_lsl_hostval *hargs;
    lsl_value result;
    bool has_result;
    char bad[160]; /* why a result was refused ("" = none) */
};

/* The callback registered for builtin `b`, or NULL. */
static inline const fal_host_entry *fal_host_entry_of(const gsvm_lsl_hosts *h, const lsl_builtin *b)
{
    if (!h || !b || b->id < 0 || b->id >= LSL_ID_END_ || !h->by_id[b->id].cb)
        return NULL;
    return &h->by_id[b->id];
}

/* ABI 3: calls `e` for `b` with `args` (already checked against b's
 * signature).  *ret gets the result on `heap`, or stays as the caller set it
 * (the type's default) when the callback returns nothing.  GSVM_ERR_FAULT
 * naming the function for a refused result; the callback's status and
 * message otherwise. */
gsvm_status fal_host_call3(const fal_host_entry *e, void *vm_user, const lsl_builtin *b,
                           const lsl_value *args, lsl_heap *heap, lsl_value *ret, gsvm_error *err);

/* An item as a value (`want`: its type, or for a string or a key the text
 * type to make); a list item's elements are it->list, it->len of them,
 * none a list. */
gsvm_status lsl_value_of_item(lsl_heap *h, const gsvm_lsl_item *it, lsl_type want, lsl_value *out,
                              gsvm_error *err);

#endif
