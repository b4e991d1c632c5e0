/* The interpreter's helpers (metamethods, comparison, indexing, concat,
 * arithmetic) and the four builds of the main loop: float64 or float32
 * numbers, mode 0 or the checked mode 2 (vm_exec_loop.inc). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hks/isa.h"
#include "hks/vm.h"

static const char *const tm_names[TM_N] = {"__index", "__newindex", "__gc",  "__mode", "__eq",
                                           "__add",   "__sub",      "__mul", "__div",  "__mod",
                                           "__pow",   "__unm",      "__len", "__lt",   "__le",
                                           "__concat", "__call",    "__tostring"};

const char *hv_tm_name(int event)
{
    return tm_names[event];
}

double hv_round(hv_vm *vm, double x)
{
    return vm->f32 ? (double)(float)x : x;
}

hv_table *hv_getmeta(hv_thread *L, const hv_value *o)
{
    switch (o->tt) {
    case HV_TTAB: return hv_tabv(o)->meta;
    case HV_TSTR: return L->vm->strmeta;
    case HV_TSTRUCT: return ((hv_struct *)o->v.gc)->meta;
    case HV_TUDATA: return ((hv_udata *)o->v.gc)->meta;
    default: return NULL;
    }
}

/* The metamethod of an event, or NULL.  A table remembers the events its
 * metatable lacks (nomm bits, cleared by every store into the metatable),
 * so the common "no __index" case costs one bit test. */
const hv_value *hv_gettm(hv_thread *L, const hv_value *o, int event)
{
    hv_table *mt = hv_getmeta(L, o);
    if (!mt && o->tt == HV_TSTRUCT) {
        /* a structure without a metatable: its metastructure's slot of the
         * event's name (`__add : ifunction;` in the metastructure) */
        const hv_value *m = hv_struct_meta((hv_struct *)o->v.gc);
        if (!m)
            return NULL;
        hv_struct *ms = (hv_struct *)m->v.gc;
        const gsvm_hks_slot *sl = hv_struct_slot(ms, L->vm->tmname[event]);
        return sl && !hv_isnil(&ms->slot[sl->d]) ? &ms->slot[sl->d] : NULL;
    }
    if (!mt)
        return NULL;
    if (event < 8 && (mt->nomm & (1u << event)))
        return NULL;
    const hv_value *tm = hv_table_getstr(mt, L->vm->tmname[event]);
    if (hv_isnil(tm)) {
        if (event < 8)
            mt->nomm |= (uint8_t)(1u << event);
        return NULL;
    }
    return tm;
}

bool hv_tonumber(const hv_value *o, double *out)
{
    if (o->tt == HV_TNUM) {
        *out = o->v.n;
        return true;
    }
    if (o->tt == HV_TSTR)
        return hv_str2num(hv_strv(o)->data, hv_strv(o)->len, out);
    return false;
}

bool hv_tostring_inplace(hv_thread *L, hv_value *o)
{
    if (o->tt == HV_TSTR)
        return true;
    if (o->tt != HV_TNUM)
        return false;
    hv_str *s = hv_tostr_num(L, o->v.n);
    hv_setgc(o, HV_TSTR, s);
    return true;
}

/* Calls metamethod f(p1, p2) and stores its first result in *res. */
static void call_tm(hv_thread *L, hv_value *res, const hv_value *f, const hv_value *p1,
                    const hv_value *p2)
{
    hv_value fv = *f, a = *p1, b = *p2;
    hv_stack_check(L, 3);
    int func = L->top;
    L->stack[func] = fv;
    L->stack[func + 1] = a;
    L->stack[func + 2] = b;
    L->top = func + 3;
    hv_call(L, func, 1);
    *res = L->stack[func];
    L->top = func;
}

