/* Unit tests of the Pathologic VM: operators and their type rules, moves,
 * the "2" forms, addressing, calls, tasks, events, natives, latent calls,
 * faults, the instruction cap and snapshots.  Programs are built in memory
 * (build.h), saved to .bin bytes and loaded back. */
#include <math.h>

#include "base/buf.h"
#include "base/jsonl.h"
#include "build.h"
#include "drive.h"
#include "examples.h"
#include "gsvm/patho_host.h"
#include "gsvm/patho_vm.h"
#include "patho/host.h"
#include "patho/isa.h"
#include "patho/value.h"
#include "test.h"

/* ---- a recording host ---------------------------------------------------- */


typedef struct rec {
    gsvm_buf log; /* one line per call */
    int calls;
} rec;

static int32_t rec_resolve(void *user, const char *name, uint32_t argc)
{
    (void)user, (void)argc;
    return strcmp(name, "Missing") == 0 ? -1 : 1;
}

static gsvm_patho_call_result rec_call(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)vm;
    rec *r = user;
    if (c->resuming) {
        /* "Wait": latent for latent[0] more frames. */
        if (--c->latent[0] == 0)
            return GSVM_PATHO_CALL_DONE;
        return GSVM_PATHO_CALL_YIELD;
    }
    r->calls++;
    gsvm_buf_printf(&r->log, "%s%s(", c->is_method ? "@" : "", c->name);
    for (uint32_t i = 0; i < c->argc; i++) {
        if (i)
            gsvm_buf_putc(&r->log, ',');
        patho_value_json(&r->log, c->args[i]);
    }
    gsvm_buf_putc(&r->log, ')');
    if (c->is_method)
        gsvm_buf_printf(&r->log, "#%u", c->object);
    gsvm_buf_putc(&r->log, '\n');
    if (strcmp(c->name, "Out") == 0) {
        gsvm_patho_value v = gsvm_patho_int(42);
        if (gsvm_patho_value_assign(c->args[0], &v, c->fault, sizeof c->fault) != GSVM_OK)
            return GSVM_PATHO_CALL_FAULT;
    }
    if (strcmp(c->name, "Obj") == 0) {
        gsvm_patho_value v = gsvm_patho_object(7);
        if (gsvm_patho_value_assign(c->args[0], &v, c->fault, sizeof c->fault) != GSVM_OK)
            return GSVM_PATHO_CALL_FAULT;
    }
    if (strcmp(c->name, "Boom") == 0) {
        snprintf(c->fault, sizeof c->fault, "boom");
        return GSVM_PATHO_CALL_FAULT;
    }
    if (strcmp(c->name, "Wait") == 0) {
        c->latent[0] = 2;
        return GSVM_PATHO_CALL_YIELD;
    }
    return GSVM_PATHO_CALL_DONE;
}

static bool rec_exists(void *user, uint32_t object, const char *name, int32_t argc)
{
    (void)user;
    return object == 7 && strcmp(name, "Foo") == 0 && argc == 1;
}

static gsvm_patho_host rec_host(rec *r)
{
    gsvm_buf_init(&r->log);
    r->calls = 0;
    gsvm_patho_host h = {r, rec_resolve, rec_call, rec_exists};
    return h;
}

static const char *rec_text(rec *r) { return gsvm_buf_cstr(&r->log); }

/* Runs frames until the VM stops waiting or `frames` frames have run. */
static gsvm_status run_frames(gsvm_patho_vm *vm, int frames)
{
    gsvm_error err;
    gsvm_status st = GSVM_OK;
    for (int i = 0; i < frames; i++) {
        st = gsvm_patho_vm_run_frame(vm, &err);
        if (st != GSVM_OK || gsvm_patho_vm_state(vm) != GSVM_PATHO_WAITING)
            break;
    }
    return st;
}

/* Builds, starts and runs a program for one frame with a recording host. */
typedef struct run {
    gsvm_patho_program *prog;
    gsvm_patho_vm *vm;
    rec r;
    gsvm_status st;
} run;

static void run_start(run *x, bld *b, int frames)
{
    gsvm_error err;
    x->prog = bld_program(b);
    gsvm_patho_host h = rec_host(&x->r);
    if (gsvm_patho_vm_new(x->prog, &h, &x->vm, &err) != GSVM_OK ||
        gsvm_patho_vm_start(x->vm, &err) != GSVM_OK) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        exit(2);
    }
    x->st = run_frames(x->vm, frames);
}

static void run_free(run *x)
{
    gsvm_patho_vm_free(x->vm);
    gsvm_patho_free(x->prog);
    gsvm_buf_free(&x->r.log);
}

/* ---- values and operators ------------------------------------------------- */

static gsvm_patho_value S(const char *s)
{
    gsvm_patho_value v;
    gsvm_patho_string_utf8(&v, s, strlen(s));
    return v;
}

/* The JSON text of a value (static buffer). */
static const char *J(const gsvm_patho_value *v)
{
    static char out[256];
    gsvm_buf b;
    gsvm_buf_init(&b);
    patho_value_json(&b, v);
    snprintf(out, sizeof out, "%s", gsvm_buf_cstr(&b));
    gsvm_buf_free(&b);
    return out;
}

/* a op b as JSON text, or "fault: MESSAGE". */
static const char *B(patho_binop op, gsvm_patho_value a, gsvm_patho_value b)
{
    static char out[300];
    gsvm_patho_value r;
    char msg[200];
    if (patho_binop_apply(op, &a, &b, &r, msg, sizeof msg) != GSVM_OK) {
        snprintf(out, sizeof out, "fault: %s", msg);
    } else {
        snprintf(out, sizeof out, "%s", J(&r));
        gsvm_patho_value_free(&r);
    }
    gsvm_patho_value_free(&a);
    gsvm_patho_value_free(&b);
    return out;
}

static const char *U(patho_unop op, gsvm_patho_value a)
{
    static char out[300];
    gsvm_patho_value r;
    char msg[200];
    if (patho_unop_apply(op, &a, &r, msg, sizeof msg) != GSVM_OK) {
        snprintf(out, sizeof out, "fault: %s", msg);
    } else {
        snprintf(out, sizeof out, "%s", J(&r));
        gsvm_patho_value_free(&r);
    }
    gsvm_patho_value_free(&a);
    return out;
}

static void test_operators(void)
{
    gsvm_patho_value i2 = gsvm_patho_int(2), i3 = gsvm_patho_int(3);
    CHECK_STR(B(PATHO_ADD, i2, i3), "5");
    CHECK_STR(B(PATHO_SUB, i2, i3), "-1");
    CHECK_STR(B(PATHO_MUL, gsvm_patho_int(INT32_MAX), i2), "-2"); /* wraps */
    CHECK_STR(B(PATHO_DIV, gsvm_patho_int(7), i2), "3");
    CHECK_STR(B(PATHO_MOD, gsvm_patho_int(-7), i2), "-1");
    CHECK_STR(B(PATHO_DIV, i2, gsvm_patho_int(0)), "fault: Division by zero");
    CHECK_STR(B(PATHO_MOD, i2, gsvm_patho_int(0)), "fault: Division by zero");
    CHECK_STR(B(PATHO_DIV, gsvm_patho_int(INT32_MIN), gsvm_patho_int(-1)), "-2147483648");
    CHECK_STR(B(PATHO_ADD, i2, gsvm_patho_float(0.5f)), "2.5");
    CHECK_STR(B(PATHO_DIV, gsvm_patho_float(1), gsvm_patho_int(4)), "0.25");
    CHECK_STR(B(PATHO_DIV, gsvm_patho_float(1), gsvm_patho_float(0)), "null"); /* inf */
    CHECK_STR(B(PATHO_MOD, gsvm_patho_float(7.5f), gsvm_patho_int(2)), "1.5");
    CHECK_STR(B(PATHO_POW, i2, gsvm_patho_int(10)), "1024.0");
    CHECK_STR(B(PATHO_ADD, gsvm_patho_bool(true), i2), "fault: Type mismatch in '+' (bool, int)");
    CHECK_STR(B(PATHO_ADD, S("n="), i3), "\"n=3\"");
    CHECK_STR(B(PATHO_ADD, gsvm_patho_float(0.5f), S("!")), "\"0.5!\"");
    CHECK_STR(B(PATHO_ADD, S("a"), S("b")), "\"ab\"");
    CHECK_STR(B(PATHO_ADD, S("b"), gsvm_patho_bool(true)), "\"btrue\"");
    CHECK_STR(B(PATHO_SUB, S("a"), S("b")), "fault: Type mismatch in '-' (string, string)");
    CHECK_STR(B(PATHO_ADD, S("a"), gsvm_patho_object(3)),
              "fault: Type mismatch in '+' (string, object)");
    /* logic */
    CHECK_STR(B(PATHO_AND, gsvm_patho_bool(true), gsvm_patho_bool(false)), "false");
    CHECK_STR(B(PATHO_OR, gsvm_patho_bool(true), gsvm_patho_bool(false)), "true");
    CHECK_STR(B(PATHO_XOR, gsvm_patho_bool(true), gsvm_patho_bool(true)), "false");
    CHECK_STR(B(PATHO_AND, gsvm_patho_int(12), gsvm_patho_int(10)), "8");
    CHECK_STR(B(PATHO_OR, gsvm_patho_int(12), gsvm_patho_int(3)), "15");
    CHECK_STR(B(PATHO_XOR, gsvm_patho_int(12), gsvm_patho_int(10)), "6");
    CHECK_STR(B(PATHO_AND, gsvm_patho_float(1), gsvm_patho_int(1)),
              "fault: Type mismatch in '&' (float, int)");
    /* vectors */
    gsvm_patho_value a = gsvm_patho_cvector(1, 2, 3), b = gsvm_patho_cvector(4, 5, 6);
    CHECK_STR(B(PATHO_ADD, a, b), "{\"cvector\":[5.0,7.0,9.0]}");
    CHECK_STR(B(PATHO_SUB, b, a), "{\"cvector\":[3.0,3.0,3.0]}");
    CHECK_STR(B(PATHO_OR, a, b), "32.0"); /* dot */
    CHECK_STR(B(PATHO_XOR, a, b), "{\"cvector\":[-3.0,6.0,-3.0]}"); /* cross */
    CHECK_STR(B(PATHO_MUL, a, gsvm_patho_int(2)), "{\"cvector\":[2.0,4.0,6.0]}");
    CHECK_STR(B(PATHO_MUL, gsvm_patho_float(0.5f), a), "{\"cvector\":[0.5,1.0,1.5]}");
    CHECK_STR(B(PATHO_DIV, b, gsvm_patho_float(2)), "{\"cvector\":[2.0,2.5,3.0]}");
    CHECK_STR(B(PATHO_EQ, a, gsvm_patho_cvector(1, 2, 3)), "true");
    CHECK_STR(B(PATHO_MUL, a, b), "fault: Type mismatch in '*' (cvector, cvector)");
    CHECK_STR(B(PATHO_LT, a, b), "fault: Type mismatch in '<' (cvector, cvector)");
    /* comparisons */
    CHECK_STR(B(PATHO_EQ, gsvm_patho_int(1), gsvm_patho_float(1)), "true");
    CHECK_STR(B(PATHO_EQ, gsvm_patho_bool(true), gsvm_patho_int(1)), "true");
    CHECK_STR(B(PATHO_NEQ, S("play"), S("play")), "false");
    CHECK_STR(B(PATHO_EQ, gsvm_patho_object(4), gsvm_patho_object(4)), "true");
    CHECK_STR(B(PATHO_EQ, gsvm_patho_object(4), gsvm_patho_int(4)),
              "fault: Type mismatch in '==' (object, int)");
    CHECK_STR(B(PATHO_LT, gsvm_patho_int(-1), gsvm_patho_int(0)), "true");
    CHECK_STR(B(PATHO_GE, gsvm_patho_float(2), gsvm_patho_int(2)), "true");
    CHECK_STR(B(PATHO_GT, gsvm_patho_float(NAN), gsvm_patho_int(2)), "false");
    CHECK_STR(B(PATHO_LT, S("abc"), S("abd")), "true");
    CHECK_STR(B(PATHO_LE, S("ab"), S("a")), "false");
    CHECK_STR(B(PATHO_LT, S("a"), gsvm_patho_int(1)), "fault: Type mismatch in '<' (string, int)");
    /* unary */
    CHECK_STR(U(PATHO_NULLEQ, gsvm_patho_object(0)), "true");
    CHECK_STR(U(PATHO_NULLNEQ, gsvm_patho_object(9)), "true");
    CHECK_STR(U(PATHO_NULLEQ, gsvm_patho_int(0)), "fault: Type mismatch in 'NullEq' (int)");
    CHECK_STR(U(PATHO_NEG, gsvm_patho_int(INT32_MIN)), "-2147483648");
    CHECK_STR(U(PATHO_NEG, gsvm_patho_float(1.5f)), "-1.5");
    CHECK_STR(U(PATHO_NEG, gsvm_patho_cvector(1, 0, -2)), "{\"cvector\":[-1.0,-0.0,2.0]}");
    CHECK_STR(U(PATHO_NEG, gsvm_patho_bool(true)), "fault: Type mismatch in 'Neg' (bool)");
    CHECK_STR(U(PATHO_NOT, gsvm_patho_bool(false)), "true");
    CHECK_STR(U(PATHO_NOT, gsvm_patho_int(5)), "false");
    CHECK_STR(U(PATHO_NOT, S("x")), "fault: Type mismatch in 'Not' (string)");
    CHECK_STR(U(PATHO_NOT, gsvm_patho_object(0)), "true"); /* !obj: a null test */
    CHECK_STR(U(PATHO_NOT, gsvm_patho_object(3)), "false");
    CHECK_STR(U(PATHO_SQRT, gsvm_patho_int(16)), "4.0");
    CHECK_STR(U(PATHO_SIN, gsvm_patho_float(0)), "0.0");
    CHECK_STR(U(PATHO_COS, gsvm_patho_int(0)), "1.0");
    CHECK_STR(U(PATHO_ASIN, gsvm_patho_int(1)), "1.5707964");
    CHECK_STR(U(PATHO_SQRT, S("4")), "fault: Type mismatch in 'Sqrt' (string)");
    CHECK_STR(U(PATHO_CSTRING, gsvm_patho_int(65)), "\"A\"");
    CHECK_STR(U(PATHO_CSTRING, gsvm_patho_int(0x416)), "\"\xD0\x96\""); /* U+0416 */
    CHECK_STR(U(PATHO_CSTRING, gsvm_patho_float(65)),
              "fault: Type mismatch when converting to char-string");
}

