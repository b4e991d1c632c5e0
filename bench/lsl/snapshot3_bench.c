/* ABI-3 snapshot benchmark: a script holding ~64 KiB of live data (its
 * memory limit nearly full of strings and lists), snapshotted and restored
 * into a fresh VM N times; prints the median time of one snapshot+restore
 * and the snapshot's size against the live data (llGetUsedMemory).
 * Usage: lsl_bench_snapshot3 [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsvm/lsl.h"

static const char source[] =
    "list keep; list nums; string tail;\n"
    "default { state_entry() {\n"
    "  string s = \"0123456789\"; integer i; for (i = 0; i < 100; i++) s += \"abcdefghij\";\n"
    "  s = llGetSubString(s, 0, 999);\n"
    "  for (i = 0; i < 200; i++) nums += [i, i * 0.5];\n"
    "  while (llGetFreeMemory() > 2300) keep += [s + (string)llGetListLength(keep)];\n"
    "  tail = \"done\"; } }\n";

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    if (n < 1)
        n = 1;
    gsvm_error err;
    gsvm_lsl3_program *p;
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_compile(source, sizeof source - 1, "bench.lsl", &p, &err) != GSVM_OK ||
        gsvm_lsl3_vm_new(p, &vm, &err) != GSVM_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    gsvm_lsl3_vm_start(vm, &err);
    if (gsvm_lsl3_vm_run(vm, 100000000) != GSVM_LSL_FINISHED) {
        fprintf(stderr, "setup did not finish: %s\n", gsvm_lsl3_vm_fault(vm) ? gsvm_lsl3_vm_fault(vm) : "?");
        return 1;
    }
    size_t used = gsvm_lsl3_vm_used_memory(vm);
    double *t = malloc((size_t)n * sizeof *t);
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        uint8_t *blob;
        gsvm_lsl3_vm *fresh;
        if (gsvm_lsl3_vm_snapshot(vm, &blob, &len, &err) != GSVM_OK || gsvm_lsl3_vm_new(p, &fresh, &err) != GSVM_OK ||
            gsvm_lsl3_vm_restore(fresh, blob, len, "snap", &err) != GSVM_OK) {
            fprintf(stderr, "snapshot/restore failed: %s\n", err.message);
            return 1;
        }
        t[i] = now_us() - t0;
        free(blob);
        if (gsvm_lsl3_vm_used_memory(fresh) != used) {
            fprintf(stderr, "restored memory %zu != %zu\n", gsvm_lsl3_vm_used_memory(fresh), used);
            return 1;
        }
        gsvm_lsl3_vm_free(vm);
        vm = fresh; /* chain: the next snapshot is of the restored VM */
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("live data %zu bytes (llGetUsedMemory), snapshot %zu bytes (%.0f%% of it)\n", used, len,
           100.0 * (double)len / (double)used);
    printf("snapshot + restore into a fresh VM: median %.1f us over %d runs (target < 100 us)\n", t[n / 2], n);
    free(t);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
    return 0;
}
