/* The Pathologic script VM: the interpreter loop, calls, tasks, events and
 * the host boundary.  See gsvm/patho_vm.h for the model and vm.h for the
 * state.  Every operand is checked when it is used (the verifier is a
 * separate tool; a VM must survive any program), and every problem becomes
 * a script fault with a message, never a crash. */
#include "patho/vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- faults ---------------------------------------------------------------- */

/* Stops the script: state FAULTED, the message kept for the host. */
static gsvm_status fault(gsvm_patho_vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static gsvm_status fault(gsvm_patho_vm *vm, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->fault, sizeof vm->fault, fmt, ap);
    va_end(ap);
    vm->state = GSVM_PATHO_FAULTED;
    vm->fault_op = vm->pc;
    return GSVM_ERR_FAULT;
}

static gsvm_status report(const gsvm_patho_vm *vm, gsvm_status st, gsvm_error *err)
{
    if (st == GSVM_ERR_FAULT)
        return gsvm_error_set(err, st, NULL, "op %lld: %s", (long long)vm->fault_op, vm->fault);
    if (st == GSVM_ERR_LIMIT)
        return gsvm_error_set(err, st, NULL, "instruction limit reached at op %lld",
                              (long long)vm->pc);
    return st;
}

/* ---- the stack -------------------------------------------------------------- */

static patho_task *top_task(gsvm_patho_vm *vm) { return &vm->tasks[vm->ntasks - 1]; }

/* Stack[-v]: v counts down from the top, 1 is the top. */
static gsvm_patho_value *stack_var(gsvm_patho_vm *vm, uint32_t v)
{
    if (!gsvm_patho_stack_slot_ok(v, vm->size)) {
        fault(vm, "Stack[-%u] is outside the stack (%u slots)", v, vm->size);
        return NULL;
    }
    return &vm->stack[vm->size - v];
}

/* TaskVar[t] = Stack[t + task.sp]. */
static gsvm_patho_value *task_var(gsvm_patho_vm *vm, uint32_t t)
{
    uint64_t at = (uint64_t)top_task(vm)->sp + t;
    if (!gsvm_patho_task_slot_ok(t, (int64_t)vm->size - (int64_t)top_task(vm)->sp)) {
        fault(vm, "task variable %u is outside the stack (task base %u, %u slots)", t,
              top_task(vm)->sp, vm->size);
        return NULL;
    }
    return &vm->stack[at];
}

static gsvm_patho_value *var_by_mode(gsvm_patho_vm *vm, uint32_t v, unsigned mode)
{
    if (mode == 0)
        return stack_var(vm, v);
    if (mode == 1)
        return task_var(vm, v);
    fault(vm, "invalid addressing mode %u", mode);
    return NULL;
}

static gsvm_status pop(gsvm_patho_vm *vm, uint64_t n)
{
    if (n > vm->size)
        return fault(vm, "Stack underflow: popping %llu of %u slots", (unsigned long long)n,
                     vm->size);
    for (uint64_t i = 0; i < n; i++) {
        gsvm_patho_value *v = &vm->stack[--vm->size];
        if (v->type == GSVM_PATHO_STRING)
            gsvm_patho_value_free(v);
    }
    return GSVM_OK;
}

/* Makes room for n more slots (the VM's stack limit applies). */
static gsvm_status room(gsvm_patho_vm *vm, uint64_t n)
{
    if (vm->size + n > GSVM_PATHO_MAX_STACK)
        return fault(vm, "Stack overflow (more than %u slots)", GSVM_PATHO_MAX_STACK);
    if (!patho_vm_reserve_stack(vm, (uint32_t)(vm->size + n)))
        return fault(vm, "Out of memory");
    return GSVM_OK;
}

/* Pushes `v` (ownership moves to the stack). */
static gsvm_status push(gsvm_patho_vm *vm, gsvm_patho_value *v)
{
    gsvm_status st = room(vm, 1);
    if (st != GSVM_OK) {
        gsvm_patho_value_free(v);
        return st;
    }
    vm->stack[vm->size++] = *v;
    return GSVM_OK;
}

/* Inserts `n` fresh slots of the given types below the top `below` slots. */
static gsvm_status insert_typed(gsvm_patho_vm *vm, const uint8_t *types, uint32_t n,
                                uint32_t below)
{
    if (below > vm->size)
        return fault(vm, "Stack underflow: %u parameters expected, %u slots", below, vm->size);
    for (uint32_t i = 0; i < n; i++)
        if (!gsvm_patho_type_name(types[i]))
            return fault(vm, "invalid variable type %u", types[i]);
    gsvm_status st = room(vm, n);
    if (st != GSVM_OK)
        return st;
    uint32_t at = vm->size - below;
    if (below)
        memmove(&vm->stack[at + n], &vm->stack[at], (size_t)below * sizeof *vm->stack);
    for (uint32_t i = 0; i < n; i++)
        gsvm_patho_value_default(&vm->stack[at + i], types[i]);
    vm->size += n;
    return GSVM_OK;
}

