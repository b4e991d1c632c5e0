/* The ABI-2 engine's entry points behind the one API (api.c dispatches each
 * gsvm_lsl_* call of include/gsvm/lsl.h here or to the gsvm_lsl3_* engine,
 * by the `abi` byte that starts every program and VM).  Each does what the
 * public call of the same name documents, for an ABI-2 handle only. */
#ifndef GSVM_LSL_ABI2_H
#define GSVM_LSL_ABI2_H

#include "lsl/vm.h"

struct json_t;

void fal2_program_free(gsvm_lsl_program *p);
gsvm_status fal2_program_save(const gsvm_lsl_program *p, uint8_t **out, size_t *len, gsvm_error *err);
gsvm_status fal2_program_load(const uint8_t *data, size_t len, const char *file, gsvm_lsl_program **out,
                              gsvm_error *err);
gsvm_status fal2_program_verify(const gsvm_lsl_program *p, gsvm_error *err);
gsvm_status fal2_program_list(const gsvm_lsl_program *p, char **out, gsvm_error *err);
size_t fal2_program_code_size(const gsvm_lsl_program *p);
size_t fal2_program_global_count(const gsvm_lsl_program *p);
bool fal2_program_has_event(const gsvm_lsl_program *p, const char *event);
bool fal2_program_line(const gsvm_lsl_program *p, uint64_t ip, uint32_t *line, uint32_t *col);

gsvm_status fal2_vm_new_alloc(const gsvm_lsl_program *prog, gsvm_lsl_realloc_fn fn, void *user,
                              gsvm_lsl_vm **out, gsvm_error *err);
void fal2_vm_free(gsvm_lsl_vm *vm);
void fal2_vm_set_host(gsvm_lsl_vm *vm, gsvm_lsl_host_fn fn, void *user);
void fal2_vm_set_hosts(gsvm_lsl_vm *vm, const gsvm_lsl_hosts *h, void *vm_user);
gsvm_status fal2_vm_dispatch(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_hostval *args, size_t argc,
                             gsvm_error *err);
gsvm_lsl_run_status fal2_vm_run(gsvm_lsl_vm *vm, uint64_t budget);
bool fal2_vm_finished(const gsvm_lsl_vm *vm);
bool fal2_vm_in_host_call(const gsvm_lsl_vm *vm);
uint64_t fal2_vm_ip(const gsvm_lsl_vm *vm);
uint64_t fal2_vm_total(const gsvm_lsl_vm *vm);
const char *fal2_vm_fault(const gsvm_lsl_vm *vm);
uint64_t fal2_vm_fault_ip(const gsvm_lsl_vm *vm);
bool fal2_vm_fault_line(const gsvm_lsl_vm *vm, uint32_t *line, uint32_t *col);
bool fal2_vm_global(const gsvm_lsl_vm *vm, size_t slot, gsvm_lsl_hostval *out);
gsvm_status fal2_vm_snapshot(const gsvm_lsl_vm *vm, uint8_t **out, size_t *len, gsvm_error *err);
gsvm_status fal2_vm_restore(gsvm_lsl_vm *vm, const uint8_t *data, size_t len, const char *file,
                            gsvm_error *err);

/* The event queue the one API gives an ABI-2 VM (vm2_queue.c): the
 * document's VM has none (dispatch starts a handler at once), so start and
 * post queue here and run dispatches from here whenever no handler runs. */
gsvm_status fal2_vm_start(gsvm_lsl_vm *vm, gsvm_error *err);
/* The arguments are JSON (`args`, an array or NULL) or typed (`items`,
 * `nitems` of them, when `args` is NULL). */
gsvm_status fal2_vm_post(gsvm_lsl_vm *vm, const char *event, const struct json_t *args,
                         const gsvm_lsl_item *items, size_t nitems, uint32_t tag, bool *queued, gsvm_error *err);
gsvm_lsl_run_status fal2_vm_run_queued(gsvm_lsl_vm *vm, uint64_t budget);
struct json_t *fal2_vm_global_by_name(const gsvm_lsl_vm *vm, const char *name);
void fal2_queue_free(gsvm_lsl_vm *vm);

#endif
