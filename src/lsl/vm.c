/* The Falcon interpreter: dispatch, step/run and the host boundary.
 *
 * All script state is data in the VM object (ip, operand stack, locals,
 * globals, counters), never the C call stack, so run() may stop after any
 * instruction and a snapshot can capture everything.  The dispatch loop is
 * expanded from isa.def; with GCC/Clang it is threaded through a table of
 * label addresses (computed goto), elsewhere it is a plain switch. */
#include "lsl/abi2.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(GSVM_LSL_NO_COMPUTED_GOTO)
#define FAL_THREADED 1
#else
#define FAL_THREADED 0
#endif

fal_str *fal_str_new(const gsvm_lsl_vm *vm, const char *bytes, size_t len)
{
    fal_str *s = fal_realloc(vm, NULL, sizeof *s + len + 1);
    if (!s)
        return NULL;
    s->refs = 1;
    s->len = (uint32_t)len;
    if (len)
        memcpy(s->bytes, bytes, len);
    s->bytes[len] = 0;
    return s;
}

void fal_values_release(const gsvm_lsl_vm *vm, fal_value *vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fal_value_release(vm, &vals[i]);
}

static bool pvalue_to_value(const gsvm_lsl_vm *vm, const fal_pvalue *pv, fal_value *out)
{
    out->tag = pv->type;
    if (pv->type == GSVM_LSL_INTEGER) {
        out->u.i = pv->i;
        return true;
    }
    out->u.s = fal_str_new(vm, pv->s, pv->len);
    if (!out->u.s)
        out->tag = 0; /* nothing to release (gsvm_lsl_vm_free skips tag 0) */
    return out->u.s != NULL;
}