/* Removes `n` slots lying below the top `above` slots. */
static gsvm_status remove_below(gsvm_patho_vm *vm, uint32_t n, uint32_t above)
{
    if ((uint64_t)n + above > vm->size)
        return fault(vm, "Stack underflow: removing %u slots below %u of %u", n, above, vm->size);
    uint32_t at = vm->size - above - n;
    for (uint32_t i = 0; i < n; i++)
        gsvm_patho_value_free(&vm->stack[at + i]);
    if (above)
        memmove(&vm->stack[at], &vm->stack[at + n], (size_t)above * sizeof *vm->stack);
    vm->size -= n;
    return GSVM_OK;
}

/* ---- the pool ------------------------------------------------------------------ */

/* The UTF-16LE NUL-terminated data string at byte offset `off`. */
static gsvm_status pool_string(gsvm_patho_vm *vm, uint32_t off, gsvm_patho_value *out)
{
    const gsvm_patho_program *p = vm->prog;
    if (off >= p->pool_size)
        return fault(vm, "pool offset %u is outside the pool (%u bytes)", off, p->pool_size);
    uint32_t n = 0;
    while (true) {
        uint64_t at = (uint64_t)off + 2u * n;
        if (at + 1 >= p->pool_size)
            return fault(vm, "the string at pool offset %u is not terminated", off);
        if (p->pool[at] == 0 && p->pool[at + 1] == 0)
            break;
        if (++n > GSVM_PATHO_MAX_STRING)
            return fault(vm, "String too long (more than %u characters)", GSVM_PATHO_MAX_STRING);
    }
    memset(out, 0, sizeof *out);
    out->type = GSVM_PATHO_STRING;
    if (n) {
        out->as.s.units = malloc((size_t)n * sizeof(uint16_t));
        if (!out->as.s.units) {
            out->type = GSVM_PATHO_BOOL;
            return fault(vm, "Out of memory");
        }
        for (uint32_t i = 0; i < n; i++)
            out->as.s.units[i] =
                (uint16_t)(p->pool[off + 2u * i] | (p->pool[off + 2u * i + 1] << 8));
    }
    out->as.s.len = n;
    return GSVM_OK;
}

/* The 8-bit NUL-terminated method name at byte offset `off`, into vm->name. */
static gsvm_status pool_name(gsvm_patho_vm *vm, uint32_t off)
{
    const gsvm_patho_program *p = vm->prog;
    if (off >= p->pool_size)
        return fault(vm, "pool offset %u is outside the pool (%u bytes)", off, p->pool_size);
    size_t n = 0;
    while (off + n < p->pool_size && p->pool[off + n] != 0) {
        if (n + 1 >= sizeof vm->name)
            return fault(vm, "the method name at pool offset %u is too long", off);
        vm->name[n] = (char)p->pool[off + n];
        n++;
    }
    if (off + n >= p->pool_size)
        return fault(vm, "the method name at pool offset %u is not terminated", off);
    vm->name[n] = 0;
    return GSVM_OK;
}

/* ---- assignment helpers ---------------------------------------------------------- */

static gsvm_status assign(gsvm_patho_vm *vm, gsvm_patho_value *dst, const gsvm_patho_value *src)
{
    char msg[200];
    gsvm_status st = gsvm_patho_value_assign(dst, src, msg, sizeof msg);
    return st == GSVM_OK ? GSVM_OK : fault(vm, "%s", msg);
}

/* Assigns a fresh value and frees it. */
static gsvm_status assign_fresh(gsvm_patho_vm *vm, gsvm_patho_value *dst, gsvm_patho_value *v)
{
    gsvm_status st = assign(vm, dst, v);
    gsvm_patho_value_free(v);
    return st;
}

/* ---- operators ------------------------------------------------------------------- */

opmeaning patho_op_meaning(unsigned op)
{
    opmeaning m = {-1, -1};
    switch (op) {
#define BIN(a, b, o) case GSVM_PATHO_OP_##a: case GSVM_PATHO_OP_##b: m.binop = o; break;
        BIN(Add, Add2, PATHO_ADD)
        BIN(Sub, Sub2, PATHO_SUB)
        BIN(Mult, Mult2, PATHO_MUL)
        BIN(Div, Div2, PATHO_DIV)
        BIN(Mod, Mod2, PATHO_MOD)
        BIN(And, And2, PATHO_AND)
        BIN(Or, Or2, PATHO_OR)
        BIN(Xor, Xor2, PATHO_XOR)
        BIN(Eq, Eq2, PATHO_EQ)
        BIN(Neq, Neq2, PATHO_NEQ)
        BIN(LT, LT2, PATHO_LT)
        BIN(GT, GT2, PATHO_GT)
        BIN(LE, LE2, PATHO_LE)
        BIN(GE, GE2, PATHO_GE)
        BIN(Pow, Pow2, PATHO_POW)
#undef BIN
#define UN(a, b, o) case GSVM_PATHO_OP_##a: case GSVM_PATHO_OP_##b: m.unop = o; break;
        UN(NullEq, NullEq2, PATHO_NULLEQ)
        UN(NullNeq, NullNeq2, PATHO_NULLNEQ)
        UN(Neg, Neg2, PATHO_NEG)
        UN(Not, Not2, PATHO_NOT)
        UN(Sqrt, Sqrt2, PATHO_SQRT)
        UN(Sin, Sin2, PATHO_SIN)
        UN(Cos, Cos2, PATHO_COS)
        UN(ASin, ASin2, PATHO_ASIN)
        UN(CString, CString2, PATHO_CSTRING)
#undef UN
    default: break;
    }
    return m;
}

