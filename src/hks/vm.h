/* The HavokScript interpreter's internal view: values, objects, threads.
 *
 * A value is a 16-byte slot {u32 tag, value} as in the game's lua_State
 * (the document: "stack slots are 16 bytes {u32 tag, value}").  Tags are the
 * chunk's own type numbers (TNIL 0 ... TSTRUCT 12), so typed checks
 * (CHECKTYPE) compare a register's tag with the operand directly.
 *
 * Nothing here is global: every object belongs to one hv_vm, and the VM is
 * freed with everything it made.  Errors unwind with longjmp to the nearest
 * protected call (pcall, a coroutine resume, the host's entry). */
#ifndef GSVM_HKS_VM_H
#define GSVM_HKS_VM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/hks.h"

enum {
    HV_TNIL = 0, HV_TBOOL = 1, HV_TLUD = 2, HV_TNUM = 3, HV_TSTR = 4, HV_TTAB = 5,
    HV_TFUNC = 6, /* never a tag: type() of both closure kinds */
    HV_TUDATA = 7, HV_TTHREAD = 8, HV_TLFN = 9 /* TIFUNCTION */, HV_TCFN = 10,
    HV_TUI64 = 11, HV_TSTRUCT = 12,
    HV_TDEADKEY = 13, /* a hash key whose value went nil and whose object was collected */
    HV_NTAGS = 14,
    HV_TUPVAL = 15 /* a GC object kind only, never a value's tag */
};

typedef struct hv_gc hv_gc;
typedef struct hv_str hv_str;
typedef struct hv_table hv_table;
typedef struct hv_lfn hv_lfn;
typedef struct hv_cfn hv_cfn;
typedef struct hv_thread hv_thread;
typedef struct hv_struct hv_struct;
typedef struct hv_upval hv_upval;
typedef struct hv_vm hv_vm;
typedef struct hv_proto hv_proto;

typedef struct hv_value {
    uint32_t tt;
    uint32_t aux;
    union {
        double n;
        hv_gc *gc;
        uint64_t u;
        int b;
        void *p;
    } v;
} hv_value;

struct hv_gc {
    hv_gc *next;
    uint8_t tt;
    uint8_t marked;
};

struct hv_str {
    hv_gc h;
    uint32_t hash;
    uint32_t len;
    hv_str *hnext;
    char data[]; /* len bytes + NUL */
};

typedef struct hv_node {
    hv_value val;
    hv_value key;
    struct hv_node *next;
} hv_node;

struct hv_table {
    hv_gc h;
    uint8_t lsizenode;
    uint8_t nomm; /* bit per metamethod known absent (cleared on any set) */
    uint8_t lenmode; /* what #t knows without a binary search: HV_LEN_* */
    hv_table *meta;
    hv_value *arr;
    uint32_t asize;
    uint32_t border; /* not HV_LEN_UNKNOWN: arr[0..border) non-nil, the rest nil */
    uint32_t wlo, whi; /* HV_LEN_PENDING: the array slots written since, one run */
    hv_node *node;
    hv_node *lastfree;
    hv_gc *gray;
};

/* Runtime prototype: the loader's function with its code re-encoded so that
 * the opcode field holds the interpreter's internal id (profile-free), and
 * its constants as values.  Protos live as long as their VM. */
struct hv_proto {
    uint32_t *code;
    uint32_t ncode;
    hv_value *k;
    uint32_t nk;
    hv_proto **p;
    uint32_t np;
    uint8_t nups, nparams, is_vararg;
    uint32_t maxstack;
    /* the stack slots above its arguments' top that the interpreter's loop
     * checks before it pushes a call's frame itself (maxstack and the
     * slack), or more than any stack holds for a vararg function, whose
     * frame hv_precall_ makes: one test of both at every call */
    int frame_need;
    const uint32_t *lines; /* NULL when stripped; ncode entries */
    const gsvm_hks_debug *dbg; /* full debug info (local and upvalue names), or NULL */
    hv_str *source;        /* "@NAME.lua" or NULL */
    hv_str *name;
    uint32_t linedefined;
    const char *path; /* "0/2/1" */
};

struct hv_upval {
    hv_gc h;
    hv_value *v;
    hv_value closed;
    hv_upval *next; /* open list of the thread, by decreasing stack level */
    hv_thread *owner;
};

