/* Threads, stacks, calls, errors and coroutine resumption.
 *
 * Calls from Lua to Lua stay inside one hv_execute loop (a new frame, no C
 * recursion); C functions, metamethods and library callbacks enter the
 * interpreter again through hv_call, which counts as a C boundary: a
 * coroutine cannot yield across it (Lua 5.1's rule) and an instruction
 * budget that ends inside it is honoured when control is back at the top. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/isa.h"
#include "hks/vm.h"

enum { STACK_EXTRA = 8, MAX_STACK = 1000000 };

hv_thread *hv_thread_new(hv_thread *L)
{
    hv_thread *t = (hv_thread *)hv_newobj(L, HV_TTHREAD, sizeof(hv_thread));
    t->vm = L->vm;
    t->script_id = -1;
    /* the new object is unreachable until its creator stores it; no
     * collection can run before that (collections happen at safe points) */
    t->stack = hv_alloc(L, NULL, 0, 64 * sizeof(hv_value));
    t->stacksize = 64;
    for (int i = 0; i < 64; i++)
        hv_setnil(&t->stack[i]);
    t->cis = hv_alloc(L, NULL, 0, 8 * sizeof(hv_ci));
    t->nci_alloc = 8;
    t->ci_cap = hv_ci_cap(L->vm, 8);
    t->ncis = 1;
    t->ci = t->cis;
    memset(t->ci, 0, sizeof *t->ci);
    t->ci->top = STACK_EXTRA;
    t->top = 0;
    t->base = 0;
    return t;
}

void hv_thread_freeobj(hv_vm *vm, hv_thread *t)
{
    hv_free(vm, t->stack, (size_t)t->stacksize * sizeof(hv_value));
    hv_free(vm, t->cis, (size_t)t->nci_alloc * sizeof(hv_ci));
    hv_free(vm, t, sizeof *t);
}

void hv_stack_check(hv_thread *L, int n)
{
    int need = L->top + n + STACK_EXTRA;
    if (need <= L->stacksize)
        return;
    if (need > MAX_STACK)
        hv_error(L, "stack overflow");
    int ns = L->stacksize * 2;
    while (ns < need)
        ns *= 2;
    hv_value *old = L->stack;
    hv_value *s = hv_alloc(L, L->stack, (size_t)L->stacksize * sizeof(hv_value),
                           (size_t)ns * sizeof(hv_value));
    for (int i = L->stacksize; i < ns; i++)
        hv_setnil(&s[i]);
    L->stack = s;
    L->stacksize = ns;
    for (hv_upval *u = L->openup; u; u = u->next)
        u->v = s + (u->v - old);
}

static hv_ci *next_ci(hv_thread *L)
{
    if (L->ncis >= (int)L->vm->lim.max_call_depth)
        hv_error(L, "stack overflow (more than %u nested calls)", L->vm->lim.max_call_depth);
    if (L->ncis == L->nci_alloc) {
        int idx = (int)(L->ci - L->cis);
        int na = L->nci_alloc * 2;
        L->cis = hv_alloc(L, L->cis, (size_t)L->nci_alloc * sizeof(hv_ci), (size_t)na * sizeof(hv_ci));
        L->nci_alloc = na;
        L->ci_cap = hv_ci_cap(L->vm, na);
        L->ci = L->cis + idx;
    }
    L->ncis++;
    L->ci++;
    return L->ci;
}

/* ---- errors ---- */

static const char *chunkid(const hv_str *src, char *buf, size_t n)
{
    if (!src)
        return "?";
    const char *s = src->data;
    if (*s == '@' || *s == '=') {
        snprintf(buf, n, "%s", s + 1);
    } else {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len > 40)
            len = 40;
        snprintf(buf, n, "[string \"%.*s%s\"]", (int)len, s, (nl || strlen(s) > 40) ? "..." : "");
    }
    return buf;
}

int hv_currentline(hv_thread *L, hv_ci *ci)
{
    if (!ci->is_lua)
        return -1;
    hv_lfn *f = (hv_lfn *)L->stack[ci->func].v.gc;
    hv_proto *p = f->p;
    if (!p->lines)
        return -1;
    long pc = (long)(ci->pc - p->code) - 1;
    if (pc < 0)
        pc = 0;
    if ((uint32_t)pc >= p->ncode)
        return -1;
    return (int)p->lines[pc];
}

