/* Declarations shared by the engine's files but not part of the public API. */
#ifndef GSVM_PATHO_INTERNAL_H
#define GSVM_PATHO_INTERNAL_H

#include "gsvm/patho.h"

#endif
