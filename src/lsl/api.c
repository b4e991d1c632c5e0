/* The one API of include/gsvm/lsl.h: a program and a VM of either ABI
 * behind one set of calls.  Every program and VM struct starts with its ABI
 * (uint8_t 2 or 3), so each call here reads that byte and hands the call to
 * the ABI-2 engine (fal2_*, lsl/abi2.h) or the ABI-3 one (gsvm_lsl3_*).
 * Calls that only one ABI has refuse the other's handle rather than guess. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "lsl/abi2.h"
#include "lsl/prog3.h"

/* The ABI of a handle: the byte every program and VM struct starts with
 * (read as a character type, which may alias anything). */
#define ABI(h) (*(const uint8_t *)(h))
#define P3(p) ((gsvm_lsl3_program *)(p))
#define V3(v) ((gsvm_lsl3_vm *)(v))

/* ---- programs -------------------------------------------------------------- */

gsvm_status gsvm_lsl_compile_with(const char *source, size_t len, const char *file,
                                  const gsvm_lsl_compile_opts *opts, gsvm_lsl_program **out, gsvm_error *err)
{
    int abi = opts ? opts->abi : 0;
    const char *dir = opts ? opts->cache_dir : NULL;
    bool *hit = opts ? opts->cache_hit : NULL;
    char *why = opts ? opts->why : NULL;
    *out = NULL;
    if (why && opts->why_size)
        why[0] = '\0';
    if (abi != 0 && abi != 2 && abi != 3)
        return gsvm_error_set(err, GSVM_ERR_USAGE, file, "ABI %d is not implemented (2 or 3)", abi);
    gsvm_status st = GSVM_ERR_INPUT;
    if (abi != 3)
        st = gsvm_lsl_compile_cached(source, len, file, dir, out, hit, err);
    if (abi == 3 || (abi == 0 && st != GSVM_OK && st != GSVM_ERR_NOMEM && st != GSVM_ERR_IO)) {
        /* beyond the ABI-2 slice: the whole language (its diagnostic wins) */
        gsvm_lsl3_program *p3 = NULL;
        if (why && opts->why_size && abi == 0)
            snprintf(why, opts->why_size, "%ld:%ld: %s", err->line, err->column, err->message);
        gsvm_error_clear(err);
        st = gsvm_lsl3_compile_cached(source, len, file, dir, &p3, hit, err);
        *out = (gsvm_lsl_program *)p3;
    }
    return st;
}

int gsvm_lsl_program_abi(const gsvm_lsl_program *p) { return ABI(p); }

gsvm_lsl3_program *gsvm_lsl_program_abi3(gsvm_lsl_program *p) { return p && ABI(p) == 3 ? P3(p) : NULL; }

gsvm_lsl_program *gsvm_lsl_program_of3(gsvm_lsl3_program *p) { return (gsvm_lsl_program *)p; }

const gsvm_lsl_program *gsvm_lsl_program_retain(const gsvm_lsl_program *p)
{
    if (p && ABI(p) == 3)
        gsvm_lsl3_program_retain(P3(p));
    else if (p)
        atomic_fetch_add_explicit(&((gsvm_lsl_program *)p)->refs, 1, memory_order_relaxed);
    return p;
}

void gsvm_lsl_program_release(gsvm_lsl_program *p)
{
    if (!p)
        return;
    if (ABI(p) == 3)
        gsvm_lsl3_program_free(P3(p));
    else if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
        fal2_program_free(p);
}

void gsvm_lsl_program_free(gsvm_lsl_program *p) { gsvm_lsl_program_release(p); }

gsvm_status gsvm_lsl_program_save(const gsvm_lsl_program *p, uint8_t **out, size_t *len, gsvm_error *err)
{
    return ABI(p) == 3 ? gsvm_lsl3_program_save(P3(p), out, len, err) : fal2_program_save(p, out, len, err);
}

gsvm_status gsvm_lsl_program_load(const uint8_t *data, size_t len, const char *file, gsvm_lsl_program **out,
                                  gsvm_error *err)
{
    if (!gsvm_lsl3_is_program_file(data, len))
        return fal2_program_load(data, len, file, out, err);
    gsvm_lsl3_program *p3 = NULL;
    gsvm_status st = gsvm_lsl3_program_load(data, len, file, &p3, err);
    *out = (gsvm_lsl_program *)p3;
    return st;
}

gsvm_status gsvm_lsl_program_verify(const gsvm_lsl_program *p, gsvm_error *err)
{
    /* an ABI-3 program is verified as it is built or loaded */
    return ABI(p) == 3 ? GSVM_OK : fal2_program_verify(p, err);
}

gsvm_status gsvm_lsl_program_list(const gsvm_lsl_program *p, char **out, gsvm_error *err)
{
    return ABI(p) == 3 ? gsvm_lsl3_program_list(P3(p), out, err) : fal2_program_list(p, out, err);
}

size_t gsvm_lsl_program_code_size(const gsvm_lsl_program *p)
{
    return ABI(p) == 3 ? gsvm_lsl3_program_code_size(P3(p)) : fal2_program_code_size(p);
}

