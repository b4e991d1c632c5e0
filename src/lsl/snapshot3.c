/* The ABI-3 snapshot: "HWZS", u16 version 4, u32 ABI 3, then (all
 * little-endian):
 *
 *   32 bytes  the program's hash (restoring into another program is refused)
 *   u64 total   u32 ip   u8 active   u8 faulted   i32 state   i32 next_state   u8 phase
 *   u64 rng[0], rng[1], key_seq, key_seed       (the library's random streams)
 *   u32 memory limit   u64 peak memory   u32 fault ip   u32 length + fault text
 *   values (value_codec.h: objects written once, so sharing and therefore
 *   memory accounting come back identical):
 *   u32 n + constants    u32 n + globals
 *   u32 n + frames (u32 ret_ip, u32 fp, u32 func)
 *   u32 n + stack values, a float followed by its u64 double (a temporary
 *   of an expression keeps Mono's double precision; a variable's is its
 *   float32)
 *   the scheduler (clock, script time, sleep, timer, queue, listens) in
 *   sched.c's own encoding (lsl_sched_encode)
 *
 * Restore checks every field against the program: frame chain, each slot's
 * declared type, the operand stack's depth and types at each frame's ip (the
 * verifier's shapes), the scheduler (lsl_sched_decode, then its handled
 * mask and queued events against the current state), and builds a fresh VM
 * that replaces the target only when everything passed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/reader.h"
#include "lsl/prog3.h"
#include "lsl/value_codec.h"

#define SNAP_MAGIC "HWZS"

int gsvm_lsl_snapshot_abi(const uint8_t *data, size_t len)
{
    if (len < 10 || memcmp(data, SNAP_MAGIC, 4) != 0)
        return 0;
    uint16_t ver = (uint16_t)(data[4] | data[5] << 8);
    uint32_t abi = (uint32_t)data[6] | (uint32_t)data[7] << 8 | (uint32_t)data[8] << 16 | (uint32_t)data[9] << 24;
    return (abi == 2 && ver == GSVM_LSL_SNAPSHOT_VERSION) || (abi == 3 && ver == GSVM_LSL3_SNAPSHOT_VERSION) ? (int)abi
                                                                                                   : 0;
}

gsvm_status gsvm_lsl3_vm_snapshot(const gsvm_lsl3_vm *vm, uint8_t **out, size_t *len, gsvm_error *err)
{
    /* Inside a host callback the VM stands at the call with its arguments
     * on the stack; restoring that would make the call again.  The snapshot
     * is of the state after the call instead, which is known only for a
     * function that returns nothing and forces no delay. */
    uint64_t total = vm->total;
    uint32_t ip = vm->ip, sp = vm->sp;
    if (vm->in_host) {
        const lsl_builtin *hb = vm->in_host;
        if (hb->ret != LSL_TYPE_VOID || hb->sleep > 0)
            return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                                  "a snapshot inside the host call of %s (which %s) is refused: take it "
                                  "after the call returns",
                                  hb->name, hb->ret != LSL_TYPE_VOID ? "returns a value" : "forces a delay");
        total = vm->host_total;
        ip = vm->ip + 1;
        sp = vm->sp - hb->nargs;
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_reserve(&b, 256 + (vm->hp->used + vm->sp * 8u) + vm->sp * 5u);
    gsvm_buf_append(&b, SNAP_MAGIC, 4);
    gsvm_buf_u16(&b, GSVM_LSL3_SNAPSHOT_VERSION, false);
    gsvm_buf_u32(&b, GSVM_LSL3_ABI_VERSION, false);
    gsvm_buf_append(&b, vm->prog->hash, 32);
    gsvm_buf_u64(&b, total, false);
    gsvm_buf_u32(&b, ip, false);
    gsvm_buf_u8(&b, vm->active);
    gsvm_buf_u8(&b, vm->faulted);
    gsvm_buf_u32(&b, (uint32_t)vm->cur_state, false);
    gsvm_buf_u32(&b, (uint32_t)vm->next_state, false);
    gsvm_buf_u8(&b, vm->phase);
    const uint64_t clocks[] = {vm->lib.rng[0], vm->lib.rng[1], vm->lib.key_seq, vm->lib.key_seed};
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
        gsvm_buf_u64(&b, clocks[i], false);
    gsvm_buf_u32(&b, (uint32_t)vm->hp->limit, false);
    gsvm_buf_u64(&b, vm->hp->peak, false);
    gsvm_buf_u32(&b, vm->fault_ip, false);
    size_t flen = vm->faulted ? strlen(vm->fault) : 0;
    gsvm_buf_u32(&b, (uint32_t)flen, false);
    gsvm_buf_append(&b, vm->fault, flen);
    lsl_value_encoder enc;
    lsl_value_encoder_init(&enc, &b);
    gsvm_buf_u32(&b, (uint32_t)vm->nconsts, false);
    for (size_t i = 0; i < vm->nconsts; i++)
        lsl_value_encode(&enc, &vm->consts[i]);
    gsvm_buf_u32(&b, (uint32_t)vm->prog->nglobal, false);
    for (size_t i = 0; i < vm->prog->nglobal; i++)
        lsl_value_encode(&enc, &vm->globals[i]);
    gsvm_buf_u32(&b, vm->nframes, false);
    for (uint32_t i = 0; i < vm->nframes; i++) {
        gsvm_buf_u32(&b, vm->frames[i].ret_ip, false);
        gsvm_buf_u32(&b, vm->frames[i].fp, false);
        gsvm_buf_u32(&b, vm->frames[i].func, false);
    }
    gsvm_buf_u32(&b, sp, false);
    for (uint32_t fi = 0, i = 0; fi < vm->nframes; fi++) {
        uint32_t slots_end = vm->frames[fi].fp + vm->prog->funcs[vm->frames[fi].func].nslots;
        uint32_t end = fi + 1 < vm->nframes ? vm->frames[fi + 1].fp : sp;
        for (; i < end; i++) {
            lsl_value v = vm->stack[i];
            if (v.type == LSL_TYPE_FLOAT && i >= slots_end)
                v.u.f = (float)v.u.t.d; /* a temporary is its double (vm3.c) */
            lsl_value_encode(&enc, &v);
            if (v.type == LSL_TYPE_FLOAT) {
                double d = i < slots_end ? (double)v.u.f : v.u.t.d;
                uint64_t bits;
                memcpy(&bits, &d, 8);
                gsvm_buf_u64(&b, bits, false);
            }
        }
    }
    lsl_sched_encode(&vm->sched, &enc);
    bool oom = enc.oom;
    lsl_value_encoder_free(&enc);
    if (oom || b.oom) {
        gsvm_buf_free(&b);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *out = gsvm_buf_take(&b, len);
    return GSVM_OK;
}