static void test_assign_and_text(void)
{
    char msg[200];
    gsvm_patho_value d = gsvm_patho_int(0), src = gsvm_patho_float(-2.75f);
    CHECK_INT(gsvm_patho_value_assign(&d, &src, msg, sizeof msg), GSVM_OK);
    CHECK_INT(d.type, GSVM_PATHO_INT);
    CHECK_INT(d.as.i, -2); /* truncation */
    src = gsvm_patho_float(1e20f);
    gsvm_patho_value_assign(&d, &src, msg, sizeof msg);
    CHECK_INT(d.as.i, INT32_MAX); /* saturates, never undefined */
    gsvm_patho_value f = gsvm_patho_float(0), i7 = gsvm_patho_int(7);
    gsvm_patho_value_assign(&f, &i7, msg, sizeof msg);
    CHECK(f.type == GSVM_PATHO_FLOAT && f.as.f == 7.0f);
    gsvm_patho_value bo = gsvm_patho_bool(false);
    gsvm_patho_value_assign(&bo, &i7, msg, sizeof msg);
    CHECK(bo.type == GSVM_PATHO_BOOL && bo.as.b);
    gsvm_patho_value s = S("old");
    CHECK_INT(gsvm_patho_value_assign(&s, &i7, msg, sizeof msg), GSVM_ERR_FAULT);
    CHECK_STR(msg, "Type mismatch: cannot assign int to string");
    CHECK_STR(J(&s), "\"old\""); /* unchanged */
    gsvm_patho_value s2 = S("new");
    CHECK_INT(gsvm_patho_value_assign(&s, &s2, msg, sizeof msg), GSVM_OK);
    CHECK_STR(J(&s), "\"new\"");
    gsvm_patho_value o = gsvm_patho_object(1), v = gsvm_patho_cvector(0, 0, 0);
    CHECK_INT(gsvm_patho_value_assign(&o, &v, msg, sizeof msg), GSVM_ERR_FAULT);
    CHECK_STR(msg, "Type mismatch: cannot assign cvector to object");
    gsvm_patho_value_free(&s);
    gsvm_patho_value_free(&s2);

    char buf[64];
    patho_format_float(0.1f, buf, sizeof buf);
    CHECK_STR(buf, "0.1");
    patho_format_float(1.0f, buf, sizeof buf);
    CHECK_STR(buf, "1.0");
    patho_format_float(-2.5e-7f, buf, sizeof buf);
    CHECK_STR(buf, "-2.5e-07");
    patho_format_float(16777216.0f, buf, sizeof buf);
    CHECK_STR(buf, "16777216.0");

    /* UTF-8 <-> UTF-16, including a pair and a bad byte. */
    gsvm_patho_value u = S("\xF0\x9F\x98\x80x\xFF");
    CHECK_INT(u.as.s.len, 4);
    CHECK_INT(u.as.s.units[0], 0xD83D);
    CHECK_INT(u.as.s.units[3], 0xFFFD);
    char *back = gsvm_patho_string_to_utf8(&u, NULL);
    CHECK_STR(back, "\xF0\x9F\x98\x80x\xEF\xBF\xBD");
    free(back);
    gsvm_patho_value_free(&u);
    /* Strings are bounded. */
    char *big = malloc(GSVM_PATHO_MAX_STRING + 2);
    memset(big, 'a', GSVM_PATHO_MAX_STRING + 1);
    CHECK_INT(gsvm_patho_string_utf8(&u, big, GSVM_PATHO_MAX_STRING + 1), GSVM_ERR_LIMIT);
    CHECK_INT(gsvm_patho_string_utf8(&u, big, GSVM_PATHO_MAX_STRING), GSVM_OK);
    CHECK_STR(B(PATHO_ADD, u, S("b")), "fault: String too long (more than 8192 characters)");
    free(big);
}

/* ---- moves, operators in the VM, addressing ------------------------------------ */

static void test_moves_and_forms(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    uint32_t print2 = imp(&b, "Print", 2), print1 = imp(&b, "Print", 1);
    task(&b, "if", 0); /* task vars: int, float */
    pushv(&b, "ii");
    E(&b, OP(MovI), 1, 5);      /* Stack[-1] = 5 */
    E(&b, OP(Mov), 1, 2);       /* source first: Stack[-2] = Stack[-1] */
    func(&b, print2, 2, 0, 1, 0);
    E(&b, OP(MovI), 2, 7);      /* Stack[-2] = 7 */
    E(&b, OP(Mov), 2, 1);       /* Stack[-1] = Stack[-2] */
    func(&b, print2, 2, 0, 1, 0);
    E(&b, OP(TMovI), 0, 10);    /* TaskVar[0] = 10 */
    E(&b, OP(TMovF), 1, fbits(0.5f));
    E(&b, OP(Add), 0, 1, 0xC0); /* both task-addressed, pop 0: push 10.5 */
    func(&b, print1, 1, 0);     /* [10.5] */
    E(&b, OP(Sub2), 1, 1, 3, 0x41); /* Stack[-3] = Stack[-1] - TaskVar[1]; pop 1 */
    func(&b, print2, 2, 0, 1, 0);   /* [10, 7]: int slot keeps its type */
    E(&b, OP(Mult), 1, 2, 0x02);    /* push 10*7, popping both inputs */
    func(&b, print1, 1, 0);         /* [70] */
    E(&b, OP(Not2), 1, 1, 0x00);    /* Stack[-1] = !70 -> int slot gets 0 */
    func(&b, print1, 1, 0);
    E(&b, OP(MovT), 0, 1);          /* Stack[-1] = TaskVar[0] */
    E(&b, OP(TMov), 1, 1);          /* TaskVar[1] = Stack[-1] (float <- int) */
    E(&b, OP(PushT), 1);
    func(&b, print1, 1, 0);         /* [10.0] */
    E(&b, OP(TMovT), 1, 0);         /* TaskVar[0] = TaskVar[1] */
    E(&b, OP(Return), 2);
    run x;
    run_start(&x, &b, 1);
    CHECK_INT(x.st, GSVM_OK);
    CHECK_INT(gsvm_patho_vm_state(x.vm), GSVM_PATHO_FINISHED);
    CHECK_STR(rec_text(&x.r), "Print(5,5)\nPrint(7,7)\nPrint(10.5)\nPrint(10,7)\nPrint(70)\n"
                              "Print(0)\nPrint(10.0)\n");
    CHECK_INT(gsvm_patho_vm_op(x.vm), -1);
    /* What is left on the stack: the two task vars (never popped by the entry). */
    CHECK_INT(gsvm_patho_vm_stack_size(x.vm), 2);
    CHECK_STR(J(gsvm_patho_vm_stack_at(x.vm, 0)), "10");
    run_free(&x);
}

static void test_stack_ops(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    uint32_t p1 = imp(&b, "Print", 1), p2 = imp(&b, "Print", 2);
    uint32_t hello = s16(&b, "hello"), lo = hello + 6; /* a shared tail: "lo" */
    task(&b, "v", 0);
    uint32_t g = global(&b, 'f');
    E(&b, OP(PushS), hello);
    E(&b, OP(PushS), lo);
    func(&b, p2, 2, 0, 1, 0);
    E(&b, OP(Pop), 2);
    E(&b, OP(TMovV), 0, fbits(1), fbits(2), fbits(3));
    E(&b, OP(PushE), 0, 1, 2, 0);  /* push TaskVar[0].z */
    func(&b, p1, 1, 0);            /* [3.0] */
    E(&b, OP(PushF), fbits(9));
    E(&b, OP(PopE), 0, 0, 1);      /* TaskVar[0].x = 9, popped */
    E(&b, OP(PushT), 0);
    func(&b, p1, 1, 0);            /* cvector 9,2,3 */
    E(&b, OP(PushI), 4);
    E(&b, OP(PopGE), g, 1);        /* global = 4 (float), kept */
    E(&b, OP(PushGE), g);
    func(&b, p2, 1, 0, 2, 0);      /* [4.0, 4] */
    E(&b, OP(Pop), 3);
    E(&b, OP(PushVec), fbits(1), fbits(0), fbits(0));
    E(&b, OP(PushB), 1);
    E(&b, OP(PushI), -3);
    E(&b, OP(Push), 2);            /* copy of Stack[-2] (true) */
    func(&b, p2, 2, 0, 1, 0);      /* [-3, true] */
    E(&b, OP(Pop), 3);
    E(&b, OP(PushE), 1, 0, 0, 0);  /* Stack[-1].x of the vector literal */
    func(&b, p1, 1, 0);
    E(&b, OP(Return), 2);
    run x;
    run_start(&x, &b, 1);
    CHECK_INT(gsvm_patho_vm_state(x.vm), GSVM_PATHO_FINISHED);
    CHECK_STR(rec_text(&x.r), "Print(\"hello\",\"lo\")\nPrint(3.0)\n"
                              "Print({\"cvector\":[9.0,2.0,3.0]})\nPrint(4.0,4)\n"
                              "Print(-3,true)\nPrint(1.0)\n");
    CHECK_STR(J(gsvm_patho_vm_global(x.vm, 0)), "4.0");
    run_free(&x);
}