size_t gsvm_lsl_program_global_count(const gsvm_lsl_program *p)
{
    return ABI(p) == 3 ? P3(p)->nglobal : fal2_program_global_count(p);
}

bool gsvm_lsl_program_has_event(const gsvm_lsl_program *p, const char *event)
{
    return ABI(p) == 3 ? gsvm_lsl3_program_has_event(P3(p), event) : fal2_program_has_event(p, event);
}

bool gsvm_lsl_program_line(const gsvm_lsl_program *p, uint64_t ip, uint32_t *line, uint32_t *col)
{
    return ABI(p) == 3 ? gsvm_lsl3_program_line(P3(p), ip, line, col) : fal2_program_line(p, ip, line, col);
}

/* ---- VMs --------------------------------------------------------------------- */

gsvm_status gsvm_lsl_vm_new(const gsvm_lsl_program *prog, gsvm_lsl_vm **out, gsvm_error *err)
{
    return gsvm_lsl_vm_new_alloc(prog, NULL, NULL, out, err);
}

gsvm_status gsvm_lsl_vm_new_alloc(const gsvm_lsl_program *prog, gsvm_lsl_realloc_fn fn, void *user,
                                  gsvm_lsl_vm **out, gsvm_error *err)
{
    if (ABI(prog) == 2)
        return fal2_vm_new_alloc(prog, fn, user, out, err);
    gsvm_lsl3_vm *v3 = NULL;
    gsvm_status st = gsvm_lsl3_vm_new_alloc(P3(prog), fn, user, &v3, err);
    *out = (gsvm_lsl_vm *)v3;
    return st;
}

gsvm_lsl3_vm *gsvm_lsl_vm_abi3(gsvm_lsl_vm *vm) { return vm && ABI(vm) == 3 ? V3(vm) : NULL; }

int gsvm_lsl_vm_abi(const gsvm_lsl_vm *vm) { return ABI(vm); }

void gsvm_lsl_vm_free(gsvm_lsl_vm *vm)
{
    if (vm && ABI(vm) == 3)
        gsvm_lsl3_vm_free(V3(vm));
    else if (vm)
        fal2_vm_free(vm);
}

void gsvm_lsl_vm_set_hosts(gsvm_lsl_vm *vm, const gsvm_lsl_hosts *h, void *vm_user)
{
    if (ABI(vm) == 3)
        gsvm_lsl3_vm_set_hosts(V3(vm), h, vm_user);
    else
        fal2_vm_set_hosts(vm, h, vm_user);
}

gsvm_status gsvm_lsl_vm_start(gsvm_lsl_vm *vm, gsvm_error *err)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_start(V3(vm), err) : fal2_vm_start(vm, err);
}

gsvm_status gsvm_lsl_vm_post_tagged(gsvm_lsl_vm *vm, const char *event, const json_t *args, uint32_t tag,
                                    bool *queued, gsvm_error *err)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_post_tagged(V3(vm), event, args, tag, queued, err)
                        : fal2_vm_post(vm, event, args, NULL, 0, tag, queued, err);
}

gsvm_status gsvm_lsl_vm_post(gsvm_lsl_vm *vm, const char *event, const json_t *args, bool *queued,
                             gsvm_error *err)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_post(V3(vm), event, args, queued, err)
                        : fal2_vm_post(vm, event, args, NULL, 0, 0, queued, err);
}

gsvm_status gsvm_lsl_vm_post_items(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_item *args, size_t argc,
                                   uint32_t tag, bool *queued, gsvm_error *err)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_post_items(V3(vm), event, args, argc, tag, queued, err)
                        : fal2_vm_post(vm, event, NULL, args, argc, tag, queued, err);
}

gsvm_lsl_run_status gsvm_lsl_vm_run(gsvm_lsl_vm *vm, uint64_t budget)
{
    if (ABI(vm) == 3)
        return gsvm_lsl3_vm_run(V3(vm), budget);
    /* with nothing queued, exactly the document's run() */
    return vm->qlen ? fal2_vm_run_queued(vm, budget) : fal2_vm_run(vm, budget);
}

uint64_t gsvm_lsl_vm_advance(gsvm_lsl_vm *vm, uint64_t ms)
{
    if (ABI(vm) == 3)
        return gsvm_lsl3_vm_advance(V3(vm), ms);
    vm->now_ms += ms; /* ABI 2 has no timers or sleeps: nothing to stop at */
    return ms;
}

uint64_t gsvm_lsl_vm_now_ms(const gsvm_lsl_vm *vm) { return ABI(vm) == 3 ? gsvm_lsl3_vm_now_ms(V3(vm)) : vm->now_ms; }

uint64_t gsvm_lsl_vm_total(const gsvm_lsl_vm *vm) { return ABI(vm) == 3 ? gsvm_lsl3_vm_total(V3(vm)) : fal2_vm_total(vm); }

const char *gsvm_lsl_vm_fault(const gsvm_lsl_vm *vm)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_fault(V3(vm)) : fal2_vm_fault(vm);
}

