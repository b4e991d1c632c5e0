/* The VM's public face (include/gsvm/hks.h): creating a VM with its limits
 * and natives, turning a loaded chunk into runnable prototypes, running in
 * budgets, calling functions, and reporting faults.  Every entry into the
 * interpreter is protected here, so no script error or limit escapes as a
 * longjmp into the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/internal.h"
#include "hks/isa.h"
#include "hks/vm.h"
#include "hks/vm_host.h"

typedef struct first_violation {
    char text[256];
    bool seen;
} first_violation;
static void note_violation(void *ctx, const char *path, uint64_t pc, const char *message);
static bool check_all(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, char *err, size_t n);

/* ---- creation ---- */

hv_vm *hv_vm_new(const hv_limits *lim, bool f32)
{
    hv_vm *vm = calloc(1, sizeof *vm);
    if (!vm)
        return NULL;
    vm->lim = *lim;
    vm->f32 = f32;
    vm->gc_threshold = 256 * 1024;
    vm->seed = 0x2545F4914F6CDD1Dull;
    return vm;
}

static void free_proto(hv_vm *vm, hv_proto *p)
{
    hv_free(vm, p->code, (p->ncode + 1) * sizeof(uint32_t));
    hv_free(vm, p->k, p->nk * sizeof(hv_value));
    hv_free(vm, p->p, p->np * sizeof(hv_proto *));
    free((char *)p->path);
    hv_free(vm, p, sizeof *p);
}

void hv_vm_free(hv_vm *vm)
{
    if (!vm)
        return;
    hv_vm_free_all(vm);
    for (size_t i = 0; i < vm->nprotos; i++)
        free_proto(vm, vm->protos[i]);
    free(vm->protos);
    for (size_t i = 0; i < vm->nchunks; i++)
        gsvm_hks_chunk_free(vm->chunks[i]);
    free(vm->chunks);
    hv_free(vm, vm->strt, vm->strsize * sizeof *vm->strt);
    hv_buf_unwind(vm, NULL);
    free(vm->scratch);
    free(vm->fin);
    hv_pool_free_all(vm);
    free(vm);
}

/* Runs fn(L, ud) with an error boundary; returns the hv status. */
int hv_protect(hv_thread *L, void (*fn)(hv_thread *L, void *ud), void *ud)
{
    hv_vm *vm = L->vm;
    hv_jmp j;
    j.prev = L->errjmp;
    j.status = HV_OK;
    L->errjmp = &j;
    hv_buf *bufs = vm->bufs;
    int ccalls = vm->ccalls;
    if (setjmp(j.b) == 0)
        fn(L, ud);
    L->errjmp = j.prev;
    if (j.status != HV_OK) {
        hv_buf_unwind(vm, bufs);
        vm->ccalls = ccalls;
    }
    return j.status;
}

static void open_libs(hv_thread *L, void *ud)
{
    (void)ud;
    hv_vm *vm = L->vm;
    hv_strtab_resize(L, 256);
    for (int i = 0; i < TM_N; i++)
        vm->tmname[i] = hv_str_cstr(L, hv_tm_name(i));
    static const char *const tn[HV_NTAGS] = {"nil", "boolean", "userdata", "number", "string",
                                             "table", "function", "userdata", "thread", "function",
                                             "function", "ui64", "struct", "deadkey"};
    for (int i = 0; i < HV_NTAGS; i++)
        vm->typenames[i] = hv_str_cstr(L, tn[i]);
    vm->globals = hv_table_new(L, 0, 64);
    vm->registry = hv_table_new(L, 4, 0);
    hv_open_base(L);
    hv_open_string(L);
    hv_open_table(L);
    hv_open_math(L);
    hv_open_coroutine(L);
}