/* The flag-addressed operand `mi` of `in` (the i-th operand overall). */
static gsvm_patho_value *mode_var(gsvm_patho_vm *vm, const gsvm_patho_insn *in, unsigned i,
                                  unsigned mi, uint8_t flags)
{
    return (flags & gsvm_patho_mode_bit(mi)) ? task_var(vm, in->a[i]) : stack_var(vm, in->a[i]);
}

/* FuncExist: object, name (string), argument count (int) -> bool. */
static gsvm_status func_exist(gsvm_patho_vm *vm, const gsvm_patho_value *obj,
                              const gsvm_patho_value *name, const gsvm_patho_value *argc,
                              bool *out)
{
    if (obj->type != GSVM_PATHO_OBJECT || name->type != GSVM_PATHO_STRING ||
        argc->type != GSVM_PATHO_INT)
        return fault(vm, "Type mismatch in 'FuncExist' (%s, %s, %s)",
                     gsvm_patho_type_name(obj->type), gsvm_patho_type_name(name->type),
                     gsvm_patho_type_name(argc->type));
    *out = false;
    if (obj->as.object == 0 || !vm->host.method_exists)
        return GSVM_OK;
    char *text = gsvm_patho_string_to_utf8(name, NULL);
    if (!text)
        return fault(vm, "Out of memory");
    vm->in_call = true;
    *out = vm->host.method_exists(vm->host.user, obj->as.object, text, argc->as.i);
    vm->in_call = false;
    free(text);
    return GSVM_OK;
}

/* The FPUSH and FSET groups: read the inputs, compute, then either pop and
 * push the result or write it into the out slot and pop. */
static gsvm_status exec_operator(gsvm_patho_vm *vm, const gsvm_patho_insn *in,
                                 const gsvm_patho_opinfo *info)
{
    const gsvm_patho_shape sh = vm->shapes[in->op];
    uint8_t flags = (uint8_t)in->a[sh.flag_at];
    unsigned npop = flags & sh.popmask;
    bool set = info->cls == GSVM_PATHO_C_FSET;
    unsigned ninputs = (unsigned)sh.nmodes - (set ? 1u : 0u);
    gsvm_patho_value *v[4] = {NULL, NULL, NULL, NULL};
    for (unsigned i = 0; i < ninputs; i++)
        if (!(v[i] = mode_var(vm, in, i, i, flags)))
            return GSVM_ERR_FAULT;
    gsvm_patho_value r;
    char msg[200];
    gsvm_status st;
    if (in->op == GSVM_PATHO_OP_FuncExist || in->op == GSVM_PATHO_OP_FuncExist2) {
        bool has;
        if ((st = func_exist(vm, v[0], v[1], v[2], &has)) != GSVM_OK)
            return st;
        r = patho_mk_bool(has);
    } else {
        opmeaning m = vm->meanings[in->op];
        if (m.binop >= 0)
            st = patho_binop_apply((patho_binop)m.binop, v[0], v[1], &r, msg, sizeof msg);
        else
            st = patho_unop_apply((patho_unop)m.unop, v[0], &r, msg, sizeof msg);
        if (st != GSVM_OK)
            return fault(vm, "%s", msg);
    }
    if (set) {
        gsvm_patho_value *out = mode_var(vm, in, ninputs, ninputs, flags);
        if (!out) {
            gsvm_patho_value_free(&r);
            return GSVM_ERR_FAULT;
        }
        if ((st = assign_fresh(vm, out, &r)) != GSVM_OK)
            return st;
        return pop(vm, npop);
    }
    if ((st = pop(vm, npop)) != GSVM_OK) {
        gsvm_patho_value_free(&r);
        return st;
    }
    return push(vm, &r);
}

/* ---- natives ------------------------------------------------------------------- */

/* Builds the call for the native op at vm->pc (Func / ObjFunc / TObjFunc):
 * the name, the object and pointers to the argument slots. */
