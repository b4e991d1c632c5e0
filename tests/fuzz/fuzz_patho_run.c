/* Fuzz target: running an untrusted .bin program in the Pathologic VM.
 *
 * Whatever the loader accepts is started and driven like `gsvm patho run`:
 * a first frame, every event the program handles (with default arguments
 * and a non-null object), StopGroup0-style wake-ups through the simulation
 * host, time advancing, and a snapshot/restore in the middle.  The VM must
 * end every run with a state and never crash; loops are bounded by a small
 * instruction cap.  Then a differential check: the same drive in a VM that
 * is snapshotted and restored before every instruction must print the same
 * lines and end in the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/patho.h"
#include "gsvm/patho_vm.h"
#include "base/buf.h"
#include "patho/host.h"
#include "../patho/vm/drive.h"


static void send_all(gsvm_patho_vm *vm, const gsvm_patho_event *evs, uint32_t n)
{
    gsvm_error err;
    for (uint32_t i = 0; i < n && i < 16; i++) {
        gsvm_patho_value args[8];
        uint32_t k = drive_event_args(&evs[i], args);
        gsvm_patho_event_result res;
        gsvm_patho_vm_send_event(vm, evs[i].id, args, k, &res, &err);
        for (uint32_t j = 0; j < k; j++)
            gsvm_patho_value_free(&args[j]);
    }
}

#define DIFF_CAP 300

typedef struct memo {
    const char *name;
    uint32_t argc;
    int32_t id;
} memo;

typedef struct drv {
    const gsvm_patho_program *prog;
    patho_sim_host host;
    gsvm_patho_host sim;   /* the simulation host */
    gsvm_patho_host iface; /* what the VM is given: sim, resolve memoized in step mode */
    gsvm_patho_vm *vm;
    bool step;
    /* Step mode restores the VM before every instruction, and each restore
     * resolves every import again: a name search of the natives stack per
     * import was most of an input's CPU.  The sim host gives the same id for
     * the same (name, argc), so the ids are kept in the order the VM asks. */
    memo *memo;
    uint32_t nmemo, next;
} drv;

static int32_t memo_resolve(void *user, const char *name, uint32_t argc)
{
    drv *d = user;
    if (d->next < d->nmemo && d->memo[d->next].name == name && d->memo[d->next].argc == argc)
        return d->memo[d->next++].id;
    int32_t id = d->sim.resolve(d->sim.user, name, argc);
    if (d->next == d->nmemo) { /* a new program's imports: keep them */
        memo *m = realloc(d->memo, (d->nmemo + 1) * sizeof *m);
        if (m) {
            d->memo = m;
            d->memo[d->nmemo++] = (memo){name, argc, id};
            d->next = d->nmemo;
        }
    }
    return id;
}

static gsvm_patho_call_result memo_call(void *user, gsvm_patho_vm *vm, gsvm_patho_call *call)
{
    drv *d = user;
    return d->sim.call(d->sim.user, vm, call);
}

static bool memo_method_exists(void *user, uint32_t object, const char *name, int32_t argc)
{
    drv *d = user;
    return d->sim.method_exists(d->sim.user, object, name, argc);
}

/* In step mode: replace the VM by its restored snapshot, then run one
 * instruction at a time up to DIFF_CAP, like one capped run. */
static void replace(drv *d)
{
    gsvm_error err;
    d->next = 0;
    if (drive_replace(d->prog, &d->iface, &d->vm, &err) != GSVM_OK) {
        fprintf(stderr, "own snapshot rejected: %s\n", err.message);
        abort();
    }
}

static void stepped(drv *d, gsvm_status st)
{
    gsvm_error err;
    for (int n = 1; st == GSVM_ERR_LIMIT && n < DIFF_CAP &&
                    gsvm_patho_vm_state(d->vm) == GSVM_PATHO_RUNNING;
         n++) {
        replace(d);
        st = gsvm_patho_vm_run(d->vm, 1, &err);
    }
}

static void drv_frame(drv *d)
{
    gsvm_error err;
    if (!d->step) {
        gsvm_patho_vm_run_frame(d->vm, &err);
        return;
    }
    if (gsvm_patho_vm_frame_begin(d->vm, &err) != GSVM_OK ||
        gsvm_patho_vm_state(d->vm) != GSVM_PATHO_RUNNING)
        return;
    replace(d);
    stepped(d, gsvm_patho_vm_run(d->vm, 1, &err));
}

static void drv_events(drv *d, const gsvm_patho_event *evs, uint32_t n)
{
    gsvm_error err;
    for (uint32_t i = 0; i < n && i < 8; i++) {
        gsvm_patho_value args[8];
        uint32_t k = drive_event_args(&evs[i], args);
        if (d->step) {
            replace(d);
            gsvm_patho_vm_set_max_instructions(d->vm, 1);
        }
        gsvm_status st = gsvm_patho_vm_send_event(d->vm, evs[i].id, args, k, NULL, &err);
        if (d->step)
            stepped(d, st);
        for (uint32_t j = 0; j < k; j++)
            gsvm_patho_value_free(&args[j]);
    }
}