static hv_thread *main_thread(hv_vm *vm)
{
    /* the main thread is made by hand (no thread exists to allocate it) and
     * joins the object list like any other */
    hv_thread *t = hv_alloc_raw(vm, sizeof *t);
    if (!t)
        return NULL;
    t->h.tt = HV_TTHREAD;
    t->vm = vm;
    t->script_id = -1;
    t->stack = hv_alloc_raw(vm, 256 * sizeof(hv_value));
    t->cis = hv_alloc_raw(vm, 8 * sizeof(hv_ci));
    if (!t->stack || !t->cis) {
        hv_free(vm, t->stack, 256 * sizeof(hv_value));
        hv_free(vm, t->cis, 8 * sizeof(hv_ci));
        hv_free(vm, t, sizeof *t);
        return NULL;
    }
    t->stacksize = 256;
    t->nci_alloc = 8;
    t->ci_cap = hv_ci_cap(vm, 8);
    t->ncis = 1;
    t->ci = t->cis;
    t->ci->top = 8;
    t->h.next = vm->all;
    vm->all = &t->h;
    return t;
}

/* ---- loading ---- */

static char *path_join(const char *parent, uint32_t i)
{
    char b[512];
    if (parent)
        snprintf(b, sizeof b, "%s/%u", parent, i);
    else
        snprintf(b, sizeof b, "0");
    return strdup(b);
}

/* Static checks that make mode 2 memory-safe without proving jumps: every
 * constant, upvalue and prototype an operand names exists.  (Registers are
 * safe by the frame slack; the pc is checked at each fetch.) */
static bool check_indices(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, char *err, size_t n)
{
    for (uint64_t pc = 0; pc < f->ncode; pc++) {
        uint32_t w = f->code[pc];
        unsigned iop = hks_decode_op(c->profile, GSVM_HKS_OP(w));
        if (iop == HKS_NO_OP || iop == HKS_I_DATA)
            continue;
        const hks_opinfo *o = &hks_ops[iop];
        uint32_t B = GSVM_HKS_B(w), C = GSVM_HKS_C(w), Bx = GSVM_HKS_BX(w);
        uint32_t vals[2] = {o->mode == HKS_ABC ? B : Bx, C};
        unsigned kinds[2] = {o->b, o->mode == HKS_ABC ? o->c : HKS_N};
        for (int j = 0; j < 2; j++) {
            uint32_t v = vals[j];
            bool bad = false;
            switch (kinds[j]) {
            case HKS_K: bad = v >= f->nk; break;
            case HKS_RK: bad = v >= 256 && v - 256 >= f->nk; break;
            case HKS_V: bad = v >= f->nups; break;
            case HKS_P: bad = v >= f->np; break;
            default: break;
            }
            if (bad) {
                snprintf(err, n, "pc %llu: %s names an operand that does not exist",
                         (unsigned long long)pc, o->name);
                return false;
            }
        }
        /* a _BK twin reads B as a constant even where the row says R */
        if ((iop == HKS_I_EQ_BK || iop == HKS_I_LT_BK || iop == HKS_I_LE_BK ||
             iop == HKS_I_DELETE_BK) && B >= f->nk) {
            snprintf(err, n, "pc %llu: %s names constant %u of %u", (unsigned long long)pc,
                     o->name, B, f->nk);
            return false;
        }
    }
    return true;
}

static hv_proto *convert(hv_thread *L, const gsvm_hks_chunk *c, const gsvm_hks_proto *f,
                         const char *parent, uint32_t idx, int depth);

static void add_proto(hv_thread *L, hv_proto *p)
{
    hv_vm *vm = L->vm;
    if (vm->nprotos == vm->protos_cap) {
        size_t nc = vm->protos_cap ? vm->protos_cap * 2 : 64;
        hv_proto **np = realloc(vm->protos, nc * sizeof *np);
        if (!np) {
            free_proto(vm, p);
            hv_throw(L, HV_ERRMEM);
        }
        vm->protos = np;
        vm->protos_cap = nc;
    }
    vm->protos[vm->nprotos++] = p;
}

