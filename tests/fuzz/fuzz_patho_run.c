/* Fuzz target: running an untrusted .bin program in the Pathologic VM.
 *
 * Whatever the loader accepts is started and driven like `gsvm patho run`:
 * a first frame, every event the program handles (with default arguments
 * and a non-null object), StopGroup0-style wake-ups through the simulation
 * host, time advancing, and a snapshot/restore in the middle.  The VM must
 * end every run with a state and never crash; loops are bounded by a small
 * instruction cap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/patho.h"
#include "gsvm/patho_vm.h"
#include "patho/host.h"

static void discard(void *user, const char *line, size_t len)
{
    (void)user, (void)line, (void)len;
}

static void send_all(gsvm_patho_vm *vm, const gsvm_patho_event *evs, uint32_t n)
{
    gsvm_error err;
    for (uint32_t i = 0; i < n && i < 16; i++) {
        gsvm_patho_value args[8];
        uint32_t k = 0;
        for (; k < evs[i].nargs && k < 8; k++) {
            gsvm_patho_value_default(&args[k], evs[i].arg_types[k]);
            if (args[k].type == GSVM_PATHO_OBJECT)
                args[k].as.object = 1;
        }
        gsvm_patho_event_result res;
        gsvm_patho_vm_send_event(vm, evs[i].id, args, k, &res, &err);
        for (uint32_t j = 0; j < k; j++)
            gsvm_patho_value_free(&args[j]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_patho_program *prog;
    gsvm_error err;
    if (gsvm_patho_load(data, size, GSVM_PATHO_LAYOUT_AUTO, "fuzz", &prog, &err) != GSVM_OK)
        return 0;
    patho_sim_host host;
    patho_sim_host_init(&host, discard, NULL);
    gsvm_patho_host iface = patho_sim_host_iface(&host);
    gsvm_patho_vm *vm;
    if (gsvm_patho_vm_new(prog, &iface, &vm, &err) == GSVM_OK) {
        gsvm_patho_vm_set_max_instructions(vm, 5000);
        if (gsvm_patho_vm_start(vm, &err) == GSVM_OK) {
            gsvm_patho_vm_run_frame(vm, &err);
            for (uint32_t t = 0; t < prog->ntasks && t < 4; t++)
                send_all(vm, prog->tasks[t].events, prog->tasks[t].nevents);
            send_all(vm, prog->events, prog->nevents);
            host.stop_gen++; /* as if the script had called StopGroup0 */
            host.now_ms += 1000;
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
            host.now_ms += 1000;
            gsvm_patho_vm_run_frame(vm, &err);
            send_all(vm, prog->events, prog->nevents);
        }
        if (gsvm_patho_vm_state(vm) == GSVM_PATHO_FAULTED && !gsvm_patho_vm_fault(vm)[0])
            abort(); /* every fault has a message */
        gsvm_patho_vm_free(vm);
    }
    patho_sim_host_free(&host);
    gsvm_patho_free(prog);
    return 0;
}