uint64_t gsvm_lsl_vm_fault_ip(const gsvm_lsl_vm *vm)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_fault_ip(V3(vm)) : fal2_vm_fault_ip(vm);
}

bool gsvm_lsl_vm_fault_line(const gsvm_lsl_vm *vm, uint32_t *line, uint32_t *col)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_fault_line(V3(vm), line, col) : fal2_vm_fault_line(vm, line, col);
}

bool gsvm_lsl_vm_in_host_call(const gsvm_lsl_vm *vm)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_in_host_call(V3(vm)) : fal2_vm_in_host_call(vm);
}

const char *gsvm_lsl_vm_current_event(const gsvm_lsl_vm *vm, uint32_t *tag)
{
    if (ABI(vm) == 3)
        return gsvm_lsl3_vm_current_event(V3(vm), tag);
    if (tag)
        *tag = vm->current ? vm->current_tag : 0;
    return vm->current;
}

size_t gsvm_lsl_vm_queue_length(const gsvm_lsl_vm *vm)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_queue_length(V3(vm)) : vm->qlen;
}

bool gsvm_lsl_vm_next_deadline(const gsvm_lsl_vm *vm, uint64_t *at_ms)
{
    if (ABI(vm) == 3)
        return gsvm_lsl3_vm_next_deadline(V3(vm), at_ms);
    *at_ms = 0; /* no timers, no sleeps */
    return false;
}

const char *gsvm_lsl_vm_state(const gsvm_lsl_vm *vm) { return ABI(vm) == 3 ? gsvm_lsl3_vm_state(V3(vm)) : "default"; }

size_t gsvm_lsl_vm_listen_count(const gsvm_lsl_vm *vm) { return ABI(vm) == 3 ? gsvm_lsl3_vm_listen_count(V3(vm)) : 0; }

bool gsvm_lsl_vm_listen(const gsvm_lsl_vm *vm, size_t i, gsvm_lsl_listen_info *out)
{
    return ABI(vm) == 3 && gsvm_lsl3_vm_listen(V3(vm), i, out);
}

json_t *gsvm_lsl_vm_global_named(const gsvm_lsl_vm *vm, const char *name)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_global_by_name(V3(vm), name) : fal2_vm_global_by_name(vm, name);
}

gsvm_status gsvm_lsl_vm_snapshot(const gsvm_lsl_vm *vm, uint8_t **out, size_t *len, gsvm_error *err)
{
    if (ABI(vm) == 3)
        return gsvm_lsl3_vm_snapshot(V3(vm), out, len, err);
    /* HWZS version 2 is the document's and has no room for a queue: refusing
     * is what keeps a crossing from losing the waiting events */
    if (vm->qlen)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "an ABI-2 snapshot cannot hold the %zu queued event%s (run them first)", vm->qlen,
                              vm->qlen == 1 ? "" : "s");
    return fal2_vm_snapshot(vm, out, len, err);
}

gsvm_status gsvm_lsl_vm_restore(gsvm_lsl_vm *vm, const uint8_t *data, size_t len, const char *file,
                                gsvm_error *err)
{
    return ABI(vm) == 3 ? gsvm_lsl3_vm_restore(V3(vm), data, len, file, err)
                        : fal2_vm_restore(vm, data, len, file, err);
}

/* ---- the document's calls: ABI 2 only -------------------------------------------- */

static gsvm_status abi2_only(const char *what, gsvm_error *err)
{
    return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s is an ABI-2 call; this VM is ABI 3", what);
}

void gsvm_lsl_vm_set_host(gsvm_lsl_vm *vm, gsvm_lsl_host_fn fn, void *user)
{
    if (ABI(vm) == 2) /* ABI 3's untyped host is JSON: gsvm_lsl3_vm_set_host(gsvm_lsl_vm_abi3(vm), ...) */
        fal2_vm_set_host(vm, fn, user);
}

gsvm_status gsvm_lsl_vm_dispatch(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_hostval *args, size_t argc,
                                 gsvm_error *err)
{
    return ABI(vm) == 2 ? fal2_vm_dispatch(vm, event, args, argc, err) : abi2_only("dispatch", err);
}

gsvm_lsl_run_status gsvm_lsl_vm_step(gsvm_lsl_vm *vm) { return gsvm_lsl_vm_run(vm, 1); }

bool gsvm_lsl_vm_finished(const gsvm_lsl_vm *vm)
{
    /* ABI 3: nothing runs, nothing waits */
    return ABI(vm) == 2 ? fal2_vm_finished(vm) : !V3(vm)->active && gsvm_lsl3_vm_queue_length(V3(vm)) == 0;
}

uint64_t gsvm_lsl_vm_ip(const gsvm_lsl_vm *vm) { return ABI(vm) == 2 ? fal2_vm_ip(vm) : V3(vm)->ip; }

bool gsvm_lsl_vm_global(const gsvm_lsl_vm *vm, size_t slot, gsvm_lsl_hostval *out)
{
    return ABI(vm) == 2 && fal2_vm_global(vm, slot, out);
}
