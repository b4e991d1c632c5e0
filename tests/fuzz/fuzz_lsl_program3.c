/* Fuzz target: the ABI-3 program loader (magic HWZ3) and its verifier.  A
 * program that loads must run (bounded) without crashing. */
#include <stdint.h>
#include <stdlib.h>

#include "gsvm/lsl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_lsl3_program *p = NULL;
    gsvm_error err;
    if (gsvm_lsl3_program_load(data, size, "fuzz.fpc", &p, &err) != GSVM_OK)
        return 0;
    char *text;
    if (gsvm_lsl3_program_list(p, &text, &err) == GSVM_OK)
        free(text);
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_vm_new(p, &vm, &err) == GSVM_OK) {
        gsvm_lsl3_vm_start(vm, &err);
        for (int i = 0; i < 3; i++) {
            gsvm_lsl3_vm_run(vm, 20000);
            gsvm_lsl3_vm_advance(vm, 1000);
        }
        gsvm_lsl3_vm_free(vm);
    }
    gsvm_lsl3_program_free(p);
    return 0;
}