/* The Lua frame an error is reported against: the current one when the
 * interpreter raised it, else the one that called the running C function. */
static hv_ci *error_frame(hv_thread *L, int level)
{
    hv_ci *ci = L->ci;
    if (!ci->is_lua && ci > L->cis)
        ci--; /* the running C function reports against its caller */
    for (int i = 1; i < level && ci > L->cis; i++)
        ci--;
    return ci > L->cis && ci->is_lua ? ci : NULL;
}

void hv_where_here(hv_thread *L, int level, char *buf, size_t n)
{
    buf[0] = 0;
    hv_ci *ci = error_frame(L, level);
    if (!ci)
        return;
    int line = hv_currentline(L, ci);
    if (line > 0) {
        char id[96];
        hv_lfn *f = (hv_lfn *)L->stack[ci->func].v.gc;
        snprintf(buf, n, "%s:%d: ", chunkid(f->p->source, id, sizeof id), line);
    }
}

/* Records where a fault happened for the host (function, pc, line). */
static void note_where(hv_thread *L)
{
    hv_where *w = &L->vm->where;
    L->vm->where_set = true;
    memset(w, 0, sizeof *w);
    w->pc = -1;
    w->line = -1;
    hv_ci *ci = L->ci;
    while (ci > L->cis && !ci->is_lua)
        ci--;
    if (ci <= L->cis || !ci->is_lua)
        return;
    hv_lfn *f = (hv_lfn *)L->stack[ci->func].v.gc;
    hv_proto *p = f->p;
    /* at a fetch (a limit), the saved pc is the instruction about to run */
    long at_fetch = L->vm->at_fetch && ci == L->ci ? 1 : 0;
    L->vm->at_fetch = false;
    w->pc = (long)(ci->pc - p->code) - 1 + at_fetch;
    w->line = hv_currentline(L, ci);
    if (at_fetch && p->lines && (uint64_t)w->pc < p->ncode)
        w->line = (long)p->lines[w->pc];
    snprintf(w->function, sizeof w->function, "%s%s%s", p->path, p->name ? " " : "",
             p->name ? p->name->data : "");
    char id[96];
    snprintf(w->source, sizeof w->source, "%s", p->source ? chunkid(p->source, id, sizeof id) : "");
}

_Noreturn void hv_throw(hv_thread *L, int status)
{
    /* a limit passing out of a coroutine keeps where the coroutine was */
    if (status != HV_ERRRUN && !L->vm->where_set)
        note_where(L);
    if (!L->errjmp)
        abort(); /* every entry into the VM is protected: this is a bug */
    L->errjmp->status = status;
    longjmp(L->errjmp->b, 1);
}

_Noreturn void hv_error_value(hv_thread *L)
{
    note_where(L);
    hv_throw(L, HV_ERRRUN);
}

_Noreturn void hv_error(hv_thread *L, const char *fmt, ...)
{
    char msg[512], where[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hv_where_here(L, 1, where, sizeof where);
    char full[700];
    int n = snprintf(full, sizeof full, "%s%s", where, msg);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof full)
        n = (int)sizeof full - 1;
    if ((uint32_t)n > L->vm->lim.max_string)
        n = (int)L->vm->lim.max_string;
    if (L->top >= L->stacksize)
        L->top = L->stacksize - 1; /* a stack overflow's own message */
    hv_str *s = hv_str_new(L, full, (size_t)n);
    hv_pushstr(L, s);
    hv_error_value(L);
}

const char *hv_typename(const hv_value *o)
{
    static const char *const names[] = {"nil", "boolean", "userdata", "number", "string",
                                        "table", "function", "userdata", "thread", "function",
                                        "function", "ui64", "struct", "deadkey"};
    return o->tt < HV_NTAGS ? names[o->tt] : "?";
}

/* ---- variable names for messages, as Lua 5.1's getobjname finds them ---- */

static const char *dbg_str(const gsvm_hks_str *s)
{
    return s->size && s->data ? s->data : NULL;
}

