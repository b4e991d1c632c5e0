/* Fuzz target: the ABI-3 compiler (the whole language) from source text,
 * then a bounded run of whatever compiles; every compiled program must
 * also survive a save/load round trip with the same hash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_lsl3_program *p = NULL;
    gsvm_error err;
    if (gsvm_lsl3_compile((const char *)data, size, "fuzz.lsl", &p, &err) != GSVM_OK)
        return 0;
    uint8_t *bytes;
    size_t len;
    if (gsvm_lsl3_program_save(p, &bytes, &len, &err) != GSVM_OK)
        abort();
    gsvm_lsl3_program *l;
    if (gsvm_lsl3_program_load(bytes, len, "fuzz.fpc", &l, &err) != GSVM_OK)
        abort(); /* the compiler's output always loads and verifies */
    if (memcmp(gsvm_lsl3_program_hash(l), gsvm_lsl3_program_hash(p), 32) != 0)
        abort();
    free(bytes);
    gsvm_lsl3_program_free(l);
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_vm_new(p, &vm, &err) == GSVM_OK) {
        gsvm_lsl3_vm_start(vm, &err);
        gsvm_lsl3_vm_run(vm, 20000);
        gsvm_lsl3_vm_free(vm);
    }
    gsvm_lsl3_program_free(p);
    return 0;
}
