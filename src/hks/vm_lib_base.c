/* The base library a Lua 5.1 program expects (print, type, pairs, pcall,
 * error, setmetatable, ...) and the helpers every library's C functions use
 * to read their arguments.  No loadstring, dofile or getfenv: a script gets
 * nothing that reaches outside its VM unless the host adds it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/vm.h"

/* ---- argument helpers ---- */

_Noreturn void hv_argerror(hv_thread *L, int i, const char *fn, const char *msg)
{
    /* like Lua 5.1, a function called from C (pcall(string.rep)) has no name */
    if (L->ci > L->cis && !(L->ci - 1)->is_lua)
        fn = "?";
    hv_error(L, "bad argument #%d to '%s' (%s)", i + 1, fn, msg);
}

static _Noreturn void type_expected(hv_thread *L, int nargs, int i, const char *fn,
                                    const char *tname)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s expected, got %s", tname,
             i < nargs ? hv_typename(HV_ARG(L, i)) : "no value");
    hv_argerror(L, i, fn, msg);
}

double hv_checknum_(hv_thread *L, int nargs, int i, const char *fn)
{
    double d;
    if (i >= nargs || !hv_tonumber(HV_ARG(L, i), &d))
        type_expected(L, nargs, i, fn, "number");
    return d;
}

double hv_optnum(hv_thread *L, int nargs, int i, const char *fn, double def)
{
    if (i >= nargs || hv_isnil(HV_ARG(L, i)))
        return def;
    return hv_checknum(L, nargs, i, fn);
}

static int64_t num2int(double d)
{
    if (!(d == d))
        return 0;
    if (d >= 9.2e18)
        return INT64_MAX;
    if (d <= -9.2e18)
        return INT64_MIN;
    return (int64_t)d;
}

int64_t hv_checkint_(hv_thread *L, int nargs, int i, const char *fn)
{
    return num2int(hv_checknum(L, nargs, i, fn));
}

hv_str *hv_checkstr_(hv_thread *L, int nargs, int i, const char *fn)
{
    if (i >= nargs)
        type_expected(L, nargs, i, fn, "string");
    hv_value *v = HV_ARG(L, i);
    if (v->tt == HV_TNUM)
        hv_tostring_inplace(L, v);
    if (v->tt != HV_TSTR)
        type_expected(L, nargs, i, fn, "string");
    return hv_strv(v);
}

hv_table *hv_checktab(hv_thread *L, int nargs, int i, const char *fn)
{
    if (i >= nargs || HV_ARG(L, i)->tt != HV_TTAB)
        type_expected(L, nargs, i, fn, "table");
    return hv_tabv(HV_ARG(L, i));
}

void hv_checkany(hv_thread *L, int nargs, int i, const char *fn)
{
    if (i >= nargs)
        hv_argerror(L, i, fn, "value expected");
}

void hv_register(hv_thread *L, hv_table *t, const char *name, hv_cfunc f)
{
    hv_cfn *c = hv_cfn_new(L, f, name, 0);
    hv_value v;
    hv_setgc(&v, HV_TCFN, c);
    hv_str *k = hv_str_cstr(L, name);
    *hv_table_setstr(L, t, k) = v;
}

hv_table *hv_open_lib(hv_thread *L, const char *name, int nhash, const hv_libfn *fns, size_t n)
{
    hv_table *t = L->vm->globals;
    if (name) {
        t = hv_table_new(L, 0, nhash);
        hv_value tv;
        hv_setgc(&tv, HV_TTAB, t);
        *hv_table_setstr(L, L->vm->globals, hv_str_cstr(L, name)) = tv;
    }
    for (size_t i = 0; i < n; i++)
        hv_register(L, t, fns[i].name, fns[i].f);
    return t;
}

/* ---- tostring ---- */