/* the n-th (1-based) local active at pc */
static const char *local_name(const hv_proto *p, int n, uint32_t pc)
{
    if (!p->dbg)
        return NULL;
    for (uint32_t i = 0; i < p->dbg->nlocals && p->dbg->locals[i].startpc <= pc; i++) {
        const gsvm_hks_local *lv = &p->dbg->locals[i];
        if (pc < lv->endpc && --n == 0)
            return dbg_str(&lv->name);
    }
    return NULL;
}

static const char *k_name(const hv_proto *p, uint32_t rk)
{
    if (rk >= 256 && rk - 256 < p->nk && p->k[rk - 256].tt == HV_TSTR)
        return hv_strv(&p->k[rk - 256])->data;
    return "?";
}

/* The last instruction before lastpc that wrote register reg, following
 * forward jumps that do not pass lastpc (Lua 5.1's symbolic execution). */
static long last_writer(const hv_proto *p, uint32_t lastpc, uint32_t reg)
{
    long last = -1;
    for (uint32_t pc = 0; pc < lastpc; pc++) {
        uint32_t w = p->code[pc];
        unsigned op = w >> 25;
        if (op >= HKS_I_COUNT)
            continue;
        uint32_t a = GSVM_HKS_A(w);
        const char *wr = hks_ops[op].writes;
        if (op == HKS_I_JMP) {
            long dest = (long)pc + 1 + GSVM_HKS_SBX(w);
            if ((long)pc < dest && dest <= (long)lastpc)
                pc = (uint32_t)dest - 1;
            continue;
        }
        if (op == HKS_I_LOADNIL) {
            if (a <= reg && reg <= GSVM_HKS_B(w))
                last = pc;
        } else if (op == HKS_I_SELF || op == HKS_I_SELFSLOT || op == HKS_I_SELFSLOTMT) {
            if (reg == a || reg == a + 1)
                last = pc;
        } else if (wr[0] == 'A' && wr[1] == 0) {
            if (reg == a)
                last = pc;
        } else if (wr[0] == 'A') {
            if (reg >= a) /* calls, varargs: everything from A up */
                last = pc;
        } else if (op == HKS_I_TFORLOOP) {
            if (reg >= a + 2)
                last = pc;
        }
        pc += hks_data_words(NULL, op, w) * (op != HKS_I_CLOSURE);
        if (op == HKS_I_CLOSURE && GSVM_HKS_BX(w) < p->np)
            pc += p->p[GSVM_HKS_BX(w)]->nups;
    }
    return last;
}

/* "global", "local", "field", "upvalue" or "method" and the name, or NULL */
static const char *obj_name(const hv_proto *p, uint32_t pc, uint32_t reg, const char **name, int depth)
{
    *name = local_name(p, (int)reg + 1, pc);
    if (*name)
        return "local";
    long at = depth < 8 ? last_writer(p, pc, reg) : -1;
    if (at < 0)
        return NULL;
    uint32_t w = p->code[at];
    uint32_t a = GSVM_HKS_A(w), b = GSVM_HKS_B(w), c = GSVM_HKS_C(w);
    switch (w >> 25) {
    case HKS_I_GETGLOBAL:
    case HKS_I_GETGLOBAL_MEM: {
        uint32_t bx = GSVM_HKS_BX(w);
        if (bx < p->nk && p->k[bx].tt == HV_TSTR) {
            *name = hv_strv(&p->k[bx])->data;
            return "global";
        }
        return NULL;
    }
    case HKS_I_MOVE:
        if (b < a)
            return obj_name(p, (uint32_t)at, b, name, depth + 1);
        return NULL;
    case HKS_I_GETFIELD:
    case HKS_I_GETFIELD_R1:
    case HKS_I_GETFIELD_MM:
        *name = k_name(p, c + 256);
        return "field";
    case HKS_I_GETTABLE:
    case HKS_I_GETTABLE_S:
    case HKS_I_GETTABLE_N:
        *name = k_name(p, c);
        return "field";
    case HKS_I_GETUPVAL:
        *name = p->dbg && b < p->dbg->nupnames ? dbg_str(&p->dbg->upnames[b]) : NULL;
        if (!*name)
            *name = "?";
        return "upvalue";
    case HKS_I_SELF:
        if (reg != a)
            return NULL;
        *name = k_name(p, c);
        return "method";
    default: return NULL;
    }
}