gsvm_status fal2_vm_new_alloc(const gsvm_lsl_program *prog, gsvm_lsl_realloc_fn fn, void *user,
                                  gsvm_lsl_vm **out, gsvm_error *err)
{
    *out = NULL;
    gsvm_lsl_vm *vm = fn ? fn(user, NULL, sizeof *vm) : malloc(sizeof *vm);
    if (!vm)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    memset(vm, 0, sizeof *vm);
    vm->abi = 2;
    vm->alloc = fn;
    vm->alloc_user = user;
    vm->prog = gsvm_lsl_program_retain(prog); /* released by fal2_vm_free */
    vm->finished = true; /* nothing dispatched yet */
    vm->consts = fal_calloc(vm, prog->nconst ? prog->nconst : 1, sizeof *vm->consts);
    vm->globals = fal_calloc(vm, prog->nglobal ? prog->nglobal : 1, sizeof *vm->globals);
    vm->stack_cap = 64;
    vm->stack = fal_realloc(vm, NULL, vm->stack_cap * sizeof *vm->stack);
    bool ok = vm->consts && vm->globals && vm->stack;
    for (size_t i = 0; ok && i < prog->nconst; i++)
        ok = pvalue_to_value(vm, &prog->consts[i], &vm->consts[i]);
    for (size_t i = 0; ok && i < prog->nglobal; i++) {
        ok = pvalue_to_value(vm, &prog->globals[i], &vm->globals[i]);
        if (ok)
            vm->nglobals++;
    }
    for (size_t i = 0; i < prog->nevent; i++)
        if (prog->events[i].local_count > vm->max_locals)
            vm->max_locals = prog->events[i].local_count;
    if (!ok) {
        gsvm_lsl_vm_free(vm);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    *out = vm;
    return GSVM_OK;
}

void fal2_vm_free(gsvm_lsl_vm *vm)
{
    if (!vm)
        return;
    if (vm->consts)
        for (size_t i = 0; i < vm->prog->nconst; i++)
            if (vm->consts[i].tag)
                fal_value_release(vm, &vm->consts[i]);
    fal_free(vm, vm->consts);
    fal_values_release(vm, vm->stack, vm->sp);
    fal_free(vm, vm->stack);
    fal_values_release(vm, vm->locals, vm->nlocals);
    fal_free(vm, vm->locals);
    fal_values_release(vm, vm->globals, vm->nglobals);
    fal_free(vm, vm->globals);
    fal2_queue_free(vm);
    const gsvm_lsl_program *prog = vm->prog;
    fal_free(vm, vm); /* the last use of vm->alloc */
    gsvm_lsl_program_release((gsvm_lsl_program *)prog);
}

void fal2_vm_set_host(gsvm_lsl_vm *vm, gsvm_lsl_host_fn fn, void *user)
{
    vm->host = fn;
    vm->host_user = user;
}

bool fal2_vm_finished(const gsvm_lsl_vm *vm) { return vm->finished; }
bool fal2_vm_in_host_call(const gsvm_lsl_vm *vm) { return vm->in_host; }
uint64_t fal2_vm_ip(const gsvm_lsl_vm *vm) { return vm->ip; }
uint64_t fal2_vm_total(const gsvm_lsl_vm *vm) { return vm->total; }
const char *fal2_vm_fault(const gsvm_lsl_vm *vm) { return vm->faulted ? vm->fault : NULL; }
uint64_t fal2_vm_fault_ip(const gsvm_lsl_vm *vm) { return vm->fault_ip; }

bool fal2_vm_fault_line(const gsvm_lsl_vm *vm, uint32_t *line, uint32_t *col)
{
    if (!vm->faulted) {
        *line = *col = 0;
        return false;
    }
    return gsvm_lsl_program_line(vm->prog, vm->fault_ip, line, col);
}

bool fal2_vm_global(const gsvm_lsl_vm *vm, size_t slot, gsvm_lsl_hostval *out)
{
    if (slot >= vm->nglobals)
        return false;
    const fal_value *v = &vm->globals[slot];
    *out = (gsvm_lsl_hostval){(gsvm_lsl_type)v->tag, 0, NULL, 0};
    if (v->tag == GSVM_LSL_INTEGER)
        out->integer = v->u.i;
    else {
        out->str = v->u.s->bytes;
        out->len = v->u.s->len;
    }
    return true;
}

static const char *type_name(int tag)
{
    return tag == GSVM_LSL_INTEGER ? "integer" : tag == GSVM_LSL_STRING ? "string" : "void";
}

gsvm_status fal2_vm_dispatch(gsvm_lsl_vm *vm, const char *event, const gsvm_lsl_hostval *args,
                                 size_t argc, gsvm_error *err)
{
    if (vm->in_host)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL,
                              "dispatching '%s' from inside the VM's own host call is refused", event);
    /* 1. look the handler up */
    const fal_event *e = fal_program_find_event(vm->prog, event);
    if (!e)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "the script has no '%s' handler", event);
    /* 2. check the arguments against param_types */
    if (argc != e->nparams)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s takes %u argument%s, got %zu", event,
                              e->nparams, e->nparams == 1 ? "" : "s", argc);
    for (size_t i = 0; i < argc; i++)
        if (args[i].type != e->param_types[i])
            return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s argument %zu must be %s, got %s",
                                  event, i + 1, type_name(e->param_types[i]),
                                  type_name(args[i].type));
    /* 3. size the locals and seed the parameters (new values first, so a
     * failed allocation leaves the VM as it was) */
    size_t n = e->local_count;
    fal_value *locals = vm->locals;
    if (n > vm->locals_cap) {
        locals = fal_realloc(vm, NULL, n * sizeof *locals);
        if (!locals)
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    fal_value fresh[FAL_MAX_PARAMS];
    for (size_t i = 0; i < argc; i++) {
        fresh[i].tag = (uint32_t)args[i].type;
        if (args[i].type == GSVM_LSL_INTEGER)
            fresh[i].u.i = args[i].integer;
        else if (!(fresh[i].u.s = fal_str_new(vm, args[i].str, args[i].len))) {
            fal_values_release(vm, fresh, i);
            if (locals != vm->locals)
                fal_free(vm, locals);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
        }
    }
    fal_values_release(vm, vm->locals, vm->nlocals);
    if (locals != vm->locals) {
        fal_free(vm, vm->locals);
        vm->locals = locals;
        vm->locals_cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        if (i < argc)
            locals[i] = fresh[i];
        else
            locals[i] = (fal_value){GSVM_LSL_INTEGER, {.i = 0}};
    }
    vm->nlocals = n;
    /* 4. clear the operand stack and point ip at the handler */
    fal_values_release(vm, vm->stack, vm->sp);
    vm->sp = 0;
    vm->ip = e->entry_ip;
    vm->finished = false;
    vm->faulted = false;
    vm->fault[0] = 0;
    vm->current = e->name; /* the host's llDetected* question: which event runs */
    vm->current_tag = 0;
    return GSVM_OK;
}