struct hv_lfn {
    hv_gc h;
    uint32_t nups;
    hv_proto *p;
    hv_table *env;
    hv_upval *up[];
};

typedef int (*hv_cfunc)(hv_thread *L, int nargs);
struct hv_cfn {
    hv_gc h;
    uint32_t nups;
    hv_cfunc f;
    const char *name;
    hv_table *env;
    int tag; /* host native index, or -1 */
    hv_value up[];
};

/* A full userdata: what Lua 5.1's newproxy makes (no payload; a metatable
 * shared between proxies), the one kind of object whose metatable's __gc
 * the collector calls. */
typedef struct hv_udata {
    hv_gc h;
    bool fin;      /* its __gc has been queued (it runs once) */
    hv_table *meta;
} hv_udata;

/* A structure instance: a fixed slot array and an optional metatable. */
struct hv_struct {
    hv_gc h;
    uint32_t nslots;
    uint64_t id;
    const gsvm_hks_struct *def;
    hv_table *meta;          /* a metatable set by setmetatable (a metastructure is in slot[metaslot]) */
    int metaslot, backslot;  /* positions of __structmeta / __structbacking, or -1 */
    bool proxy;              /* `proxytable`: other keys go to the table in slot[backslot] */
    hv_value slot[];
};

typedef struct hv_ci {
    int func, base, top;   /* stack indices */
    const uint32_t *pc;    /* saved pc of a Lua frame */
    int nresults;
    uint8_t is_lua, fresh; /* fresh: 1 the frame a nested hv_execute started,
                            * HV_CI_TFOR a TFORLOOP's iterator run in the loop */
    uint16_t tailcalls;
} hv_ci;

enum { HV_FRAME_SLACK = 1100 };
enum { HV_CI_TFOR = 2 };
enum { HV_POOL_GRAIN = 16, HV_POOL_MAX = 256 };
enum { HV_OK = 0, HV_YIELD = 1, HV_ERRRUN = 2, HV_ERRMEM = 4, HV_BUDGET = 6, HV_ERRLIMIT = 7 };

typedef struct hv_jmp {
    struct hv_jmp *prev;
    jmp_buf b;
    volatile int status;
} hv_jmp;

struct hv_thread {
    hv_gc h;
    hv_vm *vm;
    hv_value *stack;
    int stacksize;
    int top, base; /* current C frame's window (indices); base is set for
                    * every C function called and by hv_poscall, and is
                    * read only by C functions: the interpreter's loop does
                    * not keep it for the Lua frames it pushes and pops */
    hv_ci *ci;     /* current frame */
    hv_ci *cis;
    int ncis;
    int nci_alloc;
    int ci_cap; /* frames the interpreter's loop may have without hv_precall_:
                 * the smaller of nci_alloc and the depth limit */
    hv_upval *openup;
    hv_jmp *errjmp;
    int nny;     /* non-yieldable nesting (C boundaries inside this thread) */
    int status;  /* HV_OK, HV_YIELD (suspended in yield), or error/dead */
    bool started, dead;
    hv_thread *resumer;
    hv_gc *gray;
    /* host data for world script threads */
    int script_id;
};

typedef struct hv_limits {
    uint64_t max_memory;       /* bytes, 0 = unlimited */
    uint64_t max_instructions; /* total per VM, 0 = unlimited */
    uint32_t max_call_depth;   /* Lua frames per thread */
    uint32_t max_c_depth;      /* nested interpreter entries */
    uint32_t max_string;       /* bytes */
    uint32_t max_table;        /* array + hash entries */
} hv_limits;

/* Where the last error was raised: for faults the host reads. */
typedef struct hv_where {
    char function[128];
    char source[128];
    long pc;
    long line;
} hv_where;

typedef void (*hv_print_fn)(void *ctx, hv_thread *L, int first, int n);

