/* The code generator's internal view, shared by its two files:
 * compile_emit.c (instructions, registers, constants, jump lists, the R1
 * forms and the final encoding) and compile_operand.c (expression
 * descriptors to registers and constants: discharging, stores, conditions,
 * operators). */
#ifndef GSVM_HKS_COMPILE_EMIT_H
#define GSVM_HKS_COMPILE_EMIT_H

#include "hks/compile.h"

/* the fields of an instruction word (op: the internal opcode id until
 * hc_finish_code encodes it) */
#define OPF(i) ((unsigned)((i) >> 25))
#define AF(i) ((int)((i)&0xFFu))
#define CF(i) ((int)(((i) >> 8) & 0x1FFu))
#define BF(i) ((int)(((i) >> 17) & 0xFFu))
#define BXF(i) ((int)(((i) >> 8) & 0x1FFFFu))
#define SBXF(i) (BXF(i) - 0xFFFF)
#define MKABC(o, a, b, c) \
    ((uint32_t)(o) << 25 | (uint32_t)(b) << 17 | (uint32_t)(c) << 8 | (uint32_t)(a))
#define MKABX(o, a, bx) ((uint32_t)(o) << 25 | (uint32_t)(bx) << 8 | (uint32_t)(a))
#define SETA(i, v) ((i) = ((i) & ~0xFFu) | (uint32_t)(v))
#define SETB(i, v) ((i) = ((i) & ~(0xFFu << 17)) | (uint32_t)(v) << 17)
#define SETC(i, v) ((i) = ((i) & ~(0x1FFu << 8)) | (uint32_t)(v) << 8)
#define SETBX(i, v) ((i) = ((i) & ~(0x1FFFFu << 8)) | (uint32_t)(v) << 8)
#define ISK(x) ((x) >= 256)
#define MAXSBX 0xFFFF

enum { NO_REG = 0xFF };

static inline hc_compiler *CC(hc_func *fs) { return fs->C; }
static inline void hc_freereg(hc_func *fs, int reg)
{
    if (!ISK(reg) && reg >= fs->nactvar)
        fs->freereg--;
}

static inline bool hc_k_is_string(hc_func *fs, int rk)
{
    return ISK(rk) && fs->f->k[rk - 256].type == GSVM_HKS_K_STRING;
}

_Noreturn void hc_too_complex(hc_func *fs, const char *what);
int hc_memo_slot(hc_func *fs, const hc_str *name);
int hc_k_bool(hc_func *fs, bool b);
int hc_k_nil(hc_func *fs);
int hc_condjump(hc_func *fs, unsigned op, int a, int b, int c);
uint32_t *hc_jumpcontrol(hc_func *fs, int pc);
bool hc_need_value(hc_func *fs, int list);
void hc_removevalues(hc_func *fs, int list);
void hc_patchlistaux(hc_func *fs, int list, int vtarget, int reg, int dtarget);

#endif