static gsvm_status prepare_call(gsvm_patho_vm *vm, const gsvm_patho_insn *in, gsvm_patho_call *c)
{
    const gsvm_patho_program *p = vm->prog;
    memset(c, 0, sizeof *c);
    c->native = -1;
    if (in->op == GSVM_PATHO_OP_Func) {
        uint32_t idx = in->a[0];
        if (idx >= p->nimports)
            return fault(vm, "import %u does not exist (%u imports)", idx, p->nimports);
        const gsvm_patho_import *im = &p->imports[idx];
        c->name = im->name.str ? im->name.str : "";
        c->native = vm->native_ids[idx]; /* >= 0: vm_new refused the others */
        if (in->list_len != im->argc)
            return fault(vm, "'%s' takes %u arguments, the call has %u", c->name, im->argc,
                         in->list_len);
    } else {
        gsvm_patho_value *obj = in->op == GSVM_PATHO_OP_ObjFunc ? stack_var(vm, in->a[0])
                                                                : task_var(vm, in->a[0]);
        if (!obj)
            return GSVM_ERR_FAULT;
        gsvm_status st = pool_name(vm, in->a[1]);
        if (st != GSVM_OK)
            return st;
        c->name = vm->name;
        if (obj->type != GSVM_PATHO_OBJECT)
            return fault(vm, "Type mismatch in call to method '%s': %s is no object", c->name,
                         gsvm_patho_type_name(obj->type));
        if (obj->as.object == 0)
            return fault(vm, "Method '%s' called on a null object", c->name);
        c->is_method = true;
        c->object = obj->as.object;
    }
    if ((uint64_t)in->list + in->list_len > p->nargs)
        return fault(vm, "argument list outside the program");
    if (!patho_grow((void **)&vm->argv, &vm->argv_cap, in->list_len + 1, sizeof *vm->argv))
        return fault(vm, "Out of memory");
    for (uint32_t i = 0; i < in->list_len; i++) {
        const gsvm_patho_arg *a = &p->args[in->list + i];
        if (!(vm->argv[i] = var_by_mode(vm, a->var, a->mode)))
            return GSVM_ERR_FAULT;
    }
    c->args = vm->argv;
    c->argc = in->list_len;
    return GSVM_OK;
}

/* Performs (or resumes) the native op at vm->pc. */
static gsvm_status do_call(gsvm_patho_vm *vm, const gsvm_patho_insn *in, bool resuming)
{
    gsvm_patho_call c;
    gsvm_status st = prepare_call(vm, in, &c);
    if (st != GSVM_OK)
        return st;
    c.resuming = resuming;
    if (resuming)
        memcpy(c.latent, vm->latent, sizeof c.latent);
    gsvm_patho_call_result r = GSVM_PATHO_CALL_DONE;
    if (vm->host.call) {
        vm->in_call = true;
        r = vm->host.call(vm->host.user, vm, &c);
        vm->in_call = false;
    }
    switch (r) {
    case GSVM_PATHO_CALL_DONE:
        memset(vm->latent, 0, sizeof vm->latent);
        vm->state = GSVM_PATHO_RUNNING;
        vm->pc++;
        return GSVM_OK;
    case GSVM_PATHO_CALL_YIELD:
        memcpy(vm->latent, c.latent, sizeof vm->latent);
        vm->state = GSVM_PATHO_WAITING;
        return GSVM_OK;
    default:
        c.fault[sizeof c.fault - 1] = 0;
        return fault(vm, "%s", c.fault[0] ? c.fault : "native call failed");
    }
}

/* ---- calls and tasks --------------------------------------------------------------- */

static gsvm_status push_frame(gsvm_patho_vm *vm, patho_frame f)
{
    patho_task *t = top_task(vm);
    if (t->ncalls >= GSVM_PATHO_MAX_CALLS)
        return fault(vm, "Call stack overflow (more than %u calls)", GSVM_PATHO_MAX_CALLS);
    if (!patho_task_reserve_calls(t, t->ncalls + 1))
        return fault(vm, "Out of memory");
    t->calls[t->ncalls++] = f;
    return GSVM_OK;
}

static gsvm_status do_return(gsvm_patho_vm *vm, uint32_t npop)
{
    patho_task *t = top_task(vm);
    if (t->ncalls == 0)
        return fault(vm, "Call stack underflow");
    patho_frame f = t->calls[t->ncalls - 1];
    gsvm_status st = pop(vm, (uint64_t)npop + f.extra_pop);
    if (st != GSVM_OK)
        return st;
    t->ncalls--;
    vm->pc = f.ret;
    if (f.ret < 0) {
        vm->pc = -1;
        vm->state = GSVM_PATHO_FINISHED;
    } else if (f.waiting) {
        memcpy(vm->latent, f.latent, sizeof vm->latent);
        vm->state = GSVM_PATHO_WAITING;
    }
    return GSVM_OK;
}

