/* Typed host functions for both ABIs (see include/gsvm/lsl.h): the table,
 * the argument accessors over either VM's values, the typed results, and
 * the adapter that puts an ABI-2 VM's host calls through the same table. */
#include "lsl/hostcall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/prog3.h"
#include "lsl/abi2.h"

gsvm_status gsvm_lsl_hosts_new(gsvm_lsl_hosts **out, gsvm_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? GSVM_OK : gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
}

void gsvm_lsl_hosts_free(gsvm_lsl_hosts *h)
{
    free(h);
}

gsvm_status gsvm_lsl_hosts_add(gsvm_lsl_hosts *h, const char *name, gsvm_lsl_host_cb cb, void *fn_user,
                               gsvm_error *err)
{
    const lsl_builtin *b = name ? lsl_builtin_by_name(name, strlen(name)) : NULL;
    if (!b)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s is not an LSL function", name ? name : "(null)");
    if (lsl_builtin_native(b) || (b->flags & LSL_FN_VM))
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "%s is answered by the %s, not by the host", name,
                              (b->flags & LSL_FN_VM) ? "VM" : "library");
    if (b->id < 0 || b->id >= LSL_ID_END_)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s has no function id", name);
    h->by_id[b->id] = (fal_host_entry){cb, fn_user};
    return GSVM_OK;
}

void gsvm_lsl3_vm_set_hosts(gsvm_lsl3_vm *vm, const gsvm_lsl_hosts *h, void *vm_user)
{
    vm->hosts = h;
    vm->hosts_user = vm_user;
}

/* ---- arguments ----------------------------------------------------------- */

static void item_of(const lsl_value *v, gsvm_lsl_item *out)
{
    memset(out, 0, sizeof *out);
    out->type = (gsvm_lsl_vtype)v->type;
    switch (v->type) {
    case LSL_TYPE_INTEGER: out->i = v->u.i; break;
    case LSL_TYPE_FLOAT: out->f = v->u.f; break;
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
        out->s = lsl_str_data(v);
        out->len = lsl_str_len(v);
        break;
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: memcpy(out->v, v->u.v, sizeof out->v); break;
    case LSL_TYPE_LIST: out->len = lsl_list_len(v); break;
    default: break;
    }
}

const char *gsvm_lsl_call_name(const gsvm_lsl_call *c) { return c->fn->name; }
size_t gsvm_lsl_call_argc(const gsvm_lsl_call *c) { return c->argc; }

bool gsvm_lsl_arg(const gsvm_lsl_call *c, size_t i, gsvm_lsl_item *out)
{
    memset(out, 0, sizeof *out);
    if (i >= c->argc)
        return false;
    if (c->args) {
        item_of(&c->args[i], out);
        return true;
    }
    const gsvm_lsl_hostval *h = &c->hargs[i];
    if (h->type == GSVM_LSL_INTEGER) {
        out->type = GSVM_LSL_T_INTEGER;
        out->i = h->integer;
    } else {
        out->type = GSVM_LSL_T_STRING;
        out->s = h->str ? h->str : "";
        out->len = h->str ? h->len : 0;
    }
    return true;
}

bool gsvm_lsl_arg_list_item(const gsvm_lsl_call *c, size_t i, size_t k, gsvm_lsl_item *out)
{
    memset(out, 0, sizeof *out);
    if (!c->args || i >= c->argc || c->args[i].type != LSL_TYPE_LIST || k >= lsl_list_len(&c->args[i]))
        return false;
    item_of(&lsl_list_items(&c->args[i])[k], out);
    return true;
}

int32_t gsvm_lsl_arg_int(const gsvm_lsl_call *c, size_t i)
{
    gsvm_lsl_item it;
    return gsvm_lsl_arg(c, i, &it) && it.type == GSVM_LSL_T_INTEGER ? it.i : 0;
}

double gsvm_lsl_arg_float(const gsvm_lsl_call *c, size_t i)
{
    gsvm_lsl_item it;
    return gsvm_lsl_arg(c, i, &it) && it.type == GSVM_LSL_T_FLOAT ? it.f : 0.0;
}