/* ---- the interpreter ------------------------------------------------------ */

static bool grow_stack(gsvm_lsl_vm *vm)
{
    if (vm->stack_cap >= FAL_MAX_STACK)
        return false;
    size_t nc = vm->stack_cap * 2;
    if (nc > FAL_MAX_STACK)
        nc = FAL_MAX_STACK;
    fal_value *ns = fal_realloc(vm, vm->stack, nc * sizeof *ns);
    if (!ns)
        return false;
    vm->stack = ns;
    vm->stack_cap = nc;
    return true;
}

static void set_fault(gsvm_lsl_vm *vm, uint64_t ip, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fault(gsvm_lsl_vm *vm, uint64_t ip, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->fault, sizeof vm->fault, fmt, ap);
    va_end(ap);
    vm->faulted = true;
    vm->finished = true;
    vm->fault_ip = ip;
}

/* Decimal text of an LSL integer, as (string) gives it. */
static fal_str *int_to_str(const gsvm_lsl_vm *vm, int32_t v)
{
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d", (int)v);
    return fal_str_new(vm, buf, (size_t)n);
}

/* CallHost: pops argc values (restoring source order), calls the boundary,
 * pushes a result if one comes back.  Returns false after setting a fault. */
static bool call_host(gsvm_lsl_vm *vm, const fal_insn *in)
{
    const gsvm_lsl_program *p = vm->prog;
    if (in->a < 0 || (size_t)in->a >= p->nhost) {
        set_fault(vm, vm->ip, "bad host index %d (%zu host functions)", (int)in->a, p->nhost);
        return false;
    }
    const char *name = p->host_names[in->a];
    if (in->b < 0 || (size_t)in->b > vm->sp) {
        set_fault(vm, vm->ip, "host-argument underflow: %s called with %d arguments, stack holds %zu",
                  name, (int)in->b, vm->sp);
        return false;
    }
    if (!vm->host) {
        set_fault(vm, vm->ip, "missing host boundary: no host function to call %s", name);
        return false;
    }
    size_t argc = (size_t)in->b;
    fal_value *argv = vm->stack + vm->sp - argc;
    gsvm_lsl_hostval small[8], *args = small;
    if (argc > 8 && !(args = fal_realloc(vm, NULL, argc * sizeof *args))) {
        set_fault(vm, vm->ip, "out of memory calling %s", name);
        return false;
    }
    for (size_t i = 0; i < argc; i++) {
        args[i] = (gsvm_lsl_hostval){(gsvm_lsl_type)argv[i].tag, 0, NULL, 0};
        if (argv[i].tag == GSVM_LSL_INTEGER)
            args[i].integer = argv[i].u.i;
        else {
            args[i].str = argv[i].u.s->bytes;
            args[i].len = argv[i].u.s->len;
        }
    }
    gsvm_lsl_hostval result = {GSVM_LSL_VOID, 0, NULL, 0};
    bool has_result = false;
    gsvm_error herr;
    gsvm_error_clear(&herr);
    vm->in_host = true;
    vm->host_argc = argc;
    gsvm_status st = vm->host(vm->host_user, name, args, argc, &result, &has_result, &herr);
    vm->in_host = false;
    if (args != small)
        fal_free(vm, args);
    if (st != GSVM_OK) {
        set_fault(vm, vm->ip, "host function %s failed: %s", name,
                  herr.message[0] ? herr.message : gsvm_status_name(st));
        return false;
    }
    fal_value rv = {GSVM_LSL_INTEGER, {.i = 0}};
    if (has_result) {
        if (result.type == GSVM_LSL_INTEGER) {
            rv.u.i = result.integer;
        } else if (result.type == GSVM_LSL_STRING) {
            if (result.len > FAL_MAX_STRING) {
                set_fault(vm, vm->ip, "host function %s returned a string over the limit", name);
                return false;
            }
            rv.tag = GSVM_LSL_STRING;
            if (!(rv.u.s = fal_str_new(vm, result.str ? result.str : "", result.str ? result.len : 0))) {
                set_fault(vm, vm->ip, "out of memory calling %s", name);
                return false;
            }
        } else {
            set_fault(vm, vm->ip, "host function %s returned a value of no type", name);
            return false;
        }
    }
    fal_values_release(vm, argv, argc);
    vm->sp -= argc;
    if (has_result)
        vm->stack[vm->sp++] = rv; /* room: argc >= 1 was popped, or checked below */
    return true;
}

