/* What the Pathologic VM tests and fuzz targets (tests/fuzz/fuzz_patho_*.c)
 * share to drive a VM: the shipped native declarations, default event
 * arguments, an output collector, and the snapshot/restore of a running VM
 * that the step-by-step differential runs make before each instruction.
 * Header-only, library headers only, so the fuzz targets can include it. */
#ifndef GSVM_TEST_PATHO_DRIVE_H
#define GSVM_TEST_PATHO_DRIVE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "gsvm/patho.h"
#include "gsvm/patho_host.h"
#include "gsvm/patho_vm.h"

/* The shipped native declarations, parsed once for the whole process. */
static inline const gsvm_patho_natives *drive_natives(void)
{
    static gsvm_patho_natives *n;
    gsvm_error err;
    if (!n && gsvm_patho_natives_new(true, &n, &err) != GSVM_OK)
        abort();
    return n;
}

/* Default arguments for an event (at most 8): zero values, but a non-null
 * object so that handlers get further than their first method call.  The
 * caller frees them (gsvm_patho_value_free). */
static inline uint32_t drive_event_args(const gsvm_patho_event *ev, gsvm_patho_value *args)
{
    uint32_t n = ev->nargs < 8 ? ev->nargs : 8;
    for (uint32_t i = 0; i < n; i++) {
        gsvm_patho_value_default(&args[i], ev->arg_types[i]);
        if (args[i].type == GSVM_PATHO_OBJECT)
            args[i].as.object = 1;
    }
    return n;
}

/* A host's line callback that appends each line to the gsvm_buf `user`. */
static inline void drive_collect(void *user, const char *line, size_t len)
{
    gsvm_buf_append(user, line, len);
    gsvm_buf_putc(user, '\n');
}

/* A host's line callback that drops the line. */
static inline void drive_discard(void *user, const char *line, size_t len)
{
    (void)user, (void)line, (void)len;
}

/* Replaces *vm by the VM its own snapshot restores to (same program and
 * host).  On failure *vm is kept and the error is in `err`. */
static inline gsvm_status drive_replace(const gsvm_patho_program *prog, gsvm_patho_host *iface,
                                        gsvm_patho_vm **vm, gsvm_error *err)
{
    uint8_t *snap;
    size_t len;
    gsvm_patho_vm *nv;
    gsvm_status st = gsvm_patho_vm_snapshot(*vm, &snap, &len, err);
    if (st != GSVM_OK)
        return st;
    st = gsvm_patho_vm_restore(prog, iface, snap, len, &nv, err);
    free(snap);
    if (st != GSVM_OK)
        return st;
    gsvm_patho_vm_free(*vm);
    *vm = nv;
    return GSVM_OK;
}

#endif