const char *gsvm_lsl_arg_str(const gsvm_lsl_call *c, size_t i, size_t *len)
{
    gsvm_lsl_item it;
    bool ok = gsvm_lsl_arg(c, i, &it) && (it.type == GSVM_LSL_T_STRING || it.type == GSVM_LSL_T_KEY);
    if (len)
        *len = ok ? it.len : 0;
    return ok ? it.s : "";
}

/* ---- results ------------------------------------------------------------- */

/* May the call return a `t`?  Else records why (the call then faults). */
static bool may_return(gsvm_lsl_call *c, lsl_type t)
{
    lsl_type want = c->fn->ret;
    const char *why = NULL;
    if (c->has_result)
        why = "a second result";
    else if (want == LSL_TYPE_VOID)
        why = "a result for a function that returns nothing";
    else if (want != t && !((want == LSL_TYPE_STRING || want == LSL_TYPE_KEY) &&
                            (t == LSL_TYPE_STRING || t == LSL_TYPE_KEY)))
        why = lsl_type_name(t);
    if (!why)
        return true;
    if (!c->bad[0])
        snprintf(c->bad, sizeof c->bad, "%s", why);
    return false;
}

static gsvm_status put(gsvm_lsl_call *c, lsl_value v)
{
    if (!may_return(c, v.type)) {
        lsl_value_release(&v);
        return GSVM_ERR_USAGE;
    }
    if (v.type == LSL_TYPE_STRING || v.type == LSL_TYPE_KEY)
        v.type = c->fn->ret; /* a string given for a key, or the reverse */
    c->result = v;
    c->has_result = true;
    return GSVM_OK;
}

gsvm_status gsvm_lsl_return_int(gsvm_lsl_call *c, int32_t v) { return put(c, lsl_int(v)); }
gsvm_status gsvm_lsl_return_float(gsvm_lsl_call *c, double v) { return put(c, lsl_float((float)v)); }

static gsvm_status return_text(gsvm_lsl_call *c, lsl_type t, const char *s, size_t len)
{
    if (!may_return(c, t))
        return GSVM_ERR_USAGE;
    lsl_value v;
    gsvm_error e;
    gsvm_status st = lsl_string_new(c->heap, t, s ? s : "", s ? len : 0, &v, &e);
    if (st != GSVM_OK) {
        snprintf(c->bad, sizeof c->bad, "%.150s", e.message);
        return st;
    }
    return put(c, v);
}

gsvm_status gsvm_lsl_return_string(gsvm_lsl_call *c, const char *s, size_t len)
{
    return return_text(c, LSL_TYPE_STRING, s, len);
}

gsvm_status gsvm_lsl_return_key(gsvm_lsl_call *c, const char *s, size_t len)
{
    return return_text(c, LSL_TYPE_KEY, s, len);
}

gsvm_status gsvm_lsl_return_vector(gsvm_lsl_call *c, const float v[3])
{
    return put(c, lsl_vector(v[0], v[1], v[2]));
}

gsvm_status gsvm_lsl_return_rotation(gsvm_lsl_call *c, const float v[4])
{
    return put(c, lsl_rotation(v[0], v[1], v[2], v[3]));
}

gsvm_status lsl_value_of_item(lsl_heap *h, const gsvm_lsl_item *it, lsl_type want, lsl_value *out, gsvm_error *err)
{
    switch (it->type) {
    case GSVM_LSL_T_INTEGER: *out = lsl_int(it->i); return GSVM_OK;
    case GSVM_LSL_T_FLOAT: *out = lsl_float((float)it->f); return GSVM_OK;
    case GSVM_LSL_T_STRING:
    case GSVM_LSL_T_KEY:
        return lsl_string_new(h, want, it->s ? it->s : "", it->s ? it->len : 0, out, err);
    case GSVM_LSL_T_VECTOR: *out = lsl_vector(it->v[0], it->v[1], it->v[2]); return GSVM_OK;
    case GSVM_LSL_T_ROTATION: *out = lsl_rotation(it->v[0], it->v[1], it->v[2], it->v[3]); return GSVM_OK;
    case GSVM_LSL_T_LIST: break;
    default: return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no value has type %d", (int)it->type);
    }
    size_t n = it->len;
    if (n > LSL_MAX_LIST_LENGTH)
        return gsvm_error_set(err, GSVM_ERR_LIMIT, NULL, "list too long");
    if (n && !it->list)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "a list of %zu items without its items", n);
    lsl_value *vals = calloc(n ? n : 1, sizeof *vals);
    if (!vals)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    gsvm_status st = GSVM_OK;
    size_t k = 0;
    for (; st == GSVM_OK && k < n; k++) {
        const gsvm_lsl_item *e = &it->list[k];
        st = e->type == GSVM_LSL_T_LIST
                 ? gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "list element %zu is a list (lists hold no lists)", k + 1)
                 : lsl_value_of_item(h, e, (lsl_type)e->type, &vals[k], err);
    }
    if (st != GSVM_OK)
        k--; /* the failed element holds nothing */
    else if ((st = lsl_list_adopt(h, vals, n, out, err)) == GSVM_OK)
        k = 0; /* the list owns them now */
    for (size_t j = 0; j < k; j++)
        lsl_value_release(&vals[j]);
    free(vals);
    return st;
}