static double k_number(const gsvm_hks_chunk *c, uint64_t bits)
{
    if (c->integral) {
        if (c->size_number == 4)
            return (double)(int32_t)(uint32_t)bits;
        return (double)(int64_t)bits;
    }
    if (c->size_number == 4) {
        uint32_t u = (uint32_t)bits;
        float fl;
        memcpy(&fl, &u, 4);
        return (double)fl;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static hv_str *k_str(hv_thread *L, const gsvm_hks_str *s)
{
    if (!s->size || !s->data)
        return NULL;
    return hv_str_new(L, s->data, (size_t)s->size - 1);
}

static hv_proto *convert(hv_thread *L, const gsvm_hks_chunk *c, const gsvm_hks_proto *f,
                         const char *parent, uint32_t idx, int depth)
{
    hv_vm *vm = L->vm;
    if (depth > 200)
        hv_error(L, "functions nested too deep");
    if (f->ncode > (1u << 26) || f->maxstack > 250000 || f->nups > 255 || f->nparams > 255)
        hv_error(L, "function sizes out of range");
    hv_proto *p = hv_alloc(L, NULL, 0, sizeof *p);
    memset(p, 0, sizeof *p);
    p->path = path_join(parent, idx);
    add_proto(L, p); /* owned by the VM from here, even if a later step fails */
    p->ncode = (uint32_t)f->ncode;
    p->code = hv_alloc(L, NULL, 0, (p->ncode + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < p->ncode; i++) {
        uint32_t w = f->code[i];
        unsigned iop = hks_decode_op(c->profile, GSVM_HKS_OP(w));
        if (iop == HKS_NO_OP || iop >= HKS_I_COUNT)
            iop = 127;
        p->code[i] = ((uint32_t)iop << 25) | (w & 0x1FFFFFFu);
    }
    /* falling off the end returns nothing (mode 2 faults before it) */
    p->code[p->ncode] = ((uint32_t)HKS_I_RETURN << 25) | (1u << 17);
    p->k = hv_alloc(L, NULL, 0, (f->nk ? f->nk : 1) * sizeof(hv_value));
    p->nk = 0;
    for (uint32_t i = 0; i < f->nk; i++) {
        const gsvm_hks_const *kc = &f->k[i];
        hv_value *v = &p->k[i];
        switch (kc->type) {
        case GSVM_HKS_K_BOOL: hv_setbool(v, kc->b); break;
        case GSVM_HKS_K_LUD: v->tt = HV_TLUD; v->v.u = kc->bits; break;
        case GSVM_HKS_K_UI64: v->tt = HV_TUI64; v->v.u = kc->bits; break;
        case GSVM_HKS_K_NUMBER: hv_setnum(v, k_number(c, kc->bits)); break;
        case GSVM_HKS_K_STRING: {
            hv_str *s = k_str(L, &kc->s);
            if (s)
                hv_setgc(v, HV_TSTR, s);
            else
                hv_setgc(v, HV_TSTR, hv_str_new(L, "", 0));
            break;
        }
        default: hv_setnil(v); break;
        }
        p->nk = i + 1;
    }
    p->nups = (uint8_t)f->nups;
    p->nparams = (uint8_t)f->nparams;
    p->is_vararg = (f->flags & 2) != 0;
    p->maxstack = f->maxstack;
    p->frame_need = p->is_vararg ? 1 << 30 : (int)p->maxstack + HV_FRAME_SLACK + 8;
    if (hks_debug_kind(c->format, c->debug_hash, f->debug.flag) == HKS_DBG_FULL && f->debug.nlines == f->ncode)
        p->lines = f->debug.lines, p->dbg = &f->debug; /* locals and upvalue names for messages */
    if (f->debug.flag && hks_debug_kind(c->format, c->debug_hash, f->debug.flag) != HKS_DBG_HASH) {
        p->source = k_str(L, &f->debug.source);
        p->name = k_str(L, &f->debug.name);
        p->linedefined = f->debug.linedefined;
    }
    if (!p->source && parent) {
        /* a child without its own source name has its parent's */
        hv_proto *par = NULL;
        for (size_t i = vm->nprotos; i-- > 0;)
            if (strcmp(vm->protos[i]->path, parent) == 0) {
                par = vm->protos[i];
                break;
            }
        if (par)
            p->source = par->source;
    }
    p->p = hv_alloc(L, NULL, 0, (f->np ? f->np : 1) * sizeof(hv_proto *));
    p->np = 0;
    for (uint32_t i = 0; i < f->np; i++) {
        hv_proto *child = convert(L, c, &f->p[i], p->path, i, depth + 1);
        p->p[i] = child;
        p->np = i + 1;
    }
    return p;
}

typedef struct load_ud {
    gsvm_hks_chunk *c;
    hv_lfn *fn;
} load_ud;

static void do_load(hv_thread *L, void *ud)
{
    load_ud *u = ud;
    hv_proto *p = convert(L, u->c, &u->c->main, NULL, 0, 0);
    hv_lfn *f = hv_lfn_new(L, p, L->vm->globals);
    for (uint32_t i = 0; i < f->nups; i++) {
        hv_upval *uv = (hv_upval *)hv_newobj(L, HV_TUPVAL, sizeof(hv_upval));
        hv_setnil(&uv->closed);
        uv->v = &uv->closed;
        f->up[i] = uv;
    }
    u->fn = f;
}

/* ---- the public API ---- */

static void host_print(void *ctx, hv_thread *L, int first, int n)
{
    gsvm_hks_vm *h = ctx;
    if (!h->print)
        return;
    const char *parts[64] = {0}; /* initialised: GCC -O2 cannot see that n entries are written */
    size_t lens[64] = {0};
    const char **pp = parts;
    size_t *lp = lens;
    if (n > 64) {
        pp = malloc((size_t)n * sizeof *pp);
        lp = malloc((size_t)n * sizeof *lp);
        if (!pp || !lp) {
            free(pp);
            free(lp);
            hv_throw(L, HV_ERRMEM);
        }
    }
    for (int i = 0; i < n; i++) {
        hv_str *s = hv_strv(&L->stack[first + i]);
        pp[i] = s->data;
        lp[i] = s->len;
    }
    h->print(h->print_ctx, pp, lp, n);
    if (pp != parts) {
        free(pp);
        free(lp);
    }
}

gsvm_status gsvm_hks_vm_new(const gsvm_hks_vm_options *opts, gsvm_hks_vm **out, gsvm_error *err)
{
    *out = NULL;
    gsvm_hks_vm_options o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof o);
    hv_limits lim;
    lim.max_memory = o.limits.max_memory ? o.limits.max_memory : 64u << 20;
    lim.max_instructions = o.limits.max_instructions;
    lim.max_call_depth = o.limits.max_call_depth ? o.limits.max_call_depth : 200000;
    lim.max_c_depth = 200;
    lim.max_string = o.limits.max_string ? o.limits.max_string : 16u << 20;
    lim.max_table = o.limits.max_table ? o.limits.max_table : 16u << 20;
    gsvm_hks_vm *h = calloc(1, sizeof *h);
    hv_vm *vm = hv_vm_new(&lim, o.float32);
    if (!h || !vm) {
        free(h);
        free(vm);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory creating a VM");
    }
    h->vm = vm;
    h->mode = o.mode;
    vm->checked = o.mode == GSVM_HKS_MODE_2;
    vm->host = h;
    vm->print = host_print;
    vm->print_ctx = h;
    if (o.seed)
        vm->seed = o.seed;
    vm->main = main_thread(vm);
    if (!vm->main) {
        hv_vm_free(vm);
        free(h);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory creating a VM");
    }
    h->L = vm->main;
    if (hv_protect(h->L, open_libs, NULL) != HV_OK) {
        gsvm_hks_vm_free(h);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "the VM's memory limit is too small");
    }
    for (size_t i = 0; i < o.nnatives; i++) {
        gsvm_status st = gsvm_hks_vm_add_native(h, &o.natives[i], err);
        if (st != GSVM_OK) {
            gsvm_hks_vm_free(h);
            return st;
        }
    }
    *out = h;
    return GSVM_OK;
}

void gsvm_hks_vm_free(gsvm_hks_vm *h)
{
    if (!h)
        return;
    hv_vm_free(h->vm);
    free(h->natives);
    free(h->scratch);
    free(h);
}

void gsvm_hks_vm_set_print(gsvm_hks_vm *h, gsvm_hks_print_fn fn, void *ctx)
{
    h->print = fn;
    h->print_ctx = ctx;
}

/* Records the fault of a failed protected call (the error value on top). */
static gsvm_status fault_from(gsvm_hks_vm *h, int status, gsvm_error *err)
{
    hv_thread *L = h->L;
    hv_vm *vm = h->vm;
    gsvm_hks_fault *f = &h->fault;
    memset(f, 0, sizeof *f);
    h->has_fault = true;
    const char *msg = "error";
    char tmp[64];
    if (status == HV_ERRMEM) {
        snprintf(tmp, sizeof tmp, "memory limit of %llu bytes reached",
                 (unsigned long long)vm->lim.max_memory);
        msg = tmp;
    } else if (L->top > 0) {
        hv_value *v = &L->stack[L->top - 1];
        if (v->tt == HV_TSTR)
            msg = hv_strv(v)->data;
        else if (v->tt == HV_TNUM) {
            hv_num2str(vm, v->v.n, tmp);
            msg = tmp;
        } else if (v->tt == HV_TNIL) {
            msg = "nil";
        } else {
            snprintf(tmp, sizeof tmp, "(error object is a %s value)", hv_typename(v));
            msg = tmp;
        }
    }
    snprintf(f->message, sizeof f->message, "%s", msg);
    snprintf(f->function, sizeof f->function, "%s", vm->where.function);
    snprintf(f->source, sizeof f->source, "%s", vm->where.source);
    f->pc = vm->where.pc;
    f->line = vm->where.line;
    vm->where_set = false;
    /* reset the main thread to its base */
    hv_closeupvals(L, L->stack);
    L->ci = L->cis;
    L->ncis = 1;
    L->top = 0;
    L->base = 0;
    L->nny = 0;
    vm->running = NULL;
    vm->ccalls = 0;
    h->main_state = HVM_MAIN_NONE;
    gsvm_status st = (status == HV_ERRLIMIT || status == HV_ERRMEM) ? GSVM_ERR_LIMIT : GSVM_ERR_FAULT;
    return gsvm_error_set(err, st, f->source[0] ? f->source : NULL, "%s", f->message);
}

gsvm_status fault_from_public(gsvm_hks_vm *h, int status, gsvm_error *err)
{
    return fault_from(h, status, err);
}

gsvm_status gsvm_hks_vm_load(gsvm_hks_vm *h, gsvm_hks_chunk *c, gsvm_error *err)
{
    hv_vm *vm = h->vm;
    if (c->size_number != 4 && c->size_number != 8) {
        gsvm_hks_chunk_free(c);
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "lua_Number of %u bytes is not runnable",
                              c->size_number);
    }
    bool f32 = c->size_number == 4 && !c->integral;
    if (vm->nchunks == 0)
        vm->f32 = f32;
    else if (vm->f32 != f32) {
        gsvm_hks_chunk_free(c);
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "this VM computes in float%d; the chunk's numbers are float%d",
                              vm->f32 ? 32 : 64, f32 ? 32 : 64);
    }
    if (h->mode == GSVM_HKS_MODE_0) {
        gsvm_hks_verify_result vr;
        first_violation fv = {{0}, false};
        gsvm_status st = gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, note_violation, &fv, &vr, err);
        if (st != GSVM_OK) {
            gsvm_hks_chunk_free(c);
            return st;
        }
        if (vr.violations) {
            gsvm_hks_chunk_free(c);
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                                  "the chunk does not verify (%llu violations; first: %s); mode 0 "
                                  "runs only verified chunks, mode 2 (--checked) checks at run time",
                                  (unsigned long long)vr.violations, fv.text);
        }
    } else {
        char e[256];
        if (!check_all(c, &c->main, e, sizeof e)) {
            gsvm_hks_chunk_free(c);
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s", e);
        }
    }
    if (vm->nchunks == vm->chunks_cap) {
        size_t nc = vm->chunks_cap ? vm->chunks_cap * 2 : 4;
        gsvm_hks_chunk **na = realloc(vm->chunks, nc * sizeof *na);
        if (!na) {
            gsvm_hks_chunk_free(c);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        }
        vm->chunks = na;
        vm->chunks_cap = nc;
    }
    vm->chunks[vm->nchunks++] = c;
    load_ud u = {c, NULL};
    int rc = hv_protect(h->L, do_load, &u);
    if (rc != HV_OK)
        return fault_from(h, rc, err);
    hv_value fv;
    hv_setgc(&fv, HV_TLFN, u.fn);
    hv_thread *L = h->L;
    L->stack[0] = fv;
    L->top = 1;
    h->main_state = HVM_MAIN_READY;
    h->has_fault = false;
    return GSVM_OK;
}

