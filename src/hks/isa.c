/* The opcode descriptor table and the game profiles, expanded from isa.def.
 * Profiles are deltas on the base table: BO3 inserts its eight shift/bitwise
 * opcodes at 60-67 (everything from CONCAT on moves up by 8), GHOSTS appends
 * DELETE / DELETE_BK after GETGLOBAL_MEM. */
#include <string.h>

#include "hks/isa.h"

const hks_opinfo hks_ops[HKS_I_COUNT] = {
#define OP(name, mode, a, b, c, data, checks, writes, meaning, family) \
    {#name, (uint8_t)(sizeof #name - 1), HKS_##mode, HKS_##a, HKS_##b, HKS_##c, (uint8_t)(data), (uint8_t)(checks), writes, meaning, HKS_FAM_##family},
#define EXT(profile, name, mode, a, b, c, data, checks, writes, meaning, family) \
    {#name, (uint8_t)(sizeof #name - 1), HKS_##mode, HKS_##a, HKS_##b, HKS_##c, (uint8_t)(data), (uint8_t)(checks), writes, meaning, HKS_FAM_##family},
#define D0 HKS_D0
#define D1 HKS_D1
#define D2 HKS_D2
#define DCL HKS_DCL
#define DSL HKS_DSL
#define DCH HKS_DCH
#define DSMT HKS_DSMT
#define XTEST HKS_XTEST
#define XSB HKS_XSB
#define XSC HKS_XSC
#define XSBX HKS_XSBX
#include "hks/isa.def"
#undef OP
#undef EXT
};

enum { BO3_AT = 60, BO3_N = 8 };
_Static_assert(HKS_BASE_COUNT == 92, "the base table has 92 opcodes");
_Static_assert(HKS_I_COUNT <= GSVM_HKS_OP_ROWS, "stats rows");

unsigned hks_profile_ops(gsvm_hks_profile p)
{
    switch (p) {
    case GSVM_HKS_PROFILE_BO3: return HKS_BASE_COUNT + BO3_N;
    case GSVM_HKS_PROFILE_GHOSTS: return HKS_BASE_COUNT + 2;
    default: return HKS_BASE_COUNT;
    }
}

unsigned hks_decode_op(gsvm_hks_profile p, unsigned op)
{
    if (op >= hks_profile_ops(p))
        return HKS_NO_OP;
    if (p == GSVM_HKS_PROFILE_BO3) {
        if (op < BO3_AT)
            return op;
        if (op < BO3_AT + BO3_N)
            return HKS_I_LEFT_SHIFT + (op - BO3_AT);
        return op - BO3_N;
    }
    if (p == GSVM_HKS_PROFILE_GHOSTS && op >= HKS_BASE_COUNT)
        return HKS_I_DELETE + (op - HKS_BASE_COUNT);
    return op;
}

unsigned hks_encode_op(gsvm_hks_profile p, unsigned iop)
{
    if (iop < HKS_BASE_COUNT) {
        if (p == GSVM_HKS_PROFILE_BO3 && iop >= BO3_AT)
            return iop + BO3_N;
        return iop;
    }
    if (p == GSVM_HKS_PROFILE_BO3 && iop >= HKS_I_LEFT_SHIFT && iop <= HKS_I_BIT_OR_BK)
        return BO3_AT + (iop - HKS_I_LEFT_SHIFT);
    if (p == GSVM_HKS_PROFILE_GHOSTS && (iop == HKS_I_DELETE || iop == HKS_I_DELETE_BK))
        return HKS_BASE_COUNT + (iop - HKS_I_DELETE);
    return HKS_NO_OP;
}

unsigned hks_op_lookup(const char *name, size_t len)
{
    for (unsigned i = 0; i < HKS_I_COUNT; i++)
        if (hks_ops[i].namelen == len && hks_ops[i].name[0] == name[0] &&
            memcmp(hks_ops[i].name, name, len) == 0)
            return i;
    return HKS_NO_OP;
}

const char *gsvm_hks_op_name(gsvm_hks_profile profile, unsigned op)
{
    unsigned i = hks_decode_op(profile, op);
    return i == HKS_NO_OP ? NULL : hks_ops[i].name;
}

const char *gsvm_hks_profile_name(gsvm_hks_profile p)
{
    switch (p) {
    case GSVM_HKS_PROFILE_BASE: return "base";
    case GSVM_HKS_PROFILE_BO3: return "bo3";
    case GSVM_HKS_PROFILE_GHOSTS: return "ghosts";
    default: return "auto";
    }
}

bool gsvm_hks_profile_parse(const char *name, gsvm_hks_profile *out)
{
    /* the names, then the games and engine code names people know them by */
    static const struct { const char *n; gsvm_hks_profile p; } names[] = {
        {"auto", GSVM_HKS_PROFILE_AUTO},   {"base", GSVM_HKS_PROFILE_BASE},
        {"bo3", GSVM_HKS_PROFILE_BO3},     {"ghosts", GSVM_HKS_PROFILE_GHOSTS},
        {"default", GSVM_HKS_PROFILE_BASE}, {"havok", GSVM_HKS_PROFILE_BASE},
        {"sow", GSVM_HKS_PROFILE_BASE},    {"sekiro", GSVM_HKS_PROFILE_BASE},
        {"halo", GSVM_HKS_PROFILE_BASE},   {"t7", GSVM_HKS_PROFILE_BO3},
        {"iw6", GSVM_HKS_PROFILE_GHOSTS},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].n) == 0) {
            *out = names[i].p;
            return true;
        }
    return false;
}
