/* Snapshot and restore of a whole Pathologic VM, like CScriptRun's
 * SaveState / load constructor: the stack, the globals, every task with its
 * call frames and disabled events, the current op and a waiting latent call.
 *
 * Format (little-endian), version 1:
 *   "GSPV" u32 version  u8[32] program digest (SHA-256 of the .bin bytes)
 *   u8 state  i64 pc  u64 latent[2]  u64 executed  i64 fault_op
 *   u16 fault length, fault bytes
 *   u32 nglobals, values          u32 stack size, values
 *   u32 ntasks, tasks: u32 id, u32 sp,
 *       u32 ncalls, calls: i64 ret, u32 extra_pop, u8 waiting, u64 latent[2]
 *       u32 ndisabled, entries: u32 event id, u32 count
 *   value = u8 type, then bool u8 | int i32 | float u32 bits | string u32 n,
 *           n x u16 | object u32 | cvector 3 x u32 bits
 *
 * Restore trusts nothing: every count is bounded by the VM's limits and by
 * the bytes left, every type, index, op and offset is checked against the
 * program, and the structure must be one the VM itself could have reached
 * (task bases in order, a waiting VM stopped on a native op, ...). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "patho/vm.h"

#define SNAP_MAGIC "GSPV"
#define SNAP_VERSION 1u

static void put_value(gsvm_buf *b, const gsvm_patho_value *v)
{
    gsvm_buf_u8(b, v->type);
    switch (v->type) {
    case GSVM_PATHO_BOOL: gsvm_buf_u8(b, v->as.b ? 1 : 0); break;
    case GSVM_PATHO_INT: gsvm_buf_u32(b, (uint32_t)v->as.i, false); break;
    case GSVM_PATHO_FLOAT: gsvm_buf_u32(b, gsvm_patho_f32_bits(v->as.f), false); break;
    case GSVM_PATHO_STRING:
        gsvm_buf_u32(b, v->as.s.len, false);
        for (uint32_t i = 0; i < v->as.s.len; i++)
            gsvm_buf_u16(b, v->as.s.units[i], false);
        break;
    case GSVM_PATHO_OBJECT: gsvm_buf_u32(b, v->as.object, false); break;
    default:
        for (int i = 0; i < 3; i++)
            gsvm_buf_u32(b, gsvm_patho_f32_bits(v->as.v[i]), false);
        break;
    }
}

gsvm_status gsvm_patho_vm_snapshot(const gsvm_patho_vm *vm, uint8_t **data, size_t *len,
                                   gsvm_error *err)
{
    gsvm_error_clear(err);
    *data = NULL;
    *len = 0;
    if (vm->in_call)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM is inside a host call");
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, SNAP_MAGIC, 4);
    gsvm_buf_u32(&b, SNAP_VERSION, false);
    gsvm_buf_append(&b, vm->digest, sizeof vm->digest);
    gsvm_buf_u8(&b, (uint8_t)vm->state);
    gsvm_buf_u64(&b, (uint64_t)vm->pc, false);
    gsvm_buf_u64(&b, vm->latent[0], false);
    gsvm_buf_u64(&b, vm->latent[1], false);
    gsvm_buf_u64(&b, vm->executed, false);
    gsvm_buf_u64(&b, (uint64_t)vm->fault_op, false);
    size_t flen = vm->state == GSVM_PATHO_FAULTED ? strlen(vm->fault) : 0;
    gsvm_buf_u16(&b, (uint16_t)flen, false);
    gsvm_buf_append(&b, vm->fault, flen);
    gsvm_buf_u32(&b, vm->nglobals, false);
    for (uint32_t i = 0; i < vm->nglobals; i++)
        put_value(&b, &vm->globals[i]);
    gsvm_buf_u32(&b, vm->size, false);
    for (uint32_t i = 0; i < vm->size; i++)
        put_value(&b, &vm->stack[i]);
    gsvm_buf_u32(&b, vm->ntasks, false);
    for (uint32_t i = 0; i < vm->ntasks; i++) {
        const patho_task *t = &vm->tasks[i];
        gsvm_buf_u32(&b, t->id, false);
        gsvm_buf_u32(&b, t->sp, false);
        gsvm_buf_u32(&b, t->ncalls, false);
        for (uint32_t k = 0; k < t->ncalls; k++) {
            const patho_frame *f = &t->calls[k];
            gsvm_buf_u64(&b, (uint64_t)f->ret, false);
            gsvm_buf_u32(&b, f->extra_pop, false);
            gsvm_buf_u8(&b, f->waiting);
            gsvm_buf_u64(&b, f->latent[0], false);
            gsvm_buf_u64(&b, f->latent[1], false);
        }
        gsvm_buf_u32(&b, t->ndisabled, false);
        for (uint32_t k = 0; k < t->ndisabled; k++) {
            gsvm_buf_u32(&b, t->disabled[k].id, false);
            gsvm_buf_u32(&b, t->disabled[k].count, false);
        }
    }
    if (b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *data = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

/* ---- restore ------------------------------------------------------------------ */