typedef struct run_ud {
    int rc;
} run_ud;

static void do_run(hv_thread *L, void *ud)
{
    run_ud *u = ud;
    gsvm_hks_vm *h = L->vm->host;
    if (h->main_state == HVM_MAIN_READY) {
        h->main_state = HVM_MAIN_RUNNING;
        int r = hv_precall_(L, 0, -1);
        if (r != 0) {
            u->rc = HV_OK;
            return;
        }
        L->ci->fresh = 1;
    }
    u->rc = hv_execute(L);
}

static void arm(hv_vm *vm, uint64_t budget)
{
    uint64_t done = vm->slice_end_steps - (uint64_t)vm->steps_left;
    vm->slice = budget ? (int64_t)(done + budget) : 0;
    vm->slice_end_steps = done;
    vm->steps_left = 0;
}

uint64_t gsvm_hks_vm_steps(const gsvm_hks_vm *h)
{
    return h->vm->slice_end_steps - (uint64_t)h->vm->steps_left;
}

gsvm_status gsvm_hks_vm_run(gsvm_hks_vm *h, uint64_t budget, bool *done, gsvm_error *err)
{
    *done = false;
    if (h->main_state != HVM_MAIN_READY && h->main_state != HVM_MAIN_RUNNING)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "nothing to run: load a chunk first");
    hv_vm *vm = h->vm;
    arm(vm, budget);
    run_ud u = {HV_OK};
    int rc = hv_protect(h->L, do_run, &u);
    vm->slice = 0;
    if (rc != HV_OK)
        return fault_from(h, rc, err);
    if (u.rc == HV_BUDGET)
        return GSVM_OK;
    *done = true;
    h->main_state = HVM_MAIN_DONE;
    h->L->top = 0;
    return GSVM_OK;
}

