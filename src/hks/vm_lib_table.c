/* The table, math and coroutine libraries of Lua 5.1. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hks/vm.h"

/* ---- table ---- */

static int t_insert(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "insert");
    int64_t e = (int64_t)hv_table_len(t) + 1;
    int64_t pos;
    if (n == 2) {
        pos = e;
    } else if (n == 3) {
        pos = hv_checkint(L, n, 1, "insert");
        if (pos > e)
            e = pos;
        for (int64_t i = e; i > pos; i--) {
            hv_value v = *hv_table_getint(t, i - 1);
            *hv_table_setint(L, t, i) = v;
        }
    } else {
        hv_error(L, "wrong number of arguments to 'insert'");
    }
    hv_value v = *HV_ARG(L, n - 1);
    *hv_table_setint(L, t, pos) = v;
    return 0;
}

static int t_remove(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "remove");
    int64_t e = hv_table_len(t);
    int64_t pos = hv_optint(L, n, 1, "remove", e);
    if (e == 0)
        return 0;
    hv_value r = *hv_table_getint(t, pos);
    for (; pos < e; pos++) {
        hv_value v = *hv_table_getint(t, pos + 1);
        *hv_table_setint(L, t, pos) = v;
    }
    hv_setnil(hv_table_setint(L, t, e));
    hv_push(L, &r);
    return 1;
}

static int t_concat(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "concat");
    hv_str *sep = n > 1 && !hv_isnil(HV_ARG(L, 1)) ? hv_checkstr(L, n, 1, "concat") : NULL;
    int64_t i = hv_optint(L, n, 2, "concat", 1);
    int64_t last = n > 3 && !hv_isnil(HV_ARG(L, 3)) ? hv_checkint(L, n, 3, "concat")
                                                    : (int64_t)hv_table_len(t);
    hv_buf b;
    hv_buf_init(L, &b);
    for (; i <= last; i++) {
        hv_value v = *hv_table_getint(t, i);
        if (v.tt == HV_TNUM) {
            char nb[40];
            int k = hv_num2str(L->vm, v.v.n, nb);
            hv_buf_add(L, &b, nb, (size_t)k);
        } else if (v.tt == HV_TSTR) {
            hv_buf_add(L, &b, hv_strv(&v)->data, hv_strv(&v)->len);
        } else {
            hv_error(L, "invalid value (at index %lld) in table for 'concat'", (long long)i);
        }
        if (i != last && sep)
            hv_buf_add(L, &b, sep->data, sep->len);
    }
    hv_pushlstr(L, b.p ? b.p : "", b.n);
    hv_buf_free(L, &b);
    return 1;
}

static int t_getn(hv_thread *L, int n)
{
    hv_pushnum(L, hv_table_len(hv_checktab(L, n, 0, "getn")));
    return 1;
}

static int t_maxn(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "maxn");
    double max = 0;
    hv_value kv[2];
    hv_setnil(&kv[0]);
    while (hv_table_next(L, t, kv))
        if (kv[0].tt == HV_TNUM && kv[0].v.n > max)
            max = kv[0].v.n;
    hv_pushnum(L, max);
    return 1;
}

/* sort: Lua 5.1's quicksort (median of three, the same comparisons in the
 * same order, so an inconsistent comparator behaves as it does there).
 * The table and the comparator stay on the stack as the call's arguments,
 * so they are rooted while the comparator runs. */
typedef struct sorter {
    hv_thread *L;
    int targ; /* stack index of the table */
    bool has_cmp;
} sorter;

static hv_value sget(sorter *s, int64_t i)
{
    return *hv_table_getint(hv_tabv(&s->L->stack[s->targ]), i);
}

static void sset(sorter *s, int64_t i, hv_value v)
{
    *hv_table_setint(s->L, hv_tabv(&s->L->stack[s->targ]), i) = v;
}

static bool sort_lt(sorter *s, hv_value a, hv_value b)
{
    hv_thread *L = s->L;
    if (!s->has_cmp)
        return hv_lessthan(L, &a, &b);
    hv_stack_check(L, 3);
    int f = L->top;
    L->stack[f] = L->stack[s->targ + 1];
    L->stack[f + 1] = a;
    L->stack[f + 2] = b;
    L->top = f + 3;
    hv_call(L, f, 1);
    bool r = !hv_isfalse(&L->stack[f]);
    L->top = f;
    return r;
}