static gsvm_status enter_task(gsvm_patho_vm *vm, uint32_t id)
{
    const gsvm_patho_program *p = vm->prog;
    if (id >= p->ntasks)
        return fault(vm, "Invalid task ID '%u'", id);
    if (vm->ntasks >= GSVM_PATHO_MAX_TASKS)
        return fault(vm, "Task stack overflow (more than %u tasks)", GSVM_PATHO_MAX_TASKS);
    const gsvm_patho_task *task = &p->tasks[id];
    if (task->nparams > vm->size)
        return fault(vm, "task %u takes %u parameters, the stack has %u slots", id,
                     task->nparams, vm->size);
    if (!patho_vm_reserve_tasks(vm, vm->ntasks + 1))
        return fault(vm, "Out of memory");
    uint32_t sp = vm->size - task->nparams;
    gsvm_status st = insert_typed(vm, task->var_types, task->nvars, task->nparams);
    if (st != GSVM_OK)
        return st;
    patho_task *t = &vm->tasks[vm->ntasks++];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->sp = sp;
    return GSVM_OK;
}

static gsvm_status leave_task(gsvm_patho_vm *vm)
{
    patho_task *t = top_task(vm);
    if (vm->ntasks <= 1)
        return fault(vm, "TaskReturn outside a called task");
    if (t->ncalls != 0)
        return fault(vm, "TaskReturn with %u pending calls", t->ncalls);
    const gsvm_patho_task *task = &vm->prog->tasks[t->id];
    gsvm_status st = remove_below(vm, task->nvars, task->nparams);
    if (st != GSVM_OK)
        return st;
    free(t->calls);
    free(t->disabled);
    vm->ntasks--;
    return GSVM_OK;
}

static patho_disabled *find_disabled(patho_task *t, uint32_t id)
{
    for (uint32_t i = 0; i < t->ndisabled; i++)
        if (t->disabled[i].id == id)
            return &t->disabled[i];
    return NULL;
}

static gsvm_status event_toggle(gsvm_patho_vm *vm, uint32_t id, bool disable)
{
    patho_task *t = top_task(vm);
    patho_disabled *d = find_disabled(t, id);
    if (disable) {
        if (d) {
            if (d->count < UINT32_MAX)
                d->count++;
            return GSVM_OK;
        }
        if (t->ndisabled >= GSVM_PATHO_MAX_DISABLED)
            return fault(vm, "too many disabled events (more than %u)", GSVM_PATHO_MAX_DISABLED);
        if (!patho_task_reserve_disabled(t, t->ndisabled + 1))
            return fault(vm, "Out of memory");
        t->disabled[t->ndisabled++] = (patho_disabled){id, 1};
    } else if (d && --d->count == 0) {
        *d = t->disabled[--t->ndisabled];
    }
    return GSVM_OK;
}

/* ---- the interpreter ------------------------------------------------------------------ */

static gsvm_status jump_to(gsvm_patho_vm *vm, uint32_t target)
{
    if (target >= vm->prog->ninsns)
        return fault(vm, "jump target %u is outside the code (%u instructions)", target,
                     vm->prog->ninsns);
    vm->pc = target;
    return GSVM_OK;
}

/* Executes the instruction at vm->pc.  On return the VM has moved on (pc,
 * state) or faulted. */