static void do_close(hv_thread *L, void *ud)
{
    (void)ud;
    L->top = 0;
    hv_gc_finalize(L, true);
}

gsvm_status gsvm_hks_vm_close(gsvm_hks_vm *h, gsvm_error *err)
{
    hv_vm *vm = h->vm;
    arm(vm, 0);
    int rc = hv_protect(h->L, do_close, NULL);
    if (rc != HV_OK)
        return fault_from(h, rc, err);
    return GSVM_OK;
}

bool gsvm_hks_vm_fault(const gsvm_hks_vm *h, gsvm_hks_fault *out)
{
    if (!h->has_fault)
        return false;
    *out = h->fault;
    return true;
}

/* ---- verification on load ---- */

static void note_violation(void *ctx, const char *path, uint64_t pc, const char *message)
{
    first_violation *fv = ctx;
    if (fv->seen)
        return;
    fv->seen = true;
    snprintf(fv->text, sizeof fv->text, "function %s pc %llu: %s", path, (unsigned long long)pc,
             message);
}

static bool check_all(const gsvm_hks_chunk *c, const gsvm_hks_proto *f, char *err, size_t n)
{
    if (!check_indices(c, f, err, n))
        return false;
    for (uint32_t i = 0; i < f->np; i++)
        if (!check_all(c, &f->p[i], err, n))
            return false;
    return true;
}