_Noreturn void hv_typeerror(hv_thread *L, const hv_value *o, const char *op)
{
    hv_ci *ci = L->ci;
    if (ci->is_lua && o >= L->stack + ci->base && o < L->stack + ci->top) {
        hv_proto *p = ((hv_lfn *)L->stack[ci->func].v.gc)->p;
        long pc = (long)(ci->pc - p->code) - 1;
        /* a fall-through off the last instruction leaves the saved pc at
           ncode + 1; nothing to name there */
        while (pc > 0 && (uint32_t)pc < p->ncode && (p->code[pc] >> 25) == HKS_I_DATA)
            pc--; /* the saved pc may be past the instruction's DATA words */
        const char *name, *kind = NULL;
        if (pc >= 0 && (uint32_t)pc < p->ncode)
            kind = obj_name(p, (uint32_t)pc, (uint32_t)(o - (L->stack + ci->base)), &name, 0);
        if (kind)
            hv_error(L, "attempt to %s %s '%s' (a %s value)", op, kind, name, hv_typename(o));
    }
    hv_error(L, "attempt to %s a %s value", op, hv_typename(o));
}

/* ---- upvalues ---- */

hv_upval *hv_findupval(hv_thread *L, hv_value *level)
{
    hv_upval **pp = &L->openup;
    hv_upval *p;
    while ((p = *pp) != NULL && p->v >= level) {
        if (p->v == level)
            return p;
        pp = &p->next;
    }
    hv_upval *u = (hv_upval *)hv_newobj(L, HV_TUPVAL, sizeof(hv_upval));
    u->v = level;
    u->owner = L;
    u->next = p;
    *pp = u;
    return u;
}

void hv_closeupvals(hv_thread *L, hv_value *level)
{
    hv_upval *u;
    while ((u = L->openup) != NULL && u->v >= level) {
        hv_copy(&u->closed, u->v);
        u->v = &u->closed;
        L->openup = u->next;
        u->next = NULL;
    }
}

hv_lfn *hv_lfn_new(hv_thread *L, hv_proto *p, hv_table *env)
{
    hv_lfn *f = (hv_lfn *)hv_newobj(L, HV_TLFN, sizeof(hv_lfn) + p->nups * sizeof(hv_upval *));
    f->nups = p->nups;
    f->p = p;
    f->env = env;
    return f;
}

hv_cfn *hv_cfn_new(hv_thread *L, hv_cfunc fn, const char *name, int nups)
{
    hv_cfn *f = (hv_cfn *)hv_newobj(L, HV_TCFN, sizeof(hv_cfn) + (size_t)nups * sizeof(hv_value));
    f->nups = (uint32_t)nups;
    f->f = fn;
    f->name = name;
    f->tag = -1;
    f->env = L->vm->globals;
    for (int i = 0; i < nups; i++)
        hv_setnil(&f->up[i]);
    return f;
}

/* ---- calls ---- */

/* A value that is not a function is called through its __call metamethod,
 * which receives the value as its first argument. */
static void tryfunc(hv_thread *L, int func)
{
    const hv_value *tm = hv_gettm(L, &L->stack[func], TM_CALL);
    if (!tm || (tm->tt != HV_TLFN && tm->tt != HV_TCFN))
        hv_typeerror(L, &L->stack[func], "call");
    hv_value m = *tm;
    hv_stack_check(L, 1);
    for (int i = L->top; i > func; i--)
        L->stack[i] = L->stack[i - 1];
    L->top++;
    L->stack[func] = m;
}