static bool bad(gsvm_reader *r, const char *what)
{
    return gsvm_reader_fail(r, "invalid snapshot: %s", what);
}

/* A count that must be <= max and for which at least `min_bytes` each remain. */
static bool read_count(gsvm_reader *r, uint32_t *out, uint32_t max, size_t min_bytes,
                       const char *what)
{
    if (!gsvm_read_u32(r, out, what))
        return false;
    if (*out > max)
        return gsvm_reader_fail(r, "invalid snapshot: %s %u exceeds the limit %u", what, *out, max);
    if ((uint64_t)*out * min_bytes > gsvm_reader_left(r))
        return gsvm_reader_fail(r, "invalid snapshot: %s %u exceeds the data", what, *out);
    return true;
}

static bool read_value(gsvm_reader *r, gsvm_patho_value *v)
{
    uint8_t type, b8;
    uint32_t u;
    gsvm_patho_value_default(v, GSVM_PATHO_BOOL);
    if (!gsvm_read_u8(r, &type, "value type"))
        return false;
    if (!gsvm_patho_type_name(type))
        return bad(r, "unknown value type");
    switch (type) {
    case GSVM_PATHO_BOOL:
        if (!gsvm_read_u8(r, &b8, "bool"))
            return false;
        if (b8 > 1)
            return bad(r, "bool is neither 0 nor 1");
        *v = gsvm_patho_bool(b8 != 0);
        return true;
    case GSVM_PATHO_INT:
        if (!gsvm_read_u32(r, &u, "int"))
            return false;
        *v = gsvm_patho_int((int32_t)u);
        return true;
    case GSVM_PATHO_FLOAT:
        if (!gsvm_read_u32(r, &u, "float"))
            return false;
        *v = gsvm_patho_float(gsvm_patho_f32(u));
        return true;
    case GSVM_PATHO_OBJECT:
        if (!gsvm_read_u32(r, &u, "object"))
            return false;
        *v = gsvm_patho_object(u);
        return true;
    case GSVM_PATHO_CVECTOR: {
        uint32_t x, y, z;
        if (!gsvm_read_u32(r, &x, "cvector") || !gsvm_read_u32(r, &y, "cvector") ||
            !gsvm_read_u32(r, &z, "cvector"))
            return false;
        *v = gsvm_patho_cvector(gsvm_patho_f32(x), gsvm_patho_f32(y), gsvm_patho_f32(z));
        return true;
    }
    default: {
        uint32_t n;
        if (!read_count(r, &n, GSVM_PATHO_MAX_STRING, 2, "string length"))
            return false;
        gsvm_patho_value_default(v, GSVM_PATHO_STRING);
        if (n == 0)
            return true;
        v->as.s.units = malloc((size_t)n * sizeof(uint16_t));
        if (!v->as.s.units) {
            v->type = GSVM_PATHO_BOOL;
            return bad(r, "out of memory");
        }
        v->as.s.len = n;
        for (uint32_t i = 0; i < n; i++)
            if (!gsvm_read_u16(r, &v->as.s.units[i], "string"))
                return false;
        return true;
    }
    }
}

static bool is_native_op(const gsvm_patho_program *p, int64_t pc)
{
    if (pc < 0 || pc >= (int64_t)p->ninsns)
        return false;
    unsigned op = p->insns[pc].op;
    return op == GSVM_PATHO_OP_Func || op == GSVM_PATHO_OP_ObjFunc || op == GSVM_PATHO_OP_TObjFunc;
}