void hv_gettable(hv_thread *L, const hv_value *t, const hv_value *key, hv_value *out)
{
    hv_value tv = *t, kv = *key;
    for (int loop = 0; loop < 100; loop++) {
        const hv_value *tm;
        if (tv.tt == HV_TTAB) {
            hv_table *h = hv_tabv(&tv);
            const hv_value *r = hv_table_get(h, &kv);
            if (!hv_isnil(r) || !(tm = hv_gettm(L, &tv, TM_INDEX))) {
                *out = *r;
                return;
            }
        } else if (tv.tt == HV_TSTRUCT) {
            /* a structure read by name: its slots, the proxy table behind
             * it, then its metastructure's __index slot or its metatable */
            hv_struct *s = (hv_struct *)tv.v.gc;
            const gsvm_hks_slot *sl = kv.tt == HV_TSTR ? hv_struct_slot(s, hv_strv(&kv)) : NULL;
            if (sl) {
                *out = s->slot[sl->d];
                return;
            }
            hv_table *back = hv_struct_backing(L, s, false);
            if (back) {
                const hv_value *r = hv_table_get(back, &kv);
                if (!hv_isnil(r)) {
                    *out = *r;
                    return;
                }
            }
            const hv_value *m = hv_struct_meta(s);
            if (m) {
                hv_struct *ms = (hv_struct *)m->v.gc;
                sl = hv_struct_slot(ms, L->vm->tmname[TM_INDEX]);
                if (!sl || hv_isnil(&ms->slot[sl->d])) {
                    hv_setnil(out);
                    return;
                }
                tm = &ms->slot[sl->d];
            } else if (!(tm = hv_gettm(L, &tv, TM_INDEX))) {
                hv_setnil(out);
                return;
            }
        } else if (!(tm = hv_gettm(L, &tv, TM_INDEX))) {
            hv_typeerror(L, loop == 0 ? t : &tv, "index"); /* the original names the variable */
        }
        if (tm->tt == HV_TLFN || tm->tt == HV_TCFN) {
            call_tm(L, out, tm, &tv, &kv);
            return;
        }
        tv = *tm;
    }
    hv_error(L, "loop in gettable");
}

void hv_settable(hv_thread *L, const hv_value *t, const hv_value *key, const hv_value *val)
{
    hv_value tv = *t, kv = *key, vv = *val;
    for (int loop = 0; loop < 100; loop++) {
        const hv_value *tm;
        if (tv.tt == HV_TTAB) {
            hv_table *h = hv_tabv(&tv);
            const hv_value *old = hv_table_get(h, &kv);
            if (!hv_isnil(old) || !(tm = hv_gettm(L, &tv, TM_NEWINDEX))) {
                hv_value *slot = old != &hv_nilobject ? (hv_value *)old : hv_table_set(L, h, &kv);
                hv_table_noteslot(h, slot);
                *slot = vv;
                h->nomm = 0;
                return;
            }
        } else if (tv.tt == HV_TSTRUCT) {
            /* a structure written by name: a declared slot (its type is
             * checked), else the proxy table behind it */
            hv_struct *s = (hv_struct *)tv.v.gc;
            const gsvm_hks_slot *sl = kv.tt == HV_TSTR ? hv_struct_slot(s, hv_strv(&kv)) : NULL;
            if (sl) {
                if (!hv_struct_typeok(L, sl, &vv))
                    hv_error(L, "slot '%s' of structure %s takes a %s, not a %s value",
                             sl->name.data, hv_struct_name(s),
                             sl->b < HV_NTAGS ? hv_typename(&(hv_value){sl->b, 0, {0}}) : "?",
                             hv_typename(&vv));
                s->slot[sl->d] = vv;
                return;
            }
            hv_table *back = hv_struct_backing(L, s, true);
            if (back) {
                if (kv.tt == HV_TNIL)
                    hv_error(L, "table index is nil");
                *hv_table_set(L, back, &kv) = vv;
                return;
            }
            if (!(tm = hv_gettm(L, &tv, TM_NEWINDEX)))
                hv_error(L, "structure %s has no slot '%s'", hv_struct_name(s),
                         kv.tt == HV_TSTR ? hv_strv(&kv)->data : hv_typename(&kv));
        } else if (!(tm = hv_gettm(L, &tv, TM_NEWINDEX))) {
            hv_typeerror(L, loop == 0 ? t : &tv, "index"); /* the original names the variable */
        }
        if (tm->tt == HV_TLFN || tm->tt == HV_TCFN) {
            hv_value fv = *tm;
            hv_stack_check(L, 4);
            int func = L->top;
            L->stack[func] = fv;
            L->stack[func + 1] = tv;
            L->stack[func + 2] = kv;
            L->stack[func + 3] = vv;
            L->top = func + 4;
            hv_call(L, func, 0);
            L->top = func;
            return;
        }
        tv = *tm;
    }
    hv_error(L, "loop in settable");
}