void hv_tostring(hv_thread *L, int idx)
{
    hv_value *o = &L->stack[idx];
    const hv_value *tm = hv_gettm(L, o, TM_TOSTRING);
    if (tm) {
        hv_stack_check(L, 2);
        int f = L->top;
        L->stack[f] = *tm;
        L->stack[f + 1] = L->stack[idx];
        L->top = f + 2;
        hv_call(L, f, 1);
        if (L->stack[f].tt != HV_TSTR && L->stack[f].tt != HV_TNUM)
            hv_error(L, "'__tostring' must return a string");
        hv_tostring_inplace(L, &L->stack[f]);
        return;
    }
    char b[64];
    switch (o->tt) {
    case HV_TNUM: hv_pushstr(L, hv_tostr_num(L, o->v.n)); return;
    case HV_TSTR: hv_push(L, o); return;
    case HV_TNIL: hv_pushcstr(L, "nil"); return;
    case HV_TBOOL: hv_pushcstr(L, o->v.b ? "true" : "false"); return;
    case HV_TLUD: snprintf(b, sizeof b, "0x%llxhi", (unsigned long long)o->v.u); break;
    case HV_TUI64: snprintf(b, sizeof b, "0x%llxhl", (unsigned long long)o->v.u); break;
    default: snprintf(b, sizeof b, "%s: %p", hv_typename(o), (void *)o->v.gc); break;
    }
    hv_pushcstr(L, b);
}

/* ---- the functions ---- */

static int b_print(hv_thread *L, int n)
{
    hv_stack_check(L, n + 4);
    int first = L->top;
    for (int i = 0; i < n; i++) {
        hv_tostring(L, L->base + i);
        /* hv_tostring left the string at first + i */
        if (L->top != first + i + 1) {
            L->stack[first + i] = L->stack[L->top - 1];
            L->top = first + i + 1;
        }
    }
    if (L->vm->print)
        L->vm->print(L->vm->print_ctx, L, first, n);
    L->top = first;
    return 0;
}

static int b_type(hv_thread *L, int n)
{
    hv_checkany(L, n, 0, "type");
    hv_value *v = HV_ARG(L, 0);
    int t = v->tt == HV_TLFN || v->tt == HV_TCFN ? HV_TFUNC : (int)v->tt;
    hv_pushstr(L, L->vm->typenames[t]);
    return 1;
}

static int b_tostring(hv_thread *L, int n)
{
    hv_checkany(L, n, 0, "tostring");
    hv_tostring(L, L->base);
    return 1;
}

static int b_tonumber(hv_thread *L, int n)
{
    int64_t base = hv_optint(L, n, 1, "tonumber", 10);
    hv_checkany(L, n, 0, "tonumber");
    hv_value *v = HV_ARG(L, 0);
    double d;
    if (base == 10) {
        if (hv_tonumber(v, &d)) {
            hv_pushnum(L, hv_round(L->vm, d));
            return 1;
        }
    } else {
        if (base < 2 || base > 36)
            hv_argerror(L, 1, "tonumber", "base out of range");
        hv_str *s = hv_checkstr(L, n, 0, "tonumber");
        char *end;
        unsigned long long u = strtoull(s->data, &end, (int)base);
        if (end != s->data) {
            while (*end == ' ' || (*end >= '\t' && *end <= '\r'))
                end++;
            if (*end == 0 && (size_t)(end - s->data) == s->len) {
                hv_pushnum(L, hv_round(L->vm, (double)u));
                return 1;
            }
        }
    }
    hv_pushnil(L);
    return 1;
}

static int b_next(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "next");
    hv_stack_check(L, 2);
    hv_value kv[2];
    kv[0] = n > 1 ? *HV_ARG(L, 1) : hv_nilobject;
    if (hv_table_next(L, t, kv)) {
        hv_push(L, &kv[0]);
        hv_push(L, &kv[1]);
        return 2;
    }
    hv_pushnil(L);
    return 1;
}

static int b_pairs(hv_thread *L, int n)
{
    hv_checktab(L, n, 0, "pairs");
    hv_value t = *HV_ARG(L, 0);
    hv_push(L, &L->vm->registry->arr[0]); /* next (registry[1]) */
    hv_push(L, &t);
    hv_pushnil(L);
    return 3;
}

static int ipairs_aux(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "ipairs");
    int64_t i = hv_checkint(L, n, 1, "ipairs") + 1;
    const hv_value *v = hv_table_getint(t, i);
    if (hv_isnil(v))
        return 0;
    hv_value vv = *v;
    hv_pushnum(L, (double)i);
    hv_push(L, &vv);
    return 2;
}