static void drive(drv *d, gsvm_buf *out)
{
    gsvm_error err;
    patho_sim_host_init(&d->host, drive_natives(), true, drive_collect, out);
    d->sim = patho_sim_host_iface(&d->host);
    d->iface = d->sim;
    if (d->step)
        d->iface = (gsvm_patho_host){d, memo_resolve, memo_call, memo_method_exists};
    if (gsvm_patho_vm_new(d->prog, &d->iface, &d->vm, &err) != GSVM_OK) {
        d->vm = NULL; /* a program no VM takes (e.g. a global of no type) */
        return;
    }
    gsvm_patho_vm_set_max_instructions(d->vm, d->step ? 1 : DIFF_CAP);
    if (gsvm_patho_vm_start(d->vm, &err) != GSVM_OK)
        return;
    drv_frame(d);
    for (uint32_t t = 0; t < d->prog->ntasks && t < 2; t++)
        drv_events(d, d->prog->tasks[t].events, d->prog->tasks[t].nevents);
    drv_events(d, d->prog->events, d->prog->nevents);
    d->host.clock.stop_gen++;
    d->host.clock.now_ms += 1000;
    drv_frame(d);
}

static void differential(const gsvm_patho_program *prog)
{
    gsvm_buf a, b;
    gsvm_buf_init(&a);
    gsvm_buf_init(&b);
    drv da = {.prog = prog, .step = false}, db = {.prog = prog, .step = true};
    drive(&da, &a);
    drive(&db, &b);
    uint8_t *sa = NULL, *sb = NULL;
    size_t la = 0, lb = 0;
    gsvm_error err;
    if (da.vm)
        gsvm_patho_vm_snapshot(da.vm, &sa, &la, &err);
    if (db.vm)
        gsvm_patho_vm_snapshot(db.vm, &sb, &lb, &err);
    if (strcmp(gsvm_buf_cstr(&a), gsvm_buf_cstr(&b)) != 0 || la != lb ||
        (la && memcmp(sa, sb, la) != 0)) {
        fprintf(stderr, "stepped run differs\n--- straight\n%s--- stepped\n%s",
                gsvm_buf_cstr(&a), gsvm_buf_cstr(&b));
        abort();
    }
    free(sa);
    free(sb);
    gsvm_patho_vm_free(da.vm);
    gsvm_patho_vm_free(db.vm);
    patho_sim_host_free(&da.host);
    patho_sim_host_free(&db.host);
    free(db.memo);
    gsvm_buf_free(&a);
    gsvm_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_patho_program *prog;
    gsvm_error err;
    if (gsvm_patho_load(data, size, GSVM_PATHO_LAYOUT_AUTO, "fuzz", &prog, &err) != GSVM_OK)
        return 0;
    patho_sim_host host;
    patho_sim_host_init(&host, drive_natives(), true, drive_discard, NULL);
    gsvm_patho_host iface = patho_sim_host_iface(&host);
    gsvm_patho_vm *vm;
    if (gsvm_patho_vm_new(prog, &iface, &vm, &err) == GSVM_OK) {
        gsvm_patho_vm_set_max_instructions(vm, 5000);
        if (gsvm_patho_vm_start(vm, &err) == GSVM_OK) {
            gsvm_patho_vm_run_frame(vm, &err);
            for (uint32_t t = 0; t < prog->ntasks && t < 4; t++)
                send_all(vm, prog->tasks[t].events, prog->tasks[t].nevents);
            send_all(vm, prog->events, prog->nevents);
            host.clock.stop_gen++; /* as if the script had called StopGroup0 */
            host.clock.now_ms += 1000;
            gsvm_patho_vm_run_frame(vm, &err);
            uint8_t *snap;
            size_t len;
            if (gsvm_patho_vm_snapshot(vm, &snap, &len, &err) == GSVM_OK) {
                gsvm_patho_vm *back;
                if (gsvm_patho_vm_restore(prog, &iface, snap, len, &back, &err) != GSVM_OK) {
                    fprintf(stderr, "own snapshot rejected: %s (byte %lld)\n", err.message, err.offset);
                    abort(); /* a VM's own snapshot must restore */
                }
                gsvm_patho_vm_free(vm);
                vm = back;
                free(snap);
                gsvm_patho_vm_set_max_instructions(vm, 5000);
            }
            host.clock.now_ms += 1000;
            gsvm_patho_vm_run_frame(vm, &err);
            send_all(vm, prog->events, prog->nevents);
        }
        if (gsvm_patho_vm_state(vm) == GSVM_PATHO_FAULTED && !gsvm_patho_vm_fault(vm)[0])
            abort(); /* every fault has a message */
        gsvm_patho_vm_free(vm);
    }
    patho_sim_host_free(&host);
    differential(prog);
    gsvm_patho_free(prog);
    return 0;
}