struct hv_vm {
    hv_limits lim;
    bool f32;      /* numbers are float32: round every arithmetic result */
    bool checked;  /* mode 2: every fetch inside the code and aligned */
    uint64_t bytes, gc_threshold;
    int gc_pause;
    hv_gc *all;
    hv_gc *gray;
    hv_str **strt;
    uint32_t nstr, strsize;
    hv_thread *main;
    hv_thread *running;
    hv_table *globals;
    hv_table *registry;
    hv_table *strmeta; /* the string metatable ({__index = string}) */
    hv_str *tmname[24];
    hv_str *typenames[HV_NTAGS];
    hv_proto **protos; /* every loaded prototype (roots for their constants) */
    size_t nprotos, protos_cap;
    gsvm_hks_chunk **chunks; /* loaded chunks (protos point into them) */
    size_t nchunks, chunks_cap;
    int64_t steps_left;     /* until the slice or the total limit */
    uint64_t slice_end_steps, steps; /* executed instructions so far */
    int64_t slice;          /* current run's budget (0 = none) */
    int ccalls;
    hv_where where;
    uint64_t seed;
    hv_print_fn print;
    void *print_ctx;
    void *host; /* the API object that owns this VM */
    bool in_gc;
    bool at_fetch;  /* the error comes from the budget check before a fetch */
    bool where_set; /* `where` describes the error being unwound */
    struct hv_buf *bufs;
    void *pool_free[HV_POOL_MAX / HV_POOL_GRAIN]; /* the small-block pool (vm_gc.c) */
    char *slabs, *slab_cur, *slab_end;
    unsigned nslabs;
    hv_gc **fin;   /* userdata whose __gc is due (hv_gc_collect queues them) */
    size_t nfin, capfin, fin_done;
    bool in_fin;
    char *scratch; /* concatenation's buffer (hv_concat), kept for the next one */
    size_t scratch_cap;
    char errbuf[256];
};

/* metamethod ids (order matters: nomm bits) */
enum { TM_INDEX, TM_NEWINDEX, TM_GC, TM_MODE, TM_EQ, TM_ADD, TM_SUB, TM_MUL, TM_DIV, TM_MOD,
       TM_POW, TM_UNM, TM_LEN, TM_LT, TM_LE, TM_CONCAT, TM_CALL, TM_TOSTRING, TM_N };

#define hv_isnil(o) ((o)->tt == HV_TNIL)
#define hv_isfalse(o) ((o)->tt == HV_TNIL || ((o)->tt == HV_TBOOL && (o)->v.b == 0))
#define hv_setnil(o) ((o)->tt = HV_TNIL)
/* Copies a value as its tag and its payload, as Lua's setobj does, rather
 * than as one 16-byte move: a 16-byte load of a slot that hv_setnum (two
 * narrower stores) has just written cannot take its data from the store
 * buffer and waits until the stores retire, a stall on every MOVE of a
 * fresh result.  The interpreter's hot copies use it (d is evaluated
 * twice). */
#define hv_copy(d, s) ((d)->tt = (s)->tt, (d)->v = (s)->v)
#define hv_setnum(o, x) ((o)->tt = HV_TNUM, (o)->v.n = (x))
#define hv_setbool(o, x) ((o)->tt = HV_TBOOL, (o)->v.b = (x) ? 1 : 0)
#define hv_setgc(o, t, x) ((o)->tt = (t), (o)->v.gc = (hv_gc *)(x))
#define hv_iscollectable(o) ((o)->tt >= HV_TSTR && (o)->tt != HV_TUI64 && (o)->tt <= HV_TSTRUCT)
#define hv_strv(o) ((hv_str *)(o)->v.gc)
#define hv_tabv(o) ((hv_table *)(o)->v.gc)

/* ---- memory and GC (vm_gc.c) ---- */
void *hv_alloc(hv_thread *L, void *p, size_t old, size_t size);
void *hv_alloc_zero(hv_thread *L, size_t size);
void *hv_alloc_raw(hv_vm *vm, size_t size);
void hv_pool_free_all(hv_vm *vm);
#define hv_free(vm, p, sz) hv_free_(vm, p, sz)
void hv_free_(hv_vm *vm, void *p, size_t sz);
hv_gc *hv_newobj(hv_thread *L, uint8_t tt, size_t size);
void hv_gc_collect(hv_thread *L);
/* Calls the queued __gc finalizers (each protected: an error in one is
 * dropped, limits still end the run); at_close: first queue every userdata
 * left, as lua_close does. */
void hv_gc_finalize(hv_thread *L, bool at_close);
static inline void hv_gc_check(hv_thread *L)
{
    if (L->vm->bytes > L->vm->gc_threshold)
        hv_gc_collect(L);
}
void hv_vm_free_all(hv_vm *vm);

