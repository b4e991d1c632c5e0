/* The VM over every corpus script: with an empty timeline and with a
 * timeline that sends every event the script handles and advances time,
 * each run must end sanely (finished, waiting, or a fault with a message;
 * never the instruction cap, never a crash), and a second VM that is
 * snapshotted and restored after EVERY instruction must print exactly the
 * same lines and end in the same state bytes. */
#include <stdio.h>

#include "base/buf.h"
#include "gsvm/patho.h"
#include "gsvm/patho_vm.h"
#include "patho/host.h"
#include "patho/vm.h"
#include "corpus_files.h"
#include "test.h"

/* Instructions per frame or event in these runs.  Lower than the VM's
 * default so that a script that loops without ever waiting (a loop over
 * natives this host returns from at once) stops quickly in both drivers. */
#define CAP 10000


/* One VM driven through the standard timeline: frame 0, then for each
 * handled event: send it, advance 1 s and run a frame.  When `step` is set
 * the VM is snapshotted and replaced by its restored copy before every
 * instruction.  Returns the final state; output goes to `out`. */
typedef struct driver {
    const gsvm_patho_program *prog;
    patho_sim_host host;
    gsvm_patho_host iface;
    gsvm_patho_vm *vm;
    bool step;
    long restores;
    bool broken;
} driver;

static void replace(driver *d)
{
    gsvm_error err;
    if (drive_replace(d->prog, &d->iface, &d->vm, &err) != GSVM_OK) {
        fprintf(stderr, "snapshot/restore failed: %s\n", err.message);
        d->broken = true;
        return;
    }
    d->restores++;
}

/* Runs the VM on until it stops running (wait, finish, fault); in step
 * mode one instruction at a time. */
static gsvm_status settle(driver *d, gsvm_status st)
{
    gsvm_error err;
    if (!d->step || st != GSVM_ERR_LIMIT)
        return st;
    /* step mode: the VM ran one instruction (cap 1); go on one by one, up
     * to the same cap as the straight run */
    long steps = 1;
    while (gsvm_patho_vm_state(d->vm) == GSVM_PATHO_RUNNING && !d->broken) {
        if (steps++ >= CAP)
            return GSVM_ERR_LIMIT;
        replace(d);
        if (d->broken)
            break;
        st = gsvm_patho_vm_run(d->vm, 1, &err);
        if (st != GSVM_ERR_LIMIT && st != GSVM_OK)
            return st;
    }
    return GSVM_OK;
}

static gsvm_status frame(driver *d)
{
    gsvm_error err;
    if (!d->step)
        return gsvm_patho_vm_run_frame(d->vm, &err);
    gsvm_status st = gsvm_patho_vm_frame_begin(d->vm, &err);
    if (st != GSVM_OK || gsvm_patho_vm_state(d->vm) != GSVM_PATHO_RUNNING)
        return st;
    replace(d);
    return settle(d, gsvm_patho_vm_run(d->vm, 1, &err));
}

static gsvm_patho_state drive(driver *d, gsvm_buf *out, bool events)
{
    gsvm_error err;
    patho_sim_host_init(&d->host, drive_natives(), false, drive_collect, out);
    d->iface = patho_sim_host_iface(&d->host);
    d->restores = 0;
    d->broken = false;
    if (gsvm_patho_vm_new(d->prog, &d->iface, &d->vm, &err) != GSVM_OK ||
        gsvm_patho_vm_start(d->vm, &err) != GSVM_OK) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        d->broken = true;
        return GSVM_PATHO_FAULTED;
    }
    gsvm_patho_vm_set_max_instructions(d->vm, d->step ? 1 : CAP);
    d->host.clock.frame = 1;
    gsvm_status st = frame(d);
    const gsvm_patho_event *evs[64];
    uint32_t nev = events ? corpus_events(d->prog, evs, 64) : 0;
    for (uint32_t i = 0; i < nev && (st == GSVM_OK) && !d->broken; i++) {
        gsvm_patho_value args[8];
        uint32_t n = drive_event_args(evs[i], args);
        if (d->step) {
            replace(d);
            gsvm_patho_vm_set_max_instructions(d->vm, 1);
        }
        st = settle(d, gsvm_patho_vm_send_event(d->vm, evs[i]->id, args, n, NULL, &err));
        for (uint32_t k = 0; k < n; k++)
            gsvm_patho_value_free(&args[k]);
        if (st != GSVM_OK)
            break;
        d->host.clock.now_ms += 1000;
        d->host.clock.frame++;
        st = frame(d);
    }
    if (st == GSVM_ERR_LIMIT)
        gsvm_buf_puts(out, "LIMIT\n");
    gsvm_buf_printf(out, "state %s op %lld fault '%s'\n",
                    gsvm_patho_state_name(gsvm_patho_vm_state(d->vm)),
                    (long long)gsvm_patho_vm_op(d->vm), gsvm_patho_vm_fault(d->vm));
    return gsvm_patho_vm_state(d->vm);
}

static void finish(driver *d, uint8_t **snap, size_t *len)
{
    gsvm_error err;
    if (gsvm_patho_vm_snapshot(d->vm, snap, len, &err) != GSVM_OK) {
        *snap = NULL;
        *len = 0;
    }
    gsvm_patho_vm_free(d->vm);
    patho_sim_host_free(&d->host);
}

static int files, finished, waiting, faulted, limited;
static long total_restores;

static void check_file(const char *path, gsvm_patho_program *prog, void *user)
{
    (void)user;
    files++;
    for (int events = 0; events <= 1; events++) {
        gsvm_buf a, b;
        gsvm_buf_init(&a);
        gsvm_buf_init(&b);
        driver da = {prog, .step = false}, db = {prog, .step = true};
        gsvm_patho_state sa = drive(&da, &a, events);
        drive(&db, &b, events);
        uint8_t *snap_a, *snap_b;
        size_t la, lb;
        finish(&da, &snap_a, &la);
        finish(&db, &snap_b, &lb);
        const char *ta = gsvm_buf_cstr(&a), *tb = gsvm_buf_cstr(&b);
        /* A sane outcome. */
        CHECK(!da.broken && !db.broken);
        if (strstr(ta, "LIMIT")) {
            /* the script loops without waiting: reported, never a hang */
            limited++;
        } else if (sa == GSVM_PATHO_FAULTED) {
            CHECK(strstr(ta, "fault ''") == NULL);
            faulted++;
        } else if (sa == GSVM_PATHO_FINISHED) {
            finished++;
        } else {
            CHECK_INT(sa, GSVM_PATHO_WAITING);
            waiting++;
        }
        /* Snapshot at every instruction changes nothing. */
        if (strcmp(ta, tb) != 0) {
            fprintf(stderr, "%s (events %d): stepped run differs\n--- straight\n%s--- stepped\n%s",
                    path, events, ta, tb);
            test_failed++;
        } else {
            test_passed++;
        }
        CHECK(snap_a && snap_b && la == lb && memcmp(snap_a, snap_b, la) == 0);
        total_restores += db.restores;
        free(snap_a);
        free(snap_b);
        gsvm_buf_free(&a);
        gsvm_buf_free(&b);
    }
}

int main(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        TEST_MAIN_END();
    corpus_each_bin(shared, check_file, NULL);
    CHECK_INT(files, CORPUS_BIN_FILES);
    printf("%d files: %d runs finished, %d waiting, %d faulted, %d at the cap; %ld "
           "snapshot/restores\n",
           files, finished, waiting, faulted, limited, total_restores);
    TEST_MAIN_END();
}