static const hv_value *get_comp_tm(hv_thread *L, const hv_value *a, const hv_value *b, int event)
{
    const hv_value *tm1 = hv_gettm(L, a, event);
    if (!tm1)
        return NULL;
    const hv_value *tm2 = hv_gettm(L, b, event);
    if (!tm2 || !hv_rawequal(tm1, tm2))
        return NULL;
    return tm1;
}

bool hv_equal(hv_thread *L, const hv_value *a, const hv_value *b)
{
    if (a->tt != b->tt)
        return false;
    if (hv_rawequal(a, b))
        return true;
    if (a->tt != HV_TTAB && a->tt != HV_TUDATA && a->tt != HV_TSTRUCT)
        return false;
    const hv_value *tm = get_comp_tm(L, a, b, TM_EQ);
    if (!tm)
        return false;
    hv_value r;
    call_tm(L, &r, tm, a, b);
    return !hv_isfalse(&r);
}

static int str_cmp(const hv_str *a, const hv_str *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->data, b->data, n);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

static _Noreturn void order_error(hv_thread *L, const hv_value *a, const hv_value *b)
{
    const char *t1 = hv_typename(a), *t2 = hv_typename(b);
    if (strcmp(t1, t2) == 0)
        hv_error(L, "attempt to compare two %s values", t1);
    hv_error(L, "attempt to compare %s with %s", t1, t2);
}

bool hv_lessthan(hv_thread *L, const hv_value *a, const hv_value *b)
{
    if (a->tt == HV_TNUM && b->tt == HV_TNUM)
        return a->v.n < b->v.n;
    if (a->tt == HV_TSTR && b->tt == HV_TSTR)
        return str_cmp(hv_strv(a), hv_strv(b)) < 0;
    if (a->tt == b->tt) {
        const hv_value *tm = get_comp_tm(L, a, b, TM_LT);
        if (tm) {
            hv_value r;
            call_tm(L, &r, tm, a, b);
            return !hv_isfalse(&r);
        }
    }
    order_error(L, a, b);
}

static bool lessequal(hv_thread *L, const hv_value *a, const hv_value *b)
{
    if (a->tt == HV_TNUM && b->tt == HV_TNUM)
        return a->v.n <= b->v.n;
    if (a->tt == HV_TSTR && b->tt == HV_TSTR)
        return str_cmp(hv_strv(a), hv_strv(b)) <= 0;
    if (a->tt == b->tt) {
        const hv_value *tm = get_comp_tm(L, a, b, TM_LE);
        hv_value r;
        if (tm) {
            call_tm(L, &r, tm, a, b);
            return !hv_isfalse(&r);
        }
        tm = get_comp_tm(L, b, a, TM_LT);
        if (tm) {
            call_tm(L, &r, tm, b, a);
            return hv_isfalse(&r);
        }
    }
    order_error(L, a, b);
}

/* Arithmetic with string coercion and metamethods (the slow path). */
void hv_arith(hv_thread *L, hv_value *ra, const hv_value *b, const hv_value *c, int op)
{
    double x, y;
    if (hv_tonumber(b, &x) && hv_tonumber(c, &y)) {
        double r;
        switch (op) {
        case TM_ADD: r = x + y; break;
        case TM_SUB: r = x - y; break;
        case TM_MUL: r = x * y; break;
        case TM_DIV: r = x / y; break;
        case TM_MOD: r = x - floor(x / y) * y; break;
        case TM_POW: r = pow(x, y); break;
        case TM_UNM: r = -x; break;
        default: r = 0; break;
        }
        hv_setnum(ra, hv_round(L->vm, r));
        return;
    }
    const hv_value *tm = hv_gettm(L, b, op);
    if (!tm)
        tm = hv_gettm(L, c, op);
    if (!tm) {
        const hv_value *bad = hv_tonumber(b, &x) ? c : b;
        hv_typeerror(L, bad, "perform arithmetic on");
    }
    hv_value r;
    call_tm(L, &r, tm, b, c);
    *ra = r;
}

static void obj_len(hv_thread *L, hv_value *ra, const hv_value *rb)
{
    switch (rb->tt) {
    case HV_TTAB: hv_setnum(ra, (double)hv_table_len(hv_tabv(rb))); return;
    case HV_TSTR: hv_setnum(ra, (double)hv_strv(rb)->len); return;
    default: {
        const hv_value *tm = hv_gettm(L, rb, TM_LEN);
        if (!tm)
            hv_typeerror(L, rb, "get length of");
        hv_value r;
        call_tm(L, &r, tm, rb, &hv_nilobject);
        *ra = r;
    }
    }
}