static int b_ipairs(hv_thread *L, int n)
{
    hv_checktab(L, n, 0, "ipairs");
    hv_value t = *HV_ARG(L, 0);
    hv_push(L, &L->vm->registry->arr[1]); /* ipairs_aux (registry[2]) */
    hv_push(L, &t);
    hv_pushnum(L, 0);
    return 3;
}

static int b_select(hv_thread *L, int n)
{
    hv_value *v = n > 0 ? HV_ARG(L, 0) : NULL;
    if (v && v->tt == HV_TSTR && hv_strv(v)->len == 1 && hv_strv(v)->data[0] == '#') {
        hv_pushnum(L, n - 1);
        return 1;
    }
    int64_t i = hv_checkint(L, n, 0, "select");
    if (i < 0)
        i = n + i;
    else if (i > n - 1)
        i = n - 1;
    if (i < 1)
        hv_argerror(L, 0, "select", "index out of range");
    return (int)(n - i);
}

static int b_rawget(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "rawget");
    hv_checkany(L, n, 1, "rawget");
    hv_value v = *hv_table_get(t, HV_ARG(L, 1));
    hv_push(L, &v);
    return 1;
}

static int b_rawset(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "rawset");
    hv_checkany(L, n, 2, "rawset");
    hv_value k = *HV_ARG(L, 1), v = *HV_ARG(L, 2);
    *hv_table_set(L, t, &k) = v;
    hv_push(L, HV_ARG(L, 0));
    return 1;
}

static int b_rawequal(hv_thread *L, int n)
{
    hv_checkany(L, n, 1, "rawequal");
    hv_pushbool(L, hv_rawequal(HV_ARG(L, 0), HV_ARG(L, 1)));
    return 1;
}

static int b_setmetatable(hv_thread *L, int n)
{
    hv_value *o = n > 0 ? HV_ARG(L, 0) : NULL;
    if (!o || (o->tt != HV_TTAB && o->tt != HV_TSTRUCT))
        type_expected(L, n, 0, "setmetatable", "table");
    hv_value *m = n > 1 ? HV_ARG(L, 1) : NULL;
    if (m && m->tt == HV_TSTRUCT && o->tt == HV_TSTRUCT) {
        /* a metastructure goes to the structure's __structmeta slot */
        hv_struct *s = (hv_struct *)o->v.gc;
        if (s->metaslot < 0)
            hv_argerror(L, 1, "setmetatable", "the structure has no metastructure slot");
        s->slot[s->metaslot] = *m;
        s->meta = NULL;
        hv_push(L, HV_ARG(L, 0));
        return 1;
    }
    if (!m || (m->tt != HV_TNIL && m->tt != HV_TTAB))
        hv_argerror(L, 1, "setmetatable", "nil or table expected");
    if (o->tt == HV_TSTRUCT && ((hv_struct *)o->v.gc)->metaslot >= 0)
        hv_setnil(&((hv_struct *)o->v.gc)->slot[((hv_struct *)o->v.gc)->metaslot]);
    hv_table *old = hv_getmeta(L, o);
    if (old) {
        hv_str *k = hv_str_cstr(L, "__metatable");
        if (!hv_isnil(hv_table_getstr(old, k)))
            hv_error(L, "cannot change a protected metatable");
    }
    hv_table *mt = m->tt == HV_TTAB ? hv_tabv(m) : NULL;
    if (o->tt == HV_TTAB)
        hv_tabv(o)->meta = mt;
    else
        ((hv_struct *)o->v.gc)->meta = mt;
    if (mt)
        mt->nomm = 0;
    hv_push(L, HV_ARG(L, 0));
    return 1;
}

