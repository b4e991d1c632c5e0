/* Snapshot + restore after every instruction of a ~10,000-instruction
 * handler: each step runs one instruction, snapshots the VM, restores the
 * bytes into a fresh VM and continues there.  Checks that the host calls
 * equal those of an uninterrupted run, then prints the time.
 *
 * usage: lsl_bench_snapshot [ROUNDS]   (the loop count; 526 ~ 10,000 instructions) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "gsvm/lsl.h"

static gsvm_status host(void *user, const char *name, const gsvm_lsl_hostval *args, size_t argc,
                        gsvm_lsl_hostval *result, bool *has_result, gsvm_error *err)
{
    gsvm_buf *out = user;
    (void)result, (void)err;
    gsvm_buf_printf(out, "%s", name);
    for (size_t i = 0; i < argc; i++) {
        if (args[i].type == GSVM_LSL_INTEGER)
            gsvm_buf_printf(out, " %d", (int)args[i].integer);
        else
            gsvm_buf_printf(out, " %.*s", (int)args[i].len, args[i].str);
    }
    gsvm_buf_putc(out, '\n');
    *has_result = false;
    return GSVM_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 526;
    char src[1024];
    snprintf(src, sizeof src,
             "integer count;\nstring text = \"r\";\n"
             "default { state_entry() {\n"
             "  integer i = 0;\n"
             "  while (i < %d) {\n"
             "    count = count + i;\n"
             "    if (i * 7 == 700) llSay(1, text + (string)count);\n"
             "    i = i + 1;\n"
             "  }\n"
             "  llOwnerSay(\"done \" + (string)count);\n"
             "} }\n", rounds);
    gsvm_error err;
    gsvm_lsl_program *p;
    if (gsvm_lsl_compile(src, strlen(src), "bench.lsl", &p, &err) != GSVM_OK)
        return 1;
    gsvm_buf ref, got;
    gsvm_buf_init(&ref);
    gsvm_buf_init(&got);
    gsvm_lsl_vm *vm;
    gsvm_lsl_vm_new(p, &vm, &err);
    gsvm_lsl_vm_set_host(vm, host, &ref);
    gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err);
    while (gsvm_lsl_vm_run(vm, 1024) == GSVM_LSL_YIELDED)
        ;
    unsigned long long total = gsvm_lsl_vm_total(vm);
    gsvm_lsl_vm_free(vm);

    double t0 = now();
    gsvm_lsl_vm_new(p, &vm, &err);
    gsvm_lsl_vm_set_host(vm, host, &got);
    gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err);
    size_t bytes = 0, trips = 0;
    while (gsvm_lsl_vm_step(vm) == GSVM_LSL_YIELDED) {
        uint8_t *snap;
        size_t len;
        gsvm_lsl_vm *fresh;
        if (gsvm_lsl_vm_snapshot(vm, &snap, &len, &err) != GSVM_OK ||
            gsvm_lsl_vm_new(p, &fresh, &err) != GSVM_OK ||
            gsvm_lsl_vm_restore(fresh, snap, len, "snap", &err) != GSVM_OK) {
            fprintf(stderr, "snapshot/restore failed: %s\n", err.message);
            return 1;
        }
        free(snap);
        bytes += len;
        trips++;
        gsvm_lsl_vm_free(vm);
        gsvm_lsl_vm_set_host(fresh, host, &got);
        vm = fresh;
    }
    double t1 = now();
    bool same = ref.len == got.len && memcmp(ref.data, got.data, ref.len) == 0 &&
                gsvm_lsl_vm_total(vm) == total;
    printf("snapshot+restore after every instruction: %llu instructions, %zu round trips "
           "(%.0f bytes each), %.1f ms in all, %.2f us per round trip, output %s\n",
           total, trips, trips ? (double)bytes / (double)trips : 0.0, (t1 - t0) * 1e3,
           trips ? (t1 - t0) * 1e6 / (double)trips : 0.0, same ? "identical" : "DIFFERENT");
    gsvm_lsl_vm_free(vm);
    gsvm_lsl_program_free(p);

    /* Slicing in one process, free of process start-up and compile time:
     * a 3,000,000-round loop run unsliced and with run(1024) slices,
     * interleaved, best of 5 each. */
    if (argc > 2 || rounds >= 500) {
        const char *loop = "integer s;\ndefault { state_entry() { integer i = 0;\n"
                           "  while (i < 3000000) { s = s + i * 3 - 7; i = i + 1; } } }\n";
        if (gsvm_lsl_compile(loop, strlen(loop), "loop.lsl", &p, &err) != GSVM_OK)
            return 1;
        double best[2] = {1e9, 1e9};
        for (int rep = 0; rep < 5; rep++) {
            for (int sliced = 0; sliced < 2; sliced++) {
                gsvm_lsl_vm_new(p, &vm, &err);
                gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err);
                double a = now();
                while (gsvm_lsl_vm_run(vm, sliced ? 1024 : UINT64_MAX) == GSVM_LSL_YIELDED)
                    ;
                double b = now() - a;
                if (b < best[sliced])
                    best[sliced] = b;
                gsvm_lsl_vm_free(vm);
            }
        }
        printf("slicing in one process: %.1f ms unsliced, %.1f ms with budget 1024: ratio %.2f\n",
               best[0] * 1e3, best[1] * 1e3, best[1] / best[0]);
        gsvm_lsl_program_free(p);
    }
    gsvm_buf_free(&ref);
    gsvm_buf_free(&got);
    return same ? 0 : 1;
}