/* Concatenates the `total` values ending at stack index `last` into the
 * first of them, as Lua 5.1 does (runs of strings and numbers at once,
 * __concat for the rest, right to left).  A run is built in the VM's
 * scratch buffer and interned once: a number in it is written as text
 * straight into the buffer (the operands are the compiler's temporaries,
 * so the string Lua 5.1 would have made for it is never seen). */
static inline bool concatable(const hv_value *v)
{
    return v->tt == HV_TSTR || v->tt == HV_TNUM;
}

void hv_concat(hv_thread *L, int total, int last)
{
    hv_vm *vm = L->vm;
    do {
        hv_value *top = &L->stack[last + 1];
        int n = 2;
        if (!concatable(top - 2) || !concatable(top - 1)) {
            const hv_value *tm = hv_gettm(L, top - 2, TM_CONCAT);
            if (!tm)
                tm = hv_gettm(L, top - 1, TM_CONCAT);
            if (!tm) {
                const hv_value *bad = concatable(top - 2) ? top - 1 : top - 2;
                hv_typeerror(L, bad, "concatenate");
            }
            hv_value r;
            int save_top = L->top;
            L->top = last + 1;
            call_tm(L, &r, tm, top - 2, top - 1);
            L->top = save_top;
            L->stack[last - 1] = r;
        } else if ((top - 1)->tt == HV_TSTR && hv_strv(top - 1)->len == 0) {
            hv_tostring_inplace(L, top - 2);
        } else {
            for (n = 1; n < total && concatable(top - n - 1); n++)
                ;
            size_t tl = 0;
            for (int i = n; i > 0; i--) {
                const hv_value *v = top - i;
                char num[40];
                const char *p;
                size_t l;
                if (v->tt == HV_TSTR) {
                    p = hv_strv(v)->data;
                    l = hv_strv(v)->len;
                } else {
                    l = (size_t)hv_num2str(vm, v->v.n, num);
                    p = num;
                }
                if (tl + l > vm->lim.max_string || tl + l < tl)
                    hv_error(L, "string length exceeds the limit of %u bytes", vm->lim.max_string);
                if (l) {
                    char *b = hv_bytes_reserve(L, &vm->scratch, &vm->scratch_cap, tl + l, 256);
                    memcpy(b + tl, p, l);
                    tl += l;
                }
            }
            hv_str *s = hv_str_new(L, tl ? vm->scratch : "", tl);
            hv_setgc(top - n, HV_TSTR, s);
        }
        total -= n - 1;
        last -= n - 1;
    } while (total > 1);
}

/* Bit operators of Black Ops 3 work on the numbers as 32-bit integers. */
static inline uint32_t to_u32(double d)
{
    if (!(d == d) || d >= 18446744073709551616.0 || d <= -9223372036854775808.0)
        return 0;
    return (uint32_t)(int64_t)d;
}

static _Noreturn void bad_pc(hv_thread *L)
{
    hv_error(L, "VM Kernel error: invalid instruction pointer.");
}

static _Noreturn void bad_op(hv_thread *L, uint32_t raw)
{
    hv_error(L, "invalid opcode %u", (unsigned)(raw >> 25));
}

static _Noreturn void for_error(hv_thread *L, const char *what)
{
    hv_error(L, "'for' %s must be a number", what);
}

/* The budget's slow path, reached when the step counter runs out: ends the
 * run at a limit, preempts (returns true: the caller saves its pc and
 * returns HV_BUDGET), or re-arms the counter and lets the instruction run. */