void hv_poscall(hv_thread *L, int first)
{
    hv_ci *ci = L->ci;
    int res = ci->func;
    int wanted = ci->nresults;
    L->ci--;
    L->ncis--;
    int avail = L->top - first;
    if (avail < 0)
        avail = 0; /* see L_RETURN: no results rather than a top below the stack */
    int i;
    if (wanted < 0) {
        for (i = 0; i < avail; i++)
            hv_copy(&L->stack[res + i], &L->stack[first + i]);
        L->top = res + avail;
    } else {
        for (i = 0; i < wanted && i < avail; i++)
            hv_copy(&L->stack[res + i], &L->stack[first + i]);
        for (; i < wanted; i++)
            hv_setnil(&L->stack[res + i]);
        L->top = res + wanted;
    }
    L->base = L->ci->base;
}

/* Returns 0 when a Lua frame was pushed (run it), 1 when a C function ran
 * to completion, 2 when it yielded. */
int hv_precall_(hv_thread *L, int func, int nresults)
{
    if (L->stack[func].tt != HV_TLFN && L->stack[func].tt != HV_TCFN)
        tryfunc(L, func);
    hv_value *fv = &L->stack[func];
    if (fv->tt == HV_TLFN) {
        hv_proto *p = ((hv_lfn *)fv->v.gc)->p;
        /* room for every register an operand can name (A, B < 256; C, call
         * and result counts < 512 above them), whatever maxstack claims, so
         * that no instruction of an unverified chunk reaches past the stack */
        hv_stack_check(L, (int)p->maxstack + HV_FRAME_SLACK);
        int base;
        int nargs = L->top - func - 1;
        if (!p->is_vararg) {
            base = func + 1;
            for (; nargs < p->nparams; nargs++)
                hv_setnil(&L->stack[L->top++]);
            L->top = base + p->nparams;
        } else {
            for (; nargs < p->nparams; nargs++)
                hv_setnil(&L->stack[L->top++]);
            int fixed = L->top - nargs;
            base = L->top;
            for (int i = 0; i < p->nparams; i++) {
                hv_copy(&L->stack[L->top], &L->stack[fixed + i]);
                L->top++;
                hv_setnil(&L->stack[fixed + i]);
            }
            hv_stack_check(L, (int)p->maxstack + HV_FRAME_SLACK);
        }
        hv_ci *ci = next_ci(L);
        ci->func = func;
        ci->base = base;
        ci->top = base + (int)p->maxstack;
        ci->pc = p->code;
        ci->nresults = nresults;
        ci->is_lua = 1;
        ci->fresh = 0;
        ci->tailcalls = 0;
        for (int i = L->top; i < ci->top; i++)
            hv_setnil(&L->stack[i]);
        L->top = ci->top;
        L->base = base;
        return 0;
    }
    hv_stack_check(L, 20);
    hv_ci *ci = next_ci(L);
    ci->func = func;
    ci->base = func + 1;
    ci->top = L->top + 20;
    ci->nresults = nresults;
    ci->is_lua = 0;
    ci->fresh = 0;
    ci->pc = NULL;
    L->base = func + 1;
    hv_cfn *cf = (hv_cfn *)L->stack[func].v.gc;
    int n = cf->f(L, L->top - L->base);
    if (n < 0)
        return 2;
    hv_poscall(L, L->top - n);
    return 1;
}

bool hv_precall(hv_thread *L, int func, int nresults)
{
    return hv_precall_(L, func, nresults) == 0;
}

void hv_call(hv_thread *L, int func, int nresults)
{
    hv_vm *vm = L->vm;
    if (++vm->ccalls >= (int)vm->lim.max_c_depth) {
        vm->ccalls--;
        hv_error(L, "C stack overflow");
    }
    L->nny++;
    int r = hv_precall_(L, func, nresults);
    if (r == 0) {
        L->ci->fresh = 1;
        hv_execute(L);
    } else if (r == 2) {
        L->nny--;
        vm->ccalls--;
        hv_error(L, "attempt to yield across metamethod/C-call boundary");
    }
    L->nny--;
    vm->ccalls--;
}