static int b_getmetatable(hv_thread *L, int n)
{
    hv_checkany(L, n, 0, "getmetatable");
    if (HV_ARG(L, 0)->tt == HV_TSTRUCT && hv_struct_meta((hv_struct *)HV_ARG(L, 0)->v.gc)) {
        hv_value v = *hv_struct_meta((hv_struct *)HV_ARG(L, 0)->v.gc);
        hv_push(L, &v);
        return 1;
    }
    hv_table *mt = hv_getmeta(L, HV_ARG(L, 0));
    if (!mt) {
        hv_pushnil(L);
        return 1;
    }
    hv_str *k = hv_str_cstr(L, "__metatable");
    const hv_value *p = hv_table_getstr(mt, k);
    if (!hv_isnil(p)) {
        hv_value v = *p;
        hv_push(L, &v);
    } else {
        hv_value v;
        hv_setgc(&v, HV_TTAB, mt);
        hv_push(L, &v);
    }
    return 1;
}

static int b_assert(hv_thread *L, int n)
{
    hv_checkany(L, n, 0, "assert");
    if (hv_isfalse(HV_ARG(L, 0))) {
        if (n > 1 && HV_ARG(L, 1)->tt == HV_TSTR)
            hv_error(L, "%s", hv_strv(HV_ARG(L, 1))->data);
        hv_error(L, "%s", "assertion failed!");
    }
    return n;
}

static int b_error(hv_thread *L, int n)
{
    int64_t level = hv_optint(L, n, 1, "error", 1);
    hv_value msg = n > 0 ? *HV_ARG(L, 0) : hv_nilobject;
    if (msg.tt == HV_TSTR && level > 0) {
        char where[160];
        hv_where_here(L, (int)level, where, sizeof where);
        if (where[0]) {
            hv_buf b;
            hv_buf_init(L, &b);
            hv_buf_add(L, &b, where, strlen(where));
            hv_buf_add(L, &b, hv_strv(&msg)->data, hv_strv(&msg)->len);
            hv_str *s = hv_str_new(L, b.p, b.n);
            hv_buf_free(L, &b);
            hv_setgc(&msg, HV_TSTR, s);
        }
    }
    hv_push(L, &msg);
    hv_error_value(L);
}

static int b_pcall(hv_thread *L, int n)
{
    hv_checkany(L, n, 0, "pcall");
    int func = L->base;
    int st = hv_pcall(L, func, -1);
    /* results (or the error value) start at func: put the status before them */
    int nres = L->top - func;
    hv_stack_check(L, 1);
    for (int i = L->top; i > func; i--)
        L->stack[i] = L->stack[i - 1];
    hv_setbool(&L->stack[func], st == HV_OK);
    L->top++;
    return nres + 1;
}

static int b_xpcall(hv_thread *L, int n)
{
    hv_checkany(L, n, 1, "xpcall");
    hv_value handler = *HV_ARG(L, 1);
    int func = L->base;
    L->top = func + 1; /* f, called without arguments (Lua 5.1) */
    int st = hv_pcall(L, func, -1);
    if (st == HV_OK) {
        int nres = L->top - func;
        hv_stack_check(L, 1);
        for (int i = L->top; i > func; i--)
            L->stack[i] = L->stack[i - 1];
        hv_setbool(&L->stack[func], 1);
        L->top++;
        return nres + 1;
    }
    hv_value err = L->stack[func];
    hv_stack_check(L, 3);
    hv_setbool(&L->stack[func], 0);
    L->stack[func + 1] = handler;
    L->stack[func + 2] = err;
    L->top = func + 3;
    hv_call(L, func + 1, 1);
    L->top = func + 2;
    return 2;
}

static int b_unpack(hv_thread *L, int n)
{
    hv_table *t = hv_checktab(L, n, 0, "unpack");
    int64_t i = hv_optint(L, n, 1, "unpack", 1);
    int64_t e = n > 2 && !hv_isnil(HV_ARG(L, 2)) ? hv_checkint(L, n, 2, "unpack")
                                                 : (int64_t)hv_table_len(t);
    if (i > e)
        return 0;
    int64_t cnt = e - i + 1;
    if (cnt <= 0 || cnt >= 100000)
        hv_error(L, "too many results to unpack");
    hv_stack_check(L, (int)cnt);
    for (int64_t j = i; j <= e; j++) {
        hv_value v = *hv_table_getint(t, j);
        hv_push(L, &v);
    }
    return (int)cnt;
}

