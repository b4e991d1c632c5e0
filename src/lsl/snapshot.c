/* The crossing snapshot (HWZS): a VM's whole state as bytes, after any
 * completed instruction, restorable into a fresh VM of the same program.
 *
 * Layout (ABI 2, snapshot version 2; all little-endian):
 *   4 magic "HWZS" | 2 version | 4 ABI | 8 ip | 1 finished | 8 total
 *   4 stack length N, N values bottom -> top
 *   4 locals length M, M values in slot order
 *   4 globals length G, G values in slot order (G must match the program)
 * A value is u8 tag (1 integer, 2 string) then the i32 integer, or the u32
 * byte length L and L bytes.
 *
 * Restore reads everything into new arrays first and only then swaps them
 * into the VM, so any error leaves the VM exactly as it was. */
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "lsl/abi2.h"

#define SNAP_MAGIC "HWZS"

static void put_values(gsvm_buf *b, const fal_value *v, size_t n)
{
    gsvm_buf_u32(b, (uint32_t)n, false);
    for (size_t i = 0; i < n; i++) {
        gsvm_buf_u8(b, (uint8_t)v[i].tag);
        if (v[i].tag == GSVM_LSL_INTEGER) {
            gsvm_buf_u32(b, (uint32_t)v[i].u.i, false);
        } else {
            gsvm_buf_u32(b, v[i].u.s->len, false);
            gsvm_buf_append(b, v[i].u.s->bytes, v[i].u.s->len);
        }
    }
}

gsvm_status fal2_vm_snapshot(const gsvm_lsl_vm *vm, uint8_t **out, size_t *len,
                                 gsvm_error *err)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, SNAP_MAGIC, 4);
    gsvm_buf_u16(&b, GSVM_LSL_SNAPSHOT_VERSION, false);
    gsvm_buf_u32(&b, vm->prog->abi_version, false);
    /* inside a host callback: the state after the call, so that a restore
     * does not make the call again (ABI 2's host functions return nothing) */
    gsvm_buf_u64(&b, vm->in_host ? vm->ip + 1 : vm->ip, false);
    gsvm_buf_u8(&b, vm->finished ? 1 : 0);
    gsvm_buf_u64(&b, vm->in_host ? vm->host_total : vm->total, false);
    put_values(&b, vm->stack, vm->in_host ? vm->sp - vm->host_argc : vm->sp);
    put_values(&b, vm->locals, vm->nlocals);
    put_values(&b, vm->globals, vm->nglobals);
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory writing a snapshot");
    }
    *out = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

/* Reads a u32 count and that many values into a new array (*out, *n). */
static bool read_values(const gsvm_lsl_vm *vm, gsvm_reader *r, const char *what, size_t limit, fal_value **out, size_t *n)
{
    uint32_t count;
    *out = NULL;
    *n = 0;
    if (!gsvm_read_u32(r, &count, what))
        return false;
    if (count > limit) {
        r->pos -= 4;
        return gsvm_reader_fail(r, "%s %u is inconsistent with the program (at most %zu)", what,
                                count, limit);
    }
    if ((uint64_t)count * 5 > gsvm_reader_left(r)) {
        r->pos -= 4;
        return gsvm_reader_fail(r, "truncated: %s %u needs at least %llu more bytes, %zu left",
                                what, count, (unsigned long long)count * 5,
                                gsvm_reader_left(r) - 4);
    }
    fal_value *vals = fal_realloc(vm, NULL, (count ? count : 1) * sizeof *vals);
    if (!vals)
        return gsvm_reader_fail(r, "out of memory reading %s", what);
    size_t done = 0;
    for (; done < count; done++) {
        uint8_t tag;
        size_t at = r->pos;
        if (!gsvm_read_u8(r, &tag, "value tag"))
            break;
        if (tag == GSVM_LSL_INTEGER) {
            vals[done].tag = GSVM_LSL_INTEGER;
            if (!gsvm_read_i32(r, &vals[done].u.i, "integer value"))
                break;
            continue;
        }
        if (tag != GSVM_LSL_STRING) {
            r->pos = at;
            gsvm_reader_fail(r, "value has unknown tag %u (1 integer, 2 string)", tag);
            break;
        }
        uint32_t len;
        const uint8_t *bytes;
        if (!gsvm_read_u32(r, &len, "string length"))
            break;
        if (len > FAL_MAX_STRING) {
            r->pos -= 4;
            gsvm_reader_fail(r, "string length %u is over the %u-byte limit", len, FAL_MAX_STRING);
            break;
        }
        if (!gsvm_read_bytes(r, len, &bytes, "string bytes"))
            break;
        vals[done].tag = GSVM_LSL_STRING;
        if (!(vals[done].u.s = fal_str_new(vm, (const char *)bytes, len))) {
            gsvm_reader_fail(r, "out of memory reading a string");
            break;
        }
    }
    if (done < count) {
        fal_values_release(vm, vals, done);
        fal_free(vm, vals);
        return false;
    }
    *out = vals;
    *n = count;
    return true;
}

