/* Fuzz target: the HavokScript VM fed whole chunks under tight limits.
 * Whatever loads runs; a run may finish, fault or reach a limit, but never
 * crash, hang or leak.  Chunks that start with "\x1bLua" run in checked
 * mode 2 (no verification needed); otherwise the first byte picks the mode
 * and a budget slice, and the rest is the chunk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"

static void quiet(void *ctx, const char *const *parts, const size_t *lens, int n)
{
    (void)ctx;
    (void)parts;
    (void)lens;
    (void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_hks_vm_options o;
    memset(&o, 0, sizeof o);
    o.mode = GSVM_HKS_MODE_2;
    uint64_t slice = 0;
    if (size > 0 && data[0] != 0x1b) {
        o.mode = (data[0] & 1) ? GSVM_HKS_MODE_0 : GSVM_HKS_MODE_2;
        slice = (data[0] >> 1) & 63;
        data++;
        size--;
    }
    o.limits.max_instructions = 200000;
    o.limits.max_memory = 4u << 20;
    o.limits.max_call_depth = 400;
    o.limits.max_string = 1u << 16;
    o.limits.max_table = 1u << 16;
    gsvm_error err;
    gsvm_hks_load_options lo;
    memset(&lo, 0, sizeof lo);
    gsvm_hks_chunk *c = NULL;
    if (gsvm_hks_chunk_load(data, size, &lo, "fuzz", &c, &err) != GSVM_OK)
        return 0;
    gsvm_hks_vm *vm;
    if (gsvm_hks_vm_new(&o, &vm, &err) != GSVM_OK) {
        gsvm_hks_chunk_free(c);
        return 0;
    }
    gsvm_hks_vm_set_print(vm, quiet, NULL);
    if (gsvm_hks_vm_load(vm, c, &err) == GSVM_OK) {
        bool done = false;
        int rounds = 0;
        while (!done && rounds++ < 100000 && gsvm_hks_vm_run(vm, slice, &done, &err) == GSVM_OK) {
        }
    }
    gsvm_hks_vm_free(vm);
    return 0;
}
