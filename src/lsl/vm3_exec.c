/* The ABI-3 instruction loop: threaded dispatch built from isa3.def, the
 * base instruction set's handlers; the fused forms are in vm3_exec_fused.inc. */
#include "lsl/lib_math.h"
#include "lsl/vm3.h"
#include "lsl/vm3_int.h"

/* The float operators FOpLK / FOpLKS carry in an operand (DivF, which can
 * fault, is apart). */
#define F3_FLOAT_OPS(X) X(ADD_F, +) X(SUB_F, -) X(MUL_F, *)

/* The float operations paired with a store of their result that follows
 * (threaded code only): X(name, kind, the double result) for the first
 * instruction of a pair, by its handler; kind PUSH: it pushes the result,
 * TOP: it replaces the top with it. */
#define F3_FPAIR_FIRSTS(X)                                                                     \
    X(ADDF_LL, PUSH, (double)LOC(pc->a).u.f + LOC(pc->b).u.f)                                 \
    X(SUBF_LL, PUSH, (double)LOC(pc->a).u.f - LOC(pc->b).u.f)                                 \
    X(MULF_LL, PUSH, (double)LOC(pc->a).u.f * LOC(pc->b).u.f)                                 \
    X(FOP_LK_ADD_F, PUSH, (double)LOC(pc->a).u.f + (double)k_float(pc->b))                    \
    X(FOP_LK_SUB_F, PUSH, (double)LOC(pc->a).u.f - (double)k_float(pc->b))                    \
    X(FOP_LK_MUL_F, PUSH, (double)LOC(pc->a).u.f * (double)k_float(pc->b))                    \
    X(ADDF_L, TOP, LOC(pc->a).u.f + FD(&sp[-1]))                                               \
    X(SUBF_L, TOP, LOC(pc->a).u.f - FD(&sp[-1]))                                               \
    X(MULF_L, TOP, LOC(pc->a).u.f * FD(&sp[-1]))                                               \
    X(FMA_LK_ADD_F, TOP, (double)LOC(pc->a).u.f * k_float(pc->b) + FD(&sp[-1]))               \
    X(FMA_LK_SUB_F, TOP, (double)LOC(pc->a).u.f * k_float(pc->b) - FD(&sp[-1]))

/* The second instruction of such a pair, by its handler: Y(first, kind,
 * expr, name, its store of t_, the first's result). */
#define F3_FPAIR_SECONDS(Y, first, kind, expr)                                                 \
    Y(first, kind, expr, FOP_L_S_ADD_F, LOC(pc->c).u.f = (float)(LOC(pc->a).u.f + t_))        \
    Y(first, kind, expr, FOP_L_S_SUB_F, LOC(pc->c).u.f = (float)(LOC(pc->a).u.f - t_))        \
    Y(first, kind, expr, FOP_L_S_MUL_F, LOC(pc->c).u.f = (float)(LOC(pc->a).u.f * t_))        \
    Y(first, kind, expr, STORE_LOCAL_F, LOC(pc->a).u.f = (float)t_)                             \
    Y(first, kind, expr, ADD_TO_F, LOC(pc->a).u.f = (float)(LOC(pc->a).u.f + t_))

/* A jump's test as written (F3_YES) or negated (F3_NOT): the false-jump
 * and true-jump forms of one comparison share their handler's text. */
#define F3_NOT(c) (!(c))
#define F3_YES(c) (c)

/* The float jumps that pop the two values a LoadLL of float locals pushed:
 * X(name, NEG, OPR): jump when NEG(r OPR l), l the first local, r the
 * second. */
#define F3_LL_JUMPS(X)                                                                         \
    X(JNLT_F, F3_NOT, <) X(JNLE_F, F3_NOT, <=) X(JNGT_F, F3_NOT, >)                           \
    X(JNGE_F, F3_NOT, >=) X(JLT_F, F3_YES, <) X(JLE_F, F3_YES, <=)                             \
    X(JGT_F, F3_YES, >) X(JGE_F, F3_YES, >=)

/* The integer comparisons JcmpIL carries in an operand. */
#define F3_INT_CMPS(X) X(EQ_I, ==) X(NE_I, !=) X(LT_I, <) X(LE_I, <=) X(GT_I, >) X(GE_I, >=)

/* The float comparisons CmpFK carries in an operand, listed once:
 * F3_FLOAT_CMPS_OF(Y, op, OPR) gives Y(op, OPR, name, CMPR) for each (the
 * handlers of an operation paired with a comparison), F3_FLOAT_CMPS(X)
 * X(name, CMPR). */
#define F3_FLOAT_CMPS_OF(Y, op, OPR)                                                           \
    Y(op, OPR, EQ_F, ==) Y(op, OPR, NE_F, !=) Y(op, OPR, LT_F, <) Y(op, OPR, LE_F, <=)          \
    Y(op, OPR, GT_F, >) Y(op, OPR, GE_F, >=)
#define F3_LAST_TWO(X, unused, name, CMPR) X(name, CMPR)
#define F3_FLOAT_CMPS(X) F3_FLOAT_CMPS_OF(F3_LAST_TWO, X, -)

/* CmpfK and JcmpfK/JcmpfKT where the operator is not threaded in: a double
 * temporary against the float32 constant a, by the comparison b. */
static inline float k_float(int32_t a)
{
    float k;
    memcpy(&k, &a, 4);
    return k;
}

static inline int32_t float_cmp_k(double l, int32_t a, int32_t b)
{
    float k = k_float(a);
    switch (b) {
#define X(name, OPR) case F3_##name: return l OPR k;
        F3_FLOAT_CMPS(X)
#undef X
    default: return 0; /* the verifier admits no other comparison */
    }
}

/* l OP k for the float operator op (AddF...DivF): false on DivF's Math
 * Error (a zero divisor or a NaN quotient). */
static inline bool float_op_k(int32_t op, double l, int32_t a, double *v)
{
    double k = k_float(a);
    switch (op) {
    case F3_ADD_F: *v = l + k; return true;
    case F3_SUB_F: *v = l - k; return true;
    case F3_MUL_F: *v = l * k; return true;
    default: /* DivF: the verifier admits no other operator */
        if (k == 0.0)
            return false;
        *v = l / k;
        return !isnan(*v);
    }
}

/* llList2Integer / llList2Float (`id`) of a list that stays where it is:
 * an element already of the wanted type directly, any other through the
 * library.  False (err filled) on a fault. */
static inline bool list_get(gsvm_lsl3_vm *vm, const lsl_value *lst, int32_t idx, int32_t id, lsl_value *out,
                            gsvm_error *err)
{
    int64_t len = (int64_t)lsl_list_len(lst), i = idx;
    if (i < 0)
        i += len;
    lsl_type want = id == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
    if (i >= 0 && i < len && lsl_list_items(lst)[i].type == want) {
        *out = lsl_list_items(lst)[i];
        fnorm(out);
        return true;
    }
    lsl_value args[2] = {*lst, lsl_int(idx)};
    out->type = LSL_TYPE_VOID;
    err->message[0] = 0;
    lsl_call_ctx ctx = {vm->hp, &vm->lib, err};
    bool ok = vm->prog->native_by_id[id](&ctx, args, out) == GSVM_OK;
    fnorm(out);
    return ok;
}

