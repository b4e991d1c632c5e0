/* The API object around an hv_vm (shared by vm_api.c and the world runtime). */
#ifndef GSVM_HKS_VM_HOST_H
#define GSVM_HKS_VM_HOST_H

#include "gsvm/hks.h"
#include "hks/vm.h"

enum { HVM_MAIN_NONE, HVM_MAIN_READY, HVM_MAIN_RUNNING, HVM_MAIN_DONE };

struct gsvm_hks_vm {
    hv_vm *vm;
    hv_thread *L;
    gsvm_hks_mode mode;
    int main_state;
    gsvm_hks_print_fn print;
    void *print_ctx;
    gsvm_hks_native *natives;
    size_t nnatives, natives_cap;
    gsvm_hks_fault fault;
    bool has_fault;
    struct gsvm_hks_world *world; /* the layer runtime using this VM, or NULL */
    char *scratch; /* strings of gsvm_hks_vm_call's results */
    size_t scratch_cap;
};

/* Records the fault of a failed protected call and resets the main thread. */
gsvm_status fault_from_public(gsvm_hks_vm *h, int status, gsvm_error *err);
int hv_protect(hv_thread *L, void (*fn)(hv_thread *L, void *ud), void *ud);
/* Stores v under a dotted global name ("NPC.SetAlignment"), making tables. */
void hv_set_path(hv_thread *L, const char *name, const hv_value *v);
/* Reads a dotted global name; nil when any part is missing. */
hv_value hv_get_path(hv_thread *L, const char *name);

#endif