/* ---- natives ---- */

void hv_set_path(hv_thread *L, const char *name, const hv_value *v)
{
    hv_table *t = L->vm->globals;
    const char *p = name;
    for (;;) {
        const char *dot = strpbrk(p, ".:");
        if (!dot)
            break;
        hv_str *k = hv_str_new(L, p, (size_t)(dot - p));
        const hv_value *cur = hv_table_getstr(t, k);
        if (cur->tt != HV_TTAB) {
            hv_table *nt = hv_table_new(L, 0, 4);
            hv_value tv;
            hv_setgc(&tv, HV_TTAB, nt);
            *hv_table_setstr(L, t, k) = tv;
            t = nt;
        } else {
            t = hv_tabv(cur);
        }
        p = dot + 1;
    }
    *hv_table_setstr(L, t, hv_str_cstr(L, p)) = *v;
}

hv_value hv_get_path(hv_thread *L, const char *name)
{
    hv_value cur;
    hv_setgc(&cur, HV_TTAB, L->vm->globals);
    const char *p = name;
    for (;;) {
        if (cur.tt != HV_TTAB)
            return hv_nilobject;
        const char *dot = strpbrk(p, ".:");
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        hv_str *k = hv_str_new(L, p, len);
        cur = *hv_table_getstr(hv_tabv(&cur), k);
        if (!dot)
            return cur;
        p = dot + 1;
    }
}