static gsvm_status step(gsvm_patho_vm *vm)
{
    const gsvm_patho_program *p = vm->prog;
    if (vm->pc < 0 || vm->pc >= (int64_t)p->ninsns)
        return fault(vm, "op %lld is outside the code (%u instructions)", (long long)vm->pc,
                     p->ninsns);
    const gsvm_patho_insn *in = &p->insns[vm->pc];
    if (in->op >= GSVM_PATHO_OP_COUNT)
        return fault(vm, "unknown opcode %u", in->raw);
    const gsvm_patho_opinfo *info = &gsvm_patho_ops[in->op];
    const uint32_t *a = in->a;
    gsvm_patho_value *x, *y, tmp;
    gsvm_status st = GSVM_OK;

    switch (in->op) {
    /* Moves: the destination keeps its type (its Set converts or faults). */
    case GSVM_PATHO_OP_Mov:
        if (!(x = stack_var(vm, a[0])) || !(y = stack_var(vm, a[1])))
            return GSVM_ERR_FAULT;
        st = assign(vm, y, x);
        break;
    case GSVM_PATHO_OP_MovT:
        if (!(x = task_var(vm, a[0])) || !(y = stack_var(vm, a[1])))
            return GSVM_ERR_FAULT;
        st = assign(vm, y, x);
        break;
    case GSVM_PATHO_OP_TMov:
        if (!(x = stack_var(vm, a[0])) || !(y = task_var(vm, a[1])))
            return GSVM_ERR_FAULT;
        st = assign(vm, y, x);
        break;
    case GSVM_PATHO_OP_TMovT:
        if (!(x = task_var(vm, a[0])) || !(y = task_var(vm, a[1])))
            return GSVM_ERR_FAULT;
        st = assign(vm, y, x);
        break;
    case GSVM_PATHO_OP_MovB:
    case GSVM_PATHO_OP_MovI:
    case GSVM_PATHO_OP_MovF:
    case GSVM_PATHO_OP_MovS:
    case GSVM_PATHO_OP_MovV:
    case GSVM_PATHO_OP_TMovB:
    case GSVM_PATHO_OP_TMovI:
    case GSVM_PATHO_OP_TMovF:
    case GSVM_PATHO_OP_TMovS:
    case GSVM_PATHO_OP_TMovV: {
        bool task = in->op >= GSVM_PATHO_OP_TMovB;
        if (!(y = task ? task_var(vm, a[0]) : stack_var(vm, a[0])))
            return GSVM_ERR_FAULT;
        switch (in->op) {
        case GSVM_PATHO_OP_MovB: case GSVM_PATHO_OP_TMovB: tmp = patho_mk_bool(a[1] != 0); break;
        case GSVM_PATHO_OP_MovI: case GSVM_PATHO_OP_TMovI: tmp = patho_mk_int((int32_t)a[1]); break;
        case GSVM_PATHO_OP_MovF: case GSVM_PATHO_OP_TMovF: tmp = patho_mk_float(gsvm_patho_f32(a[1])); break;
        case GSVM_PATHO_OP_MovV: case GSVM_PATHO_OP_TMovV:
            tmp = patho_mk_cvector(gsvm_patho_f32(a[1]), gsvm_patho_f32(a[2]), gsvm_patho_f32(a[3]));
            break;
        default:
            if ((st = pool_string(vm, a[1], &tmp)) != GSVM_OK)
                return st;
            break;
        }
        st = assign_fresh(vm, y, &tmp);
        break;
    }

    case GSVM_PATHO_OP_Jump:
        return jump_to(vm, a[0]);
    case GSVM_PATHO_OP_JumpB: {
        bool truth;
        if (!(x = stack_var(vm, a[0])))
            return GSVM_ERR_FAULT;
        /* `if (obj)` compiles to a JumpB on the object: true when not null. */
        if (x->type == GSVM_PATHO_OBJECT)
            truth = x->as.object != 0;
        else if (!patho_value_truth(x, &truth))
            return fault(vm, "Type mismatch in 'JumpB' (%s)", gsvm_patho_type_name(x->type));
        if ((st = pop(vm, a[3])) != GSVM_OK)
            return st;
        /* The engine compares the bool with the byte as stored. */
        if ((uint32_t)truth == a[2])
            return jump_to(vm, a[1]);
        break;
    }

    case GSVM_PATHO_OP_Push:
    case GSVM_PATHO_OP_PushT:
        if (!(x = in->op == GSVM_PATHO_OP_Push ? stack_var(vm, a[0]) : task_var(vm, a[0])))
            return GSVM_ERR_FAULT;
        if (gsvm_patho_value_copy(&tmp, x) != GSVM_OK)
            return fault(vm, "Out of memory");
        st = push(vm, &tmp);
        break;
    case GSVM_PATHO_OP_PushB: tmp = patho_mk_bool(a[0] != 0); st = push(vm, &tmp); break;
    case GSVM_PATHO_OP_PushI: tmp = patho_mk_int((int32_t)a[0]); st = push(vm, &tmp); break;
    case GSVM_PATHO_OP_PushF: tmp = patho_mk_float(gsvm_patho_f32(a[0])); st = push(vm, &tmp); break;
    case GSVM_PATHO_OP_PushVec:
        tmp = patho_mk_cvector(gsvm_patho_f32(a[0]), gsvm_patho_f32(a[1]), gsvm_patho_f32(a[2]));
        st = push(vm, &tmp);
        break;
    case GSVM_PATHO_OP_PushS:
        if ((st = pool_string(vm, a[0], &tmp)) != GSVM_OK)
            return st;
        st = push(vm, &tmp);
        break;
    case GSVM_PATHO_OP_PushV:
        if ((uint64_t)in->list + in->list_len > p->nvtypes)
            return fault(vm, "type list outside the program");
        st = insert_typed(vm, p->vtypes + in->list, in->list_len, 0);
        break;
    case GSVM_PATHO_OP_PushE: {
        int32_t index = (int8_t)(uint8_t)a[2];
        if (!(x = var_by_mode(vm, a[0], a[1])))
            return GSVM_ERR_FAULT;
        if (x->type != GSVM_PATHO_CVECTOR)
            return fault(vm, "Type mismatch in vector component read (%s)",
                         gsvm_patho_type_name(x->type));
        if (index < 0 || index > 2)
            return fault(vm, "vector component %d out of range", index);
        tmp = patho_mk_float(x->as.v[index]);
        st = push(vm, &tmp);
        break;
    }
    case GSVM_PATHO_OP_PopE: {
        int32_t index = (int32_t)a[1];
        if (!(x = var_by_mode(vm, a[0], a[2] & 1)) || !(y = stack_var(vm, 1)))
            return GSVM_ERR_FAULT;
        if (x->type != GSVM_PATHO_CVECTOR)
            return fault(vm, "Type mismatch in vector component write (%s)",
                         gsvm_patho_type_name(x->type));
        if (index < 0 || index > 2)
            return fault(vm, "vector component %d out of range", index);
        tmp = patho_mk_float(0);
        if ((st = assign(vm, &tmp, y)) != GSVM_OK)
            return st;
        x->as.v[index] = tmp.as.f;
        if (!(a[2] & 2))
            st = pop(vm, 1);
        break;
    }
    case GSVM_PATHO_OP_PushGE:
        if (a[0] >= vm->nglobals)
            return fault(vm, "global variable %u does not exist (%u globals)", a[0], vm->nglobals);
        if (gsvm_patho_value_copy(&tmp, &vm->globals[a[0]]) != GSVM_OK)
            return fault(vm, "Out of memory");
        st = push(vm, &tmp);
        break;
    case GSVM_PATHO_OP_PopGE:
        if (a[0] >= vm->nglobals)
            return fault(vm, "global variable %u does not exist (%u globals)", a[0], vm->nglobals);
        if (!(x = stack_var(vm, 1)))
            return GSVM_ERR_FAULT;
        if ((st = assign(vm, &vm->globals[a[0]], x)) != GSVM_OK)
            return st;
        if (!(a[1] & 1))
            st = pop(vm, 1);
        break;
    case GSVM_PATHO_OP_Pop:
        st = pop(vm, a[0]);
        break;
    case GSVM_PATHO_OP_SetNull:
    case GSVM_PATHO_OP_SetNullT:
        /* An object becomes the null object; other types their default. */
        if (!(x = in->op == GSVM_PATHO_OP_SetNull ? stack_var(vm, a[0]) : task_var(vm, a[0])))
            return GSVM_ERR_FAULT;
        {
            int type = x->type;
            gsvm_patho_value_free(x);
            gsvm_patho_value_default(x, type);
        }
        break;

    case GSVM_PATHO_OP_Call:
        if (a[0] >= p->ninsns)
            return fault(vm, "call target %u is outside the code (%u instructions)", a[0],
                         p->ninsns);
        if ((st = push_frame(vm, (patho_frame){vm->pc + 1, 0, 0, {0, 0}})) != GSVM_OK)
            return st;
        vm->pc = a[0];
        return GSVM_OK;
    case GSVM_PATHO_OP_Return:
        return do_return(vm, a[0]);
    case GSVM_PATHO_OP_TaskCall:
        st = enter_task(vm, a[0]);
        break;
    case GSVM_PATHO_OP_TaskReturn:
        st = leave_task(vm);
        break;
    case GSVM_PATHO_OP_Func:
    case GSVM_PATHO_OP_ObjFunc:
    case GSVM_PATHO_OP_TObjFunc:
        return do_call(vm, in, false);
    case GSVM_PATHO_OP_EventEnable:
    case GSVM_PATHO_OP_EventDisable:
        st = event_toggle(vm, a[0], in->op == GSVM_PATHO_OP_EventDisable);
        break;

    default:
        if (info->cls == GSVM_PATHO_C_FPUSH || info->cls == GSVM_PATHO_C_FSET) {
            st = exec_operator(vm, in, info);
            break;
        }
        return fault(vm, "opcode %s is not implemented", info->name);
    }
    if (st != GSVM_OK)
        return st;
    vm->pc++;
    return GSVM_OK;
}