static bool budget_core(hv_thread *L, bool may_preempt)
{
    hv_vm *vm = L->vm;
    uint64_t done = vm->slice_end_steps - (uint64_t)(vm->steps_left + 1);
    vm->steps = done;
    if (vm->lim.max_instructions && done >= vm->lim.max_instructions) {
        vm->steps_left = 0;
        hv_stack_check(L, 1);
        hv_pushcstr(L, "instruction limit reached");
        vm->at_fetch = true;
        hv_throw(L, HV_ERRLIMIT);
    }
    uint64_t next = UINT64_MAX;
    if (vm->slice) {
        uint64_t end = (uint64_t)vm->slice;
        if (done >= end) {
            if (may_preempt && L == vm->main && L->nny == 0 && vm->running == NULL) {
                /* executed = slice_end_steps - steps_left (hv_steps) */
                vm->slice_end_steps = done;
                vm->steps_left = 0;
                return true;
            }
            next = done + 1000; /* deferred until control is back at the top */
        } else {
            next = end;
        }
    }
    if (vm->lim.max_instructions && vm->lim.max_instructions < next)
        next = vm->lim.max_instructions;
    if (next - done > ((uint64_t)1 << 40))
        next = done + ((uint64_t)1 << 40);
    vm->slice_end_steps = next;
    vm->steps_left = (int64_t)(next - done) - 1; /* this instruction counts */
    return false;
}

bool hv_budget_slow(hv_thread *L)
{
    return budget_core(L, true);
}

/* The same for C code that charges steps (pattern matching): it cannot be
 * preempted, so an ended slice is honoured when control is back at the top. */
void hv_budget_slow_c(hv_thread *L)
{
    budget_core(L, false);
}

/* t[key] for a string key, through a chain of __index tables (at most
 * four): the field and method lookups of every class-style script
 * (obj:method() finds the method in the class its metatable's __index
 * names, or in that class's base class).  NULL: the general path
 * (hv_gettable) decides, e.g. when an __index is a function. */
static inline const hv_value *fast_getstr(hv_vm *vm, hv_table *t, const hv_str *key)
{
    for (int depth = 0; depth < 4; depth++) {
        const hv_value *v = hv_table_getstr(t, key);
        hv_table *mt = t->meta;
        if (!hv_isnil(v) || !mt || (mt->nomm & (1u << TM_INDEX)))
            return v;
        const hv_value *tm = hv_table_getstr(mt, vm->tmname[TM_INDEX]);
        if (hv_isnil(tm)) {
            mt->nomm |= 1u << TM_INDEX;
            return v;
        }
        if (tm->tt != HV_TTAB)
            return NULL;
        t = hv_tabv(tm);
    }
    return NULL;
}

/* x % y as Lua 5.1 computes it, x - floor(x / y) * y, with the floor
 * inline: glibc's floor is a call, and `i % n` in a loop is common.  Below
 * 2^52 in magnitude the truncated quotient, one less when it overshoots, is
 * the floor (a zero keeps the quotient's sign, as floor(-0.0) is -0.0); at
 * or above 2^52 every double is integral already, and NaN stays NaN.  (An
 * integer remainder for integral operands, or a multiply by 1/y, measured
 * no faster: the checks cost what the shorter chain saves.) */
static inline double num_mod(double x, double y)
{
    double q = x / y, f = q;
    if (fabs(q) < 4503599627370496.0) {
        f = (double)(int64_t)q;
        if (f > q)
            f -= 1.0;
        else if (f == 0.0)
            f = copysign(0.0, q);
    }
    return x - f * y;
}

/* Raw equality of two values of one tag up to TSTR (nil, boolean, light
 * userdata, number, interned string), inline for EQ's common case. */
static inline bool raweq_basic(const hv_value *a, const hv_value *b)
{
    switch (a->tt) {
    case HV_TNUM: return a->v.n == b->v.n;
    case HV_TNIL: return true;
    case HV_TBOOL: return a->v.b == b->v.b;
    default: return a->v.u == b->v.u; /* light userdata, string */
    }
}

#define HV_EXEC_NAME exec_f64
#define HV_F32 0
#define HV_CHECKED 0
#include "hks/vm_exec_loop.inc"
#define HV_EXEC_NAME exec_f32
#define HV_F32 1
#define HV_CHECKED 0
#include "hks/vm_exec_loop.inc"
#define HV_EXEC_NAME exec_f64_checked
#define HV_F32 0
#define HV_CHECKED 1
#include "hks/vm_exec_loop.inc"
#define HV_EXEC_NAME exec_f32_checked
#define HV_F32 1
#define HV_CHECKED 1
#include "hks/vm_exec_loop.inc"

int hv_execute(hv_thread *L)
{
    hv_vm *vm = L->vm;
    if (vm->checked)
        return vm->f32 ? exec_f32_checked(L) : exec_f64_checked(L);
    return vm->f32 ? exec_f32(L) : exec_f64(L);
}