static void to_api_value(const hv_value *v, gsvm_hks_value *o)
{
    memset(o, 0, sizeof *o);
    switch (v->tt) {
    case HV_TNIL: o->type = GSVM_HKS_V_NIL; break;
    case HV_TBOOL: o->type = GSVM_HKS_V_BOOL; o->b = v->v.b != 0; break;
    case HV_TNUM: o->type = GSVM_HKS_V_NUMBER; o->n = v->v.n; break;
    case HV_TSTR:
        o->type = GSVM_HKS_V_STRING;
        o->s = hv_strv(v)->data;
        o->len = hv_strv(v)->len;
        break;
    case HV_TTAB: o->type = GSVM_HKS_V_TABLE; break;
    case HV_TLFN:
    case HV_TCFN: o->type = GSVM_HKS_V_FUNCTION; break;
    default: o->type = GSVM_HKS_V_OTHER; break;
    }
}

static void push_api_value(hv_thread *L, const gsvm_hks_value *v)
{
    switch (v->type) {
    case GSVM_HKS_V_BOOL: hv_pushbool(L, v->b); break;
    case GSVM_HKS_V_NUMBER: hv_pushnum(L, hv_round(L->vm, v->n)); break;
    case GSVM_HKS_V_STRING: hv_pushlstr(L, v->s ? v->s : "", v->s ? v->len : 0); break;
    default: hv_pushnil(L); break;
    }
}

enum { NATIVE_MAX_RESULTS = 8 };

static int native_trampoline(hv_thread *L, int n)
{
    hv_cfn *self = (hv_cfn *)L->stack[L->base - 1].v.gc;
    gsvm_hks_vm *h = L->vm->host;
    const gsvm_hks_native *nat = &h->natives[self->tag];
    gsvm_hks_value argv_small[16];
    gsvm_hks_value *argv = argv_small;
    if (n > 16) {
        argv = malloc((size_t)n * sizeof *argv);
        if (!argv)
            hv_throw(L, HV_ERRMEM);
    }
    for (int i = 0; i < n; i++)
        to_api_value(HV_ARG(L, i), &argv[i]);
    gsvm_hks_value res[NATIVE_MAX_RESULTS];
    int nres = 0;
    gsvm_error e;
    gsvm_error_clear(&e);
    gsvm_status st = nat->fn(nat->ctx, h, argv, n, res, NATIVE_MAX_RESULTS, &nres, &e);
    if (argv != argv_small)
        free(argv);
    if (st != GSVM_OK)
        hv_error(L, "%s", e.message[0] ? e.message : nat->name);
    if (nres < 0)
        nres = 0;
    if (nres > NATIVE_MAX_RESULTS)
        nres = NATIVE_MAX_RESULTS;
    hv_stack_check(L, nres);
    for (int i = 0; i < nres; i++)
        push_api_value(L, &res[i]);
    return nres;
}