int hv_pcall(hv_thread *L, int func, int nresults)
{
    hv_vm *vm = L->vm;
    hv_jmp j;
    j.prev = L->errjmp;
    j.status = HV_OK;
    int ci_idx = (int)(L->ci - L->cis);
    int ncis = L->ncis;
    int nny = L->nny;
    int ccalls = vm->ccalls;
    hv_buf *bufs = vm->bufs;
    int base = L->base;
    L->errjmp = &j;
    if (setjmp(j.b) == 0)
        hv_call(L, func, nresults);
    L->errjmp = j.prev;
    if (j.status == HV_OK)
        return HV_OK;
    /* unwind: the error value is on top (run-time errors) or made here */
    hv_value err;
    if (j.status == HV_ERRRUN && L->top > 0)
        err = L->stack[L->top - 1];
    else
        hv_setnil(&err);
    hv_closeupvals(L, &L->stack[func]);
    L->ci = L->cis + ci_idx;
    L->ncis = ncis;
    L->nny = nny;
    vm->ccalls = ccalls;
    L->base = base;
    hv_buf_unwind(vm, bufs);
    vm->where_set = false; /* a caught error's place is forgotten */
    if (j.status != HV_ERRRUN) {
        vm->where_set = true;
        /* limits and running out of memory are the host's: no script
         * catches them, so they continue to the next protected boundary */
        L->top = func;
        hv_throw(L, j.status);
    }
    L->stack[func] = err;
    L->top = func + 1;
    return j.status;
}

/* ---- coroutines ---- */

/* Runs `co` from its start or from its yield, with `nargs` values from the
 * top of L as the arguments or the results of the yield.  Afterwards the
 * results (or the error value) are on top of L; returns HV_OK, HV_YIELD or
 * an error status. */
int hv_resume(hv_thread *L, hv_thread *co, int nargs)
{
    hv_vm *vm = L->vm;
    hv_stack_check(co, nargs + 1);
    for (int i = 0; i < nargs; i++)
        co->stack[co->top++] = L->stack[L->top - nargs + i];
    L->top -= nargs;
    if (++vm->ccalls >= (int)vm->lim.max_c_depth) {
        vm->ccalls--;
        hv_error(L, "C stack overflow");
    }
    hv_jmp j;
    j.prev = co->errjmp;
    j.status = HV_OK;
    co->errjmp = &j;
    hv_thread *prev_running = vm->running;
    vm->running = co;
    co->resumer = L;
    int ccalls = vm->ccalls;
    hv_buf *bufs = vm->bufs;
    int rc;
    if (setjmp(j.b) == 0) {
        if (!co->started) {
            co->started = true;
            int func = 0;
            int r = hv_precall_(co, func, -1);
            if (r == 0) {
                co->ci->fresh = 1;
                rc = hv_execute(co);
            } else {
                rc = r == 2 ? HV_YIELD : HV_OK;
            }
        } else {
            /* finish the yield call: the resume values are its results */
            co->status = HV_OK;
            int wanted = co->ci->nresults; /* of the yield call */
            hv_poscall(co, co->top - nargs);
            if (co->ci->is_lua) {
                if (wanted >= 0)
                    co->top = co->ci->top;
                rc = hv_execute(co);
            } else {
                rc = HV_OK; /* a C function at the base yielded: it is done */
            }
        }
    } else {
        rc = j.status;
    }
    co->errjmp = j.prev;
    vm->running = prev_running;
    co->resumer = NULL;
    vm->ccalls = ccalls - 1;
    if (rc == HV_OK || rc == HV_YIELD) {
        int n;
        if (rc == HV_OK) {
            co->dead = true;
            n = co->top; /* the finished function's results start at 0 */
        } else {
            co->status = HV_YIELD;
            n = co->top - co->base;
        }
        hv_stack_check(L, n + 1);
        int from = co->top - n;
        for (int i = 0; i < n; i++)
            L->stack[L->top++] = co->stack[from + i];
        co->top = from;
        return rc;
    }
    hv_buf_unwind(vm, bufs);
    co->dead = true;
    if (rc != HV_ERRRUN) {
        /* limits pass through every coroutine, with their message */
        hv_stack_check(L, 1);
        L->stack[L->top++] = co->top > 0 ? co->stack[co->top - 1] : hv_nilobject;
        hv_throw(L, rc);
    }
    vm->where_set = false; /* the resumer receives the error (vm->where keeps the place) */
    hv_stack_check(L, 1);
    L->stack[L->top++] = co->top > 0 ? co->stack[co->top - 1] : hv_nilobject;
    return rc;
}