/* Decodes one value that must have type `want`. */
static bool value_of(lsl_value_decoder *d, gsvm_reader *r, lsl_type want, lsl_value *out, const char *what,
                     gsvm_error *err)
{
    size_t at = r->pos;
    if (lsl_value_decode(d, out, err) != GSVM_OK)
        return false;
    if (out->type != want) {
        lsl_type got = out->type;
        lsl_value_release(out);
        r->pos = at;
        gsvm_reader_fail(r, "%s: a %s where the program has a %s", what, lsl_type_name(got), lsl_type_name(want));
        return false;
    }
    return true;
}

static void release_all(lsl_value *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lsl_value_release(&v[i]);
}

gsvm_status gsvm_lsl3_vm_restore(gsvm_lsl3_vm *vm, const uint8_t *data, size_t len, const char *file,
                                 gsvm_error *err)
{
    const gsvm_lsl3_program *p = vm->prog;
    if (vm->in_host)
        return gsvm_error_set(err, GSVM_ERR_USAGE, file,
                              "restoring into a VM inside its own host call (%s) is refused", vm->in_host->name);
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, file, err);
    const uint8_t *magic, *hash;
    uint16_t ver;
    uint32_t abi;
    if (!gsvm_read_bytes(&r, 4, &magic, "magic"))
        return err->status;
    if (memcmp(magic, SNAP_MAGIC, 4) != 0) {
        r.pos = 0;
        gsvm_reader_fail(&r, "not a Falcon snapshot (magic is not \"" SNAP_MAGIC "\")");
        return err->status;
    }
    if (!gsvm_read_u16(&r, &ver, "version") || !gsvm_read_u32(&r, &abi, "ABI"))
        return err->status;
    if (ver != GSVM_LSL3_SNAPSHOT_VERSION || abi != GSVM_LSL3_ABI_VERSION) {
        gsvm_reader_fail(&r, "snapshot version %u / ABI %u, this program is ABI 3", ver, abi);
        return err->status;
    }
    if (!gsvm_read_bytes(&r, 32, &hash, "program hash"))
        return err->status;
    if (memcmp(hash, p->hash, 32) != 0) {
        r.pos -= 32;
        gsvm_reader_fail(&r, "the snapshot is of another program (its hash differs)");
        return err->status;
    }
    gsvm_lsl3_vm *n;
    gsvm_status st = gsvm_lsl3_vm_new_alloc(p, vm->hp->realloc, vm->hp->alloc_user, &n, err);
    if (st != GSVM_OK)
        return st;
    /* the fresh VM's constants and globals make way for the snapshot's */
    release_all(n->consts, n->nconsts);
    release_all(n->globals, p->nglobal);
    uint8_t active, faulted, phase;
    uint32_t ip, state, next_state, limit, fault_ip, flen;
    uint64_t clocks[4], peak;
    const uint8_t *ftext;
    if (!gsvm_read_u64(&r, &n->total, "total") || !gsvm_read_u32(&r, &ip, "ip") ||
        !gsvm_read_u8(&r, &active, "active") || !gsvm_read_u8(&r, &faulted, "faulted") ||
        !gsvm_read_u32(&r, &state, "state") || !gsvm_read_u32(&r, &next_state, "next state") ||
        !gsvm_read_u8(&r, &phase, "phase"))
        goto bad;
    for (int i = 0; i < 4; i++)
        if (!gsvm_read_u64(&r, &clocks[i], "random stream"))
            goto bad;
    if (!gsvm_read_u32(&r, &limit, "memory limit") || !gsvm_read_u64(&r, &peak, "peak memory") ||
        !gsvm_read_u32(&r, &fault_ip, "fault ip") || !gsvm_read_u32(&r, &flen, "fault length"))
        goto bad;
    if (flen >= sizeof n->fault) {
        gsvm_reader_fail(&r, "fault text of %u bytes is too long", flen);
        goto bad;
    }
    if (!gsvm_read_bytes(&r, flen, &ftext, "fault text"))
        goto bad;
    if (active > 1 || faulted > 1 || phase > FAL3_PHASE_ENTRY || state >= p->nstate ||
        (phase == FAL3_PHASE_EXIT && next_state == UINT32_MAX) ||
        (phase == FAL3_PHASE_ENTRY &&
         (next_state != UINT32_MAX || active || p->states[state].handler[LSL_SCHED_EV_STATE_ENTRY] < 0)) ||
        (next_state != UINT32_MAX && next_state >= p->nstate) || limit == 0 ||
        limit > LSL_DEFAULT_MEMORY_LIMIT || (faulted && flen == 0) || fault_ip > p->ncode ||
        (!faulted && (flen != 0 || fault_ip != 0)) || (!active && ip != 0)) {
        gsvm_reader_fail(&r, "inconsistent VM header (state, phase, flags or memory limit)");
        goto bad;
    }
    n->active = active;
    n->faulted = faulted;
    n->cur_state = (int32_t)state;
    n->next_state = (int32_t)next_state;
    n->phase = phase;
    n->lib.rng[0] = clocks[0];
    n->lib.rng[1] = clocks[1];
    n->lib.key_seq = clocks[2];
    n->lib.key_seed = clocks[3];
    n->fault_ip = fault_ip;
    if (flen)
        memcpy(n->fault, ftext, flen);
    n->fault[flen] = 0;
    if (memchr(n->fault, 0, flen) != NULL) {
        gsvm_reader_fail(&r, "the fault text holds a NUL byte");
        goto bad;
    }
    lsl_value_decoder dec;
    lsl_value_decoder_init(&dec, &r, n->hp);
    uint32_t cnt;
    bool ok = gsvm_read_u32(&r, &cnt, "constant count");
    if (ok && cnt != p->nconst)
        ok = gsvm_reader_fail(&r, "%u constants, the program has %zu", cnt, p->nconst);
    for (uint32_t i = 0; ok && i < cnt; i++) {
        n->consts[i] = lsl_empty(p->consts[i].type);
        ok = value_of(&dec, &r, p->consts[i].type, &n->consts[i], "constant", err);
    }
    if (ok && (ok = gsvm_read_u32(&r, &cnt, "global count")) && cnt != p->nglobal)
        ok = gsvm_reader_fail(&r, "%u globals, the program has %zu", cnt, p->nglobal);
    for (uint32_t i = 0; ok && i < cnt; i++) {
        n->globals[i] = lsl_empty(p->globals[i].type);
        ok = value_of(&dec, &r, p->globals[i].type, &n->globals[i], "global", err);
    }
    /* frames */
    uint32_t nframes = 0;
    if (ok && (ok = gsvm_read_u32(&r, &nframes, "frame count")) &&
        (nframes > FAL3_MAX_DEPTH || (nframes > 0) != (active != 0)))
        ok = gsvm_reader_fail(&r, "frame count %u does not fit the VM state", nframes);
    if (ok && !fal3_grow_frames(n, nframes))
        ok = gsvm_reader_fail(&r, "out of memory");
    size_t frame_bytes = 0;
    for (uint32_t i = 0; ok && i < nframes; i++) {
        fal3_frame *f = &n->frames[i];
        ok = gsvm_read_u32(&r, &f->ret_ip, "return ip") && gsvm_read_u32(&r, &f->fp, "frame base") &&
             gsvm_read_u32(&r, &f->func, "frame function");
        if (!ok)
            break;
        if (f->func >= p->nfunc) {
            ok = gsvm_reader_fail(&r, "frame %u: function %u out of range", i, f->func);
            break;
        }
        const fal3_func *g = &p->funcs[f->func];
        if (i == 0) {
            if (f->ret_ip != UINT32_MAX || f->fp != 0 || g->event < 0)
                ok = gsvm_reader_fail(&r, "frame 0 is not an event handler's");
        } else {
            const fal3_frame *c = &n->frames[i - 1];
            const fal3_func *cf = &p->funcs[c->func];
            uint32_t call = f->ret_ip - 1;
            if (f->ret_ip == 0 || call >= p->ncode || p->code[call].op != F3_CALL ||
                p->code[call].a != (int32_t)f->func || p->shape_depth[call] < 0 ||
                p->shape_func[call] != c->func)
                ok = gsvm_reader_fail(&r, "frame %u: its return address is not a call of it", i);
            else if ((uint64_t)c->fp + cf->nslots + (uint64_t)p->shape_depth[call] - g->nparams != f->fp)
                ok = gsvm_reader_fail(&r, "frame %u: its base does not follow its caller's", i);
        }
        f->bytes = g->frame_bytes;
        frame_bytes += g->frame_bytes;
    }
    uint32_t sp = 0;
    if (ok)
        ok = gsvm_read_u32(&r, &sp, "stack depth");
    if (ok && nframes) {
        const fal3_frame *t = &n->frames[nframes - 1];
        const fal3_func *g = &p->funcs[t->func];
        if (ip >= p->ncode || p->shape_depth[ip] < 0 || p->shape_func[ip] != t->func)
            ok = gsvm_reader_fail(&r, "ip %u is not an instruction of %s", ip, g->name);
        else if ((uint64_t)t->fp + g->nslots + (uint64_t)p->shape_depth[ip] != sp)
            ok = gsvm_reader_fail(&r, "stack depth %u does not match ip %u", sp, ip);
    } else if (ok && sp != 0)
        ok = gsvm_reader_fail(&r, "stack depth %u with no handler running", sp);
    if (ok && sp > gsvm_reader_left(&r))
        ok = gsvm_reader_fail(&r, "stack depth %u is larger than the snapshot", sp);
    if (ok && nframes) {
        const fal3_func *g = &p->funcs[n->frames[nframes - 1].func];
        if (!fal3_grow_stack(n, (size_t)sp + g->max_stack + 4))
            ok = gsvm_reader_fail(&r, "out of memory");
    }
    /* values, frame by frame, each against its declared type */
    uint32_t at = 0;
    for (uint32_t i = 0; ok && i < nframes; i++) {
        const fal3_frame *f = &n->frames[i];
        const fal3_func *g = &p->funcs[f->func];
        uint32_t end = i + 1 < nframes ? n->frames[i + 1].fp : sp;
        uint32_t sip = i + 1 < nframes ? n->frames[i + 1].ret_ip - 1 : ip;
        const uint8_t *shape = p->shape_types + p->shape_off[sip];
        for (; ok && at < end; at++) {
            uint32_t k = at - f->fp;
            lsl_type want = k < g->nslots ? (lsl_type)g->slot_types[k] : (lsl_type)shape[k - g->nslots];
            n->stack[at] = lsl_empty(want);
            ok = value_of(&dec, &r, want, &n->stack[at], "stack value", err);
            if (ok && want == LSL_TYPE_FLOAT) {
                uint64_t bits = 0;
                double d;
                ok = gsvm_read_u64(&r, &bits, "a float's double");
                memcpy(&d, &bits, 8);
                /* a variable holds a float32; a temporary, a double that
                 * rounds to its float32 (a NaN is a NaN either way) */
                float f = n->stack[at].u.f;
                if (ok && !(isnan(d) && isnan(f)) && (k < g->nslots ? d != (double)f : (float)d != f))
                    ok = gsvm_reader_fail(&r, "stack value: a float whose double does not match it");
                n->stack[at].u.t.d = d;
            }
            if (ok)
                n->sp = at + 1;
        }
    }
    /* the scheduler: sched.c validates its own fields; here, that it fits
     * the state (only events the current state handles are ever queued) */
    if (ok) {
        size_t at = r.pos;
        ok = lsl_sched_decode(&n->sched, &dec, err) == GSVM_OK;
        uint64_t mask = fal3_handled_mask(p, (int32_t)state);
        if (ok && n->sched.handled != mask) {
            r.pos = at;
            ok = gsvm_reader_fail(&r, "the scheduler's handled events are not state %u's", state);
        }
        for (unsigned i = 0; ok && i < n->sched.count; i++)
            if (!(mask >> lsl_sched_peek(&n->sched, i)->event & 1)) {
                r.pos = at;
                ok = gsvm_reader_fail(&r, "queued event %d has no handler in state %u",
                                      lsl_sched_peek(&n->sched, i)->event, state);
            }
    }
    lsl_value_decoder_free(&dec);
    if (!ok)
        goto bad;
    if (gsvm_reader_left(&r)) {
        gsvm_reader_fail(&r, "%zu bytes of trailing garbage", gsvm_reader_left(&r));
        goto bad;
    }
    n->nframes = nframes;
    n->ip = nframes ? ip : 0;
    n->hp->extra = n->base_extra + frame_bytes;
    n->hp->limit = limit;
    if (n->hp->used + n->hp->extra > limit) {
        gsvm_error_set(err, GSVM_ERR_INPUT, file, "the snapshot's data exceeds its memory limit");
        goto bad;
    }
    if (peak < n->hp->used + n->hp->extra || peak > UINT32_MAX) {
        gsvm_error_set(err, GSVM_ERR_INPUT, file, "peak memory %llu is below the memory in use",
                       (unsigned long long)peak);
        goto bad;
    }
    n->hp->peak = (size_t)peak;
    /* swap the restored state in, keeping the host (both its callback and
     * its typed table) */
    n->host = vm->host;
    n->host_user = vm->host_user;
    n->hosts = vm->hosts;
    n->hosts_user = vm->hosts_user;
    gsvm_lsl3_vm tmp = *vm;
    *vm = *n;
    *n = tmp;
    gsvm_lsl3_vm_free(n);
    /* the event being handled: the handler of the bottom frame (the
     * snapshot does not name it; its tag is the host's, 0 here) */
    vm->cur_event = vm->active && vm->nframes ? vm->prog->funcs[vm->frames[0].func].event : -1;
    vm->cur_tag = 0;
    return GSVM_OK;
bad:
    /* everything decoded so far is owned by n */
    n->nframes = 0;
    if (err && !err->status)
        gsvm_error_set(err, GSVM_ERR_INPUT, file, "corrupt snapshot");
    gsvm_status rs = err ? err->status : GSVM_ERR_INPUT;
    gsvm_lsl3_vm_free(n);
    return rs;
}