typedef struct native_ud {
    const char *name;
    int idx;
} native_ud;

static void do_add_native(hv_thread *L, void *ud)
{
    native_ud *u = ud;
    hv_cfn *f = hv_cfn_new(L, native_trampoline, u->name, 0);
    f->tag = u->idx;
    hv_value v;
    hv_setgc(&v, HV_TCFN, f);
    hv_set_path(L, u->name, &v);
}

gsvm_status gsvm_hks_vm_add_native(gsvm_hks_vm *h, const gsvm_hks_native *n, gsvm_error *err)
{
    if (!n->name || !n->name[0] || !n->fn)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "a native needs a name and a function");
    if (h->nnatives == h->natives_cap) {
        size_t nc = h->natives_cap ? h->natives_cap * 2 : 16;
        gsvm_hks_native *na = realloc(h->natives, nc * sizeof *na);
        if (!na)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        h->natives = na;
        h->natives_cap = nc;
    }
    h->natives[h->nnatives] = *n;
    native_ud u = {n->name, (int)h->nnatives};
    if (hv_protect(h->L, do_add_native, &u) != HV_OK)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "the VM's memory limit is too small");
    h->nnatives++;
    return GSVM_OK;
}

/* ---- calling a function ---- */

typedef struct call_ud {
    const char *name;
    const gsvm_hks_value *args;
    int nargs;
    int base;
} call_ud;

static void do_call(hv_thread *L, void *ud)
{
    call_ud *u = ud;
    hv_value f = hv_get_path(L, u->name);
    if (f.tt != HV_TLFN && f.tt != HV_TCFN)
        hv_error(L, "'%s' is not a function (a %s value)", u->name, hv_typename(&f));
    hv_stack_check(L, u->nargs + 1);
    u->base = L->top;
    L->stack[L->top++] = f;
    for (int i = 0; i < u->nargs; i++)
        push_api_value(L, &u->args[i]);
    hv_call(L, u->base, -1);
}

gsvm_status gsvm_hks_vm_call(gsvm_hks_vm *h, const char *name, const gsvm_hks_value *args,
                             int nargs, gsvm_hks_value *results, int max_results, int *nresults,
                             gsvm_error *err)
{
    if (nresults)
        *nresults = 0;
    if (h->main_state == HVM_MAIN_RUNNING)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "the main function is suspended mid-run: finish it first");
    hv_vm *vm = h->vm;
    arm(vm, 0);
    call_ud u = {name, args, nargs, 0};
    int save_top = h->L->top;
    int rc = hv_protect(h->L, do_call, &u);
    if (rc != HV_OK)
        return fault_from(h, rc, err);
    int n = h->L->top - u.base;
    /* copy strings to the scratch area so they outlive the next collection */
    size_t need = 0;
    for (int i = 0; i < n && i < max_results; i++)
        if (h->L->stack[u.base + i].tt == HV_TSTR)
            need += hv_strv(&h->L->stack[u.base + i])->len + 1;
    if (need > h->scratch_cap) {
        char *ns = realloc(h->scratch, need);
        if (!ns)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        h->scratch = ns;
        h->scratch_cap = need;
    }
    size_t at = 0;
    int k = 0;
    for (; k < n && k < max_results; k++) {
        hv_value *v = &h->L->stack[u.base + k];
        to_api_value(v, &results[k]);
        if (v->tt == HV_TSTR) {
            memcpy(h->scratch + at, hv_strv(v)->data, hv_strv(v)->len + 1);
            results[k].s = h->scratch + at;
            at += hv_strv(v)->len + 1;
        }
    }
    if (nresults)
        *nresults = k;
    h->L->top = save_top;
    return GSVM_OK;
}