/* ---- strings (vm_string.c) ---- */
hv_str *hv_str_new(hv_thread *L, const char *s, size_t len);
hv_str *hv_str_cstr(hv_thread *L, const char *s);
void hv_strtab_resize(hv_thread *L, uint32_t n);
void hv_str_remove(hv_vm *vm, hv_str *s);
int hv_num2str(hv_vm *vm, double n, char *buf); /* "%.14g" */
bool hv_str2num(const char *s, size_t len, double *out);
hv_str *hv_tostr_num(hv_thread *L, double n);

/* ---- tables (vm_table.c) ---- */
extern const hv_value hv_nilobject;
hv_table *hv_table_new(hv_thread *L, int narr, int nhash);
void hv_table_freeobj(hv_vm *vm, hv_table *t);
const hv_value *hv_table_get(hv_table *t, const hv_value *key);
const hv_value *hv_table_getnum(hv_table *t, double key);
const hv_value *hv_table_getint(hv_table *t, int64_t key);
/* Strings are interned, so a string key is found by its address (inline:
 * the interpreter's field accesses call it on every GETFIELD/SELF). */
static inline const hv_value *hv_table_getstr(const hv_table *t, const hv_str *key)
{
    const hv_node *n = &t->node[key->hash & (((size_t)1 << t->lsizenode) - 1)];
    do {
        if (n->key.tt == HV_TSTR && n->key.v.gc == &key->h)
            return &n->val;
        n = n->next;
    } while (n);
    return &hv_nilobject;
}
hv_value *hv_table_set(hv_thread *L, hv_table *t, const hv_value *key);
hv_value *hv_table_setint(hv_thread *L, hv_table *t, int64_t key);
hv_value *hv_table_setstr(hv_thread *L, hv_table *t, hv_str *key);
int hv_table_next(hv_thread *L, hv_table *t, hv_value *key); /* key in/out, value after it */
uint32_t hv_table_len(hv_table *t);

/* #t in O(1) for arrays without holes, the same border lua5.1's binary search
 * finds there (the only one).  A table is DENSE (the zeroed state: no array)
 * until an array slot is written; the writes form a run [wlo, whi] that #t
 * checks against the old border (PENDING); writes that do not extend the run
 * leave UNKNOWN, where #t searches as lua5.1 does, until a resize looks again.
 * Every write into the array part goes through hv_table_noteput first. */
enum { HV_LEN_DENSE, HV_LEN_PENDING, HV_LEN_UNKNOWN };
static inline void hv_table_noteput(hv_table *t, uint32_t i)
{
    if (t->lenmode == HV_LEN_DENSE) {
        t->lenmode = HV_LEN_PENDING;
        t->wlo = t->whi = i;
    } else if (t->lenmode == HV_LEN_PENDING) {
        if (i + 1 == t->wlo)
            t->wlo = i;
        else if (i == t->whi + 1)
            t->whi = i;
        else if (i < t->wlo || i > t->whi)
            t->lenmode = HV_LEN_UNKNOWN;
    }
}

/* The same for a slot found by a lookup (array or hash; only the array counts). */
static inline void hv_table_noteslot(hv_table *t, const hv_value *p)
{
    uintptr_t off = (uintptr_t)p - (uintptr_t)t->arr;
    if (off < (uintptr_t)t->asize * sizeof(hv_value))
        hv_table_noteput(t, (uint32_t)(off / sizeof(hv_value)));
}
void hv_table_resize_array(hv_thread *L, hv_table *t, uint32_t n);

/* ---- structures (vm_struct.c) ---- */
hv_struct *hv_struct_new(hv_thread *L, uint64_t id);
const char *hv_struct_name(const hv_struct *s);
const gsvm_hks_slot *hv_struct_slot(const hv_struct *s, const hv_str *key); /* by name */
const gsvm_hks_slot *hv_struct_slot_at(const hv_struct *s, uint32_t pos);
bool hv_struct_typeok(hv_thread *L, const gsvm_hks_slot *sl, const hv_value *v);
hv_table *hv_struct_backing(hv_thread *L, hv_struct *s, bool create);
const hv_value *hv_struct_meta(const hv_struct *s); /* the metastructure, or NULL */
hv_struct *hv_struct_chain(hv_struct *s, const uint32_t *w, uint32_t n, uint32_t *slot);

