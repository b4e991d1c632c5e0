/* The ABI-3 interpreter's builtin boundary: builtins the VM services itself
 * (listens, timers, sleeps, resets...), host calls and the native fast paths. */
#include "lsl/vm3.h"

/* ---- builtins ------------------------------------------------------------ */

int fal3_vm_service(gsvm_lsl3_vm *vm, const lsl_builtin *b, lsl_value *args, lsl_value *ret, gsvm_error *err)
{
    lsl_set_empty(ret, b->ret);
    switch (b->id) {
    case LSL_ID_llListen: {
        int32_t h = 0;
        gsvm_status st = lsl_sched_listen(&vm->sched, args[0].u.i, &args[1], &args[2], &args[3], &h, err);
        if (st != GSVM_OK)
            return CALL_FAULT; /* "Too Many Listens" (or out of memory) */
        *ret = lsl_int(h);
        return CALL_OK;
    }
    case LSL_ID_llListenControl:
        lsl_sched_listen_control(&vm->sched, args[0].u.i, args[1].u.i != 0);
        return CALL_OK;
    case LSL_ID_llListenRemove:
        lsl_sched_listen_remove(&vm->sched, args[0].u.i);
        return CALL_OK;
    case LSL_ID_llGetTime:
        *ret = lsl_float(lsl_sched_get_time(&vm->sched));
        return CALL_OK;
    case LSL_ID_llResetTime:
        lsl_sched_reset_time(&vm->sched);
        return CALL_OK;
    case LSL_ID_llGetAndResetTime:
        *ret = lsl_float(lsl_sched_get_and_reset_time(&vm->sched));
        return CALL_OK;
    case LSL_ID_llSetTimerEvent:
        lsl_sched_set_timer(&vm->sched, args[0].u.f);
        return CALL_OK;
    case LSL_ID_llSleep:
        lsl_sched_sleep(&vm->sched, args[0].u.f);
        return CALL_OK;
    case LSL_ID_llResetScript:
        return CALL_RESET;
    case LSL_ID_llGetFreeMemory: {
        size_t used = gsvm_lsl3_vm_used_memory(vm);
        *ret = lsl_int(vm->hp->limit > used ? (int32_t)(vm->hp->limit - used) : 0);
        return CALL_OK;
    }
    case LSL_ID_llGetUsedMemory:
        *ret = lsl_int((int32_t)gsvm_lsl3_vm_used_memory(vm));
        return CALL_OK;
    case LSL_ID_llGetSPMaxMemory:
        *ret = lsl_int((int32_t)vm->hp->peak);
        return CALL_OK;
    case LSL_ID_llGetMemoryLimit:
        *ret = lsl_int((int32_t)vm->hp->limit);
        return CALL_OK;
    case LSL_ID_llSetMemoryLimit: {
        int32_t want = args[0].u.i;
        bool ok = want > 0 && (size_t)want <= LSL_DEFAULT_MEMORY_LIMIT &&
                  (size_t)want >= gsvm_lsl3_vm_used_memory(vm);
        if (ok)
            vm->hp->limit = (size_t)want;
        *ret = lsl_int(ok);
        return CALL_OK;
    }
    default: /* llMinEventDelay, llScriptProfiler: nothing to simulate */
        return CALL_OK;
    }
    (void)err;
}

int fal3_call_host(gsvm_lsl3_vm *vm, const lsl_builtin *b, lsl_value *args, lsl_value *ret, gsvm_error *err)
{
    gsvm_status st = lsl_builtin_check_args(b, args, b->nargs, err);
    if (st != GSVM_OK)
        return CALL_FAULT;
    *ret = lsl_builtin_default_result(b);
    const fal_host_entry *e = fal_host_entry_of(vm->hosts, b);
    if (e) {
        vm->in_host = b;
        st = fal_host_call3(e, vm->hosts_user, b, args, vm->hp, ret, err);
        vm->in_host = NULL;
        return st == GSVM_OK ? CALL_OK : CALL_FAULT;
    }
    if (!vm->host)
        return CALL_OK;
    json_t *ja = json_array();
    for (unsigned i = 0; ja && i < b->nargs; i++)
        if (json_array_append_new(ja, lsl_value_to_json(&args[i])) != 0) {
            json_decref(ja);
            ja = NULL;
        }
    if (!ja) {
        gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        return CALL_FAULT;
    }
    json_t *res = NULL;
    vm->in_host = b;
    st = vm->host(vm->host_user, b->name, ja, &res, err);
    vm->in_host = NULL;
    json_decref(ja);
    if (st != GSVM_OK) {
        json_decref(res);
        return CALL_FAULT;
    }
    if (res && b->ret != LSL_TYPE_VOID) {
        lsl_value v;
        st = lsl_value_from_json(vm->hp, res, b->ret, &v, err);
        json_decref(res);
        if (st == GSVM_ERR_INPUT) {
            /* name the function whose host answered with the wrong type */
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "the host's result for %s (%s): %s", b->name,
                           lsl_type_name(b->ret), msg);
        }
        if (st != GSVM_OK)
            return CALL_FAULT;
        *ret = v;
    } else
        json_decref(res);
    return CALL_OK;
}

/* Fast paths for string functions on text whose characters are single
 * bytes (its UTF-16 units equal its bytes): character offsets are byte
 * offsets, so no walk of the text is needed.  Same results and charges as
 * the library's (the result is built the same way). */
static bool single_byte_chars(const lsl_value *v)
{
    return !v->u.s || (v->u.s->charge - LSL_MEM_STRING_HEADER) / 2 == v->u.s->len;
}

bool fal3_fast_builtin(gsvm_lsl3_vm *vm, int32_t id, const lsl_value *args, lsl_value *ret, gsvm_error *err,
                         int *r)
{
    if (id == LSL_ID_llGetListLength) {
        *ret = lsl_int((int32_t)lsl_list_len(&args[0]));
        *r = CALL_OK;
        return true;
    }
    if (id == LSL_ID_llList2Integer || id == LSL_ID_llList2Float) {
        /* the element already of the wanted type (else the library converts) */
        int64_t i = lsl_index((int64_t)lsl_list_len(&args[0]), args[1].u.i);
        lsl_type want = id == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
        if (i < 0 || lsl_list_items(&args[0])[i].type != want)
            return false;
        *ret = lsl_list_items(&args[0])[i];
        *r = CALL_OK;
        return true;
    }
    if (id == LSL_ID_llStringLength && single_byte_chars(&args[0])) {
        *ret = lsl_int((int32_t)lsl_str_len(&args[0]));
        *r = CALL_OK;
        return true;
    }
    if (id == LSL_ID_llGetSubString && single_byte_chars(&args[0])) {
        const char *s = lsl_str_data(&args[0]);
        int64_t iv[2][2];
        int k = lsl_range_select((int64_t)lsl_str_len(&args[0]), args[1].u.i, args[2].u.i, iv);
        gsvm_status st;
        if (k == 0)
            st = lsl_string_new(vm->hp, LSL_TYPE_STRING, "", 0, ret, err);
        else if (k == 1)
            st = lsl_string_new(vm->hp, LSL_TYPE_STRING, s + iv[0][0], (size_t)(iv[0][1] - iv[0][0]), ret, err);
        else
            return false;
        *r = st == GSVM_OK ? CALL_OK : CALL_FAULT;
        return true;
    }
    return false;
}
