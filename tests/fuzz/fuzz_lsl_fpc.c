/* Fuzz target: the .fpc program loader.  Whatever loads is listed and every
 * event is run for a bounded number of instructions: a crafted program may
 * fault, but never crash the VM. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/lsl.h"
#include "lsl/program.h"

static gsvm_status echo_host(void *user, const char *name, const gsvm_lsl_hostval *args,
                             size_t argc, gsvm_lsl_hostval *result, bool *has_result,
                             gsvm_error *err)
{
    (void)user, (void)err;
    /* the ABI-2 functions are void; any other name returns its first
     * argument, to exercise pushes of host results */
    if (argc && strcmp(name, "llSay") != 0 && strcmp(name, "llOwnerSay") != 0) {
        *result = args[0];
        *has_result = true;
    }
    return GSVM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    if (gsvm_lsl_program_load(data, size, "fuzz.fpc", &p, &err) != GSVM_OK) {
        if (err.offset < 0 || (size_t)err.offset > size)
            abort(); /* rejections name a byte offset inside the input */
        return 0;
    }
    char *text;
    if (gsvm_lsl_program_list(p, &text, &err) == GSVM_OK)
        free(text);
    /* a verified program must not fault (its host here never fails) */
    bool verified = gsvm_lsl_program_verify(p, &err) == GSVM_OK;
    gsvm_lsl_vm *vm;
    if (gsvm_lsl_vm_new(p, &vm, &err) == GSVM_OK) {
        gsvm_lsl_vm_set_host(vm, echo_host, NULL);
        for (size_t i = 0; i < p->nevent; i++) {
            const fal_event *e = &p->events[i];
            gsvm_lsl_hostval args[FAL_MAX_PARAMS];
            for (uint32_t k = 0; k < e->nparams; k++)
                args[k] = (gsvm_lsl_hostval){(gsvm_lsl_type)e->param_types[k], 7, "s", 1};
            if (gsvm_lsl_vm_dispatch(vm, e->name, args, e->nparams, &err) == GSVM_OK &&
                gsvm_lsl_vm_run(vm, 5000) == GSVM_LSL_ERROR && verified &&
                strncmp(gsvm_lsl_vm_fault(vm), "string too long", 15) != 0)
                abort();
            uint8_t *snap;
            size_t len;
            if (gsvm_lsl_vm_snapshot(vm, &snap, &len, &err) == GSVM_OK) {
                gsvm_lsl_vm_restore(vm, snap, len, "fuzz.snap", &err);
                free(snap);
            }
        }
        gsvm_lsl_vm_free(vm);
    }
    gsvm_lsl_program_free(p);
    return 0;
}
