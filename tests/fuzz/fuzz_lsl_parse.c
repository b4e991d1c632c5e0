/* Fuzz target: LSL source through the lexer, parser and ABI-2 compiler;
 * whatever compiles is listed, saved, reloaded and run for a bounded number
 * of instructions (the compiler's output must never fault on types). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"
#include "lsl_quiet_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    if (gsvm_lsl_compile((const char *)data, size, "fuzz.lsl", &p, &err) != GSVM_OK) {
        if (err.line < 1 && err.status == GSVM_ERR_INPUT)
            abort(); /* every diagnostic names a line:col */
        return 0;
    }
    if (gsvm_lsl_program_verify(p, &err) != GSVM_OK)
        abort(); /* the compiler's output always verifies */
    char *text;
    if (gsvm_lsl_program_list(p, &text, &err) == GSVM_OK)
        free(text);
    uint8_t *bytes;
    size_t len;
    if (gsvm_lsl_program_save(p, &bytes, &len, &err) == GSVM_OK) {
        gsvm_lsl_program *q = NULL;
        if (gsvm_lsl_program_load(bytes, len, "fuzz.fpc", &q, &err) != GSVM_OK)
            abort(); /* what we save we must load */
        gsvm_lsl_program_free(q);
        free(bytes);
    }
    gsvm_lsl_vm *vm;
    if (gsvm_lsl_vm_new(p, &vm, &err) == GSVM_OK) {
        gsvm_lsl_vm_set_host(vm, quiet_host, NULL);
        gsvm_lsl_hostval one = {GSVM_LSL_INTEGER, 1, NULL, 0};
        if (gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err) == GSVM_OK &&
            gsvm_lsl_vm_run(vm, 20000) == GSVM_LSL_ERROR &&
            strncmp(gsvm_lsl_vm_fault(vm), "type mismatch", 13) == 0)
            abort();
        if (gsvm_lsl_vm_dispatch(vm, "touch_start", &one, 1, &err) == GSVM_OK &&
            gsvm_lsl_vm_run(vm, 20000) == GSVM_LSL_ERROR &&
            strncmp(gsvm_lsl_vm_fault(vm), "type mismatch", 13) == 0)
            abort();
        gsvm_lsl_vm_free(vm);
    }
    gsvm_lsl_program_free(p);
    return 0;
}
