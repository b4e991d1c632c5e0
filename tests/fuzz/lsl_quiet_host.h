/* The LSL fuzz targets' host: every host call answers nothing and succeeds
 * (a script's llSay and the like). */
#ifndef GSVM_FUZZ_LSL_QUIET_HOST_H
#define GSVM_FUZZ_LSL_QUIET_HOST_H

#include "gsvm/lsl.h"

static inline gsvm_status quiet_host(void *user, const char *name, const gsvm_lsl_hostval *args,
                              size_t argc, gsvm_lsl_hostval *result, bool *has_result,
                              gsvm_error *err)
{
    (void)user, (void)name, (void)args, (void)argc, (void)result, (void)err;
    *has_result = false;
    return GSVM_OK;
}

#endif