gsvm_status gsvm_lsl_return_list(gsvm_lsl_call *c, const gsvm_lsl_item *items, size_t n)
{
    if (!may_return(c, LSL_TYPE_LIST))
        return GSVM_ERR_USAGE;
    gsvm_lsl_item whole = {.type = GSVM_LSL_T_LIST, .len = n, .list = items};
    lsl_value list;
    gsvm_error e;
    gsvm_status st = lsl_value_of_item(c->heap, &whole, LSL_TYPE_LIST, &list, &e);
    if (st != GSVM_OK) {
        snprintf(c->bad, sizeof c->bad, "%.150s", e.message);
        return st;
    }
    return put(c, list);
}

/* ---- the calls -------------------------------------------------------------- */

gsvm_status fal_host_call3(const fal_host_entry *e, void *vm_user, const lsl_builtin *b,
                           const lsl_value *args, lsl_heap *heap, lsl_value *ret, gsvm_error *err)
{
    gsvm_lsl_call c;
    c.fn = b;
    c.argc = b->nargs;
    c.args = args;
    c.heap = heap;
    c.hargs = NULL;
    c.has_result = false;
    c.bad[0] = 0;
    gsvm_error_clear(err);
    gsvm_status st = e->cb(e->user, vm_user, &c, err);
    if (c.bad[0]) /* a refused result, whatever the callback made of it */
        st = gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "the host's result for %s (%s): %s", b->name,
                            lsl_type_name(b->ret), c.bad);
    else if (st != GSVM_OK && !err->message[0])
        gsvm_error_set(err, st, NULL, "host function %s failed", b->name);
    if (st != GSVM_OK) {
        if (c.has_result)
            lsl_value_release(&c.result);
        return st;
    }
    if (c.has_result)
        *ret = c.result;
    return GSVM_OK;
}

/* ABI 2: the VM's host callback, routed through its table (host_user is
 * the VM).  ABI-2 host functions return nothing, so any result is refused. */
static gsvm_status abi2_adapter(void *user, const char *name, const gsvm_lsl_hostval *args, size_t argc,
                                gsvm_lsl_hostval *result, bool *has_result, gsvm_error *err)
{
    gsvm_lsl_vm *vm = user;
    (void)result;
    *has_result = false;
    const lsl_builtin *b = lsl_builtin_by_name(name, strlen(name));
    const fal_host_entry *e = fal_host_entry_of(vm->hosts, b);
    if (!e)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "no host function %s is registered", name);
    gsvm_lsl_call c;
    c.fn = b;
    c.argc = argc;
    c.args = NULL;
    c.heap = NULL;
    c.hargs = args;
    c.has_result = false;
    c.bad[0] = 0;
    gsvm_status st = e->cb(e->user, vm->hosts_user, &c, err);
    if (c.has_result)
        lsl_value_release(&c.result);
    if (c.bad[0])
        st = gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "the host's result for %s (%s): %s", name,
                            lsl_type_name(b->ret), c.bad);
    return st;
}

void fal2_vm_set_hosts(gsvm_lsl_vm *vm, const gsvm_lsl_hosts *h, void *vm_user)
{
    vm->hosts = h;
    vm->hosts_user = vm_user;
    gsvm_lsl_vm_set_host(vm, h ? abi2_adapter : NULL, h ? vm : NULL);
}
