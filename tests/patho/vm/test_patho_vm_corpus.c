/* The VM over every corpus script: with an empty timeline and with a
 * timeline that sends every event the script handles and advances time,
 * each run must end sanely (finished, waiting, or a fault with a message;
 * never the instruction cap, never a crash), and a second VM that is
 * snapshotted and restored after EVERY instruction must print exactly the
 * same lines and end in the same state bytes. */
#include <dirent.h>
#include <stdio.h>

#include "base/buf.h"
#include "gsvm/patho.h"
#include "gsvm/patho_vm.h"
#include "patho/host.h"
#include "patho/vm.h"
#include "test.h"

/* Instructions per frame or event in these runs.  Lower than the VM's
 * default so that a script that loops without ever waiting (a loop over
 * natives this host returns from at once) stops quickly in both drivers. */
#define CAP 10000


/* The shipped native declarations, parsed once for the whole process. */
static const gsvm_patho_natives *builtin_natives(void)
{
    static gsvm_patho_natives *n;
    gsvm_error err;
    if (!n && gsvm_patho_natives_new(true, &n, &err) != GSVM_OK)
        abort();
    return n;
}

static void collect(void *user, const char *line, size_t len)
{
    gsvm_buf_append(user, line, len);
    gsvm_buf_putc(user, '\n');
}

/* Default arguments for an event: zero values, but a non-null object so
 * that handlers get further than their first method call. */
static uint32_t event_args(const gsvm_patho_event *ev, gsvm_patho_value *args)
{
    uint32_t n = ev->nargs < 8 ? ev->nargs : 8;
    for (uint32_t i = 0; i < n; i++) {
        gsvm_patho_value_default(&args[i], ev->arg_types[i]);
        if (args[i].type == GSVM_PATHO_OBJECT)
            args[i].as.object = 1;
    }
    return n;
}

/* Every event id the program handles, in table order (duplicates kept). */
static uint32_t event_ids(const gsvm_patho_program *p, const gsvm_patho_event **out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < p->ntasks; t++)
        for (uint32_t e = 0; e < p->tasks[t].nevents && n < max; e++)
            out[n++] = &p->tasks[t].events[e];
    for (uint32_t e = 0; e < p->nevents && n < max; e++)
        out[n++] = &p->events[e];
    return n;
}

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
    uint8_t *snap;
    size_t len;
    gsvm_error err;
    gsvm_patho_vm *nv;
    if (gsvm_patho_vm_snapshot(d->vm, &snap, &len, &err) != GSVM_OK ||
        gsvm_patho_vm_restore(d->prog, &d->iface, snap, len, &nv, &err) != GSVM_OK) {
        fprintf(stderr, "snapshot/restore failed: %s\n", err.message);
        d->broken = true;
        free(snap);
        return;
    }
    free(snap);
    gsvm_patho_vm_free(d->vm);
    d->vm = nv;
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
    patho_sim_host_init(&d->host, builtin_natives(), false, collect, out);
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
    uint32_t nev = events ? event_ids(d->prog, evs, 64) : 0;
    for (uint32_t i = 0; i < nev && (st == GSVM_OK) && !d->broken; i++) {
        gsvm_patho_value args[8];
        uint32_t n = event_args(evs[i], args);
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

static void check_file(const char *path)
{
    gsvm_patho_program *prog;
    gsvm_error err;
    if (gsvm_patho_load_file(path, GSVM_PATHO_LAYOUT_AUTO, &prog, &err) != GSVM_OK) {
        fprintf(stderr, "%s: does not load: %s\n", path, err.message);
        test_failed++;
        return;
    }
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
    gsvm_patho_free(prog);
}

int main(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        TEST_MAIN_END();
    const char *layouts[] = {"2005", "alpha", "hd"};
    for (int l = 0; l < 3; l++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/corpus/pathologic/bin/%s", shared, layouts[l]);
        struct dirent **names;
        int n = scandir(dir, &names, NULL, alphasort);
        if (n < 0) {
            fprintf(stderr, "cannot read %s\n", dir);
            test_failed++;
            continue;
        }
        for (int i = 0; i < n; i++) {
            size_t len = strlen(names[i]->d_name);
            if (len > 4 && strcmp(names[i]->d_name + len - 4, ".bin") == 0) {
                char path[4400];
                snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
                check_file(path);
            }
            free(names[i]);
        }
        free(names);
    }
    CHECK_INT(files, 43);
    printf("%d files: %d runs finished, %d waiting, %d faulted, %d at the cap; %ld "
           "snapshot/restores\n",
           files, finished, waiting, faulted, limited, total_restores);
    TEST_MAIN_END();
}
