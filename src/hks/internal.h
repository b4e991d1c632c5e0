/* Shared between the hks sources (not part of the public API). */
#ifndef GSVM_HKS_INTERNAL_H
#define GSVM_HKS_INTERNAL_H

#include "gsvm/hks.h"

void hks_proto_free(gsvm_hks_proto *f);
bool hks_types_standard(const gsvm_hks_chunk *c);
extern const char *const hks_std_types[13];

#endif