/* ---- functions, upvalues ---- */
hv_lfn *hv_lfn_new(hv_thread *L, hv_proto *p, hv_table *env);
hv_cfn *hv_cfn_new(hv_thread *L, hv_cfunc f, const char *name, int nups);
hv_upval *hv_findupval(hv_thread *L, hv_value *level);
void hv_closeupvals(hv_thread *L, hv_value *level);

/* ---- threads, calls, errors (vm_do.c) ---- */
hv_thread *hv_thread_new(hv_thread *L);
void hv_thread_freeobj(hv_vm *vm, hv_thread *t);
void hv_stack_check(hv_thread *L, int n);
/* The ci_cap of a thread with nalloc frame records. */
static inline int hv_ci_cap(const hv_vm *vm, int nalloc)
{
    return nalloc < (int)vm->lim.max_call_depth ? nalloc : (int)vm->lim.max_call_depth;
}
_Noreturn void hv_throw(hv_thread *L, int status);
_Noreturn void hv_error(hv_thread *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void hv_error_value(hv_thread *L); /* the error value is at top - 1 */
_Noreturn void hv_typeerror(hv_thread *L, const hv_value *o, const char *op);
/* Calls the function at stack index `func` with the values above it (to top)
 * and leaves `nresults` results (-1: all) from `func` on; top after them. */
void hv_call(hv_thread *L, int func, int nresults);
/* Protected: returns HV_OK or an error status with the error value at func. */
int hv_pcall(hv_thread *L, int func, int nresults);
/* Prepares a call; true when it is a Lua function (a new frame to run). */
bool hv_precall(hv_thread *L, int func, int nresults);
/* 0: a Lua frame was pushed (run it); 1: a C function ran; 2: it yielded */
int hv_precall_(hv_thread *L, int func, int nresults);
bool hv_budget_slow(hv_thread *L);
void hv_budget_slow_c(hv_thread *L);
const char *hv_tm_name(int event);
void hv_poscall(hv_thread *L, int firstresult);
int hv_resume(hv_thread *L, hv_thread *co, int nargs);
const char *hv_typename(const hv_value *o);
void hv_where_here(hv_thread *L, int level, char *buf, size_t n); /* "src:line:" */
int hv_currentline(hv_thread *L, hv_ci *ci);

/* ---- the interpreter (vm_exec.c) ---- */
int hv_execute(hv_thread *L); /* runs L->ci until the fresh frame returns */
bool hv_equal(hv_thread *L, const hv_value *a, const hv_value *b);
bool hv_rawequal(const hv_value *a, const hv_value *b);
bool hv_lessthan(hv_thread *L, const hv_value *a, const hv_value *b);
void hv_gettable(hv_thread *L, const hv_value *t, const hv_value *key, hv_value *out);
void hv_settable(hv_thread *L, const hv_value *t, const hv_value *key, const hv_value *val);
void hv_concat(hv_thread *L, int total, int last); /* stack indices */
bool hv_tonumber(const hv_value *o, double *out);
bool hv_tostring_inplace(hv_thread *L, hv_value *o);
const hv_value *hv_gettm(hv_thread *L, const hv_value *o, int event);
hv_table *hv_getmeta(hv_thread *L, const hv_value *o);
double hv_round(hv_vm *vm, double x);
void hv_arith(hv_thread *L, hv_value *ra, const hv_value *b, const hv_value *c, int op);

/* ---- libraries (vm_lib_*.c) ---- */
void hv_open_base(hv_thread *L);
void hv_open_string(hv_thread *L);
void hv_open_table(hv_thread *L);
void hv_open_math(hv_thread *L);
void hv_open_coroutine(hv_thread *L);
/* tostring() as the base library does it, result on top */
void hv_tostring(hv_thread *L, int idx);

/* ---- helpers for C functions ---- */
#define HV_ARG(L, i) (&(L)->stack[(L)->base + (i)])
static inline void hv_push(hv_thread *L, const hv_value *v)
{
    hv_copy(&L->stack[L->top], v);
    L->top++;
}
static inline void hv_pushnum(hv_thread *L, double n)
{
    hv_setnum(&L->stack[L->top], n);
    L->top++;
}
static inline void hv_pushnil(hv_thread *L)
{
    hv_setnil(&L->stack[L->top]);
    L->top++;
}
static inline void hv_pushbool(hv_thread *L, int b)
{
    hv_setbool(&L->stack[L->top], b);
    L->top++;
}
static inline void hv_pushstr(hv_thread *L, hv_str *s)
{
    hv_setgc(&L->stack[L->top], HV_TSTR, s);
    L->top++;
}
void hv_pushlstr(hv_thread *L, const char *s, size_t n);
void hv_pushcstr(hv_thread *L, const char *s);
void hv_register(hv_thread *L, hv_table *t, const char *name, hv_cfunc f);
/* A library: the functions registered in order into the table global NAME
 * (made with room for nhash keys), or into the globals when name is NULL.
 * The order and size are Lua 5.1's, so pairs() over a library visits its
 * functions in stock Lua's order. */
typedef struct hv_libfn {
    const char *name;
    hv_cfunc f;
} hv_libfn;
hv_table *hv_open_lib(hv_thread *L, const char *name, int nhash, const hv_libfn *fns, size_t n);
#define HV_NFNS(a) (sizeof(a) / sizeof((a)[0]))
/* Argument checks.  The common case (a number, a string) is inline, the
 * conversions and the errors are in vm_lib_base.c (the names with _):
 * string.byte and math.floor are called often enough for the calls to
 * weigh. */
double hv_checknum_(hv_thread *L, int nargs, int i, const char *fn);
int64_t hv_checkint_(hv_thread *L, int nargs, int i, const char *fn);
hv_str *hv_checkstr_(hv_thread *L, int nargs, int i, const char *fn);
static inline double hv_checknum(hv_thread *L, int nargs, int i, const char *fn)
{
    if (i < nargs && HV_ARG(L, i)->tt == HV_TNUM)
        return HV_ARG(L, i)->v.n;
    return hv_checknum_(L, nargs, i, fn);
}
static inline int64_t hv_checkint(hv_thread *L, int nargs, int i, const char *fn)
{
    if (i < nargs && HV_ARG(L, i)->tt == HV_TNUM) {
        double d = HV_ARG(L, i)->v.n;
        if (d > -9.2e18 && d < 9.2e18)
            return (int64_t)d;
    }
    return hv_checkint_(L, nargs, i, fn);
}
static inline int64_t hv_optint(hv_thread *L, int nargs, int i, const char *fn, int64_t def)
{
    if (i >= nargs || HV_ARG(L, i)->tt == HV_TNIL)
        return def;
    return hv_checkint(L, nargs, i, fn);
}
static inline hv_str *hv_checkstr(hv_thread *L, int nargs, int i, const char *fn)
{
    if (i < nargs && HV_ARG(L, i)->tt == HV_TSTR)
        return (hv_str *)HV_ARG(L, i)->v.gc;
    return hv_checkstr_(L, nargs, i, fn);
}
double hv_optnum(hv_thread *L, int nargs, int i, const char *fn, double def);
hv_table *hv_checktab(hv_thread *L, int nargs, int i, const char *fn);
void hv_checkany(hv_thread *L, int nargs, int i, const char *fn);
_Noreturn void hv_argerror(hv_thread *L, int i, const char *fn, const char *msg);

/* A growable byte buffer that respects the string limit.  Buffers form a
 * stack in the VM, so that an error unwinding past a C function frees the
 * buffers it had open (hv_buf_unwind). */
typedef struct hv_buf {
    char *p;
    size_t n, cap;
    struct hv_buf *prev;
} hv_buf;
void hv_buf_init(hv_thread *L, hv_buf *b);
void hv_buf_unwind(hv_vm *vm, hv_buf *to);
void hv_buf_add(hv_thread *L, hv_buf *b, const char *s, size_t n);
/* Grows *p to hold at least `need` bytes (doubling from `first`); throws
 * HV_ERRMEM when it cannot.  hv_buf and concatenation's scratch share it. */
char *hv_bytes_reserve(hv_thread *L, char **p, size_t *cap, size_t need, size_t first);
void hv_buf_free(hv_thread *L, hv_buf *b);

/* ---- the VM object ---- */
hv_vm *hv_vm_new(const hv_limits *lim, bool f32);
void hv_vm_free(hv_vm *vm);
/* Converts a loaded chunk's main function into a closure on top of L's stack. */
int hv_load(hv_thread *L, gsvm_hks_chunk *c, char *err, size_t errn);

#endif