static int b_collectgarbage(hv_thread *L, int n)
{
    const char *opt = n > 0 ? hv_checkstr(L, n, 0, "collectgarbage")->data : "collect";
    if (strcmp(opt, "count") == 0) {
        hv_pushnum(L, (double)L->vm->bytes / 1024.0);
        return 1;
    }
    if (strcmp(opt, "collect") == 0 || strcmp(opt, "step") == 0) {
        hv_gc_collect(L);
        hv_pushnum(L, 0);
        return 1;
    }
    if (strcmp(opt, "stop") == 0 || strcmp(opt, "restart") == 0 || strcmp(opt, "setpause") == 0 ||
        strcmp(opt, "setstepmul") == 0) {
        hv_pushnum(L, 0);
        return 1;
    }
    hv_argerror(L, 0, "collectgarbage", "invalid option");
}

/* newproxy(false | true | proxy), Lua 5.1's way to a userdata: with no
 * metatable, a new empty one, or the one of another proxy (a userdata's
 * metatable can only come from newproxy, so any userdata with one is a
 * proxy).  Its metatable's __gc runs when it is collected. */
static int b_newproxy(hv_thread *L, int n)
{
    hv_value a = n > 0 ? *HV_ARG(L, 0) : hv_nilobject;
    hv_table *mt = NULL;
    if (a.tt == HV_TBOOL && a.v.b) {
        mt = hv_table_new(L, 0, 0);
    } else if (!hv_isfalse(&a)) {
        if (a.tt != HV_TUDATA || !((hv_udata *)a.v.gc)->meta)
            hv_argerror(L, 0, "newproxy", "boolean or proxy expected");
        mt = ((hv_udata *)a.v.gc)->meta;
    }
    hv_stack_check(L, 2);
    hv_value mv;
    if (mt) { /* rooted on the stack while the userdata is made */
        hv_setgc(&mv, HV_TTAB, mt);
        hv_push(L, &mv);
    }
    hv_udata *u = (hv_udata *)hv_newobj(L, HV_TUDATA, sizeof(hv_udata));
    u->meta = mt;
    hv_value v;
    hv_setgc(&v, HV_TUDATA, u);
    hv_push(L, &v);
    return 1;
}

void hv_open_base(hv_thread *L)
{
    static const hv_libfn fns[] = {
        {"print", b_print},       {"type", b_type},           {"tostring", b_tostring},
        {"tonumber", b_tonumber}, {"pairs", b_pairs},         {"ipairs", b_ipairs},
        {"select", b_select},     {"rawget", b_rawget},       {"rawset", b_rawset},
        {"rawequal", b_rawequal}, {"setmetatable", b_setmetatable},
        {"getmetatable", b_getmetatable}, {"assert", b_assert}, {"error", b_error},
        {"pcall", b_pcall},       {"xpcall", b_xpcall},       {"unpack", b_unpack},
        {"collectgarbage", b_collectgarbage},
    };
    hv_table *g = hv_open_lib(L, NULL, 0, fns, HV_NFNS(fns));
    /* next and ipairs' iterator live in the registry's array part, so that
     * pairs() returns the same next every time; the interpreter runs a
     * TFORLOOP over this next in place (tag -2) */
    hv_cfn *nx = hv_cfn_new(L, b_next, "next", 0);
    nx->tag = -2;
    hv_value v;
    hv_setgc(&v, HV_TCFN, nx);
    *hv_table_setint(L, L->vm->registry, 1) = v;
    *hv_table_setstr(L, g, hv_str_cstr(L, "next")) = v;
    hv_cfn *ia = hv_cfn_new(L, ipairs_aux, "ipairs", 0);
    hv_setgc(&v, HV_TCFN, ia);
    *hv_table_setint(L, L->vm->registry, 2) = v;
    hv_value gv;
    hv_setgc(&gv, HV_TTAB, g);
    *hv_table_setstr(L, g, hv_str_cstr(L, "_G")) = gv;
    hv_value ver;
    hv_setgc(&ver, HV_TSTR, hv_str_cstr(L, "Lua 5.1"));
    *hv_table_setstr(L, g, hv_str_cstr(L, "_VERSION")) = ver;
    hv_register(L, g, "newproxy", b_newproxy);
}