static void auxsort(sorter *s, int64_t l, int64_t u)
{
    hv_thread *L = s->L;
    while (l < u) {
        hv_value a = sget(s, l), b = sget(s, u);
        if (sort_lt(s, b, a)) {
            sset(s, l, b);
            sset(s, u, a);
        }
        if (u - l == 1)
            break;
        int64_t i = (l + u) / 2;
        a = sget(s, i);
        b = sget(s, l);
        if (sort_lt(s, a, b)) {
            sset(s, i, b);
            sset(s, l, a);
        } else {
            b = sget(s, u);
            if (sort_lt(s, b, a)) {
                sset(s, i, b);
                sset(s, u, a);
            }
        }
        if (u - l == 2)
            break;
        hv_value P = sget(s, i);
        /* the pivot stays reachable: it is in the table at u - 1 */
        hv_value t2 = sget(s, u - 1);
        sset(s, i, t2);
        sset(s, u - 1, P);
        i = l;
        int64_t j = u - 1;
        for (;;) {
            while (sort_lt(s, (a = sget(s, ++i)), P)) {
                if (i > u)
                    hv_error(L, "invalid order function for sorting");
            }
            while (sort_lt(s, P, (b = sget(s, --j)))) {
                if (j < l)
                    hv_error(L, "invalid order function for sorting");
            }
            if (j < i)
                break;
            sset(s, i, b);
            sset(s, j, a);
        }
        a = sget(s, u - 1);
        b = sget(s, i);
        sset(s, u - 1, b);
        sset(s, i, a);
        if (i - l < u - i) {
            j = l;
            i = i - 1;
            l = i + 2;
        } else {
            j = i + 1;
            i = u;
            u = j - 2;
        }
        auxsort(s, j, i);
    }
}

static int t_sort(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "sort");
    int64_t len = hv_table_len(t);
    sorter s = {L, L->base, false};
    if (n > 1 && !hv_isnil(HV_ARG(L, 1))) {
        hv_value *c = HV_ARG(L, 1);
        if (c->tt != HV_TLFN && c->tt != HV_TCFN)
            hv_argerror(L, 1, "sort", "function expected");
        s.has_cmp = true;
    }
    L->top = L->base + 2;
    auxsort(&s, 1, len);
    return 0;
}

void hv_open_table(hv_thread *L)
{
    static const hv_libfn fns[] = {
        {"insert", t_insert}, {"remove", t_remove}, {"concat", t_concat},
        {"sort", t_sort},     {"getn", t_getn},     {"maxn", t_maxn},
    };
    hv_open_lib(L, "table", 8, fns, HV_NFNS(fns));
}

/* ---- math ---- */

