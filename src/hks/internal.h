/* Shared between the hks sources (not part of the public API). */
#ifndef GSVM_HKS_INTERNAL_H
#define GSVM_HKS_INTERNAL_H

#include "gsvm/hks.h"

void hks_proto_free(gsvm_hks_proto *f);

/* What a function's debug block holds, from the chunk format, the chunk's
 * hash form (format 14 as hksc's Black Ops 3 writes it: flag 1 is only a
 * hash, as in format 13) and the flag. */
typedef enum { HKS_DBG_NONE, HKS_DBG_FULL, HKS_DBG_HASH, HKS_DBG_PROFILE } hks_dbg_kind;
static inline hks_dbg_kind hks_debug_kind(unsigned format, bool hash14, uint32_t flag)
{
    if (flag == 0)
        return HKS_DBG_NONE;
    if ((format == 13 || hash14) && flag == 1)
        return HKS_DBG_HASH;
    if (format == 13 && flag == 40)
        return HKS_DBG_PROFILE;
    return HKS_DBG_FULL;
}
bool hks_types_standard(const gsvm_hks_chunk *c);
extern const char *const hks_std_types[13];

#endif