gsvm_status gsvm_patho_vm_run(gsvm_patho_vm *vm, uint64_t budget, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (vm->in_call)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM is inside a host call");
    if (vm->state == GSVM_PATHO_READY)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM has not been started");
    if (vm->state == GSVM_PATHO_FAULTED)
        return report(vm, GSVM_ERR_FAULT, err);
    uint64_t n = 0;
    while (vm->state == GSVM_PATHO_RUNNING) {
        if (n >= budget)
            return report(vm, GSVM_ERR_LIMIT, err);
        n++;
        vm->executed++;
        gsvm_status st = step(vm);
        if (st != GSVM_OK)
            return report(vm, st, err);
    }
    return GSVM_OK;
}

gsvm_status gsvm_patho_vm_frame_begin(gsvm_patho_vm *vm, gsvm_error *err)
{
    gsvm_error_clear(err);
    if (vm->in_call)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM is inside a host call");
    if (vm->state == GSVM_PATHO_READY)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM has not been started");
    if (vm->state != GSVM_PATHO_WAITING)
        return vm->state == GSVM_PATHO_FAULTED ? report(vm, GSVM_ERR_FAULT, err) : GSVM_OK;
    const gsvm_patho_insn *in = &vm->prog->insns[vm->pc];
    gsvm_status st = do_call(vm, in, true);
    return st == GSVM_OK ? GSVM_OK : report(vm, st, err);
}