/* Branches, calls and a CString in both layouts. */
static void build_loop(bld *b, gsvm_patho_layout layout)
{
    bld_init(b, layout);
    uint32_t p1 = imp(b, "Print", 1);
    task(b, "i", 0);
    /* 0: main: i = 0; do { i = inc(i) } while (i < 3); print; return */
    b->run_op = 0;
    E(b, OP(TMovI), 0, 0);               /* 0 */
    pushv(b, "i");                       /* 1: return slot */
    E(b, OP(Call), 9);                   /* 2 */
    E(b, OP(TMov), 1, 0);                /* 3: TaskVar[0] = result */
    E(b, OP(Pop), 1);                    /* 4 */
    E(b, OP(PushI), 3);                  /* 5 */
    E(b, OP(LT), 0, 1, 0x81);            /* 6: push TaskVar[0] < 3, pop 1 */
    E(b, OP(JumpB), 1, 1, 1, 1);         /* 7: if true goto 1; pop 1 */
    E(b, OP(Jump), 13);                  /* 8 */
    /* 9: inc: Stack[-1] (the caller's slot) = TaskVar[0] + 1 */
    E(b, OP(PushI), 1);                  /* 9 */
    E(b, OP(Add2), 0, 1, 2, 0x81);       /* 10: Stack[-2] = TaskVar[0] + Stack[-1]; pop 1 */
    E(b, OP(Return), 0);                 /* 11 */
    E(b, OP(Return), 0);                 /* 12: unreachable */
    E(b, OP(PushT), 0);                  /* 13 */
    func(b, p1, 1, 0);                   /* 14 */
    if (layout == GSVM_PATHO_LAYOUT_HD) {
        E(b, OP(PushI), 0x41);
        E(b, OP(CString), 1, 0x01);      /* pops the int, pushes "A" */
        func(b, p1, 1, 0);
        E(b, OP(CString2), 2, 1, 0x00);  /* Stack[-1] = chr(Stack[-2]) -> "A" again? no: int 3 */
        func(b, p1, 1, 0);
        E(b, OP(Pop), 1);
    }
    E(b, OP(Return), 1);
}

static void test_calls_and_layouts(void)
{
    bld b;
    build_loop(&b, GSVM_PATHO_LAYOUT_HD);
    run x;
    run_start(&x, &b, 1);
    CHECK_INT(gsvm_patho_vm_state(x.vm), GSVM_PATHO_FINISHED);
    CHECK_STR(rec_text(&x.r), "Print(3)\nPrint(\"A\")\nPrint(\"\\u0003\")\n");
    CHECK_INT(gsvm_patho_vm_stack_size(x.vm), 1); /* main's task variable */
    run_free(&x);
    build_loop(&b, GSVM_PATHO_LAYOUT_ALPHA);
    run_start(&x, &b, 1);
    CHECK_INT(gsvm_patho_vm_state(x.vm), GSVM_PATHO_FINISHED);
    CHECK_STR(rec_text(&x.r), "Print(3)\n");
    run_free(&x);
}

/* ---- tasks and events ----------------------------------------------------------- */

static void build_tasks(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t p1 = imp(b, "Print", 1), p2 = imp(b, "Print", 2), wait = imp(b, "Wait", 0);
    uint32_t t0 = task(b, "o", 0);
    uint32_t t1 = task(b, "oi", 1); /* two task vars, one parameter */
    b->run_task = t0;
    b->run_op = 0;
    E(b, OP(PushI), 9);           /* 0: the parameter */
    E(b, OP(TaskCall), t1);       /* 1 */
    E(b, OP(Call), 9);            /* 2: the task's init */
    E(b, OP(TaskReturn));         /* 3 */
    func(b, p1, 1, 0);            /* 4: the parameter survives: [9] */
    E(b, OP(Pop), 1);             /* 5 */
    func(b, wait);                /* 6: main waits (latent) */
    E(b, OP(Jump), 6);            /* 7 */
    E(b, OP(Return), 0);          /* 8 */
    /* 9: init of task 1: TaskVar[0] object, [1] int, [2] the parameter */
    func(b, p2, 1, 0, 2, 1);      /* 9: Print(Stack[-1], TaskVar[2]) -> [9, 9] */
    E(b, OP(TMovI), 1, 5);        /* 10 */
    E(b, OP(EventDisable), 3);    /* 11 */
    E(b, OP(EventDisable), 3);    /* 12 */
    E(b, OP(EventEnable), 3);     /* 13: still disabled (counter 1) */
    func(b, wait);                /* 14: wait inside the task */
    E(b, OP(EventEnable), 3);     /* 15 */
    func(b, wait);                /* 16 */
    func(b, p1, 1, 1);            /* 17: Print(TaskVar[1]) */
    E(b, OP(Return), 0);          /* 18 */
    /* 19: task 1's handler of event 3 (int): TaskVar[1] += arg */
    E(b, OP(Add2), 1, 1, 1, 0xA0); /* 19: TaskVar[1] = TaskVar[1] + Stack[-1] */
    func(b, p1, 1, 0);            /* 20 */
    E(b, OP(Return), 0);          /* 21: extraPop removes the argument */
    /* 22: global handler of event 4 (string, object) */
    func(b, p2, 2, 0, 1, 0);      /* 22 */
    E(b, OP(TMov), 1, 0);         /* 23: TaskVar[0] (object) = Stack[-1] */
    objfunc(b, 1, 0, s8(b, "Foo"), 1, 2, 0); /* 24: TObjFunc Foo(Stack[-2]) on TaskVar[0] */
    E(b, OP(Return), 0);          /* 25 */
    tevent(b, t1, 3, 19, "i");
    gevent(b, 4, 22, "so");
    gevent(b, 3, 22, "so"); /* shadowed by task 1's own handler while it is on top */
}

static gsvm_status send(gsvm_patho_vm *vm, uint32_t id, gsvm_patho_value *args, uint32_t n,
                        gsvm_patho_event_result *res)
{
    gsvm_error err;
    gsvm_status st = gsvm_patho_vm_send_event(vm, id, args, n, res, &err);
    for (uint32_t i = 0; i < n; i++)
        gsvm_patho_value_free(&args[i]);
    return st;
}