/* `l += n` for a number n (a float: its double temporary, rounded here)
 * and an unshared list with room for it: the item goes in place, charged
 * as the library charges it (16 bytes an integer or float element).  False
 * when the library must do it. */
static inline bool list_push_number(lsl_heap *hp, lsl_value *dst, const lsl_value *item)
{
    lsl_list *l = dst->u.l;
    if (dst->type != LSL_TYPE_LIST || !l || l->refs != 1 || l->heap != hp || !IS_NUMBER(item->type) ||
        l->len >= l->cap || !lsl_heap_fits(hp, 16))
        return false;
    /* rounded here, field by field: a float rounded in its stack slot and
     * then copied whole would read the slot before the narrow write lands */
    lsl_value *it = &l->items[l->len++];
    it->type = item->type;
    if (item->type == LSL_TYPE_FLOAT) {
        float f = (float)item->u.t.d;
        it->u.t.f = f;
        it->u.t.d = f;
    } else {
        it->u.i = item->u.i;
    }
    l->charge += 16;
    hp->used += 16;
    if (hp->used + hp->extra > hp->peak)
        hp->peak = hp->used + hp->extra;
    return true;
}

/* ---- the interpreter ----------------------------------------------------- */

/* The handler table[op] for an operator operand op, or `generic` when the
 * operator has none of its own (division and modulo: they can fault). */
static inline const void *by_operator(const void *const *table, int32_t op, const void *generic)
{
    return op >= 0 && op < F3_COUNT && table[op] ? table[op] : generic;
}

/* Whether code[i] and code[i + 1] are one function's (the pair handlers
 * read the second instruction's operands in place). */
static inline bool in_loop_pair(const gsvm_lsl3_program *prog, size_t i)
{
    return prog->shape_depth && prog->shape_depth[i] >= 0 && prog->shape_depth[i + 1] >= 0 &&
           prog->shape_func[i] == prog->shape_func[i + 1];
}

/* Slot k of f (f may be NULL) holds an integer or a float. */
static inline bool numeric_slot(const fal3_func *f, int32_t k)
{
    return f && k >= 0 && (uint32_t)k < f->nslots &&
           (f->slot_types[k] == LSL_TYPE_INTEGER || f->slot_types[k] == LSL_TYPE_FLOAT);
}

#define IS_VECROT(t) ((t) == LSL_TYPE_VECTOR || (t) == LSL_TYPE_ROTATION)

/* The handler of an instruction on a typed slot: `hi` for an integer,
 * `hf` for a float, else the generic one. */
static inline const void *typed_handler(lsl_type t, const void *hi, const void *hf, const void *generic)
{
    return t == LSL_TYPE_INTEGER ? hi : t == LSL_TYPE_FLOAT ? hf : generic;
}

#if F3_THREADED
/* No slot of f holds a string, key or list (nothing to release on return). */
static bool numbers_only(const fal3_func *f)
{
    for (uint32_t k = 0; k < f->nslots; k++)
        if (f->slot_types[k] != LSL_TYPE_INTEGER && f->slot_types[k] != LSL_TYPE_FLOAT)
            return false;
    return true;
}

/* A parameter of f is a float (its argument is rounded to float32). */
static bool float_params(const fal3_func *f)
{
    for (uint32_t k = 0; k < f->nparams; k++)
        if (f->slot_types[k] == LSL_TYPE_FLOAT)
            return true;
    return false;
}
#endif

/* Runs instructions of the active handler; `*left` is the remaining
 * budget.  Returns false on a fault.  Stops when the handler ends, the
 * budget is spent, the script sleeps or changes state. */