gsvm_status gsvm_patho_vm_run_frame(gsvm_patho_vm *vm, gsvm_error *err)
{
    gsvm_status st = gsvm_patho_vm_frame_begin(vm, err);
    if (st != GSVM_OK)
        return st;
    if (vm->state != GSVM_PATHO_RUNNING)
        return GSVM_OK;
    return gsvm_patho_vm_run(vm, vm->max_insns, err);
}

gsvm_status gsvm_patho_vm_start(gsvm_patho_vm *vm, gsvm_error *err)
{
    gsvm_error_clear(err);
    const gsvm_patho_program *p = vm->prog;
    if (vm->state != GSVM_PATHO_READY)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM has already been started");
    if (p->run_task >= p->ntasks)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "RunTask %u does not exist (%u tasks)",
                              p->run_task, p->ntasks);
    if (p->run_op >= p->ninsns)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL,
                              "RunOp %u is outside the code (%u instructions)", p->run_op,
                              p->ninsns);
    /* The compiler gives the start task no parameters (the engine only
     * asserts it in debug builds); were there any, nothing was pushed for
     * them, so its variables simply start the stack, as in the engine. */
    const gsvm_patho_task *task = &p->tasks[p->run_task];
    vm->state = GSVM_PATHO_RUNNING;
    vm->pc = p->run_op;
    if (!patho_vm_reserve_tasks(vm, 1))
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    memset(&vm->tasks[0], 0, sizeof vm->tasks[0]);
    vm->tasks[0].id = p->run_task;
    vm->ntasks = 1;
    gsvm_status st = push_frame(vm, (patho_frame){-1, 0, 0, {0, 0}});
    if (st == GSVM_OK)
        st = insert_typed(vm, task->var_types, task->nvars, 0);
    if (st != GSVM_OK)
        return report(vm, st, err);
    return GSVM_OK;
}

/* ---- events ------------------------------------------------------------------------------ */

static const gsvm_patho_event *find_event(const gsvm_patho_event *evs, uint32_t n, uint32_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (evs[i].id == id)
            return &evs[i];
    return NULL;
}

gsvm_status gsvm_patho_vm_send_event(gsvm_patho_vm *vm, uint32_t id, const gsvm_patho_value *args,
                                     uint32_t nargs, gsvm_patho_event_result *result,
                                     gsvm_error *err)
{
    gsvm_error_clear(err);
    gsvm_patho_event_result dummy;
    if (!result)
        result = &dummy;
    *result = GSVM_PATHO_EVENT_NOT_RUNNING;
    if (vm->in_call)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "the VM is inside a host call");
    if (vm->state != GSVM_PATHO_RUNNING && vm->state != GSVM_PATHO_WAITING)
        return GSVM_OK;
    const gsvm_patho_program *p = vm->prog;
    patho_task *t = top_task(vm);
    patho_disabled *d = find_disabled(t, id);
    if (d && d->count > 0) {
        *result = GSVM_PATHO_EVENT_DISABLED;
        return GSVM_OK;
    }
    const gsvm_patho_task *task = &p->tasks[t->id];
    const gsvm_patho_event *ev = find_event(task->events, task->nevents, id);
    if (!ev)
        ev = find_event(p->events, p->nevents, id);
    if (!ev) {
        *result = GSVM_PATHO_EVENT_NO_HANDLER;
        return GSVM_OK;
    }
    if (ev->op >= p->ninsns) {
        *result = GSVM_PATHO_EVENT_HANDLED;
        return report(vm, fault(vm, "the handler of event %u starts at op %u, outside the code", id,
                                ev->op),
                      err);
    }
    if (ev->nargs != nargs) {
        *result = GSVM_PATHO_EVENT_ARG_COUNT;
        return GSVM_OK;
    }
    /* Typed slots for the handler's arguments, filled from the host's values. */
    uint32_t base = vm->size;
    gsvm_status st = insert_typed(vm, ev->arg_types, ev->nargs, 0);
    if (st != GSVM_OK)
        return report(vm, st, err);
    for (uint32_t i = 0; i < nargs; i++) {
        if (gsvm_patho_value_assign(&vm->stack[base + i], &args[i], NULL, 0) != GSVM_OK) {
            pop(vm, vm->size - base);
            *result = GSVM_PATHO_EVENT_ARG_TYPES;
            return GSVM_OK;
        }
    }
    patho_frame f = {vm->pc, ev->nargs, vm->state == GSVM_PATHO_WAITING, {0, 0}};
    memcpy(f.latent, vm->latent, sizeof f.latent);
    if ((st = push_frame(vm, f)) != GSVM_OK)
        return report(vm, st, err);
    *result = GSVM_PATHO_EVENT_HANDLED;
    vm->state = GSVM_PATHO_RUNNING;
    memset(vm->latent, 0, sizeof vm->latent);
    vm->pc = ev->op;
    return gsvm_patho_vm_run(vm, vm->max_insns, err);
}