#define MATH1(name, expr) \
    static int m_##name(hv_thread *L, int n) \
    { \
        double x = hv_checknum(L, n, 0, #name); \
        hv_pushnum(L, hv_round(L->vm, (expr))); \
        return 1; \
    }
MATH1(abs, fabs(x))
MATH1(ceil, ceil(x))
MATH1(floor, floor(x))
MATH1(sqrt, sqrt(x))
MATH1(sin, sin(x))
MATH1(cos, cos(x))
MATH1(tan, tan(x))
MATH1(asin, asin(x))
MATH1(acos, acos(x))
MATH1(atan, atan(x))
MATH1(exp, exp(x))
MATH1(log, log(x))
MATH1(log10, log10(x))
MATH1(sinh, sinh(x))
MATH1(cosh, cosh(x))
MATH1(tanh, tanh(x))
MATH1(deg, x * (180.0 / 3.14159265358979323846))
MATH1(rad, x * (3.14159265358979323846 / 180.0))
#undef MATH1

static int m_atan2(hv_thread *L, int n)
{
    hv_pushnum(L, hv_round(L->vm, atan2(hv_checknum(L, n, 0, "atan2"), hv_checknum(L, n, 1, "atan2"))));
    return 1;
}
static int m_pow(hv_thread *L, int n)
{
    hv_pushnum(L, hv_round(L->vm, pow(hv_checknum(L, n, 0, "pow"), hv_checknum(L, n, 1, "pow"))));
    return 1;
}
static int m_fmod(hv_thread *L, int n)
{
    hv_pushnum(L, hv_round(L->vm, fmod(hv_checknum(L, n, 0, "fmod"), hv_checknum(L, n, 1, "fmod"))));
    return 1;
}
static int m_modf(hv_thread *L, int n)
{
    double ip;
    double f = modf(hv_checknum(L, n, 0, "modf"), &ip);
    hv_pushnum(L, ip);
    hv_pushnum(L, f);
    return 2;
}
static int m_frexp(hv_thread *L, int n)
{
    int e;
    hv_pushnum(L, frexp(hv_checknum(L, n, 0, "frexp"), &e));
    hv_pushnum(L, e);
    return 2;
}
static int m_ldexp(hv_thread *L, int n)
{
    hv_pushnum(L, hv_round(L->vm, ldexp(hv_checknum(L, n, 0, "ldexp"),
                                       (int)hv_checkint(L, n, 1, "ldexp"))));
    return 1;
}
static int m_min(hv_thread *L, int n)
{
    double m = hv_checknum(L, n, 0, "min");
    for (int i = 1; i < n; i++) {
        double d = hv_checknum(L, n, i, "min");
        if (d < m)
            m = d;
    }
    hv_pushnum(L, m);
    return 1;
}
static int m_max(hv_thread *L, int n)
{
    double m = hv_checknum(L, n, 0, "max");
    for (int i = 1; i < n; i++) {
        double d = hv_checknum(L, n, i, "max");
        if (d > m)
            m = d;
    }
    hv_pushnum(L, m);
    return 1;
}

/* A generator of the VM's own (splitmix64), seeded per VM: runs are
 * reproducible and VMs do not share state. */
static double rnd(hv_vm *vm)
{
    uint64_t z = (vm->seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static int m_random(hv_thread *L, int n)
{
    double r = rnd(L->vm);
    if (n == 0) {
        hv_pushnum(L, hv_round(L->vm, r));
        return 1;
    }
    int64_t lo = 1, up;
    if (n == 1) {
        up = hv_checkint(L, n, 0, "random");
    } else {
        lo = hv_checkint(L, n, 0, "random");
        up = hv_checkint(L, n, 1, "random");
    }
    if (lo > up)
        hv_argerror(L, n == 1 ? 0 : 1, "random", "interval is empty");
    hv_pushnum(L, floor(r * (double)(up - lo + 1)) + (double)lo);
    return 1;
}

static int m_randomseed(hv_thread *L, int n)
{
    L->vm->seed = (uint64_t)hv_checkint(L, n, 0, "randomseed");
    return 0;
}

void hv_open_math(hv_thread *L)
{
    static const hv_libfn fns[] = {
        {"abs", m_abs},     {"ceil", m_ceil},   {"floor", m_floor}, {"sqrt", m_sqrt},
        {"sin", m_sin},     {"cos", m_cos},     {"tan", m_tan},     {"asin", m_asin},
        {"acos", m_acos},   {"atan", m_atan},   {"atan2", m_atan2}, {"exp", m_exp},
        {"log", m_log},     {"log10", m_log10}, {"pow", m_pow},     {"fmod", m_fmod},
        {"modf", m_modf},   {"frexp", m_frexp}, {"ldexp", m_ldexp}, {"min", m_min},
        {"max", m_max},     {"random", m_random}, {"randomseed", m_randomseed},
        {"sinh", m_sinh},   {"cosh", m_cosh},   {"tanh", m_tanh},   {"deg", m_deg},
        {"rad", m_rad},
    };
    hv_table *m = hv_open_lib(L, "math", 32, fns, HV_NFNS(fns));
    hv_value v;
    hv_setnum(&v, hv_round(L->vm, 3.14159265358979323846));
    *hv_table_setstr(L, m, hv_str_cstr(L, "pi")) = v;
    hv_setnum(&v, HUGE_VAL);
    *hv_table_setstr(L, m, hv_str_cstr(L, "huge")) = v;
}

/* ---- coroutine ---- */

static hv_thread *check_co(hv_thread *L, int n, int i, const char *fn)
{
    if (i >= n || HV_ARG(L, i)->tt != HV_TTHREAD)
        hv_argerror(L, i, fn, "coroutine expected");
    return (hv_thread *)HV_ARG(L, i)->v.gc;
}

static int co_create(hv_thread *L, int n)
{
    if (n < 1 || (HV_ARG(L, 0)->tt != HV_TLFN && HV_ARG(L, 0)->tt != HV_TCFN))
        hv_argerror(L, 0, "create", "Lua function expected");
    hv_thread *co = hv_thread_new(L);
    co->stack[0] = *HV_ARG(L, 0);
    co->top = 1;
    hv_value v;
    hv_setgc(&v, HV_TTHREAD, co);
    hv_push(L, &v);
    return 1;
}

static const char *co_status_of(hv_thread *L, hv_thread *co)
{
    if (co == L)
        return "running";
    if (co->dead)
        return "dead";
    if (co->resumer)
        return "normal";
    return "suspended";
}

/* Resumes co with the arguments above it; pushes true + results or
 * false + message.  Returns the count, or -1 (a wrap raises instead). */
static int aux_resume(hv_thread *L, hv_thread *co, int first, int nargs, bool wrap)
{
    const char *st = co_status_of(L, co);
    if (strcmp(st, "suspended") != 0) {
        if (wrap)
            hv_error(L, "cannot resume %s coroutine", st);
        hv_pushbool(L, 0);
        char m[64];
        snprintf(m, sizeof m, "cannot resume %s coroutine", st);
        hv_pushcstr(L, m);
        return 2;
    }
    L->top = first + nargs;
    int before = first;
    int rc = hv_resume(L, co, nargs);
    int nres = L->top - before;
    if (rc == HV_OK || rc == HV_YIELD) {
        if (wrap)
            return nres;
        hv_stack_check(L, 1);
        for (int i = L->top; i > before; i--)
            L->stack[i] = L->stack[i - 1];
        hv_setbool(&L->stack[before], 1);
        L->top++;
        return nres + 1;
    }
    if (wrap) {
        /* propagate the error, with its position as Lua 5.1's wrap does */
        hv_error_value(L);
    }
    hv_value err = L->stack[L->top - 1];
    L->top = before;
    hv_pushbool(L, 0);
    hv_push(L, &err);
    return 2;
}

static int co_resume(hv_thread *L, int n)
{
    hv_thread *co = check_co(L, n, 0, "resume");
    return aux_resume(L, co, L->base + 1, n - 1, false);
}

static int co_wrap_aux(hv_thread *L, int n)
{
    hv_cfn *self = (hv_cfn *)L->stack[L->base - 1].v.gc;
    hv_thread *co = (hv_thread *)self->up[0].v.gc;
    return aux_resume(L, co, L->base, n, true);
}

static int co_wrap(hv_thread *L, int n)
{
    co_create(L, n);
    hv_value co = L->stack[L->top - 1];
    hv_cfn *f = hv_cfn_new(L, co_wrap_aux, "wrap", 1);
    f->up[0] = co;
    hv_value v;
    hv_setgc(&v, HV_TCFN, f);
    L->stack[L->top - 1] = v;
    return 1;
}

static int co_yield(hv_thread *L, int n)
{
    if (L == L->vm->main || L->nny > 0 || L->vm->running != L)
        hv_error(L, "attempt to yield across metamethod/C-call boundary");
    L->base = L->top - n; /* the yielded values */
    return -1;
}

static int co_status(hv_thread *L, int n)
{
    hv_thread *co = check_co(L, n, 0, "status");
    hv_pushcstr(L, co_status_of(L, co));
    return 1;
}

static int co_running(hv_thread *L, int n)
{
    (void)n;
    if (L == L->vm->main) {
        hv_pushnil(L);
        return 1;
    }
    hv_value v;
    hv_setgc(&v, HV_TTHREAD, L);
    hv_push(L, &v);
    return 1;
}

void hv_open_coroutine(hv_thread *L)
{
    static const hv_libfn fns[] = {
        {"create", co_create}, {"resume", co_resume}, {"yield", co_yield},
        {"status", co_status}, {"wrap", co_wrap},     {"running", co_running},
    };
    hv_open_lib(L, "coroutine", 8, fns, HV_NFNS(fns));
}