/* An op a frame may return to: -1 (the entry frame), inside the code, or
 * just past its end (a Call as the last instruction: returning there
 * faults, as it would have without the snapshot). */
static bool valid_ret(const gsvm_patho_program *p, int64_t ret)
{
    return ret == -1 || (ret >= 0 && ret <= (int64_t)p->ninsns);
}

static bool read_state(gsvm_reader *r, gsvm_patho_vm *vm)
{
    const gsvm_patho_program *p = vm->prog;
    const uint8_t *magic, *digest;
    uint32_t version, n;
    uint8_t state;
    uint64_t u;
    uint16_t flen;
    const uint8_t *ftext;
    if (!gsvm_read_bytes(r, 4, &magic, "magic") || memcmp(magic, SNAP_MAGIC, 4) != 0)
        return r->failed ? false : bad(r, "not a gsvm patho snapshot (magic)");
    if (!gsvm_read_u32(r, &version, "version"))
        return false;
    if (version != SNAP_VERSION)
        return bad(r, "unsupported version");
    if (!gsvm_read_bytes(r, 32, &digest, "program digest"))
        return false;
    if (memcmp(digest, vm->digest, 32) != 0)
        return bad(r, "it belongs to another program");
    if (!gsvm_read_u8(r, &state, "state"))
        return false;
    if (state > GSVM_PATHO_FAULTED)
        return bad(r, "unknown state");
    vm->state = (gsvm_patho_state)state;
    if (!gsvm_read_u64(r, &u, "op"))
        return false;
    vm->pc = (int64_t)u;
    if (!gsvm_read_u64(r, &vm->latent[0], "latent") || !gsvm_read_u64(r, &vm->latent[1], "latent") ||
        !gsvm_read_u64(r, &vm->executed, "instruction count") || !gsvm_read_u64(r, &u, "fault op"))
        return false;
    vm->fault_op = (int64_t)u;
    if (!gsvm_read_u16(r, &flen, "fault length"))
        return false;
    if (flen >= sizeof vm->fault)
        return bad(r, "fault message too long");
    if (!gsvm_read_bytes(r, flen, &ftext, "fault message"))
        return false;
    memcpy(vm->fault, ftext, flen);
    vm->fault[flen] = 0;
    if (memchr(vm->fault, 0, flen))
        return bad(r, "NUL in the fault message");

    /* Globals: the program's count, each keeping its declared type. */
    if (!read_count(r, &n, vm->nglobals, 1, "global count"))
        return false;
    if (n != vm->nglobals)
        return bad(r, "global count differs from the program");
    for (uint32_t i = 0; i < n; i++) {
        gsvm_patho_value_free(&vm->globals[i]);
        if (!read_value(r, &vm->globals[i]))
            return false;
        if (vm->globals[i].type != p->globals[i].type)
            return bad(r, "a global has another type than the program declares");
    }

    /* The stack. */
    if (!read_count(r, &n, GSVM_PATHO_MAX_STACK, 2, "stack size"))
        return false;
    if (!patho_vm_reserve_stack(vm, n))
        return bad(r, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        vm->size = i; /* only the values read so far are freed on failure */
        if (!read_value(r, &vm->stack[i])) {
            gsvm_patho_value_free(&vm->stack[i]);
            return false;
        }
    }
    vm->size = n;

    /* Tasks. */
    if (!read_count(r, &n, GSVM_PATHO_MAX_TASKS, 16, "task count"))
        return false;
    if (!patho_vm_reserve_tasks(vm, n))
        return bad(r, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        patho_task *t = &vm->tasks[i];
        memset(t, 0, sizeof *t);
        vm->ntasks = i + 1;
        uint32_t ncalls, ndis;
        if (!gsvm_read_u32(r, &t->id, "task id") || !gsvm_read_u32(r, &t->sp, "task base"))
            return false;
        if (t->id >= p->ntasks)
            return bad(r, "unknown task id");
        /* A script may pop below a task's base (its task variables then
         * fault when used), so a base above the stack is a reachable state;
         * it only has to stay within the VM's limit. */
        if (t->sp > GSVM_PATHO_MAX_STACK)
            return bad(r, "task base beyond the stack limit");
        if (!read_count(r, &ncalls, GSVM_PATHO_MAX_CALLS, 29, "call count"))
            return false;
        if (!patho_task_reserve_calls(t, ncalls))
            return bad(r, "out of memory");
        for (uint32_t k = 0; k < ncalls; k++) {
            patho_frame *f = &t->calls[k];
            if (!gsvm_read_u64(r, &u, "return op") || !gsvm_read_u32(r, &f->extra_pop, "extra pop") ||
                !gsvm_read_u8(r, &f->waiting, "waiting") ||
                !gsvm_read_u64(r, &f->latent[0], "latent") ||
                !gsvm_read_u64(r, &f->latent[1], "latent"))
                return false;
            f->ret = (int64_t)u;
            t->ncalls = k + 1;
            if (!valid_ret(p, f->ret))
                return bad(r, "return op outside the code");
            if (f->ret == -1 && (i != 0 || k != 0))
                return bad(r, "an entry frame that is not the first frame of the start task");
            if (f->extra_pop > GSVM_PATHO_MAX_STACK)
                return bad(r, "extra pop beyond the stack limit");
            if (f->waiting > 1 || (f->waiting && !is_native_op(p, f->ret)))
                return bad(r, "a waiting frame that does not return to a native call");
        }
        if (!read_count(r, &ndis, GSVM_PATHO_MAX_DISABLED, 8, "disabled event count"))
            return false;
        if (!patho_task_reserve_disabled(t, ndis))
            return bad(r, "out of memory");
        for (uint32_t k = 0; k < ndis; k++) {
            patho_disabled *d = &t->disabled[k];
            if (!gsvm_read_u32(r, &d->id, "event id") || !gsvm_read_u32(r, &d->count, "count"))
                return false;
            t->ndisabled = k + 1;
            if (d->count == 0)
                return bad(r, "a disabled event with count 0");
            for (uint32_t j = 0; j < k; j++)
                if (t->disabled[j].id == d->id)
                    return bad(r, "an event disabled twice");
        }
    }
    if (gsvm_reader_left(r) != 0)
        return bad(r, "trailing bytes");

    /* The whole must be a state the VM could be in. */
    switch (vm->state) {
    case GSVM_PATHO_READY:
        if (vm->ntasks || vm->size || vm->pc != -1)
            return bad(r, "a VM not started has tasks, stack or op");
        break;
    case GSVM_PATHO_RUNNING:
    case GSVM_PATHO_WAITING:
        if (vm->ntasks == 0)
            return bad(r, "a running VM without tasks");
        /* just past the end is possible: the cap stopped the VM right after
         * the last instruction, and the next step faults */
        if (vm->pc < 0 || vm->pc > (int64_t)p->ninsns)
            return bad(r, "op outside the code");
        if (vm->state == GSVM_PATHO_WAITING && !is_native_op(p, vm->pc))
            return bad(r, "a waiting VM that is not on a native call");
        if (vm->tasks[0].ncalls == 0 || vm->tasks[0].calls[0].ret != -1)
            return bad(r, "the start task lacks its entry frame");
        break;
    case GSVM_PATHO_FINISHED:
        if (vm->pc != -1)
            return bad(r, "a finished VM with an op");
        break;
    case GSVM_PATHO_FAULTED:
        /* the op that faulted may itself be the problem (a bad target) */
        if (vm->pc < -1 || vm->pc > (int64_t)UINT32_MAX)
            return bad(r, "op out of range");
        break;
    }
    if (vm->state != GSVM_PATHO_FAULTED && (flen != 0 || vm->fault_op != -1))
        return bad(r, "a fault message without a fault");
    return true;
}

gsvm_status gsvm_patho_vm_restore(const gsvm_patho_program *prog, const gsvm_patho_host *host,
                                  const void *data, size_t len, gsvm_patho_vm **out,
                                  gsvm_error *err)
{
    gsvm_error_clear(err);
    *out = NULL;
    gsvm_patho_vm *vm;
    gsvm_status st = patho_vm_alloc(prog, host, &vm, err);
    if (st != GSVM_OK)
        return st;
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, "snapshot", err);
    if (!read_state(&r, vm)) {
        gsvm_patho_vm_free(vm);
        if (err && err->status == GSVM_OK)
            gsvm_error_set(err, GSVM_ERR_INPUT, "snapshot", "invalid snapshot");
        return err ? err->status : GSVM_ERR_INPUT;
    }
    *out = vm;
    return GSVM_OK;
}