gsvm_status fal2_vm_restore(gsvm_lsl_vm *vm, const uint8_t *data, size_t len,
                                const char *file, gsvm_error *err)
{
    if (vm->in_host)
        return gsvm_error_set(err, GSVM_ERR_USAGE, file,
                              "restoring into a VM inside its own host call is refused");
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, file, err);
    const uint8_t *magic;
    uint16_t version;
    uint32_t abi;
    uint64_t ip, total;
    uint8_t finished;
    fal_value *stack = NULL, *locals = NULL, *globals = NULL;
    size_t nstack = 0, nlocals = 0, nglobals = 0;
    const gsvm_lsl_program *p = vm->prog;

    if (!gsvm_read_bytes(&r, 4, &magic, "magic"))
        goto fail;
    if (memcmp(magic, SNAP_MAGIC, 4) != 0) {
        r.pos = 0;
        gsvm_reader_fail(&r, "not a Falcon snapshot (magic is not \"" SNAP_MAGIC "\")");
        goto fail;
    }
    if (!gsvm_read_u16(&r, &version, "snapshot version"))
        goto fail;
    if (version != GSVM_LSL_SNAPSHOT_VERSION) {
        r.pos -= 2;
        gsvm_reader_fail(&r, "snapshot version %u is not %d", version, GSVM_LSL_SNAPSHOT_VERSION);
        goto fail;
    }
    if (!gsvm_read_u32(&r, &abi, "ABI version"))
        goto fail;
    if (abi != p->abi_version) {
        r.pos -= 4;
        gsvm_reader_fail(&r, "snapshot ABI %u does not match the program's ABI %u", abi,
                         p->abi_version);
        goto fail;
    }
    if (!gsvm_read_u64(&r, &ip, "ip") || !gsvm_read_u8(&r, &finished, "finished flag"))
        goto fail;
    if (finished > 1) {
        r.pos -= 1;
        gsvm_reader_fail(&r, "finished flag is %u, not 0 or 1", finished);
        goto fail;
    }
    if (!finished && ip >= p->ncode) {
        r.pos -= 9;
        gsvm_reader_fail(&r, "ip %llu is outside the program's %zu instructions",
                         (unsigned long long)ip, p->ncode);
        goto fail;
    }
    if (!gsvm_read_u64(&r, &total, "total instruction count"))
        goto fail;
    if (!read_values(vm, &r, "stack length", FAL_MAX_STACK, &stack, &nstack) ||
        !read_values(vm, &r, "locals length", vm->max_locals, &locals, &nlocals))
        goto fail;
    size_t at = r.pos;
    if (!read_values(vm, &r, "globals length", (size_t)UINT32_MAX, &globals, &nglobals))
        goto fail;
    if (nglobals != p->nglobal) {
        r.pos = at;
        gsvm_reader_fail(&r, "snapshot has %zu globals, the program has %zu", nglobals,
                         p->nglobal);
        goto fail;
    }
    if (gsvm_reader_left(&r)) {
        gsvm_reader_fail(&r, "%zu bytes of trailing garbage after the snapshot",
                         gsvm_reader_left(&r));
        goto fail;
    }
    /* Make sure the stack array can hold what was restored before touching
     * the VM: everything below this point cannot fail. */
    size_t cap = vm->stack_cap;
    while (cap < nstack)
        cap *= 2;
    if (cap > FAL_MAX_STACK)
        cap = FAL_MAX_STACK;
    if (cap != vm->stack_cap) {
        fal_value *ns = fal_realloc(vm, vm->stack, cap * sizeof *ns);
        if (!ns) {
            gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory restoring a snapshot");
            goto fail_nomem;
        }
        vm->stack = ns;
        vm->stack_cap = cap;
    }
    fal_values_release(vm, vm->stack, vm->sp);
    memcpy(vm->stack, stack, nstack * sizeof *stack);
    vm->sp = nstack;
    fal_free(vm, stack);
    fal_values_release(vm, vm->locals, vm->nlocals);
    fal_free(vm, vm->locals);
    vm->locals = locals;
    vm->nlocals = vm->locals_cap = nlocals;
    fal_values_release(vm, vm->globals, vm->nglobals);
    fal_free(vm, vm->globals);
    vm->globals = globals;
    vm->nglobals = nglobals;
    vm->ip = ip;
    vm->finished = finished;
    vm->total = total;
    vm->faulted = false;
    vm->fault[0] = 0;
    /* the handler running: the one whose code holds ip (handlers are laid
     * out one after another); the document's snapshot does not name it */
    vm->current = NULL;
    vm->current_tag = 0;
    for (size_t i = 0, best = 0; !finished && i < vm->prog->nevent; i++)
        if (vm->prog->events[i].entry_ip <= ip && vm->prog->events[i].entry_ip >= best) {
            best = vm->prog->events[i].entry_ip;
            vm->current = vm->prog->events[i].name;
        }
    return GSVM_OK;

fail:
    if (!r.failed)
        gsvm_error_at_offset(err, GSVM_ERR_INPUT, file, (long long)r.pos, "bad snapshot");
fail_nomem:
    fal_values_release(vm, stack, nstack);
    fal_free(vm, stack);
    fal_values_release(vm, locals, nlocals);
    fal_free(vm, locals);
    fal_values_release(vm, globals, nglobals);
    fal_free(vm, globals);
    return err && err->status == GSVM_ERR_NOMEM ? GSVM_ERR_NOMEM : GSVM_ERR_INPUT;
}