bool fal3_exec(gsvm_lsl3_vm *vm, uint64_t *left)
{
    const gsvm_lsl3_program *prog = vm->prog;
#if F3_THREADED
    static const void *const labels[F3_COUNT] = {
#define FALCON3_OP(name, mnem, operands, pops, pushes, meaning) &&L_##name,
#include "lsl/isa3.def"
#undef FALCON3_OP
    };
    static const char *const operand_kinds[F3_COUNT] = {
#define FALCON3_OP(name, mnem, operands, pops, pushes, meaning) operands,
#include "lsl/isa3.def"
#undef FALCON3_OP
    };
#define X(name, expr) [F3_##name] = &&L_IOP_LK_##name,
    static const void *const iop_lk[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LL_##name,
    static const void *const iop_ll[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LG_##name,
    static const void *const iop_lg[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_KR_##name,
    static const void *const iop_kr[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_K_##name,
    static const void *const iop_k[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LK_S_##name,
    static const void *const iop_lk_s[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_K_S_##name,
    static const void *const iop_k_s[F3_COUNT] = {F3_INT_OPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_CMPF_K_##name,
    static const void *const cmpf_k[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_K_##name,
    static const void *const jcmpf_k[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_KT_##name,
    static const void *const jcmpf_kt[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMP_IL_##name,
    static const void *const jcmp_il[F3_COUNT] = {F3_INT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMP_ILT_##name,
    static const void *const jcmp_ilt[F3_COUNT] = {F3_INT_CMPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LL_S_##name,
    static const void *const iop_ll_s[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_IOP_LL_DM_##name,
    static const void *const iop_ll_dm[F3_COUNT] = {X(DIV_I, 0) X(MOD_I, 0)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_FOP_LK_##name,
    static const void *const fop_lk[F3_COUNT] = {F3_FLOAT_OPS(X) [F3_DIV_F] = &&L_FOP_LK_DIV_F};
#undef X
#define X(name, OPR) [F3_##name] = &&L_FOP_LK_S_##name,
    static const void *const fop_lk_s[F3_COUNT] = {F3_FLOAT_OPS(X) [F3_DIV_F] = &&L_FOP_LK_S_DIV_F};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_LK_##name,
    static const void *const jcmpf_lk[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_JCMPF_LKT_##name,
    static const void *const jcmpf_lkt[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_JZ_IOP_LL_##name,
    static const void *const jz_iop_ll[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_JNZ_IOP_LL_##name,
    static const void *const jnz_iop_ll[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
    static const void *const fma_lk[F3_COUNT] = {[F3_ADD_F] = &&L_FMA_LK_ADD_F, [F3_SUB_F] = &&L_FMA_LK_SUB_F};
#define X(name, OPR) [F3_##name] = &&L_FOP_L_S_##name,
    static const void *const fop_l_s[F3_COUNT] = {F3_FLOAT_OPS(X)};
#undef X
    static const void *const vop_ll_s[F3_COUNT] = {[F3_ADD_V] = &&L_VOP_LL_S_ADD_V, [F3_SUB_V] = &&L_VOP_LL_S_SUB_V,
                                                   [F3_DOT_V] = &&L_VOP_LL_S_DOT_V};
    static const void *const vop_to_l[F3_COUNT] = {[F3_ADD_V] = &&L_VOP_TO_L_ADD_V, [F3_SUB_V] = &&L_VOP_TO_L_SUB_V};
#define X(name, expr) [F3_##name] = &&L_JZ_IOP_LK_##name,
    static const void *const jz_iop_lk[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(name, expr) [F3_##name] = &&L_JNZ_IOP_LK_##name,
    static const void *const jnz_iop_lk[F3_COUNT] = {F3_INT_OPS_ALL(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_MJCMPF_K_##name,
    static const void *const member_jcmpf_k[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(name, OPR) [F3_##name] = &&L_MJCMPF_KT_##name,
    static const void *const member_jcmpf_kt[F3_COUNT] = {F3_FLOAT_CMPS(X)};
#undef X
#define X(N, OPR) [F3_##N##_LI] = &&L_INC_##N##_LI, [F3_##N##_LL] = &&L_INC_##N##_LL, [F3_##N##_LG] = &&L_INC_##N##_LG,
    static const void *const inc_jcmp[F3_COUNT] = {X(JGE, >=) X(JGT, >) X(JLT, <) X(JLE, <=)};
#undef X
    /* Direct threading: the VM's copy of the code holds each instruction's
     * handler address in place of its opcode, which saves a table load on
     * every dispatch, and its local and global slot operands as byte
     * offsets, which saves scaling them on every access.  Built on the
     * first run; indices (ip) are the same. */
    if (!vm->threaded)
        vm->threaded = atomic_load(&((gsvm_lsl3_program *)prog)->threaded);
    if (!vm->threaded) {
        fal3_threaded_insn *tc = malloc((prog->ncode ? prog->ncode : 1) * sizeof *tc);
        if (!tc) {
            fal3_set_fault(vm, vm->ip, "out of memory");
            return false;
        }
        for (size_t i = 0; i < prog->ncode; i++) {
            const fal3_insn *in = &prog->code[i];
            const void *h = labels[in->op];
            /* an operator carried in an operand: that operator's own handler */
            switch (in->op) {
            case F3_IOP_LK: h = by_operator(iop_lk, in->c, h); break;
            case F3_IOP_LG: h = by_operator(iop_lg, in->c, h); break;
            case F3_IOP_LL: h = by_operator(iop_ll, in->c, by_operator(iop_ll_dm, in->c, h)); break;
            case F3_IOP_LL_S: h = by_operator(iop_ll_s, in->c & 255, h); break;
            case F3_FOP_LK: h = by_operator(fop_lk, in->c, h); break;
            case F3_FOP_LK_S: h = by_operator(fop_lk_s, in->c & 255, h); break;
            case F3_JCMPF_LK: h = by_operator(jcmpf_lk, in->c & 255, h); break;
            case F3_JCMPF_LKT: h = by_operator(jcmpf_lkt, in->c & 255, h); break;
            case F3_IOP_KR: h = by_operator(iop_kr, in->b, h); break;
            case F3_IOP_K: h = by_operator(iop_k, in->b, h); break;
            case F3_IOP_LK_S: h = by_operator(iop_lk_s, in->c & 255, h); break;
            case F3_IOP_K_S: h = by_operator(iop_k_s, in->b & 255, h); break;
            case F3_CMPF_K: h = by_operator(cmpf_k, in->b, h); break;
            case F3_JCMPF_K: h = by_operator(jcmpf_k, in->b, h); break;
            case F3_JCMPF_KT: h = by_operator(jcmpf_kt, in->b, h); break;
            case F3_JCMP_IL: h = by_operator(jcmp_il, in->b, h); break;
            case F3_JCMP_ILT: h = by_operator(jcmp_ilt, in->b, h); break;
            case F3_JZ_IOP_LL: h = by_operator(jz_iop_ll, in->c & 255, h); break;
            case F3_JNZ_IOP_LL: h = by_operator(jnz_iop_ll, in->c & 255, h); break;
            case F3_FMA_LK: h = by_operator(fma_lk, in->c, h); break;
            case F3_FOP_L_S: h = by_operator(fop_l_s, in->b, h); break;
            case F3_VOP_LL_S: h = by_operator(vop_ll_s, in->c & 255, h); break;
            case F3_VOP_TO_L: h = by_operator(vop_to_l, in->b, h); break;
            case F3_JZ_IOP_LK: h = by_operator(jz_iop_lk, in->c & 255, h); break;
            case F3_JNZ_IOP_LK: h = by_operator(jnz_iop_lk, in->c & 255, h); break;
            default: break;
            }
            /* a typed slot's own handler: the verifier fixed each slot's
             * type for the whole function (a reachable ip's function is
             * known), so loads and stores of numbers move 4 bytes with no
             * type test and no reference count */
            const fal3_func *fn = prog->shape_depth && prog->shape_depth[i] >= 0 ? &prog->funcs[prog->shape_func[i]] : NULL;
            if (fn) {
                lsl_type ta = in->a >= 0 && (uint32_t)in->a < fn->nslots ? (lsl_type)fn->slot_types[in->a] : LSL_TYPE_VOID;
                lsl_type tb = in->b >= 0 && (uint32_t)in->b < fn->nslots ? (lsl_type)fn->slot_types[in->b] : LSL_TYPE_VOID;
                lsl_type ga = in->a >= 0 && (size_t)in->a < prog->nglobal ? prog->globals[in->a].type : LSL_TYPE_VOID;
                switch (in->op) {
                case F3_LOAD_LOCAL:
                    h = IS_VECROT(ta) ? &&L_LOAD_LOCAL_V : typed_handler(ta, &&L_LOAD_LOCAL_I, &&L_LOAD_LOCAL_F, h);
                    break;
                case F3_STORE_LOCAL:
                    h = IS_VECROT(ta) ? &&L_STORE_LOCAL_V : typed_handler(ta, &&L_STORE_LOCAL_I, &&L_STORE_LOCAL_F, h);
                    break;
                case F3_PUT_LOCAL: h = typed_handler(ta, &&L_PUT_LOCAL_I, &&L_PUT_LOCAL_F, h); break;
                case F3_LOAD_GLOBAL: h = typed_handler(ga, &&L_LOAD_GLOBAL_I, &&L_LOAD_GLOBAL_F, h); break;
                case F3_STORE_GLOBAL: h = typed_handler(ga, &&L_STORE_GLOBAL_I, &&L_STORE_GLOBAL_F, h); break;
                case F3_MOVE_LL: h = typed_handler(ta, &&L_MOVE_LL_N, &&L_MOVE_LL_N, h); break;
                case F3_LOAD_LL:
                    if (ta == tb)
                        h = typed_handler(ta, &&L_LOAD_LL_I, &&L_LOAD_LL_F, h);
                    break;
                case F3_RETV_L: h = typed_handler(ta, &&L_RETV_L_I, &&L_RETV_L_F, h); break;
                default: break;
                }
                /* a return from a frame of numbers only, whose stack holds
                 * just the operands of the return: nothing to release */
                int32_t depth = prog->shape_depth[i];
                if (numbers_only(fn) && fn->ret == LSL_TYPE_FLOAT && in->op == F3_RETV && depth == 1)
                    h = &&L_RETV_FN;
                if (numbers_only(fn) && fn->ret == LSL_TYPE_INTEGER &&
                    ((in->op == F3_RETV_L && depth == 0) || (in->op == F3_RETV && depth == 1) ||
                     (in->op == F3_RETV_ADD_I && depth == 2)))
                    h = in->op == F3_RETV_L ? &&L_RETV_L_IN : in->op == F3_RETV ? &&L_RETV_IN : &&L_RETV_ADD_I_N;
            }
            if (in->op == F3_CALL && in->a >= 0 && (size_t)in->a < prog->nfunc && !float_params(&prog->funcs[in->a]))
                h = &&L_CALL_NF;
            /* a loop's back edge, `++i` then `i < n`: one dispatch for the
             * pair.  The handler still counts two instructions and stops
             * between them when the budget ends there, so a slice or a
             * snapshot sees the same ip as without the pair; a jump to
             * the comparison runs the comparison's own handler. */
            if (in->op == F3_LOAD_MEMBER_L && i + 1 < prog->ncode && in_loop_pair(prog, i)) {
                const fal3_insn *nx = &prog->code[i + 1];
                if (nx->op == F3_JCMPF_K)
                    h = by_operator(member_jcmpf_k, nx->b, h);
                else if (nx->op == F3_JCMPF_KT)
                    h = by_operator(member_jcmpf_kt, nx->b, h);
            }
            if (h == &&L_MOVE_LL_N && i + 1 < prog->ncode && in_loop_pair(prog, i) &&
                prog->code[i + 1].op == F3_MOVE_LL && numeric_slot(fn, prog->code[i + 1].a))
                h = &&L_MOVE2_LL_N;
            if (in->op == F3_INC_LOCAL_I && i + 1 < prog->ncode && in_loop_pair(prog, i) &&
                inc_jcmp[prog->code[i + 1].op])
                h = inc_jcmp[prog->code[i + 1].op];
            const char *kinds = operand_kinds[in->op];
            int32_t f[3] = {in->a, in->b, in->c};
            for (int k = 0; k < 3 && kinds[k]; k++)
                if (kinds[k] == 'l' || kinds[k] == 'g')
                    f[k] *= (int32_t)sizeof(lsl_value);
            /* x / 8192.0: a multiplication, a fraction of a division's latency */
            if ((in->op == F3_FOP_LK || in->op == F3_FOP_LK_S) && (in->c & 255) == F3_DIV_F && recip_exact(in->b, &f[1]))
                h = in->op == F3_FOP_LK ? &&L_FOP_LK_RECIP : &&L_FOP_LK_S_RECIP;
            if (in->op == F3_FMOD_LK && recip_exact(in->b, &(int32_t){0}))
                h = &&L_FMOD_LK_P2;
            tc[i] = (fal3_threaded_insn){.handler = h, .a = f[0], .b = f[1], .c = f[2]};
            if (in->op == F3_CALL && in->a >= 0 && (size_t)in->a < prog->nfunc) {
                /* CALLEE(), CALLEE_SPAN() */
                tc[i].g = &prog->funcs[in->a];
                tc[i].b = (int32_t)(tc[i].g->nslots + tc[i].g->max_stack + 4);
            }
            /* `if (n % 8)`: by a positive power of two, l % k is zero exactly
             * when l's low bits are (C's truncation keeps the sign, not the
             * zero), one AND on the chain the branch waits for */
            if ((in->op == F3_JZ_IOP_LK || in->op == F3_JNZ_IOP_LK) && (in->c & 255) == F3_MOD_I && in->b > 0 &&
                (in->b & (in->b - 1)) == 0) {
                tc[i].handler = in->op == F3_JZ_IOP_LK ? &&L_JZ_MOD_P2 : &&L_JNZ_MOD_P2;
                tc[i].b = in->b - 1;
            }
            if (in->op == F3_IOP_K_S) { /* the operator in c, the destination slot as a byte offset in b */
                tc[i].b = (in->b >> 8) * (int32_t)sizeof(lsl_value);
                tc[i].c = in->b & 255;
            }
            /* a division or modulo by a constant: a multiply by its reciprocal */
            int32_t kop = in->op == F3_IOP_K ? in->b : in->op == F3_IOP_K_S ? in->b & 255 : in->op == F3_IOP_LK ? in->c
                         : in->op == F3_IOP_LK_S ? in->c & 255 : -1;
            int32_t kd = in->op == F3_IOP_K || in->op == F3_IOP_K_S ? in->a : in->b;
            /* (IOpLKS has no room for m beside its destination in c) */
            if ((kop == F3_DIV_I || kop == F3_MOD_I) && recip_fits(kd) && in->op != F3_IOP_LK_S) {
                tc[i].handler = in->op == F3_IOP_K     ? (kop == F3_DIV_I ? &&L_IOP_K_DIV_M : &&L_IOP_K_MOD_M)
                                : in->op == F3_IOP_K_S ? (kop == F3_DIV_I ? &&L_IOP_K_S_DIV_M : &&L_IOP_K_S_MOD_M)
                                                       : (kop == F3_DIV_I ? &&L_IOP_LK_DIV_M : &&L_IOP_LK_MOD_M);
                tc[i].m = recip_k(kd);
            }
            /* the same by a positive power of two: a shift or a mask */
            if ((kop == F3_DIV_I || kop == F3_MOD_I) && pow2_k(kd)) {
                bool dv = kop == F3_DIV_I;
                tc[i].handler = in->op == F3_IOP_K     ? (dv ? &&L_IOP_K_DIV_P2 : &&L_IOP_K_MOD_P2)
                                : in->op == F3_IOP_K_S ? (dv ? &&L_IOP_K_S_DIV_P2 : &&L_IOP_K_S_MOD_P2)
                                : in->op == F3_IOP_LK  ? (dv ? &&L_IOP_LK_DIV_P2 : &&L_IOP_LK_MOD_P2)
                                                       : (dv ? &&L_IOP_LK_S_DIV_P2 : &&L_IOP_LK_S_MOD_P2);
            }
        }
        /* a float operation and the store of its result that follows: one
         * pair handler (see F3_FPAIR_FIRSTS) */
        {
#define X(first, kind, expr) &&L_##first,
            static const void *const firsts[] = {F3_FPAIR_FIRSTS(X)};
#undef X
#define Y(first, kind, expr, second, store) &&L_##second,
            static const void *const seconds[] = {F3_FPAIR_SECONDS(Y, -, -, -)};
#undef Y
#define Y(first, kind, expr, second, store) &&L_FPAIR_##first##_##second,
#define X(first, kind, expr) F3_FPAIR_SECONDS(Y, first, kind, expr)
            static const void *const pair_labels[] = {F3_FPAIR_FIRSTS(X)};
#undef X
#undef Y
            enum { NF = sizeof firsts / sizeof *firsts, NS = sizeof seconds / sizeof *seconds };
            for (size_t i = 0; i + 1 < prog->ncode; i++) {
                if (!in_loop_pair(prog, i))
                    continue;
                size_t f = 0, s = 0;
                while (f < NF && firsts[f] != tc[i].handler)
                    f++;
                while (s < NS && seconds[s] != tc[i + 1].handler)
                    s++;
                if (f < NF && s < NS)
                    tc[i].handler = pair_labels[f * NS + s];
            }
        }
        /* a float operation on a local and a constant stored back, then a
         * comparison of that local with a constant: `f += 1.0; while (f <
         * 2000.0)`, `while (x >= k) x -= k;`: one pair handler */
        {
#define Y(op, OPR, cmp, CMPR) &&L_FOPCMP_##op##_##cmp,
#define X(op, OPR) F3_FLOAT_CMPS_OF(Y, op, OPR)
            static const void *const fopcmp[] = {F3_FLOAT_OPS(X)};
#undef Y
#define Y(op, OPR, cmp, CMPR) &&L_FOPCMPT_##op##_##cmp,
            static const void *const fopcmpt[] = {F3_FLOAT_OPS(X)};
#undef Y
#undef X
#define X(op, OPR) F3_##op,
            static const int32_t fops[] = {F3_FLOAT_OPS(X)};
#undef X
#define X(cmp, OPR) F3_##cmp,
            static const int32_t fcmps[] = {F3_FLOAT_CMPS(X)};
#undef X
            enum { NO = sizeof fops / sizeof *fops, NC = sizeof fcmps / sizeof *fcmps };
            for (size_t i = 0; i + 1 < prog->ncode; i++) {
                const fal3_insn *a = &prog->code[i], *b = &prog->code[i + 1];
                if (a->op != F3_FOP_LK_S || (b->op != F3_JCMPF_LK && b->op != F3_JCMPF_LKT) ||
                    (a->c >> 8) * (int32_t)sizeof(lsl_value) != tc[i + 1].a || !in_loop_pair(prog, i))
                    continue;
                size_t o = 0, c = 0;
                while (o < NO && fops[o] != (a->c & 255))
                    o++;
                while (c < NC && fcmps[c] != (b->c & 255))
                    c++;
                if (o < NO && c < NC && tc[i].handler == fop_lk_s[fops[o]])
                    tc[i].handler = (b->op == F3_JCMPF_LK ? fopcmp : fopcmpt)[o * NC + c];
            }
        }
        /* LoadLL of two float locals, then a jump on their comparison */
        {
#define X(name, NEG, OPR) [F3_##name] = &&L_LLJ_##name,
            static const void *const llj[F3_COUNT] = {F3_LL_JUMPS(X)};
#undef X
            for (size_t i = 0; i + 1 < prog->ncode; i++)
                if (tc[i].handler == &&L_LOAD_LL_F && llj[prog->code[i + 1].op] && in_loop_pair(prog, i))
                    tc[i].handler = llj[prog->code[i + 1].op];
        }
        /* the program is shared and otherwise immutable: the first VM to
         * finish building installs its copy, the others drop theirs */
        void *none = NULL;
        if (atomic_compare_exchange_strong(&((gsvm_lsl3_program *)prog)->threaded, &none, (void *)tc)) {
            vm->threaded = tc;
        } else {
            free(tc);
            vm->threaded = none;
        }
    }
    const fal3_threaded_insn *code = vm->threaded, *pc = code + vm->ip;
#else
    const fal3_insn *code = prog->code, *pc = code + vm->ip;
#endif
    lsl_value *stack = vm->stack;
    lsl_value *sp = stack + vm->sp;
    lsl_value *fp = stack + vm->frames[vm->nframes - 1].fp;
    lsl_value *consts = vm->consts;
    lsl_value *globals = vm->globals;
    /* n counts down the instructions this call may run; it is signed so
     * that the check before each instruction is one decrement and a sign
     * test.  A budget beyond its range runs in more than one call. */
    uint64_t budget = *left > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : *left, spare = *left - budget;
    int64_t n = (int64_t)budget;
    const char *fmsg = NULL;
    gsvm_error err;
    lsl_value tmp;

#define SYNC() do { vm->ip = (uint32_t)(pc - code); vm->sp = (uint32_t)(sp - stack); } while (0)
#define FAULT(msg) do { fmsg = (msg); goto fault; } while (0)
#define CHECK(st) do { if ((st) != GSVM_OK) FAULT(err.message); } while (0)
/* A Call's callee and the stack it needs above its frame base: the
 * threaded code holds both in the instruction (loads saved on every call). */
#if F3_THREADED
#define CALLEE() (pc->g)
#define CALLEE_SPAN(g) ((uint32_t)pc->b)
#else
#define CALLEE() (&prog->funcs[pc->a])
#define CALLEE_SPAN(g) ((g)->nslots + (g)->max_stack + 4)
#endif
/* The end of both call handlers, once the frame is recorded: room for the
 * callee's slots and stack, its locals past the arguments zeroed, and a
 * jump to its entry. */
#define ENTER_CALLEE(g, at) do { \
        if (__builtin_expect((at) + CALLEE_SPAN(g) > vm->cap, 0)) { \
            SYNC(); \
            if (!fal3_grow_stack(vm, (at) + CALLEE_SPAN(g))) \
                FAULT("out of memory"); \
            sp = vm->stack + (sp - stack); \
            stack = vm->stack; \
        } \
        fp = stack + (at); \
        for (uint32_t k_ = (g)->nparams; k_ < (g)->nslots; k_++) \
            *sp++ = fal3_zero((lsl_type)(g)->slot_types[k_]); \
        pc = code + (g)->entry; \
        DISPATCH(); \
    } while (0)

#if F3_THREADED
#define LOC(off) (*(lsl_value *)((char *)fp + (off)))
#define GLB(off) (*(lsl_value *)((char *)globals + (off)))
#define CASE(name) L_##name:
/* Counts the instruction at pc against the budget; when it is spent,
 * `stop` leaves the state as the instructions before pc left it and the
 * run ends there.  DISPATCH and the fused pairs' second halves share it. */
#define CHARGE(stop) do { if (__builtin_expect(--n < 0, 0)) { stop; n = 0; goto out; } } while (0)
#define DISPATCH() do { CHARGE(); goto *pc->handler; } while (0)
#define NEXT() do { pc++; DISPATCH(); } while (0)
    DISPATCH();
#else
#define LOC(i) fp[i]
#define GLB(i) globals[i]
#define CASE(name) case F3_##name:
#define DISPATCH() goto top
#define NEXT() { pc++; goto top; }
top:
    for (;;) {
        if (--n < 0) {
            n = 0;
            goto out;
        }
        switch ((fal3_op)pc->op) {
#endif

    CASE(PUSH_INT) sp->type = LSL_TYPE_INTEGER; sp->u.i = pc->a; sp++; NEXT();
    CASE(PUSH_FLOAT) { float k; memcpy(&k, &pc->a, 4); SET_F(sp, k); sp++; NEXT(); }
    CASE(PUSH_CONST) *sp = consts[pc->a]; vretain(sp); sp++; NEXT();
    CASE(PUSH_EMPTY) *sp = fal3_zero((lsl_type)pc->a); sp++; NEXT();
    CASE(LOAD_LOCAL) vload(sp, &LOC(pc->a)); vretain(sp); sp++; NEXT();
    CASE(STORE_LOCAL) sp--; vrelease(&LOC(pc->a)); vstore(&LOC(pc->a), sp); NEXT();
    /* an assignment's value is the value stored */
    CASE(PUT_LOCAL) vretain(&sp[-1]); vrelease(&LOC(pc->a)); vstore(&LOC(pc->a), &sp[-1]); vload(&sp[-1], &LOC(pc->a)); NEXT();
    CASE(LOAD_GLOBAL) vload(sp, &GLB(pc->a)); vretain(sp); sp++; NEXT();
    CASE(STORE_GLOBAL) sp--; vrelease(&GLB(pc->a)); vstore(&GLB(pc->a), sp); NEXT();
    CASE(PUT_GLOBAL) vretain(&sp[-1]); vrelease(&GLB(pc->a)); vstore(&GLB(pc->a), &sp[-1]); vload(&sp[-1], &GLB(pc->a)); NEXT();
    CASE(POP) sp--; vrelease(sp); NEXT();
    CASE(DUP) vdup(sp, &sp[-1]); vretain(sp); sp++; NEXT();
    CASE(ADD_I) sp[-2].u.i = wrap_add(sp[-1].u.i, sp[-2].u.i); sp--; NEXT();
    CASE(SUB_I) sp[-2].u.i = wrap_sub(sp[-1].u.i, sp[-2].u.i); sp--; NEXT();
    CASE(MUL_I) sp[-2].u.i = wrap_mul(sp[-1].u.i, sp[-2].u.i); sp--; NEXT();
    CASE(DIV_I) {
        int32_t l = sp[-1].u.i, r = sp[-2].u.i;
        if (r == 0)
            FAULT("Math Error");
        sp[-2].u.i = div_i(l, r);
        sp--;
        NEXT();
    }
    CASE(MOD_I) {
        int32_t l = sp[-1].u.i, r = sp[-2].u.i;
        if (r == 0)
            FAULT("Math Error");
        sp[-2].u.i = mod_i(l, r);
        sp--;
        NEXT();
    }
    CASE(BAND_I) sp[-2].u.i = sp[-1].u.i & sp[-2].u.i; sp--; NEXT();
    CASE(BOR_I) sp[-2].u.i = sp[-1].u.i | sp[-2].u.i; sp--; NEXT();
    CASE(BXOR_I) sp[-2].u.i = sp[-1].u.i ^ sp[-2].u.i; sp--; NEXT();
    CASE(SHL_I) sp[-2].u.i = (int32_t)((uint32_t)sp[-1].u.i << (sp[-2].u.i & 31)); sp--; NEXT();
    CASE(SHR_I) sp[-2].u.i = sp[-1].u.i >> (sp[-2].u.i & 31); sp--; NEXT();
    CASE(LAND_I) sp[-2].u.i = (sp[-1].u.i != 0) & (sp[-2].u.i != 0); sp--; NEXT();
    CASE(LOR_I) sp[-2].u.i = (sp[-1].u.i != 0) | (sp[-2].u.i != 0); sp--; NEXT();
    CASE(EQ_I) sp[-2].u.i = sp[-1].u.i == sp[-2].u.i; sp--; NEXT();
    CASE(NE_I) sp[-2].u.i = sp[-1].u.i != sp[-2].u.i; sp--; NEXT();
    CASE(LT_I) sp[-2].u.i = sp[-1].u.i < sp[-2].u.i; sp--; NEXT();
    CASE(LE_I) sp[-2].u.i = sp[-1].u.i <= sp[-2].u.i; sp--; NEXT();
    CASE(GT_I) sp[-2].u.i = sp[-1].u.i > sp[-2].u.i; sp--; NEXT();
    CASE(GE_I) sp[-2].u.i = sp[-1].u.i >= sp[-2].u.i; sp--; NEXT();
    CASE(NEG_I) sp[-1].u.i = wrap_sub(0, sp[-1].u.i); NEXT();
    CASE(NOT_I) sp[-1].u.i = !sp[-1].u.i; NEXT();
    CASE(BNOT_I) sp[-1].u.i = ~sp[-1].u.i; NEXT();
    CASE(ADD_F) PUT_D(&sp[-2], FD(&sp[-1]) + FD(&sp[-2])); sp--; NEXT();
    CASE(SUB_F) PUT_D(&sp[-2], FD(&sp[-1]) - FD(&sp[-2])); sp--; NEXT();
    CASE(MUL_F) PUT_D(&sp[-2], FD(&sp[-1]) * FD(&sp[-2])); sp--; NEXT();
    CASE(DIV_F) {
        double l = FD(&sp[-1]), r = FD(&sp[-2]);
        if (r == 0.0)
            FAULT("Math Error");
        double q = l / r;
        if (isnan(q))
            FAULT("Math Error");
        PUT_D(&sp[-2], q);
        sp--;
        NEXT();
    }
#define FCMP(name, OPR) CASE(name) { int32_t v = FD(&sp[-1]) OPR FD(&sp[-2]); SET_I(&sp[-2], v); sp--; NEXT(); }
    FCMP(EQ_F, ==)
    FCMP(NE_F, !=)
    FCMP(LT_F, <)
    FCMP(LE_F, <=)
    FCMP(GT_F, >)
    FCMP(GE_F, >=)
    CASE(NEG_F) PUT_D(&sp[-1], -FD(&sp[-1])); NEXT();
    CASE(I2F) PUSH_D(&sp[-1], (double)sp[-1].u.i); NEXT(); /* exact: Mono's conv.r8 */
    CASE(I2F_UNDER) PUSH_D(&sp[-2], (double)sp[-2].u.i); NEXT();
    CASE(F2I) SET_I(&sp[-1], lsl_double_to_int(FD(&sp[-1]))); NEXT();
    CASE(CONCAT_S) {
        SYNC();
        gsvm_status st = lsl_string_concat(vm->hp, &sp[-1], &sp[-2], &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        vrelease(&sp[-2]);
        sp[-2] = tmp;
        sp--;
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(BINOP) {
        if ((pc->a == LSL_OP_EQ || pc->a == LSL_OP_NE) && sp[-1].type == LSL_TYPE_STRING &&
            sp[-2].type == LSL_TYPE_STRING) {
            /* string == string: the bytes compared here, as lsl_value_equal does */
            size_t n1 = lsl_str_len(&sp[-1]);
            int32_t eq = n1 == lsl_str_len(&sp[-2]) && memcmp(lsl_str_data(&sp[-1]), lsl_str_data(&sp[-2]), n1) == 0;
            vrelease(&sp[-1]);
            vrelease(&sp[-2]);
            SET_I(&sp[-2], pc->a == LSL_OP_EQ ? eq : !eq);
            sp--;
            NEXT();
        }
        SYNC();
        fround(&sp[-1]);
        fround(&sp[-2]);
        gsvm_status st = lsl_value_binop(vm->hp, (lsl_op)pc->a, &sp[-1], &sp[-2], &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        vrelease(&sp[-2]);
        fnorm(&tmp);
        sp[-2] = tmp;
        sp--;
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(UNOP) {
        fround(&sp[-1]);
        gsvm_status st = lsl_value_unop((lsl_unop)pc->a, &sp[-1], &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        fnorm(&tmp);
        sp[-1] = tmp;
        NEXT();
    }
    CASE(CAST) {
        SYNC();
        fround(&sp[-1]);
        gsvm_status st = lsl_value_cast(vm->hp, &sp[-1], (lsl_type)pc->a, &tmp, &err);
        CHECK(st);
        vrelease(&sp[-1]);
        fnorm(&tmp);
        sp[-1] = tmp;
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(TRUTH) {
        fround(&sp[-1]);
        int32_t t = lsl_value_truthy(&sp[-1]);
        vrelease(&sp[-1]);
        SET_I(&sp[-1], t);
        NEXT();
    }
    CASE(MKVEC) sp[-3] = lsl_vector((float)FD(&sp[-3]), (float)FD(&sp[-2]), (float)FD(&sp[-1])); sp -= 2; NEXT();
    CASE(MKROT)
        sp[-4] = lsl_rotation((float)FD(&sp[-4]), (float)FD(&sp[-3]), (float)FD(&sp[-2]), (float)FD(&sp[-1]));
        sp -= 3;
        NEXT();
    CASE(MKLIST) {
        SYNC();
        fround_n(sp - pc->a, pc->a);
        gsvm_status st = lsl_list_adopt(vm->hp, sp - pc->a, (size_t)pc->a, &tmp, &err);
        CHECK(st);
        sp -= pc->a;
        *sp++ = tmp;
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        NEXT();
    }
    CASE(GET_MEMBER) SET_F(&sp[-1], sp[-1].u.v[pc->a]); NEXT();
    CASE(SET_MEMBER) {
        lsl_value v = sp[-1];
        v.u.v[pc->a] = (float)FD(&sp[-2]);
        sp[-2] = v;
        sp--;
        NEXT();
    }
    /* the typed vector operators: the library's arithmetic (float32 per
     * component, a float operand rounded to float32 first), no type tests.
     * The result is made in registers and stored in one 16-byte write: a
     * store of the slot (16 bytes) right after narrow writes would wait for
     * them to land (a failed store-to-load forward). */
#if defined(__GNUC__)
typedef float f3_v4 __attribute__((vector_size(16)));
#define VEC_OP(D, X, OPR, Y, W) do { \
        f3_v4 x_, y_; \
        memcpy(&x_, (X), 16); \
        memcpy(&y_, (Y), 16); \
        x_ = x_ OPR y_; \
        x_[3] = (W); \
        (D)->type = LSL_TYPE_VECTOR; \
        memcpy((D)->u.v, &x_, 16); \
    } while (0)
#else
#define VEC_OP(D, X, OPR, Y, W) do { \
        float r_[4]; \
        for (int i_ = 0; i_ < 4; i_++) r_[i_] = (X)[i_] OPR (Y)[i_]; \
        r_[3] = (W); \
        (D)->type = LSL_TYPE_VECTOR; \
        memcpy((D)->u.v, r_, sizeof r_); \
    } while (0)
#endif
#define K4(k) ((const float[4]){k, k, k, k})
    CASE(ADD_V) VEC_OP(&sp[-2], sp[-1].u.v, +, sp[-2].u.v, 0); sp--; NEXT();
    CASE(SUB_V) VEC_OP(&sp[-2], sp[-1].u.v, -, sp[-2].u.v, 0); sp--; NEXT();
    CASE(DOT_V) SET_F(&sp[-2], lsl_vec_dot(sp[-1].u.v, sp[-2].u.v)); sp--; NEXT();
    CASE(MUL_VF) { float k = (float)FD(&sp[-2]); VEC_OP(&sp[-2], sp[-1].u.v, *, K4(k), 0); sp--; NEXT(); }
    CASE(MUL_FV) { float k = (float)FD(&sp[-1]); VEC_OP(&sp[-2], sp[-2].u.v, *, K4(k), 0); sp--; NEXT(); }
    CASE(DIV_VF) {
        float k = (float)FD(&sp[-2]);
        if (k == 0.0f)
            FAULT("Math Error");
        VEC_OP(&sp[-2], sp[-1].u.v, /, K4(k), 0);
        sp--;
        NEXT();
    }
    CASE(LOAD_MEMBER_L) SET_F(sp, LOC(pc->a).u.v[pc->b]); sp++; NEXT();
    CASE(STORE_MEMBER_L) sp--; LOC(pc->a).u.v[pc->b] = (float)FD(sp); NEXT();
    CASE(JMP) pc = code + pc->a; DISPATCH();
    CASE(JZ) sp--; if (sp->u.i == 0) { pc = code + pc->a; DISPATCH(); } NEXT();
    CASE(JNZ) sp--; if (sp->u.i != 0) { pc = code + pc->a; DISPATCH(); } NEXT();
#if F3_THREADED
    L_CALL_NF: { /* a call whose arguments need no rounding: the common one */
        const fal3_func *g = CALLEE();
        uint32_t depth = vm->nframes;
        if (__builtin_expect(depth >= vm->capframes, 0)) {
            if (depth >= FAL3_MAX_DEPTH)
                FAULT("Stack-Heap Collision");
            if (!fal3_grow_frames(vm, depth + 1))
                FAULT("out of memory");
        }
        /* the frame's charge stored apart from its other fields, before a
         * branch: stored together, the compiler packs the four into one
         * 16-byte write, and the return's 4-byte read of it soon after
         * waits for that write to land (a failed store-to-load forward) */
        fal3_frame *nf = &vm->frames[depth];
        nf->bytes = g->frame_bytes;
        vm->hp->extra += g->frame_bytes;
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        lsl_value *nfp = sp - g->nparams; /* the arguments are the callee's first locals */
        uint32_t at = (uint32_t)(nfp - stack);
        nf->ret_ip = (uint32_t)(pc - code) + 1;
        nf->fp = at;
        nf->func = (uint32_t)pc->a;
        vm->nframes = depth + 1;
        ENTER_CALLEE(g, at);
    }
#endif
    CASE(CALL) {
        const fal3_func *g = CALLEE();
        uint32_t depth = vm->nframes;
        if (depth >= FAL3_MAX_DEPTH)
            FAULT("Stack-Heap Collision");
        if (depth >= vm->capframes && !fal3_grow_frames(vm, depth + 1))
            FAULT("out of memory");
        fal3_frame *nf = &vm->frames[depth];
        nf->bytes = g->frame_bytes; /* apart from the rest, as in CallNF */
        vm->hp->extra += g->frame_bytes;
        size_t at = (size_t)(sp - stack) - g->nparams; /* the callee's fp: its arguments are its first locals */
        fround_n(stack + at, (int32_t)g->nparams);       /* float32 parameters */
        nf->ret_ip = (uint32_t)(pc - code) + 1;
        nf->fp = (uint32_t)at;
        nf->func = (uint32_t)pc->a;
        vm->nframes = depth + 1;
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        ENTER_CALLEE(g, at);
    }
    CASE(RET) {
        while (sp > fp)
            vrelease(--sp);
        goto do_return;
    }
    CASE(RETV) {
        lsl_value rv; /* a float32 function result (Mono) */
        vstore(&rv, --sp);
        while (sp > fp)
            vrelease(--sp);
        vload(sp++, &rv);
        goto do_return;
    }
    CASE(CALLB) {
        if (pc->a == LSL_ID_llList2Integer || pc->a == LSL_ID_llList2Float) {
            /* inline: an element already of the wanted type (else the library converts) */
            const lsl_value *lst = &sp[-2];
            int64_t len = (int64_t)lsl_list_len(lst), i = sp[-1].u.i;
            if (i < 0)
                i += len;
            lsl_type want = pc->a == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
            if (i >= 0 && i < len && lst->u.l->items[i].type == want) {
                lsl_value v = lst->u.l->items[i];
                fnorm(&v);
                vrelease(&sp[-2]);
                sp[-2] = v;
                sp--;
                NEXT();
            }
        }
        const lsl_builtin *b = prog->builtin_by_id[pc->a];
        lsl_value *args = sp - pc->b;
        fround_n(args, pc->b);
        lsl_value ret;
        ret.type = LSL_TYPE_VOID;
        int r;
        SYNC();
        err.message[0] = 0;
        lsl_native_fn fn = prog->native_by_id[pc->a];
        if (fn && fal3_fast_builtin(vm, pc->a, args, &ret, &err, &r)) {
            /* done by the fast path */
        } else if (fn) {
            lsl_call_ctx ctx = {vm->hp, &vm->lib, &err};
            r = fn(&ctx, args, &ret) == GSVM_OK ? CALL_OK : CALL_FAULT;
        } else if (b->flags & LSL_FN_VM) {
            r = fal3_vm_service(vm, b, args, &ret, &err);
        } else {
            vm->host_total = vm->total + (budget - (uint64_t)n); /* this call included */
            r = fal3_call_host(vm, b, args, &ret, &err);
        }
        if (r == CALL_FAULT)
            FAULT(err.message[0] ? err.message : "builtin failed");
        for (int32_t k = 0; k < pc->b; k++)
            vrelease(&args[k]);
        sp = args;
        if (r == CALL_RESET) {
            vm->sp = (uint32_t)(sp - stack);
            pc++;
            fal3_reset_script(vm);
            goto stop;
        }
        if (b->ret != LSL_TYPE_VOID) {
            fnorm(&ret);
            *sp++ = ret;
        }
        if (fal3_heap_over(vm))
            FAULT("Stack-Heap Collision");
        if (b->sleep > 0)
            lsl_sched_sleep(&vm->sched, b->sleep); /* forced delay */
        pc++;
        if (lsl_sched_sleeping(&vm->sched) || !vm->active) {
            SYNC();
            goto stop;
        }
        DISPATCH();
    }
    CASE(PRINT) {
        /* print(expr) is a host line like any function's */
        static const lsl_builtin print_fn = {"print", -1, LSL_TYPE_VOID, 1, "s", "value", 0.0f, 0.0f, 0};
        lsl_value ret;
        SYNC();
        err.message[0] = 0;
        if (fal3_call_host(vm, &print_fn, &sp[-1], &ret, &err) == CALL_FAULT)
            FAULT(err.message[0] ? err.message : "print failed");
        vrelease(--sp);
        NEXT();
    }
    CASE(FAULT) {
        SYNC();
        FAULT("Invalid IL code");
    }
    CASE(STATE) {
        int32_t target = pc->a;
        pc++;
        SYNC();
        fal3_unwind(vm);
        if (vm->phase == FAL3_PHASE_EXIT)
            vm->next_state = target;
        else if (target != vm->cur_state)
            vm->next_state = target;
        goto stop;
    }
    CASE(SET_STATE) {
        /* as STATE, without leaving the handler */
        if (vm->phase == FAL3_PHASE_EXIT || pc->a != vm->cur_state)
            vm->next_state = pc->a;
        NEXT();
    }
#include "lsl/vm3_exec_fused.inc"
#undef K4
#undef VEC_OP
#if !F3_THREADED
        default:
            FAULT("bad opcode");
        }
    }
#endif

do_return: {
    vm->nframes--;
    const fal3_frame *fr = &vm->frames[vm->nframes];
    vm->hp->extra -= fr->bytes;
    if (vm->nframes == 0) {
        /* the handler is done */
        while (sp > stack)
            vrelease(--sp);
        vm->sp = 0;
        vm->ip = 0;
        vm->active = false;
        vm->total += budget - (uint64_t)n;
        *left = spare + (uint64_t)n;
        return true;
    }
    pc = code + fr->ret_ip;
    fp = stack + fr[-1].fp;
    DISPATCH();
}
out:
    SYNC();
stop:
    vm->total += budget - (uint64_t)n;
    *left = spare + (uint64_t)n;
    return !vm->faulted;
fault:
    SYNC();
    vm->total += budget - (uint64_t)n;
    *left = spare + (uint64_t)n;
    fal3_set_fault(vm, (uint32_t)(pc - code), fmsg);
    return false;
#undef CALLEE
#undef CALLEE_SPAN
#undef CASE
#undef CHARGE
#undef DISPATCH
#undef NEXT
#undef LOC
#undef GLB
}