static void test_tasks_and_events(void)
{
    bld b;
    build_tasks(&b);
    run x;
    run_start(&x, &b, 1);
    gsvm_patho_vm *vm = x.vm;
    CHECK_INT(x.st, GSVM_OK);
    CHECK_INT(gsvm_patho_vm_state(vm), GSVM_PATHO_WAITING);
    CHECK_INT(gsvm_patho_vm_op(vm), 14);
    CHECK_INT(gsvm_patho_vm_task_depth(vm), 2);
    CHECK_INT(gsvm_patho_vm_task_id(vm, 1), 1);
    /* Stack: main's object var, then task 1's vars (float, int) below the parameter. */
    CHECK_INT(gsvm_patho_vm_stack_size(vm), 4);
    CHECK_INT(gsvm_patho_vm_stack_at(vm, 1)->type, GSVM_PATHO_OBJECT);
    CHECK_STR(J(gsvm_patho_vm_stack_at(vm, 2)), "5");
    CHECK_STR(J(gsvm_patho_vm_stack_at(vm, 3)), "9");

    gsvm_patho_event_result res;
    gsvm_patho_value a[2];
    a[0] = gsvm_patho_int(1);
    CHECK_INT(send(vm, 3, a, 1, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_DISABLED); /* disabled twice, enabled once */
    a[0] = gsvm_patho_int(1);
    a[1] = gsvm_patho_int(2);
    CHECK_INT(send(vm, 3, a, 2, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_DISABLED);
    CHECK_INT(send(vm, 99, NULL, 0, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_NO_HANDLER);
    /* Global event 4 reaches task 1 through the fallback. */
    a[0] = S("hi");
    a[1] = gsvm_patho_object(7);
    CHECK_INT(send(vm, 4, a, 2, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_HANDLED);
    CHECK_INT(gsvm_patho_vm_state(vm), GSVM_PATHO_WAITING); /* the wait resumes */
    CHECK_INT(gsvm_patho_vm_op(vm), 14);
    CHECK_INT(gsvm_patho_vm_stack_size(vm), 4); /* extraPop removed the arguments */
    a[0] = gsvm_patho_int(1);
    CHECK_INT(send(vm, 4, a, 1, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_ARG_COUNT);
    a[0] = gsvm_patho_int(1);
    a[1] = gsvm_patho_int(2);
    CHECK_INT(send(vm, 4, a, 2, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_ARG_TYPES);
    CHECK_INT(gsvm_patho_vm_stack_size(vm), 4);

    /* Wait (2 more frames) then EventEnable: the handler runs and adds. */
    CHECK_INT(run_frames(vm, 1), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_op(vm), 14);
    CHECK_INT(run_frames(vm, 1), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_op(vm), 16);
    a[0] = gsvm_patho_int(30);
    CHECK_INT(send(vm, 3, a, 1, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_HANDLED);
    CHECK_INT(run_frames(vm, 2), GSVM_OK);
    /* Task 1 returned: only main's var and the parameter were left, then
     * Print(9), Pop, and main waits at op 6. */
    CHECK_INT(gsvm_patho_vm_task_depth(vm), 1);
    CHECK_INT(gsvm_patho_vm_op(vm), 6);
    CHECK_INT(gsvm_patho_vm_stack_size(vm), 1);
    /* Task 0 has no handler for event 3, so the global one gets it now. */
    a[0] = S("x");
    a[1] = gsvm_patho_object(0);
    CHECK_INT(send(vm, 3, a, 2, &res), GSVM_ERR_FAULT); /* the handler faulted */
    CHECK_INT(res, GSVM_PATHO_EVENT_HANDLED);
    CHECK_INT(gsvm_patho_vm_state(vm), GSVM_PATHO_FAULTED); /* TObjFunc on a null object */
    CHECK_STR(gsvm_patho_vm_fault(vm), "Method 'Foo' called on a null object");
    CHECK_INT(gsvm_patho_vm_fault_op(vm), 24);
    CHECK_STR(rec_text(&x.r), "Print(9,9)\nWait()\nPrint(\"hi\",{\"object\":7})\n@Foo(\"hi\")#7\n"
                              "Wait()\nPrint(30)\nPrint(35)\nPrint(9)\nWait()\n"
                              "Print(\"x\",{\"object\":0})\n");
    CHECK_INT(send(vm, 4, NULL, 0, &res), GSVM_OK);
    CHECK_INT(res, GSVM_PATHO_EVENT_NOT_RUNNING);
    run_free(&x);
}

static void test_natives(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    uint32_t out = imp(&b, "Out", 1), p1 = imp(&b, "Print", 1), boom = imp(&b, "Boom", 0);
    uint32_t obj = imp(&b, "Obj", 1);
    task(&b, "", 0);
    pushv(&b, "iofs");                 /* 0: Stack[-4] int .. Stack[-1] string */
    func(&b, out, 4, 0);               /* 1: Out(Stack[-4]) writes 42 by reference */
    func(&b, p1, 4, 0);                /* 2 */
    func(&b, out, 2, 0);               /* 3: Out into the float slot converts */
    func(&b, p1, 2, 0);                /* 4 */
    func(&b, obj, 3, 0);               /* 5: Obj(Stack[-3]) writes object 7 */
    E(&b, OP(MovS), 1, s16(&b, "Foo")); /* 6 */
    E(&b, OP(PushI), 1);               /* 7 */
    E(&b, OP(FuncExist), 4, 2, 1, 0x01); /* 8: push obj7 has Foo/1 (pop 1) */
    func(&b, p1, 1, 0);                /* 9: true */
    E(&b, OP(PushI), 2);               /* 10 */
    E(&b, OP(FuncExist2), 5, 3, 1, 2, 0x01); /* 11: Stack[-2] = has Foo/2 -> false; pop 1 */
    func(&b, p1, 1, 0);                /* 12 */
    E(&b, OP(Pop), 1);                 /* 13 */
    objfunc(&b, 0, 3, s8(&b, "Foo"), 1, 1, 0); /* 14 */
    func(&b, boom);                    /* 15 */
    E(&b, OP(Return), 4);
    run x;
    run_start(&x, &b, 1);
    CHECK_INT(x.st, GSVM_ERR_FAULT);
    CHECK_STR(gsvm_patho_vm_fault(x.vm), "boom");
    CHECK_INT(gsvm_patho_vm_fault_op(x.vm), 15);
    CHECK_STR(rec_text(&x.r), "Out(0)\nPrint(42)\nOut(0.0)\nPrint(42.0)\nObj({\"object\":0})\n"
                              "Print(true)\n"
                              "Print(false)\n@Foo(\"Foo\")#7\nBoom()\n");
    run_free(&x);
}

/* ---- faults and the cap ------------------------------------------------------------ */

/* Runs a one-task program made of the given instructions; returns its fault. */
static const char *fault_of(void (*emit)(bld *), int64_t *op)
{
    static char msg[256];
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    imp(&b, "Present", 0);
    task(&b, "o", 0);
    task(&b, "", 3);
    emit(&b);
    run x;
    run_start(&x, &b, 1);
    snprintf(msg, sizeof msg, "%s", gsvm_patho_vm_fault(x.vm));
    *op = gsvm_patho_vm_fault_op(x.vm);
    if (x.st != GSVM_ERR_FAULT || gsvm_patho_vm_state(x.vm) != GSVM_PATHO_FAULTED)
        snprintf(msg, sizeof msg, "no fault (status %d)", x.st);
    run_free(&x);
    return msg;
}

static void f_underflow(bld *b) { E(b, OP(PushI), 1); E(b, OP(Pop), 3); }
static void f_stackvar(bld *b) { E(b, OP(Push), 2); }
static void f_stackvar0(bld *b) { E(b, OP(MovI), 0, 1); }
static void f_taskvar(bld *b) { E(b, OP(PushT), 1); }
static void f_mismatch(bld *b) { E(b, OP(PushI), 1); E(b, OP(PushS), s16(b, "a")); E(b, OP(Sub), 2, 1, 0); }
static void f_assign(bld *b) { E(b, OP(PushI), 1); E(b, OP(MovS), 1, s16(b, "a")); }
static void f_ret(bld *b) { E(b, OP(TaskCall), 0); E(b, OP(Return), 0); }
static void f_task(bld *b) { E(b, OP(TaskCall), 5); }
static void f_params(bld *b) { E(b, OP(TaskCall), 1); }
static void f_taskret(bld *b) { E(b, OP(TaskReturn)); }
static void f_null(bld *b) { objfunc(b, 1, 0, s8(b, "Go"), 0); }
static void f_notobj(bld *b) { E(b, OP(PushI), 1); objfunc(b, 0, 1, s8(b, "Go"), 0); }
static void f_div(bld *b) { E(b, OP(PushI), 1); E(b, OP(PushI), 0); E(b, OP(Div2), 2, 1, 2, 0); }
static void f_jumpb(bld *b) { E(b, OP(PushS), s16(b, "s")); E(b, OP(JumpB), 1, 0, 1, 1); }
static void f_jump(bld *b) { E(b, OP(Jump), 100); }
static void f_end(bld *b) { E(b, OP(PushI), 1); }
static void f_pool(bld *b) { E(b, OP(PushS), 999); }
static void f_global(bld *b) { E(b, OP(PushGE), 0); }
static void f_vec(bld *b) { E(b, OP(PushI), 1); E(b, OP(PushE), 1, 0, 0, 0); }
static void f_vecidx(bld *b) { E(b, OP(PushVec), 0, 0, 0); E(b, OP(PushE), 1, 0, 3, 0); }
static void f_mode(bld *b) { E(b, OP(PushVec), 0, 0, 0); E(b, OP(PushE), 1, 2, 0, 0); }
static void f_overflow(bld *b) { E(b, OP(PushI), 1); E(b, OP(Jump), 0); }
static void f_recurse(bld *b) { E(b, OP(Call), 0); }
static void f_funcexist(bld *b) { E(b, OP(PushI), 1); E(b, OP(FuncExist), 1, 1, 1, 0); }
static void f_cstring(bld *b) { E(b, OP(PushS), s16(b, "s")); E(b, OP(CString), 1, 0); }

/* A native the host does not resolve is refused when the VM is made,
 * before anything runs, whether or not the call would be reached. */
static void test_unresolved_import_refused(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    imp(&b, "Present", 0);
    imp(&b, "Missing", 2);
    task(&b, "", 0);
    E(&b, OP(Return), 0);
    gsvm_patho_program *prog = bld_program(&b);
    rec r;
    memset(&r, 0, sizeof r);
    gsvm_buf_init(&r.log);
    gsvm_patho_host h = rec_host(&r);
    gsvm_patho_vm *vm = NULL;
    gsvm_error err;
    CHECK_INT(gsvm_patho_vm_new(prog, &h, &vm, &err), GSVM_ERR_INPUT);
    CHECK_STR(err.message, "import #1 'Missing' with 2 arguments: the host has no such native");
    CHECK_INT(r.calls, 0);
    gsvm_buf_free(&r.log);
    gsvm_patho_free(prog);
}

/* The s0 case: what run faults on ("Stack[-0] is outside the stack"),
 * verify refuses, from the same rule (gsvm_patho_stack_slot_ok). */
static void test_verify_refuses_s0(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    task(&b, "", 0);
    E(&b, OP(PushI), 1);
    E(&b, OP(MovI), 0, 7); /* Stack[-0] = 7 */
    E(&b, OP(Return), 1);
    gsvm_patho_program *prog = bld_program(&b);
    gsvm_patho_issue *issues = NULL;
    size_t n = 0;
    gsvm_error err;
    CHECK_INT(gsvm_patho_verify(prog, &issues, &n, &err), GSVM_OK);
    CHECK_INT(n, 1);
    if (n)
        CHECK_STR(issues[0].message, "MovI addresses Stack[-0], which names no slot (stack "
                                     "operands count from 1, the top)");
    free(issues);
    gsvm_patho_free(prog);
    CHECK(!gsvm_patho_stack_slot_ok(0, 5) && gsvm_patho_stack_slot_ok(5, 5) &&
          !gsvm_patho_stack_slot_ok(6, 5));
}

/* Task variables: verify checks every tN with the VM's rule
 * (gsvm_patho_task_slot_ok: N below the distance from the running task's
 * base to the top), so what run faults on ("task variable N is outside the
 * stack") verify refuses, and the largest good N passes both.  Each case is
 * built for one N: in the start task's own code (a root), in a function
 * called inside a TaskCall'd task (checked at the call), in a called task
 * with parameters, and in a global event handler (any task may run it). */
enum { TV_ROOT, TV_CALL, TV_PARAMS, TV_EVENT };

static void tv_build(bld *b, int shape, uint32_t t)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    switch (shape) {
    case TV_ROOT: /* start task: 1 variable */
        task(b, "o", 0);
        E(b, OP(PushT), t);
        E(b, OP(Pop), 1);
        E(b, OP(Return), 0);
        break;
    case TV_CALL: /* task 1 (1 variable) open around a Call */
        task(b, "o", 0);
        task(b, "i", 0);
        E(b, OP(TaskCall), 1); /* 0 */
        E(b, OP(Call), 4);     /* 1 */
        E(b, OP(TaskReturn));  /* 2 */
        E(b, OP(Return), 0);   /* 3 */
        E(b, OP(PushT), t);    /* 4: the function */
        E(b, OP(Return), 1);   /* 5 */
        break;
    case TV_PARAMS: /* task 1: 1 variable and 2 parameters */
        task(b, "", 0);
        task(b, "i", 2);
        E(b, OP(PushI), 5);
        E(b, OP(PushI), 6);
        E(b, OP(TaskCall), 1);
        E(b, OP(PushT), t);
        E(b, OP(Pop), 1);
        E(b, OP(TaskReturn));
        E(b, OP(Pop), 2);
        E(b, OP(Return), 0);
        break;
    case TV_EVENT: /* a global handler of one argument; the start task has 1 variable */
        task(b, "o", 0);
        E(b, OP(Return), 0);   /* 0: RunOp */
        E(b, OP(PushT), t);    /* 1: the handler */
        E(b, OP(Pop), 1);
        E(b, OP(Return), 0);
        gevent(b, 7, 1, "i");
        break;
    }
}

/* The first verify issue for (shape, t), or "" when verify accepts. */
static const char *tv_verify(int shape, uint32_t t)
{
    static char msg[600];
    bld b;
    tv_build(&b, shape, t);
    gsvm_patho_program *prog = bld_program(&b);
    gsvm_patho_issue *issues = NULL;
    size_t n = 0;
    gsvm_error err;
    msg[0] = 0;
    if (gsvm_patho_verify(prog, &issues, &n, &err) != GSVM_OK)
        snprintf(msg, sizeof msg, "verify failed: %s", err.message);
    else if (n)
        snprintf(msg, sizeof msg, "%s", issues[0].message);
    free(issues);
    gsvm_patho_free(prog);
    return msg;
}

/* The run's fault for (shape, t) ("" when it finishes); events shapes send
 * the event once. */
static const char *tv_run(int shape, uint32_t t)
{
    static char msg[300];
    bld b;
    tv_build(&b, shape, t);
    run x;
    run_start(&x, &b, 4);
    if (shape == TV_EVENT && gsvm_patho_vm_state(x.vm) != GSVM_PATHO_FAULTED) {
        /* the start task finished: send the event while it still runs */
        gsvm_patho_vm_free(x.vm);
        gsvm_patho_host h = rec_host(&x.r);
        gsvm_error err;
        x.vm = NULL;
        CHECK_INT(gsvm_patho_vm_new(x.prog, &h, &x.vm, &err), GSVM_OK);
        CHECK_INT(gsvm_patho_vm_start(x.vm, &err), GSVM_OK);
        gsvm_patho_value arg = {0};
        arg.type = GSVM_PATHO_INT;
        gsvm_patho_event_result r;
        gsvm_patho_vm_send_event(x.vm, 7, &arg, 1, &r, &err);
        CHECK_INT(r, GSVM_PATHO_EVENT_HANDLED);
    }
    snprintf(msg, sizeof msg, "%s",
             gsvm_patho_vm_state(x.vm) == GSVM_PATHO_FAULTED ? gsvm_patho_vm_fault(x.vm) : "");
    run_free(&x);
    return msg;
}

static void test_verify_checks_task_vars(void)
{
    static const struct {
        int shape;
        uint32_t good; /* the largest tN both accept */
        const char *refused, *fault;
    } cases[] = {
        {TV_ROOT, 0, "PushT addresses task variable t1 on a path from RunOp, whose task has 1 slot(s) at its "
                     "entry, 1 too few",
         "task variable 1 is outside the stack (task base 0, 1 slots)"},
        {TV_CALL, 0, "Call of op 4, whose PushT (op 4) addresses task variable t1: task 1 has 1 slot(s) at the "
                     "call, 1 too few",
         "task variable 1 is outside the stack (task base 1, 2 slots)"},
        {TV_PARAMS, 2, "PushT addresses task variable t3, but task 1 has 3 slot(s) here (variables, "
                       "parameters, pushed values)",
         "task variable 3 is outside the stack (task base 0, 3 slots)"},
        {TV_EVENT, 1, "PushT addresses task variable t2 on a path from global event 7, whose task has 2 "
                      "slot(s) at its entry, 1 too few",
         "task variable 2 is outside the stack (task base 0, 2 slots)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_STR(tv_verify(cases[i].shape, cases[i].good), "");
        CHECK_STR(tv_run(cases[i].shape, cases[i].good), "");
        CHECK_STR(tv_verify(cases[i].shape, cases[i].good + 1), cases[i].refused);
        CHECK_STR(tv_run(cases[i].shape, cases[i].good + 1), cases[i].fault);
    }
    CHECK(!gsvm_patho_task_slot_ok(0, 0) && gsvm_patho_task_slot_ok(2, 3) && !gsvm_patho_task_slot_ok(3, 3) &&
          !gsvm_patho_task_slot_ok(0, -1));
}

static void test_faults(void)
{
    int64_t op;
    CHECK_STR(fault_of(f_underflow, &op), "Stack underflow: popping 3 of 2 slots");
    CHECK_INT(op, 1);
    CHECK_STR(fault_of(f_stackvar, &op), "Stack[-2] is outside the stack (1 slots)");
    CHECK_STR(fault_of(f_stackvar0, &op), "Stack[-0] is outside the stack (1 slots)");
    CHECK_STR(fault_of(f_taskvar, &op), "task variable 1 is outside the stack (task base 0, 1 slots)");
    CHECK_STR(fault_of(f_mismatch, &op), "Type mismatch in '-' (int, string)");
    CHECK_INT(op, 2);
    CHECK_STR(fault_of(f_assign, &op), "Type mismatch: cannot assign string to int");
    CHECK_STR(fault_of(f_ret, &op), "Call stack underflow");
    CHECK_INT(op, 1);
    CHECK_STR(fault_of(f_task, &op), "Invalid task ID '5'");
    CHECK_STR(fault_of(f_params, &op), "task 1 takes 3 parameters, the stack has 1 slots");
    CHECK_STR(fault_of(f_taskret, &op), "TaskReturn outside a called task");
    CHECK_STR(fault_of(f_null, &op), "Method 'Go' called on a null object");
    CHECK_STR(fault_of(f_notobj, &op), "Type mismatch in call to method 'Go': int is no object");
    CHECK_STR(fault_of(f_div, &op), "Division by zero");
    CHECK_STR(fault_of(f_jumpb, &op), "Type mismatch in 'JumpB' (string)");
    CHECK_STR(fault_of(f_jump, &op), "jump target 100 is outside the code (1 instructions)");
    CHECK_STR(fault_of(f_end, &op), "op 1 is outside the code (1 instructions)");
    CHECK_STR(fault_of(f_pool, &op), "pool offset 999 is outside the pool (0 bytes)");
    CHECK_STR(fault_of(f_global, &op), "global variable 0 does not exist (0 globals)");
    CHECK_STR(fault_of(f_vec, &op), "Type mismatch in vector component read (int)");
    CHECK_STR(fault_of(f_vecidx, &op), "vector component 3 out of range");
    CHECK_STR(fault_of(f_mode, &op), "invalid addressing mode 2");
    CHECK_STR(fault_of(f_overflow, &op), "Stack overflow (more than 8192 slots)");
    CHECK_STR(fault_of(f_recurse, &op), "Call stack overflow (more than 1024 calls)");
    CHECK_STR(fault_of(f_funcexist, &op), "Type mismatch in 'FuncExist' (int, int, int)");
    CHECK_STR(fault_of(f_cstring, &op), "Type mismatch when converting to char-string");
}

static void test_pending_taskreturn(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    task(&b, "", 0);
    task(&b, "i", 0);
    E(&b, OP(TaskCall), 1);  /* 0 */
    E(&b, OP(Call), 2);      /* 1 */
    E(&b, OP(TaskReturn));   /* 2: inside the call: pending */
    run x;
    run_start(&x, &b, 1);
    CHECK_STR(gsvm_patho_vm_fault(x.vm), "TaskReturn with 1 pending calls");
    CHECK_INT(gsvm_patho_vm_fault_op(x.vm), 2);
    run_free(&x);
}

static void test_cap(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    task(&b, "", 0);
    E(&b, OP(Jump), 0);
    run x;
    x.prog = bld_program(&b);
    gsvm_patho_host h = rec_host(&x.r);
    gsvm_error err;
    CHECK_INT(gsvm_patho_vm_new(x.prog, &h, &x.vm, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_run_frame(x.vm, &err), GSVM_ERR_USAGE); /* not started */
    CHECK_INT(gsvm_patho_vm_start(x.vm, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_run_frame(x.vm, &err), GSVM_ERR_LIMIT);
    CHECK_INT(gsvm_patho_vm_instructions(x.vm), 1000000);
    gsvm_patho_vm_set_max_instructions(x.vm, 10);
    CHECK_INT(gsvm_patho_vm_run_frame(x.vm, &err), GSVM_ERR_LIMIT);
    CHECK_INT(gsvm_patho_vm_instructions(x.vm), 1000010);
    CHECK_INT(gsvm_patho_vm_state(x.vm), GSVM_PATHO_RUNNING);
    CHECK_INT(gsvm_patho_vm_start(x.vm, &err), GSVM_ERR_USAGE);
    run_free(&x);
}

/* A start task that declares parameters still starts (nothing was pushed
 * for them); a bad RunTask or RunOp is an input error at start. */
static void test_start_checks(void)
{
    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    uint32_t p1 = imp(&b, "Print", 1);
    task(&b, "i", 2);
    E(&b, OP(TMovI), 0, 4);
    func(&b, p1, 0, 1);
    E(&b, OP(Return), 0);
    run x;
    run_start(&x, &b, 1);
    CHECK_INT(gsvm_patho_vm_state(x.vm), GSVM_PATHO_FINISHED);
    CHECK_STR(rec_text(&x.r), "Print(4)\n");
    run_free(&x);

    gsvm_error err;
    gsvm_patho_vm *vm;
    b.run_op = 7;
    gsvm_patho_program *prog = bld_program(&b);
    gsvm_patho_vm_new(prog, NULL, &vm, &err);
    CHECK_INT(gsvm_patho_vm_start(vm, &err), GSVM_ERR_INPUT);
    CHECK_STR(err.message, "RunOp 7 is outside the code (3 instructions)");
    gsvm_patho_vm_free(vm);
    gsvm_patho_free(prog);
    b.run_op = 0;
    b.run_task = 3;
    prog = bld_program(&b);
    gsvm_patho_vm_new(prog, NULL, &vm, &err);
    CHECK_INT(gsvm_patho_vm_start(vm, &err), GSVM_ERR_INPUT);
    CHECK_STR(err.message, "RunTask 3 does not exist (1 tasks)");
    gsvm_patho_vm_free(vm);
    gsvm_patho_free(prog);
    /* A global of no type is refused when the VM is made. */
    b.run_task = 0;
    global(&b, 9);
    prog = bld_program(&b);
    CHECK_INT(gsvm_patho_vm_new(prog, NULL, &vm, &err), GSVM_ERR_INPUT);
    CHECK_STR(err.message, "global variable 0 has the invalid type 9");
    gsvm_patho_free(prog);
}

/* ---- natives along a context chain -------------------------------------------------- */

static gsvm_patho_call_result nat_mid(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)vm;
    gsvm_buf_printf(user, "std:%s/%u ", c->name, c->argc);
    gsvm_patho_value r = gsvm_patho_float(0);
    if (c->argc == 3) { /* rand(out, min, max): the midpoint, to be testable */
        gsvm_patho_value sum;
        char msg[100];
        patho_binop_apply(PATHO_ADD, c->args[1], c->args[2], &sum, msg, sizeof msg);
        gsvm_patho_value half = gsvm_patho_float(0.5f);
        patho_binop_apply(PATHO_MUL, &sum, &half, &r, msg, sizeof msg);
    }
    return gsvm_patho_value_assign(c->args[0], &r, c->fault, sizeof c->fault) == GSVM_OK
               ? GSVM_PATHO_CALL_DONE
               : GSVM_PATHO_CALL_FAULT;
}

static gsvm_patho_call_result nat_trace(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)vm;
    char *t = gsvm_patho_string_to_utf8(c->args[0], NULL);
    gsvm_buf_printf(user, "%s ", t ? t : "?");
    free(t);
    return GSVM_PATHO_CALL_DONE;
}

static gsvm_patho_call_result nat_actor_trace(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    gsvm_buf_puts(user, "actor:");
    return nat_trace(user, vm, c);
}

static gsvm_patho_call_result nat_method(void *user, gsvm_patho_vm *vm, gsvm_patho_call *c)
{
    (void)vm;
    gsvm_buf_printf(user, "method:%s#%u ", c->name, c->object);
    return GSVM_PATHO_CALL_DONE;
}

static bool nat_exists(void *user, uint32_t object, const char *name, int32_t argc)
{
    (void)user;
    return object == 1 && strcmp(name, "Open") == 0 && argc == 0;
}

static void test_context_chain(void)
{
    gsvm_buf log;
    gsvm_buf_init(&log);
    static const gsvm_patho_native std_natives[] = {
        {"rand", 3, nat_mid}, {"rand", 1, nat_mid}, {"Trace", -1, nat_trace}};
    static const gsvm_patho_native actor_natives[] = {{"Trace", 1, nat_actor_trace}};
    gsvm_patho_context std = {std_natives, 3, &log, NULL, nat_exists, NULL};
    gsvm_patho_context actor = {actor_natives, 1, &log, nat_method, NULL, &std};
    gsvm_patho_host host = gsvm_patho_context_host(&actor);

    bld b;
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    uint32_t rand3 = imp(&b, "rand", 3), rand1 = imp(&b, "rand", 1);
    uint32_t trace1 = imp(&b, "Trace", 1), trace2 = imp(&b, "Trace", 2), nope;
    task(&b, "fo", 0);
    E(&b, OP(PushI), 1);
    E(&b, OP(PushF), fbits(2));
    func(&b, rand3, 0, 1, 2, 0, 1, 0);     /* rand(TaskVar[0], 1, 2.0) -> 1.5 */
    func(&b, rand1, 0, 1);                 /* rand(TaskVar[0]) -> 0.0 */
    E(&b, OP(Pop), 2);
    E(&b, OP(PushS), s16(&b, "hi"));
    func(&b, trace1, 1, 0);                /* the actor's Trace overrides */
    func(&b, trace2, 1, 0, 1, 0);          /* only the standard one takes 2 */
    E(&b, OP(Pop), 1);
    E(&b, OP(Return), 0);
    gsvm_patho_program *prog = bld_program(&b);
    gsvm_patho_vm *vm;
    gsvm_error err;
    CHECK_INT(gsvm_patho_vm_new(prog, &host, &vm, &err), GSVM_OK);
    gsvm_patho_vm_start(vm, &err);
    gsvm_patho_vm_set_max_instructions(vm, 3);
    CHECK_INT(gsvm_patho_vm_run_frame(vm, &err), GSVM_ERR_LIMIT);
    CHECK_STR(J(gsvm_patho_vm_stack_at(vm, 0)), "1.5");
    gsvm_patho_vm_set_max_instructions(vm, 0);
    CHECK_INT(gsvm_patho_vm_run_frame(vm, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_state(vm), GSVM_PATHO_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&log), "std:rand/3 std:rand/1 actor:hi hi ");
    CHECK_STR(J(gsvm_patho_vm_stack_at(vm, 0)), "0.0");
    gsvm_patho_vm_free(vm);
    gsvm_patho_free(prog);

    /* A program importing a native no context has is refused; methods and
     * FuncExist find the first context that has them. */
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    nope = imp(&b, "Nope", 0);
    task(&b, "o", 0);
    objfunc(&b, 1, 0, s8(&b, "Open"), 0);
    func(&b, nope);
    prog = bld_program(&b);
    CHECK_INT(gsvm_patho_vm_new(prog, &host, &vm, &err), GSVM_ERR_INPUT);
    CHECK_STR(err.message, "import #0 'Nope' with 0 arguments: the host has no such native");
    gsvm_patho_free(prog);
    bld_init(&b, GSVM_PATHO_LAYOUT_HD);
    task(&b, "o", 0);
    objfunc(&b, 1, 0, s8(&b, "Open"), 0);
    prog = bld_program(&b);
    CHECK_INT(gsvm_patho_vm_new(prog, &host, &vm, &err), GSVM_OK);
    gsvm_patho_vm_start(vm, &err);
    gsvm_patho_vm_run_frame(vm, &err);
    CHECK_STR(gsvm_patho_vm_fault(vm), "Method 'Open' called on a null object");
    gsvm_patho_vm_free(vm);
    gsvm_patho_free(prog);
    CHECK(host.method_exists(host.user, 1, "Open", 0));
    CHECK(!host.method_exists(host.user, 2, "Open", 0));
    CHECK_INT(host.resolve(host.user, "Nope", 0), -1);
    CHECK_INT(host.resolve(host.user, "rand", 2), -1);
    gsvm_patho_call c;
    memset(&c, 0, sizeof c);
    c.is_method = true;
    c.name = "Open";
    c.object = 1;
    log.len = 0;
    CHECK_INT(host.call(host.user, NULL, &c), GSVM_PATHO_CALL_DONE);
    CHECK_STR(gsvm_buf_cstr(&log), "method:Open#1 ");
    /* A cycle in the chain is cut off, never followed forever. */
    gsvm_patho_context loop_a = {NULL, 0, NULL, NULL, NULL, NULL};
    gsvm_patho_context loop_b = {NULL, 0, NULL, NULL, NULL, &loop_a};
    loop_a.parent = &loop_b;
    gsvm_patho_host lh = gsvm_patho_context_host(&loop_a);
    CHECK_INT(lh.resolve(lh.user, "x", 0), -1);
    CHECK(!lh.method_exists(lh.user, 1, "x", 0));
    gsvm_buf_free(&log);
}

/* ---- the simulation host (Sleep, Hold, timeline) ---------------------------------- */

/* The shipped declarations plus the natives the hand-built tests call. */
static const gsvm_patho_natives *sim_natives(void)
{
    static gsvm_patho_natives *n;
    static const char extra[] = "{\"natives\": [{\"name\": \"Say\", \"args\": [\"any\"]},\n"
                                "  {\"name\": \"Wait\", \"latent\": \"frame\"}]}";
    gsvm_error err;
    if (!n && (gsvm_patho_natives_new(true, &n, &err) != GSVM_OK ||
               gsvm_patho_natives_add_text(n, extra, strlen(extra), "test", &err) != GSVM_OK))
        abort();
    return n;
}

static const char *sim(bld *b, const char *timeline_text, uint64_t cap, patho_sim_outcome *oc)
{
    static char out[4096];
    gsvm_patho_program *prog = bld_program(b);
    json_t *tl = NULL;
    gsvm_error err;
    if (timeline_text &&
        gsvm_jsonl_parse(timeline_text, strlen(timeline_text), "t", &tl, &err) != GSVM_OK) {
        snprintf(out, sizeof out, "timeline: %s", err.message);
        gsvm_patho_free(prog);
        return out;
    }
    gsvm_buf buf;
    gsvm_buf_init(&buf);
    patho_sim_opts o = {.sim = {.natives = sim_natives(), .frame_instructions = cap,
                                .emit = drive_collect, .user = &buf}};
    if (patho_sim_run(prog, tl, &o, oc, &err) != GSVM_OK)
        gsvm_buf_printf(&buf, "error: %s", err.message);
    snprintf(out, sizeof out, "%s", gsvm_buf_cstr(&buf));
    gsvm_buf_free(&buf);
    json_decref(tl);
    gsvm_patho_free(prog);
    return out;
}

static void build_sleeper(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t sleep = imp(b, "Sleep", 1), hold = imp(b, "Hold", 0), say = imp(b, "Say", 1);
    uint32_t stop = imp(b, "StopGroup0", 0);
    task(b, "i", 0);
    E(b, OP(PushF), fbits(1.5f));  /* 0 */
    func(b, sleep, 1, 0);          /* 1 */
    E(b, OP(Pop), 1);              /* 2 */
    E(b, OP(PushS), s16(b, "woke"));
    func(b, say, 1, 0);            /* 4 */
    E(b, OP(Pop), 1);              /* 5 */
    func(b, hold);                 /* 6: until StopGroup0 */
    E(b, OP(TMovI), 0, 1);         /* 7 */
    E(b, OP(PushT), 0);            /* 8 */
    func(b, say, 1, 0);            /* 9 */
    E(b, OP(Return), 1);           /* 10 */
    /* 11: event 2 (cvector): say it */
    func(b, say, 1, 0);            /* 11 */
    E(b, OP(Return), 0);           /* 12 */
    /* 13: event 3: wake the Hold */
    func(b, stop);                 /* 13 */
    E(b, OP(Return), 0);           /* 14 */
    gevent(b, 2, 11, "v");
    gevent(b, 3, 13, "");
}

static void build_sleep_arg(bld *b, float secs)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t sleep = imp(b, "Sleep", 1), say = imp(b, "Say", 1);
    task(b, "", 0);
    E(b, OP(PushF), fbits(secs));
    func(b, sleep, 1, 0);
    func(b, say, 1, 0);
    E(b, OP(Return), 1);
}

/* The other latent natives of the shipped declarations: sync() ends on the
 * next frame, sync(dt) too and writes the seconds that passed into dt,
 * WaitForAnimEnd() on {"anim_end":true}, Sleep(t, b) on time. */
static void build_waits(bld *b)
{
    bld_init(b, GSVM_PATHO_LAYOUT_HD);
    uint32_t sync0 = imp(b, "sync", 0), sync1 = imp(b, "sync", 1);
    uint32_t anim = imp(b, "WaitForAnimEnd", 0), sleep2 = imp(b, "Sleep", 2);
    uint32_t say = imp(b, "Say", 1);
    task(b, "", 0);
    E(b, OP(PushF), fbits(0));       /* 0: dt */
    func(b, sync0);                  /* 1 */
    func(b, sync1, 1, 0);            /* 2: sync(dt) */
    func(b, say, 1, 0);              /* 3: Say(dt) */
    func(b, anim);                   /* 4 */
    E(b, OP(PushB), 1);              /* 5 */
    E(b, OP(PushF), fbits(0.5f));    /* 6 */
    func(b, sleep2, 1, 0, 2, 0);     /* 7: Sleep(0.5, true) */
    E(b, OP(PushS), s16(b, "done")); /* 8 */
    func(b, say, 1, 0);              /* 9 */
    E(b, OP(Return), 4);             /* 10 */
}

static void test_sim_waits(void)
{
    bld b;
    patho_sim_outcome oc;
    build_waits(&b);
    const char *calls = "{\"host\":\"sync\",\"args\":[]}\n"
                        "{\"host\":\"sync\",\"args\":[0.0]}\n"
                        "{\"host\":\"Say\",\"args\":[0.02]}\n"
                        "{\"host\":\"WaitForAnimEnd\",\"args\":[]}\n";
    /* Each frame wait ends on the next frame, whatever the time. */
    CHECK_STR(sim(&b, "{\"advance_ms\":16}\n{\"advance_ms\":20}\n{\"advance_ms\":5000}\n", 0, &oc),
              calls);
    CHECK_INT(oc, PATHO_SIM_WAITING);
    /* The animation's end lets the next frame go on; then Sleep(t, b) waits t. */
    char want[1024];
    snprintf(want, sizeof want, "%s%s", calls, "{\"host\":\"Sleep\",\"args\":[0.5,true]}\n");
    CHECK_STR(sim(&b, "{\"advance_ms\":16}\n{\"advance_ms\":20}\n{\"anim_end\":true}\n"
                      "{\"advance_ms\":16}\n{\"advance_ms\":499}\n",
                  0, &oc),
              want);
    CHECK_INT(oc, PATHO_SIM_WAITING);
    snprintf(want, sizeof want, "%s%s", calls,
             "{\"host\":\"Sleep\",\"args\":[0.5,true]}\n{\"host\":\"Say\",\"args\":[\"done\"]}\n");
    CHECK_STR(sim(&b, "{\"advance_ms\":16}\n{\"advance_ms\":20}\n{\"anim_end\":true}\n"
                      "{\"advance_ms\":16}\n{\"advance_ms\":500}\n",
                  0, &oc),
              want);
    CHECK_INT(oc, PATHO_SIM_FINISHED);
    /* An anim_end before the wait began does not end it. */
    CHECK_STR(sim(&b, "{\"anim_end\":true}\n{\"advance_ms\":16}\n{\"advance_ms\":20}\n"
                      "{\"advance_ms\":16}\n",
                  0, &oc),
              calls);
    CHECK_STR(sim(&b, "{\"anim_end\":1}\n", 0, &oc), "error: entry 1: anim_end must be true");
}

static void test_sim_host(void)
{
    bld b;
    patho_sim_outcome oc;
    build_sleeper(&b);
    CHECK_STR(sim(&b, NULL, 0, &oc), "{\"host\":\"Sleep\",\"args\":[1.5]}\n");
    CHECK_INT(oc, PATHO_SIM_WAITING);
    CHECK_STR(sim(&b, "{\"advance_ms\":1000}\n{\"event\":2,\"args\":[{\"cvector\":[1,2.5,-3]}]}\n"
                      "{\"advance_ms\":499}\n{\"advance_ms\":1}\n",
                  0, &oc),
              "{\"host\":\"Sleep\",\"args\":[1.5]}\n"
              "{\"host\":\"Say\",\"args\":[{\"cvector\":[1.0,2.5,-3.0]}]}\n"
              "{\"host\":\"Say\",\"args\":[\"woke\"]}\n{\"host\":\"Hold\",\"args\":[]}\n");
    CHECK_INT(oc, PATHO_SIM_WAITING);
    /* Hold waits however long time runs ... */
    CHECK_STR(sim(&b, "{\"advance_ms\":2000}\n{\"advance_ms\":16}\n{\"advance_ms\":99999}\n", 0, &oc),
              "{\"host\":\"Sleep\",\"args\":[1.5]}\n{\"host\":\"Say\",\"args\":[\"woke\"]}\n"
              "{\"host\":\"Hold\",\"args\":[]}\n");
    CHECK_INT(oc, PATHO_SIM_WAITING);
    /* ... until StopGroup0 (here from an event handler) ends it next frame. */
    CHECK_STR(sim(&b, "{\"advance_ms\":2000}\n{\"event\":3}\n{\"advance_ms\":16}\n", 0, &oc),
              "{\"host\":\"Sleep\",\"args\":[1.5]}\n{\"host\":\"Say\",\"args\":[\"woke\"]}\n"
              "{\"host\":\"Hold\",\"args\":[]}\n{\"host\":\"StopGroup0\",\"args\":[]}\n"
              "{\"host\":\"Say\",\"args\":[1]}\n");
    CHECK_INT(oc, PATHO_SIM_FINISHED);
    /* StopGroup0 also ends a Sleep early. */
    CHECK_STR(sim(&b, "{\"event\":3}\n{\"advance_ms\":1}\n", 0, &oc),
              "{\"host\":\"Sleep\",\"args\":[1.5]}\n{\"host\":\"StopGroup0\",\"args\":[]}\n"
              "{\"host\":\"Say\",\"args\":[\"woke\"]}\n{\"host\":\"Hold\",\"args\":[]}\n");
    /* Sleep(0) waits for the next frame; a negative time is a script error. */
    build_sleep_arg(&b, 0);
    CHECK_STR(sim(&b, NULL, 0, &oc), "{\"host\":\"Sleep\",\"args\":[0.0]}\n");
    CHECK_STR(sim(&b, "{\"advance_ms\":0}\n", 0, &oc),
              "{\"host\":\"Sleep\",\"args\":[0.0]}\n{\"host\":\"Say\",\"args\":[0.0]}\n");
    CHECK_INT(oc, PATHO_SIM_FINISHED);
    build_sleep_arg(&b, -1);
    CHECK_STR(sim(&b, NULL, 0, &oc), "{\"host\":\"Sleep\",\"args\":[-1.0]}\n"
                                      "{\"fault\":\"Negative wait time\",\"op\":1}\n");
    CHECK_INT(oc, PATHO_SIM_FAULT);
    build_sleeper(&b);
    CHECK_STR(sim(&b, "{\"advance_ms\":2000}\n", 3, &oc),
              "{\"host\":\"Sleep\",\"args\":[1.5]}\n{\"host\":\"Say\",\"args\":[\"woke\"]}\n"
              "{\"stopped\":\"instruction limit\"}\n");
    CHECK_INT(oc, PATHO_SIM_LIMIT);
    CHECK_STR(sim(&b, "{\"advance_ms\":-1}\n", 0, &oc), "error: entry 1: advance_ms must be a number >= 0");
    CHECK_STR(sim(&b, "{\"event\":2,\"args\":[[1]]}\n", 0, &oc),
              "error: entry 1: argument 1 has no script type (use a number, true/false, a "
              "string, {\"object\":N} or {\"cvector\":[x,y,z]})");
    CHECK_STR(sim(&b, "{\"hello\":1}\n", 0, &oc),
              "error: entry 1: expected {\"advance_ms\":N}, {\"event\":ID,...} or {\"anim_end\":true}");
}

/* ---- snapshots ------------------------------------------------------------------------ */

/* Runs `b` frame by frame (with `events` sent after the first frame) in two
 * VMs: one straight, one snapshotted and restored after every instruction.
 * Both must log the same calls and end in byte-identical snapshots. */
static void snapshot_equivalence(bld *b, int frames, const char *what)
{
    gsvm_patho_program *prog = bld_program(b);
    rec ra, rb;
    gsvm_patho_host ha = rec_host(&ra), hb = rec_host(&rb);
    gsvm_patho_vm *va, *vb;
    gsvm_error err;
    gsvm_patho_vm_new(prog, &ha, &va, &err);
    gsvm_patho_vm_new(prog, &hb, &vb, &err);
    gsvm_patho_vm_start(va, &err);
    gsvm_patho_vm_start(vb, &err);
    int restores = 0;
    bool same = true;
    for (int f = 0; f < frames && same; f++) {
        gsvm_patho_vm_run_frame(va, &err);
        gsvm_patho_vm_frame_begin(vb, &err);
        while (gsvm_patho_vm_state(vb) == GSVM_PATHO_RUNNING) {
            uint8_t *snap;
            size_t len;
            if (gsvm_patho_vm_snapshot(vb, &snap, &len, &err) != GSVM_OK) {
                same = false;
                break;
            }
            gsvm_patho_vm *nv;
            if (gsvm_patho_vm_restore(prog, &hb, snap, len, &nv, &err) != GSVM_OK) {
                fprintf(stderr, "%s: restore failed: %s\n", what, err.message);
                free(snap);
                same = false;
                break;
            }
            free(snap);
            gsvm_patho_vm_free(vb);
            vb = nv;
            restores++;
            if (gsvm_patho_vm_run(vb, 1, &err) == GSVM_ERR_FAULT)
                break;
        }
    }
    uint8_t *sa, *sb;
    size_t la, lb;
    gsvm_patho_vm_snapshot(va, &sa, &la, &err);
    gsvm_patho_vm_snapshot(vb, &sb, &lb, &err);
    CHECK(same);
    CHECK(restores > 0);
    CHECK_STR(rec_text(&rb), rec_text(&ra));
    CHECK(la == lb && memcmp(sa, sb, la) == 0);
    free(sa);
    free(sb);
    gsvm_patho_vm_free(va);
    gsvm_patho_vm_free(vb);
    gsvm_buf_free(&ra.log);
    gsvm_buf_free(&rb.log);
    gsvm_patho_free(prog);
}

static void test_snapshots(void)
{
    bld b;
    build_loop(&b, GSVM_PATHO_LAYOUT_HD);
    snapshot_equivalence(&b, 3, "loop");
    build_tasks(&b);
    snapshot_equivalence(&b, 6, "tasks");
    build_sleeper(&b);
    snapshot_equivalence(&b, 4, "sleeper");

    /* Odd but reachable states restore: the cap right after the last
     * instruction (the op is just past the code), and a task whose base the
     * script popped below (found by fuzz_patho_run). */
    {
        bld o;
        bld_init(&o, GSVM_PATHO_LAYOUT_HD);
        task(&o, "", 0);
        task(&o, "ii", 0);
        E(&o, OP(PushI), 1);
        E(&o, OP(TaskCall), 1);
        E(&o, OP(Pop), 3);
        gsvm_patho_program *op = bld_program(&o);
        rec orr;
        gsvm_patho_host oh = rec_host(&orr);
        gsvm_patho_vm *ov, *ob;
        gsvm_error oe;
        gsvm_patho_vm_new(op, &oh, &ov, &oe);
        gsvm_patho_vm_start(ov, &oe);
        gsvm_patho_vm_set_max_instructions(ov, 3);
        CHECK_INT(gsvm_patho_vm_run_frame(ov, &oe), GSVM_ERR_LIMIT);
        CHECK_INT(gsvm_patho_vm_op(ov), 3);
        uint8_t *os;
        size_t ol;
        CHECK_INT(gsvm_patho_vm_snapshot(ov, &os, &ol, &oe), GSVM_OK);
        CHECK_INT(gsvm_patho_vm_restore(op, &oh, os, ol, &ob, &oe), GSVM_OK);
        CHECK_INT(gsvm_patho_vm_run_frame(ob, &oe), GSVM_ERR_FAULT);
        CHECK_STR(gsvm_patho_vm_fault(ob), "op 3 is outside the code (3 instructions)");
        free(os);
        gsvm_patho_vm_free(ob);
        gsvm_patho_vm_free(ov);
        gsvm_patho_free(op);
        gsvm_buf_free(&orr.log);
    }

    /* A snapshot taken while waiting inside a task, with disabled events,
     * restores to the same bytes and carries on the same way. */
    build_tasks(&b);
    gsvm_patho_program *prog = bld_program(&b);
    rec r;
    gsvm_patho_host h = rec_host(&r);
    gsvm_patho_vm *vm, *back;
    gsvm_error err;
    gsvm_patho_vm_new(prog, &h, &vm, &err);
    uint8_t *snap, *snap2;
    size_t len, len2;
    CHECK_INT(gsvm_patho_vm_snapshot(vm, &snap, &len, &err), GSVM_OK); /* READY */
    CHECK_INT(gsvm_patho_vm_restore(prog, &h, snap, len, &back, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_state(back), GSVM_PATHO_READY);
    gsvm_patho_vm_free(back);
    free(snap);
    gsvm_patho_vm_start(vm, &err);
    gsvm_patho_vm_run_frame(vm, &err);
    CHECK_INT(gsvm_patho_vm_snapshot(vm, &snap, &len, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_restore(prog, &h, snap, len, &back, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_vm_state(back), GSVM_PATHO_WAITING);
    CHECK_INT(gsvm_patho_vm_snapshot(back, &snap2, &len2, &err), GSVM_OK);
    CHECK(len == len2 && memcmp(snap, snap2, len) == 0);
    free(snap2);
    gsvm_patho_vm_free(back);

    /* Corruption: every truncation and every single-byte change is either
     * rejected with an input error or yields a VM that runs safely. */
    int rejected = 0;
    for (size_t cut = 0; cut < len; cut++) {
        if (gsvm_patho_vm_restore(prog, &h, snap, cut, &back, &err) == GSVM_OK)
            gsvm_patho_vm_free(back);
        else
            rejected++;
    }
    CHECK_INT(rejected, (long long)len);
    for (size_t at = 0; at < len; at++) {
        for (int bit = 0; bit < 8; bit += 3) {
            snap[at] ^= (uint8_t)(1u << bit);
            if (gsvm_patho_vm_restore(prog, &h, snap, len, &back, &err) == GSVM_OK) {
                gsvm_patho_event_result res;
                gsvm_patho_vm_run_frame(back, &err);
                gsvm_patho_vm_send_event(back, 3, NULL, 0, &res, &err);
                gsvm_patho_vm_run_frame(back, &err);
                gsvm_patho_vm_free(back);
            } else {
                CHECK_INT(err.status, GSVM_ERR_INPUT);
            }
            snap[at] ^= (uint8_t)(1u << bit);
        }
    }
    /* Another program's snapshot is refused. */
    gsvm_patho_program *other;
    build_loop(&b, GSVM_PATHO_LAYOUT_HD);
    other = bld_program(&b);
    CHECK_INT(gsvm_patho_vm_restore(other, &h, snap, len, &back, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "another program") != NULL);
    gsvm_patho_free(other);
    free(snap);
    gsvm_patho_vm_free(vm);
    gsvm_patho_free(prog);
    gsvm_buf_free(&r.log);
}

/* ---- the committed example files ------------------------------------------------------ */

typedef struct example {
    const char *path; /* relative to the source directory */
    void (*build)(bld *);
} example;

static void loop_bench(bld *b) { example_loop(b, 3000000); }

static const example examples[] = {
    {"tests/patho/vm/data/door.bin", example_door},
    {"tests/patho/vm/data/fault.bin", example_fault},
    {"tests/patho/vm/data/spin.bin", example_spin},
    {"tests/patho/vm/data/values.bin", example_values},
    {"bench/patho/loop.bin", loop_bench},
};

static int save_snapshot(gsvm_patho_vm *vm, const char *root, const char *name)
{
    uint8_t *snap;
    size_t len;
    gsvm_error err;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fuzz/seeds/patho_snapshot/%s", root, name);
    if (gsvm_patho_vm_snapshot(vm, &snap, &len, &err) != GSVM_OK)
        return 1;
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(snap, 1, len, f) != len;
    if (f)
        fclose(f);
    free(snap);
    if (bad)
        perror(path);
    else
        printf("wrote %s\n", path);
    return bad;
}

/* Seeds for fuzz_patho_snapshot: the door script at several points. */
static int write_snapshot_seeds(const char *root)
{
    bld b;
    example_door(&b);
    gsvm_patho_program *prog = bld_program(&b);
    patho_sim_host h;
    patho_sim_host_init(&h, drive_natives(), true, drive_discard, NULL);
    gsvm_patho_host iface = patho_sim_host_iface(&h);
    gsvm_patho_vm *vm;
    gsvm_error err;
    gsvm_patho_event_result res;
    int bad = 0;
    gsvm_patho_vm_new(prog, &iface, &vm, &err);
    bad |= save_snapshot(vm, root, "ready.snap");
    gsvm_patho_vm_start(vm, &err);
    bad |= save_snapshot(vm, root, "started.snap");
    gsvm_patho_vm_run_frame(vm, &err);
    bad |= save_snapshot(vm, root, "holding.snap");
    gsvm_patho_value v = gsvm_patho_object(5);
    gsvm_patho_vm_send_event(vm, 10, &v, 1, &res, &err);
    gsvm_patho_string_utf8(&v, "knock", 5);
    gsvm_patho_vm_send_event(vm, 11, &v, 1, &res, &err);
    gsvm_patho_value_free(&v);
    bad |= save_snapshot(vm, root, "sleeping_in_handler.snap");
    for (int i = 0; i < 3; i++) {
        h.clock.now_ms += 1000;
        gsvm_patho_vm_run_frame(vm, &err);
        v = gsvm_patho_object(6);
        gsvm_patho_vm_send_event(vm, 10, &v, 1, &res, &err);
    }
    h.clock.now_ms += 1000;
    gsvm_patho_vm_run_frame(vm, &err);
    bad |= save_snapshot(vm, root, "finished.snap");
    gsvm_patho_vm_free(vm);
    example_fault(&b);
    gsvm_patho_program *fprog = bld_program(&b);
    gsvm_patho_vm_new(fprog, &iface, &vm, &err);
    gsvm_patho_vm_start(vm, &err);
    gsvm_patho_vm_run_frame(vm, &err);
    gsvm_patho_vm_free(vm);
    gsvm_patho_free(fprog);
    patho_sim_host_free(&h);
    gsvm_patho_free(prog);
    return bad;
}

/* Example i as the builders make it (the caller frees), and its path under
 * `root`. */
static uint8_t *example_bytes(size_t i, const char *root, char *path, size_t pathsize, size_t *len)
{
    bld b;
    examples[i].build(&b);
    snprintf(path, pathsize, "%s/%s", root, examples[i].path);
    return bld_bytes(&b, len);
}

static int write_examples(const char *root)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        char path[4096];
        size_t len;
        uint8_t *data = example_bytes(i, root, path, sizeof path, &len);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, len, f) != len) {
            perror(path);
            return 1;
        }
        fclose(f);
        free(data);
        printf("wrote %s\n", path);
    }
    return write_snapshot_seeds(root);
}

/* The committed files are exactly what the builders make. */
static void test_examples_current(void)
{
    const char *root = getenv("GSVM_SOURCE_DIR");
    if (!root) {
        printf("skipped: GSVM_SOURCE_DIR not set\n");
        return;
    }
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        char path[4096];
        size_t len;
        uint8_t *data = example_bytes(i, root, path, sizeof path, &len);
        FILE *f = fopen(path, "rb");
        uint8_t buf[4096];
        size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f)
            fclose(f);
        if (got != len || memcmp(buf, data, len) != 0) {
            fprintf(stderr, "%s is stale: run patho_vm --write-examples SOURCE_DIR\n", path);
            test_failed++;
        } else {
            test_passed++;
        }
        free(data);
    }
}

/* The public host (gsvm/patho_host.h) as an embedder uses it: declared
 * natives, the sim stepped by hand, save and resume, the refusal of an
 * undeclared native, and the latent waits on their own. */
static void test_public_host(void)
{
    bld b;
    example_door(&b);
    gsvm_patho_program *prog = bld_program(&b);
    gsvm_error err;
    gsvm_patho_natives *nat, *empty;
    CHECK_INT(gsvm_patho_natives_new(true, &nat, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_natives_new(false, &empty, &err), GSVM_OK);
    gsvm_patho_native_info info;
    CHECK(gsvm_patho_natives_lookup(nat, "sync", 1, &info));
    CHECK(info.wait == GSVM_PATHO_WAIT_FRAME && info.out == 0 && info.result == GSVM_PATHO_FLOAT);
    CHECK_STR(info.file, "natives.json (built in)");
    CHECK(gsvm_patho_natives_lookup(nat, "Sleep", 2, &info) && info.wait == GSVM_PATHO_WAIT_TIME);
    CHECK(!gsvm_patho_natives_lookup(nat, "Sleep", 3, &info));
    CHECK(!gsvm_patho_natives_lookup(empty, "Sleep", 1, &info));
    /* A set added later wins. */
    const char *mine = "{\"natives\": [{\"name\": \"Sleep\", \"args\": [\"any\"]}]}";
    CHECK_INT(gsvm_patho_natives_add_text(nat, mine, strlen(mine), "mine.json", &err), GSVM_OK);
    CHECK(gsvm_patho_natives_lookup(nat, "Sleep", 1, &info) && info.wait == GSVM_PATHO_WAIT_NONE);
    CHECK_STR(info.file, "mine.json");
    gsvm_patho_natives_free(nat);
    CHECK_INT(gsvm_patho_natives_new(true, &nat, &err), GSVM_OK);

    gsvm_buf out, out2;
    gsvm_buf_init(&out);
    gsvm_buf_init(&out2);
    gsvm_patho_sim_opts o = {empty, 0, 0, drive_collect, &out};
    gsvm_patho_sim *s = NULL, *s2 = NULL;
    CHECK_INT(gsvm_patho_sim_new(prog, "door.bin", &o, &s, &err), GSVM_ERR_INPUT);
    CHECK(s == NULL);
    CHECK_STR(err.file, "door.bin");
    CHECK_STR(err.message, "import #0 'Trace' with 1 arguments is not declared; declare it in a "
                           "--natives file");
    {
        /* a wrong count names the counts the natives do declare */
        bld w;
        bld_init(&w, GSVM_PATHO_LAYOUT_HD);
        imp(&w, "Sleep", 3);
        task(&w, "", 0);
        E(&w, OP(Return), 0);
        gsvm_patho_program *wp = bld_program(&w);
        CHECK_INT(gsvm_patho_natives_check(nat, wp, "w.bin", &err), GSVM_ERR_INPUT);
        CHECK_STR(err.message, "import #0 'Sleep' with 3 arguments is not declared (the natives "
                               "declare 'Sleep' with 1, 2); declare it in a --natives file");
        gsvm_patho_free(wp);
    }
    o.natives = nat;
    CHECK_INT(gsvm_patho_sim_new(prog, "door.bin", &o, &s, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_sim_start(s), GSVM_PATHO_SIM_RUNNING);
    CHECK_STR(gsvm_buf_cstr(&out), "{\"host\":\"Trace\",\"args\":[\"door ready\"]}\n"
                                   "{\"host\":\"Hold\",\"args\":[]}\n");
    uint8_t *state;
    size_t len;
    CHECK_INT(gsvm_patho_sim_save(s, &state, &len, &err), GSVM_OK);
    gsvm_patho_sim_opts o2 = {nat, 0, 0, drive_collect, &out2};
    CHECK_INT(gsvm_patho_sim_resume(prog, "door.bin", &o2, state, len, &s2, &err), GSVM_OK);
    free(state);
    gsvm_patho_value who = gsvm_patho_object(5);
    gsvm_patho_event_result res;
    out.len = 0;
    for (int k = 0; k < 3; k++) {
        CHECK_INT(gsvm_patho_sim_event(s, 10, &who, 1, &res), GSVM_PATHO_SIM_RUNNING);
        CHECK_INT(res, GSVM_PATHO_EVENT_HANDLED);
        gsvm_patho_sim_event(s2, 10, &who, 1, &res);
    }
    CHECK_INT(gsvm_patho_sim_advance(s, 16), GSVM_PATHO_SIM_FINISHED);
    CHECK_INT(gsvm_patho_sim_advance(s2, 16), GSVM_PATHO_SIM_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&out), gsvm_buf_cstr(&out2));
    CHECK(strstr(gsvm_buf_cstr(&out), "{\"host\":\"Trace\",\"args\":[\"bye\"]}") != NULL);
    CHECK(gsvm_patho_sim_clock(s)->now_ms == 16 && gsvm_patho_sim_clock(s)->frame == 2);
    CHECK_INT(gsvm_patho_vm_state(gsvm_patho_sim_vm(s)), GSVM_PATHO_FINISHED);
    CHECK_INT(gsvm_patho_sim_outcome_of(s2), GSVM_PATHO_SIM_FINISHED);
    gsvm_patho_sim_free(s);
    gsvm_patho_sim_free(s2);
    /* A total cap over several frames. */
    o.max_instructions = 5;
    out.len = 0;
    CHECK_INT(gsvm_patho_sim_new(prog, "door.bin", &o, &s, &err), GSVM_OK);
    CHECK_INT(gsvm_patho_sim_start(s), GSVM_PATHO_SIM_RUNNING);
    CHECK_INT(gsvm_patho_sim_event(s, 10, &who, 1, &res), GSVM_PATHO_SIM_LIMIT);
    CHECK_INT(gsvm_patho_sim_advance(s, 16), GSVM_PATHO_SIM_LIMIT);
    CHECK(strstr(gsvm_buf_cstr(&out), "{\"stopped\":\"instruction limit\",\"executed\":5}") != NULL);
    gsvm_patho_sim_free(s);

    /* The waits alone, as an embedder's own call hook uses them. */
    gsvm_patho_clock clk = {0, 1, 0, 0};
    gsvm_patho_value t = gsvm_patho_float(0.25f), dt = gsvm_patho_float(-1);
    gsvm_patho_value *args[1] = {&t};
    gsvm_patho_call c;
    memset(&c, 0, sizeof c);
    c.name = "Sleep";
    c.args = args;
    c.argc = 1;
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_TIME, -1, &c), GSVM_PATHO_CALL_YIELD);
    c.resuming = true;
    gsvm_patho_clock_frame(&clk, 200);
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_TIME, -1, &c), GSVM_PATHO_CALL_YIELD);
    gsvm_patho_clock_frame(&clk, 50);
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_TIME, -1, &c), GSVM_PATHO_CALL_DONE);
    args[0] = &dt; /* sync(dt) */
    c.resuming = false;
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_FRAME, 0, &c), GSVM_PATHO_CALL_YIELD);
    c.resuming = true;
    gsvm_patho_clock_frame(&clk, 40);
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_FRAME, 0, &c), GSVM_PATHO_CALL_DONE);
    CHECK(dt.as.f == 0.04f);
    c.resuming = false; /* Hold and WaitForAnimEnd: StopGroup0 ends both */
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_ANIM, -1, &c), GSVM_PATHO_CALL_YIELD);
    c.resuming = true;
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_ANIM, -1, &c), GSVM_PATHO_CALL_YIELD);
    gsvm_patho_clock_stop_group0(&clk);
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_ANIM, -1, &c), GSVM_PATHO_CALL_DONE);
    t = gsvm_patho_float(-1);
    args[0] = &t;
    c.resuming = false;
    CHECK_INT(gsvm_patho_clock_wait(&clk, GSVM_PATHO_WAIT_TIME, -1, &c), GSVM_PATHO_CALL_FAULT);
    CHECK_STR(c.fault, "Negative wait time");

    gsvm_buf_free(&out);
    gsvm_buf_free(&out2);
    gsvm_patho_natives_free(nat);
    gsvm_patho_natives_free(empty);
    gsvm_patho_free(prog);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-examples") == 0)
        return write_examples(argv[2]);
    test_examples_current();
    test_operators();
    test_assign_and_text();
    test_moves_and_forms();
    test_stack_ops();
    test_calls_and_layouts();
    test_tasks_and_events();
    test_natives();
    test_faults();
    test_unresolved_import_refused();
    test_verify_refuses_s0();
    test_verify_checks_task_vars();
    test_sim_waits();
    test_public_host();
    test_pending_taskreturn();
    test_cap();
    test_start_checks();
    test_context_chain();
    test_sim_host();
    test_snapshots();
    (void)argc, (void)argv;
    TEST_MAIN_END();
}