gsvm_lsl_run_status fal2_vm_run(gsvm_lsl_vm *vm, uint64_t budget)
{
    if (vm->in_host)
        return GSVM_LSL_ERROR; /* refused: called from this VM's own host callback */
    if (vm->finished)
        return vm->faulted ? GSVM_LSL_ERROR : GSVM_LSL_FINISHED;
    const gsvm_lsl_program *p = vm->prog;
    const fal_insn *const code = p->code;
    const uint64_t ncode = p->ncode;
    const fal_value *const consts = vm->consts;
    const size_t nconst = p->nconst;
    /* The hot state lives in locals (registers) while the loop runs and is
     * written back to the VM whenever anything else may look at it: on
     * every exit, before a host call and before a fault is recorded. */
    fal_value *stack = vm->stack;
    size_t sp = vm->sp;
    size_t cap = vm->stack_cap;
    uint64_t ip = vm->ip;
    uint64_t left = budget;
    const fal_insn *in;
    fal_value *a, *b;

#define SYNC()           \
    do {                 \
        vm->sp = sp;     \
        vm->ip = ip;     \
    } while (0)
#define FAULT(...)                          \
    do {                                    \
        SYNC();                             \
        set_fault(vm, ip, __VA_ARGS__);     \
        goto out;                           \
    } while (0)
#define NEED(n)                                                                      \
    do {                                                                             \
        if (sp < (n))                                                                \
            FAULT("operand-stack underflow: %s needs %d operand%s, stack holds %zu", \
                  fal_ops[in->op].mnemonic, (n), (n) == 1 ? "" : "s", sp);           \
    } while (0)
#define ROOM()                                                                       \
    do {                                                                             \
        if (sp == cap) {                                                             \
            if (!grow_stack(vm))                                                     \
                FAULT("operand-stack overflow: more than %u values", FAL_MAX_STACK); \
            stack = vm->stack;                                                       \
            cap = vm->stack_cap;                                                     \
        }                                                                            \
    } while (0)
#define INT_OPERANDS()                                                                        \
    do {                                                                                      \
        NEED(2);                                                                              \
        a = &stack[sp - 2];                                                                   \
        b = &stack[sp - 1];                                                                   \
        if (a->tag != GSVM_LSL_INTEGER || b->tag != GSVM_LSL_INTEGER)                         \
            FAULT("type mismatch: %s needs integer operands, got %s and %s",                  \
                  fal_ops[in->op].mnemonic, type_name(a->tag), type_name(b->tag));            \
    } while (0)
/* Integer arithmetic wraps at 32 bits as LSL does; done unsigned because
 * signed overflow is undefined in C. */
#define ARITH(expr)                                          \
    do {                                                     \
        INT_OPERANDS();                                      \
        uint32_t x = (uint32_t)a->u.i, y = (uint32_t)b->u.i; \
        a->u.i = (int32_t)(expr);                            \
        sp--;                                                \
    } while (0)
#define COMPARE(expr)                   \
    do {                                \
        INT_OPERANDS();                 \
        int32_t x = a->u.i, y = b->u.i; \
        a->u.i = (expr) ? 1 : 0;        \
        sp--;                           \
    } while (0)

#if FAL_THREADED
    static const void *const labels[FOP_COUNT] = {
#define FALCON_OP(name, mnem, kind, pops, pushes, meaning) &&op_##name,
#include "lsl/isa.def"
#undef FALCON_OP
    };
#define CASE(name) op_##name:
#define DISPATCH() goto *labels[in->op]
#else
#define DISPATCH()
#define CASE(name) case FOP_##name:
#endif
/* Every instruction that completes ends with NEXT (count it, advance) or
 * JUMP_TO (count it, go to a target). */
/* FETCH checks the budget and the ip and decodes the next instruction.
 * With computed goto it is repeated at the end of every handler, so each
 * handler has its own indirect branch (which predicts far better than the
 * single shared one of a switch). */
#define FETCH()                                                                               \
    do {                                                                                      \
        if (left == 0)                                                                        \
            goto yield;                                                                       \
        if (ip >= ncode)                                                                      \
            FAULT("instruction pointer out of range: %llu (the code has %llu instructions)",  \
                  (unsigned long long)ip, (unsigned long long)ncode);                         \
        in = &code[ip];                                                                       \
        if (in->op >= FOP_COUNT)                                                              \
            FAULT("unknown opcode %u", in->op);                                               \
    } while (0)
#if FAL_THREADED
#define NEXT_DISPATCH() \
    do {                \
        FETCH();        \
        DISPATCH();     \
    } while (0)
#else
#define NEXT_DISPATCH() goto next
#endif
#define NEXT              \
    do {                  \
        ip++;             \
        left--;           \
        NEXT_DISPATCH();  \
    } while (0)
#define JUMP_TO(t)             \
    do {                       \
        ip = (uint32_t)(t);    \
        left--;                \
        NEXT_DISPATCH();       \
    } while (0)

#if !FAL_THREADED
next:
#endif
    FETCH();
#if FAL_THREADED
    DISPATCH();
    {
#else
    switch ((fal_op)in->op) {
#endif
    CASE(PUSH_CONST)
    {
        if ((uint32_t)in->a >= nconst)
            FAULT("bad constant index %d (%zu constants)", (int)in->a, nconst);
        ROOM();
        stack[sp++] = fal_value_retain(consts[in->a]);
        NEXT;
    }
    CASE(LOAD_LOCAL)
    {
        if ((uint32_t)in->a >= vm->nlocals)
            FAULT("bad local index %d (%zu locals)", (int)in->a, vm->nlocals);
        ROOM();
        stack[sp++] = fal_value_retain(vm->locals[in->a]);
        NEXT;
    }
    CASE(STORE_LOCAL)
    {
        if ((uint32_t)in->a >= vm->nlocals)
            FAULT("bad local index %d (%zu locals)", (int)in->a, vm->nlocals);
        NEED(1);
        fal_value_release(vm, &vm->locals[in->a]);
        vm->locals[in->a] = stack[--sp];
        NEXT;
    }
    CASE(LOAD_GLOBAL)
    {
        if ((uint32_t)in->a >= vm->nglobals)
            FAULT("bad global index %d (%zu globals)", (int)in->a, vm->nglobals);
        ROOM();
        stack[sp++] = fal_value_retain(vm->globals[in->a]);
        NEXT;
    }
    CASE(STORE_GLOBAL)
    {
        if ((uint32_t)in->a >= vm->nglobals)
            FAULT("bad global index %d (%zu globals)", (int)in->a, vm->nglobals);
        NEED(1);
        fal_value_release(vm, &vm->globals[in->a]);
        vm->globals[in->a] = stack[--sp];
        NEXT;
    }
    CASE(ADD_INT) { ARITH(x + y); NEXT; }
    CASE(SUB_INT) { ARITH(x - y); NEXT; }
    CASE(MUL_INT) { ARITH(x * y); NEXT; }
    CASE(LESS_INT) { COMPARE(x < y); NEXT; }
    CASE(GREATER_INT) { COMPARE(x > y); NEXT; }
    CASE(EQUAL_INT) { COMPARE(x == y); NEXT; }
    CASE(CONCAT_STR)
    {
        NEED(2);
        a = &stack[sp - 2];
        b = &stack[sp - 1];
        if (a->tag != GSVM_LSL_STRING || b->tag != GSVM_LSL_STRING)
            FAULT("type mismatch: ConcatStr needs string operands, got %s and %s",
                  type_name(a->tag), type_name(b->tag));
        size_t la = a->u.s->len, lb = b->u.s->len;
        if (la + lb > FAL_MAX_STRING)
            FAULT("string too long: %zu bytes is over the %u-byte limit", la + lb, FAL_MAX_STRING);
        fal_str *s;
        if (a->u.s->refs == 1) {
            /* The stack holds the only reference to the left string:
             * extend it in place (string-building loops stay cheap). */
            s = fal_realloc(vm, a->u.s, sizeof *s + la + lb + 1);
            if (!s)
                FAULT("out of memory concatenating strings");
            memcpy(s->bytes + la, b->u.s->bytes, lb);
            s->len = (uint32_t)(la + lb);
            s->bytes[la + lb] = 0;
        } else {
            s = fal_realloc(vm, NULL, sizeof *s + la + lb + 1);
            if (!s)
                FAULT("out of memory concatenating strings");
            s->refs = 1;
            s->len = (uint32_t)(la + lb);
            memcpy(s->bytes, a->u.s->bytes, la);
            memcpy(s->bytes + la, b->u.s->bytes, lb);
            s->bytes[la + lb] = 0;
            fal_value_release(vm, a);
        }
        a->u.s = s;
        fal_value_release(vm, b);
        sp--;
        NEXT;
    }
    CASE(CAST_INT_TO_STR)
    {
        NEED(1);
        a = &stack[sp - 1];
        if (a->tag != GSVM_LSL_INTEGER)
            FAULT("type mismatch: CastIntToStr needs an integer, got %s", type_name(a->tag));
        fal_str *s = int_to_str(vm, a->u.i);
        if (!s)
            FAULT("out of memory converting an integer");
        a->tag = GSVM_LSL_STRING;
        a->u.s = s;
        NEXT;
    }
    CASE(JUMP)
    {
        JUMP_TO(in->a);
    }
    CASE(JUMP_IF_ZERO)
    {
        NEED(1);
        a = &stack[sp - 1];
        if (a->tag != GSVM_LSL_INTEGER)
            FAULT("type mismatch: JumpIfZero needs an integer, got %s", type_name(a->tag));
        sp--;
        if (a->u.i == 0)
            JUMP_TO(in->a);
        NEXT;
    }
    CASE(CALL_HOST)
    {
        /* A call with no arguments may push a result where nothing was
         * popped, so it needs room first. */
        if (in->b == 0)
            ROOM();
        SYNC();
        vm->host_total = vm->total + (budget - left) + 1; /* this call included */
        bool ok = call_host(vm, in);
        sp = vm->sp;
        if (!ok)
            goto out;
        NEXT;
    }
    CASE(POP)
    {
        NEED(1);
        fal_value_release(vm, &stack[--sp]);
        NEXT;
    }
    CASE(HALT)
    {
        vm->finished = true;
        left--;
        goto yield;
    }
#if !FAL_THREADED
    default:
        FAULT("unknown opcode %u", in->op);
#endif
    }

yield:
    SYNC();
out:
    vm->total += budget - left;
    if (vm->faulted)
        return GSVM_LSL_ERROR;
    return vm->finished ? GSVM_LSL_FINISHED : GSVM_LSL_YIELDED;
#undef SYNC
#undef FAULT
#undef NEED
#undef ROOM
#undef INT_OPERANDS
#undef ARITH
#undef COMPARE
#undef CASE
#undef DISPATCH
#undef NEXT
#undef JUMP_TO
#undef FETCH
#undef NEXT_DISPATCH
}
