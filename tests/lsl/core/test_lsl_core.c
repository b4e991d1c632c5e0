/* Falcon ABI 2: the VM, its faults, program files and HWZS snapshots, through
 * the C API.  Includes the document's own test list:
 *   - a loop run to completion and in 1-instruction slices gives the same output;
 *   - an infinite loop is stopped by the budget;
 *   - a snapshot after every instruction k, restored into a fresh VM, gives
 *     identical output for every k;
 *   - a touch counter global persists across events;
 *   - a mid-handler snapshot restores into a fresh VM with its counter intact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "gsvm/lsl.h"
#include "lsl/program.h"
#include "test.h"

/* ---- a host that records every call as text --------------------------------------- */

typedef struct recorder {
    gsvm_buf text;
    int calls;
    bool fail;            /* make every call fail */
    bool return_int;      /* return 42 */
} recorder;

static gsvm_status record_host(void *user, const char *name, const gsvm_lsl_hostval *args,
                               size_t argc, gsvm_lsl_hostval *result, bool *has_result,
                               gsvm_error *err)
{
    recorder *r = user;
    r->calls++;
    if (r->fail)
        return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "the region said no");
    gsvm_buf_printf(&r->text, "%s(", name);
    for (size_t i = 0; i < argc; i++) {
        if (args[i].type == GSVM_LSL_INTEGER)
            gsvm_buf_printf(&r->text, "%s%d", i ? "," : "", (int)args[i].integer);
        else
            gsvm_buf_printf(&r->text, "%s\"%.*s\"", i ? "," : "", (int)args[i].len, args[i].str);
    }
    gsvm_buf_puts(&r->text, ")\n");
    if (r->return_int) {
        *result = (gsvm_lsl_hostval){GSVM_LSL_INTEGER, 42, NULL, 0};
        *has_result = true;
    }
    return GSVM_OK;
}

static gsvm_lsl_program *compile(const char *src)
{
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    if (gsvm_lsl_compile(src, strlen(src), "test.lsl", &p, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "compile failed: %s\n", msg);
    }
    return p;
}

static gsvm_lsl_vm *new_vm(const gsvm_lsl_program *p, recorder *r)
{
    gsvm_lsl_vm *vm = NULL;
    gsvm_error err;
    if (gsvm_lsl_vm_new(p, &vm, &err) != GSVM_OK)
        return NULL;
    if (r)
        gsvm_lsl_vm_set_host(vm, record_host, r);
    return vm;
}

/* An event of a test sequence. */
typedef struct ev {
    const char *name;
    int nargs;
    int32_t arg;
} ev;

static const ev touches3[] = {{"state_entry", 0, 0}, {"touch_start", 1, 1}, {"touch_start", 1, 2},
                              {"touch_start", 1, 5}};

static bool dispatch(gsvm_lsl_vm *vm, const ev *e)
{
    gsvm_lsl_hostval a = {GSVM_LSL_INTEGER, e->arg, NULL, 0};
    gsvm_error err;
    return gsvm_lsl_vm_dispatch(vm, e->name, e->nargs ? &a : NULL, (size_t)e->nargs, &err) ==
           GSVM_OK;
}

/* Runs the whole sequence in slices of `budget`; returns the final status. */
static gsvm_lsl_run_status run_all(gsvm_lsl_vm *vm, const ev *evs, size_t n, uint64_t budget)
{
    gsvm_lsl_run_status st = GSVM_LSL_FINISHED;
    for (size_t i = 0; i < n; i++) {
        if (!dispatch(vm, &evs[i]))
            return GSVM_LSL_ERROR;
        while ((st = gsvm_lsl_vm_run(vm, budget)) == GSVM_LSL_YIELDED)
            ;
        if (st == GSVM_LSL_ERROR)
            return st;
    }
    return st;
}

static const char *counter_src =
    "integer count = 0;\n"
    "string name = \"box\";\n"
    "default {\n"
    "  state_entry() {\n"
    "    integer i = 0;\n"
    "    string s = \"\";\n"
    "    while (i < 12) {\n"
    "      s = s + (string)i;\n"
    "      if (i == 5) llOwnerSay(\"half \" + s); else if (i > 9) llSay(i, s);\n"
    "      i = i + 1;\n"
    "    }\n"
    "    llOwnerSay(name + \" ready\");\n"
    "  }\n"
    "  touch_start(integer n) {\n"
    "    count = count + 1;\n"
    "    integer k = n * 3 - 1;\n"
    "    while (k > 0) { k = k - 1; }\n"
    "    llSay(0, \"touched \" + (string)count + \" by \" + (string)n);\n"
    "  }\n"
    "}\n";

static void test_touch_counter(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    CHECK(p != NULL);
    if (!p)
        return;
    gsvm_error verr;
    CHECK(gsvm_lsl_program_verify(p, &verr) == GSVM_OK);
    recorder r = {0};
    gsvm_lsl_vm *vm = new_vm(p, &r);
    CHECK_INT(run_all(vm, touches3, 4, 1024), GSVM_LSL_FINISHED);
    const char *want =
        "llOwnerSay(\"half 012345\")\n"
        "llSay(10,\"012345678910\")\n"
        "llSay(11,\"01234567891011\")\n"
        "llOwnerSay(\"box ready\")\n"
        "llSay(0,\"touched 1 by 1\")\n"
        "llSay(0,\"touched 2 by 2\")\n"
        "llSay(0,\"touched 3 by 5\")\n";
    CHECK_STR(gsvm_buf_cstr(&r.text), want);
    gsvm_lsl_hostval g;
    CHECK(gsvm_lsl_vm_global(vm, 0, &g));
    CHECK_INT(g.type, GSVM_LSL_INTEGER);
    CHECK_INT(g.integer, 3);
    CHECK(gsvm_lsl_vm_global(vm, 1, &g) && g.type == GSVM_LSL_STRING && g.len == 3);
    CHECK(!gsvm_lsl_vm_global(vm, 2, &g));
    /* A fresh VM starts from the defaults again: globals are per VM. */
    recorder r2 = {0};
    gsvm_lsl_vm *vm2 = new_vm(p, &r2);
    CHECK(gsvm_lsl_vm_global(vm2, 0, &g) && g.integer == 0);
    gsvm_lsl_vm_free(vm2);
    gsvm_buf_free(&r2.text);
    gsvm_lsl_vm_free(vm);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
}

/* The same output whether run to completion or one instruction at a time. */
static void test_slices(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder whole = {0}, sliced = {0}, stepped = {0};
    gsvm_lsl_vm *a = new_vm(p, &whole), *b = new_vm(p, &sliced), *c = new_vm(p, &stepped);
    CHECK_INT(run_all(a, touches3, 4, UINT64_MAX), GSVM_LSL_FINISHED);
    CHECK_INT(run_all(b, touches3, 4, 1), GSVM_LSL_FINISHED);
    /* step() is run(1) */
    for (size_t i = 0; i < 4; i++) {
        dispatch(c, &touches3[i]);
        while (gsvm_lsl_vm_step(c) == GSVM_LSL_YIELDED)
            ;
    }
    CHECK_STR(gsvm_buf_cstr(&sliced.text), gsvm_buf_cstr(&whole.text));
    CHECK_STR(gsvm_buf_cstr(&stepped.text), gsvm_buf_cstr(&whole.text));
    CHECK_INT(gsvm_lsl_vm_total(b), gsvm_lsl_vm_total(a));
    CHECK_INT(gsvm_lsl_vm_total(c), gsvm_lsl_vm_total(a));
    CHECK(gsvm_lsl_vm_total(a) > 200);
    gsvm_lsl_vm_free(a);
    gsvm_lsl_vm_free(b);
    gsvm_lsl_vm_free(c);
    gsvm_buf_free(&whole.text);
    gsvm_buf_free(&sliced.text);
    gsvm_buf_free(&stepped.text);
    gsvm_lsl_program_free(p);
}

/* run(budget) executes exactly `budget` instructions and yields. */
static void test_infinite_loop(void)
{
    gsvm_lsl_program *p = compile("integer n;\ndefault { state_entry() { while (1) { n = n + 1; } } }");
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder r = {0};
    gsvm_lsl_vm *vm = new_vm(p, &r);
    CHECK_INT(gsvm_lsl_vm_run(vm, 100), GSVM_LSL_FINISHED); /* nothing dispatched yet */
    CHECK_INT(gsvm_lsl_vm_total(vm), 0);
    ev se = {"state_entry", 0, 0};
    CHECK(dispatch(vm, &se));
    CHECK_INT(gsvm_lsl_vm_run(vm, 1000), GSVM_LSL_YIELDED);
    CHECK_INT(gsvm_lsl_vm_total(vm), 1000);
    CHECK_INT(gsvm_lsl_vm_run(vm, 1), GSVM_LSL_YIELDED);
    CHECK_INT(gsvm_lsl_vm_total(vm), 1001);
    for (int i = 0; i < 50; i++)
        CHECK_INT(gsvm_lsl_vm_run(vm, 10000), GSVM_LSL_YIELDED);
    CHECK_INT(gsvm_lsl_vm_total(vm), 501001);
    CHECK(!gsvm_lsl_vm_finished(vm));
    CHECK(gsvm_lsl_vm_fault(vm) == NULL);
    /* while(1){n=n+1} is 7 instructions a round: LoadGlobal, PushConst,
     * AddInt, StoreGlobal, Jump, PushConst, JumpIfZero. */
    gsvm_lsl_hostval g;
    CHECK(gsvm_lsl_vm_global(vm, 0, &g));
    CHECK(g.integer > 501001 / 7 - 2 && g.integer <= 501001 / 7 + 1);
    /* run(0) does nothing */
    CHECK_INT(gsvm_lsl_vm_run(vm, 0), GSVM_LSL_YIELDED);
    CHECK_INT(gsvm_lsl_vm_total(vm), 501001);
    gsvm_lsl_vm_free(vm);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
}

/* Snapshot after every instruction k of a whole event sequence, restore into
 * a fresh VM, finish the handler and the remaining events: the output before
 * the snapshot plus the output after it equals the uninterrupted run. */
static void test_snapshot_every_instruction(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder ref = {0};
    gsvm_lsl_vm *vm = new_vm(p, &ref);
    run_all(vm, touches3, 4, UINT64_MAX);
    uint64_t total = gsvm_lsl_vm_total(vm);
    gsvm_lsl_vm_free(vm);
    int mismatches = 0, bad_totals = 0, restore_failures = 0;
    for (uint64_t k = 0; k <= total; k++) {
        recorder before = {0}, after = {0};
        gsvm_lsl_vm *a = new_vm(p, &before);
        size_t at = 0;
        /* run until exactly k instructions have been executed */
        for (; at < 4; at++) {
            dispatch(a, &touches3[at]);
            uint64_t left = k - gsvm_lsl_vm_total(a);
            gsvm_lsl_vm_run(a, left);
            if (gsvm_lsl_vm_total(a) == k)
                break;
        }
        if (gsvm_lsl_vm_total(a) != k)
            bad_totals++;
        uint8_t *snap;
        size_t len;
        gsvm_error err;
        CHECK(gsvm_lsl_vm_snapshot(a, &snap, &len, &err) == GSVM_OK);
        gsvm_lsl_vm_free(a);
        gsvm_lsl_vm *b = new_vm(p, &after);
        if (gsvm_lsl_vm_restore(b, snap, len, "snap", &err) != GSVM_OK)
            restore_failures++;
        free(snap);
        CHECK_INT(gsvm_lsl_vm_total(b), k);
        while (gsvm_lsl_vm_run(b, 3) == GSVM_LSL_YIELDED)
            ;
        for (size_t i = at + 1; i < 4; i++) {
            dispatch(b, &touches3[i]);
            while (gsvm_lsl_vm_run(b, 1000) == GSVM_LSL_YIELDED)
                ;
        }
        gsvm_buf joined;
        gsvm_buf_init(&joined);
        gsvm_buf_append(&joined, before.text.data, before.text.len);
        gsvm_buf_append(&joined, after.text.data, after.text.len);
        if (strcmp(gsvm_buf_cstr(&joined), gsvm_buf_cstr(&ref.text)) != 0) {
            if (mismatches++ == 0)
                fprintf(stderr, "snapshot at %llu: output differs:\n%s", (unsigned long long)k,
                        gsvm_buf_cstr(&joined));
        }
        if (gsvm_lsl_vm_total(b) != total)
            bad_totals++;
        gsvm_buf_free(&joined);
        gsvm_lsl_vm_free(b);
        gsvm_buf_free(&before.text);
        gsvm_buf_free(&after.text);
    }
    CHECK_INT(mismatches, 0);
    CHECK_INT(bad_totals, 0);
    CHECK_INT(restore_failures, 0);
    printf("snapshot/restore checked at all %llu instruction boundaries\n",
           (unsigned long long)total + 1);
    gsvm_buf_free(&ref.text);
    gsvm_lsl_program_free(p);
}

/* A snapshot taken in the middle of touch_start carries the counter, the
 * operand stack and the handler's locals to a fresh VM. */
static void test_mid_handler_snapshot(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder r = {0};
    gsvm_lsl_vm *a = new_vm(p, &r);
    run_all(a, touches3, 3, 1024); /* state_entry + 2 touches: count == 2 */
    ev t = {"touch_start", 1, 4};
    CHECK(dispatch(a, &t));
    CHECK_INT(gsvm_lsl_vm_run(a, 9), GSVM_LSL_YIELDED); /* count already 3, inside the loop */
    uint8_t *snap;
    size_t len;
    gsvm_error err;
    CHECK(gsvm_lsl_vm_snapshot(a, &snap, &len, &err) == GSVM_OK);
    gsvm_lsl_vm_free(a);
    recorder r2 = {0};
    gsvm_lsl_vm *b = new_vm(p, &r2);
    CHECK(gsvm_lsl_vm_restore(b, snap, len, "snap", &err) == GSVM_OK);
    gsvm_lsl_hostval g;
    CHECK(gsvm_lsl_vm_global(b, 0, &g) && g.integer == 3);
    CHECK(!gsvm_lsl_vm_finished(b));
    while (gsvm_lsl_vm_run(b, 5) == GSVM_LSL_YIELDED)
        ;
    CHECK_STR(gsvm_buf_cstr(&r2.text), "llSay(0,\"touched 3 by 4\")\n");
    /* the restored VM keeps counting on the next event */
    ev t2 = {"touch_start", 1, 1};
    dispatch(b, &t2);
    while (gsvm_lsl_vm_run(b, 5) == GSVM_LSL_YIELDED)
        ;
    CHECK(gsvm_lsl_vm_global(b, 0, &g) && g.integer == 4);
    free(snap);
    gsvm_lsl_vm_free(b);
    gsvm_buf_free(&r.text);
    gsvm_buf_free(&r2.text);
    gsvm_lsl_program_free(p);
}

/* The HWZS layout, byte for byte. */
static void test_snapshot_layout(void)
{
    gsvm_lsl_program *p = compile("integer a = 7;\nstring b = \"hi\";\n"
                                  "default { touch_start(integer n) { llSay(n, b); } }");
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder r = {0};
    gsvm_lsl_vm *vm = new_vm(p, &r);
    ev t = {"touch_start", 1, -2};
    CHECK(dispatch(vm, &t));
    CHECK_INT(gsvm_lsl_vm_run(vm, 2), GSVM_LSL_YIELDED); /* LoadLocal n; LoadGlobal b */
    uint8_t *snap;
    size_t len;
    gsvm_error err;
    CHECK(gsvm_lsl_vm_snapshot(vm, &snap, &len, &err) == GSVM_OK);
    static const uint8_t want[] = {
        'H', 'W', 'Z', 'S', 2, 0,           /* magic, version 2 */
        2, 0, 0, 0,                         /* ABI 2 */
        2, 0, 0, 0, 0, 0, 0, 0,             /* ip 2 */
        0,                                  /* not finished */
        2, 0, 0, 0, 0, 0, 0, 0,             /* total 2 */
        2, 0, 0, 0,                         /* stack: 2 values */
        1, 0xFE, 0xFF, 0xFF, 0xFF,          /*   integer -2 */
        2, 2, 0, 0, 0, 'h', 'i',            /*   string "hi" */
        1, 0, 0, 0,                         /* locals: 1 */
        1, 0xFE, 0xFF, 0xFF, 0xFF,          /*   n = -2 */
        2, 0, 0, 0,                         /* globals: 2 */
        1, 7, 0, 0, 0,                      /*   a = 7 */
        2, 2, 0, 0, 0, 'h', 'i',            /*   b = "hi" */
    };
    CHECK_INT(len, sizeof want);
    CHECK(len == sizeof want && memcmp(snap, want, len) == 0);
    free(snap);
    gsvm_lsl_vm_free(vm);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
}

/* Bad snapshots are rejected with their byte offset and leave the VM as it was. */
static void test_snapshot_rejects(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    gsvm_lsl_program *other = compile("integer x;\ndefault { state_entry() { } }");
    if (!p || !other) {
        CHECK(p && other);
        return;
    }
    recorder r = {0};
    gsvm_lsl_vm *a = new_vm(p, &r);
    dispatch(a, &touches3[0]);
    gsvm_lsl_vm_run(a, 40);
    uint8_t *snap;
    size_t len;
    gsvm_error err;
    CHECK(gsvm_lsl_vm_snapshot(a, &snap, &len, &err) == GSVM_OK);

    /* the target VM is in some other state: it must stay exactly so */
    gsvm_lsl_vm *b = new_vm(p, &r);
    run_all(b, touches3, 2, 1024);
    dispatch(b, &touches3[2]);
    gsvm_lsl_vm_run(b, 5);
    uint8_t *before;
    size_t before_len;
    gsvm_lsl_vm_snapshot(b, &before, &before_len, &err);

    int accepted = 0;
    for (size_t n = 0; n < len; n++) /* every truncation */
        if (gsvm_lsl_vm_restore(b, snap, n, "snap", &err) == GSVM_OK)
            accepted++;
    CHECK_INT(accepted, 0);
    uint8_t *bad = malloc(len + 1);
    memcpy(bad, snap, len);
    bad[len] = 0;
    CHECK(gsvm_lsl_vm_restore(b, bad, len + 1, "snap", &err) == GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "trailing") != NULL);
    CHECK_INT(err.offset, (long long)len);

    struct {
        size_t at;
        uint8_t value;
        const char *message;
        long long offset;
    } corrupt[] = {
        {0, 'X', "not a Falcon snapshot", 0},
        {4, 3, "snapshot version 3", 4},
        {6, 1, "snapshot ABI 1", 6},
        {18, 2, "finished flag is 2", 18},
        {10, 0xFF, "outside the program", 10},
        /* an unknown value tag: the first stack value starts at byte 31 */
        {31, 9, "unknown tag 9", 31},
        /* globals: count 2, integer (5 bytes), "box" (8 bytes): 17 bytes from the end */
        {len - 17, 1, "snapshot has 1 globals, the program has 2", (long long)len - 17},
    };
    CHECK(snap[27] > 0); /* the stack holds something 40 instructions in */
    CHECK_INT(snap[len - 17], 2);
    for (size_t i = 0; i < sizeof corrupt / sizeof corrupt[0]; i++) {
        memcpy(bad, snap, len);
        bad[corrupt[i].at] = corrupt[i].value;
        CHECK(gsvm_lsl_vm_restore(b, bad, len, "snap", &err) == GSVM_ERR_INPUT);
        CHECK(strstr(err.message, corrupt[i].message) != NULL);
        CHECK_INT(err.offset, corrupt[i].offset);
        if (!strstr(err.message, corrupt[i].message))
            fprintf(stderr, "  message was: %s\n", err.message);
    }
    /* a huge stack count */
    memcpy(bad, snap, len);
    bad[27] = bad[28] = bad[29] = bad[30] = 0xFF;
    CHECK(gsvm_lsl_vm_restore(b, bad, len, "snap", &err) == GSVM_ERR_INPUT);
    /* the globals count must match the program */
    gsvm_lsl_vm *c = new_vm(other, &r);
    CHECK(gsvm_lsl_vm_restore(c, snap, len, "snap", &err) == GSVM_ERR_INPUT);
    gsvm_lsl_vm_free(c);

    uint8_t *after;
    size_t after_len;
    gsvm_lsl_vm_snapshot(b, &after, &after_len, &err);
    CHECK(after_len == before_len && memcmp(before, after, after_len) == 0);
    /* and the good snapshot still restores */
    CHECK(gsvm_lsl_vm_restore(b, snap, len, "snap", &err) == GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_total(b), 40);
    free(after);
    free(before);
    free(bad);
    free(snap);
    gsvm_lsl_vm_free(a);
    gsvm_lsl_vm_free(b);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
    gsvm_lsl_program_free(other);
}

/* ---- faults, one by one ---------------------------------------------------------- */

/* A hand-built program with one handler "go" at ip 0 with `locals` locals,
 * one integer and one string constant, one global and host names. */
static gsvm_lsl_program *crafted(uint32_t locals)
{
    gsvm_lsl_program *p = fal_program_new();
    fal_program_const_int(p, 5);              /* k0 */
    fal_program_const_str(p, "text", 4);      /* k1 */
    fal_program_global(p, "g", (fal_pvalue){GSVM_LSL_INTEGER, 1, NULL, 0});
    fal_program_host(p, "llSay");             /* h0 */
    fal_program_host(p, "llOwnerSay");        /* h1 */
    fal_program_event(p, "go", 0, NULL, 0, locals);
    return p;
}

typedef struct fault_case {
    const char *what;
    fal_insn code[6];
    int ncode;
    uint32_t locals;
    bool no_host, host_fails;
    const char *message; /* prefix of the fault message */
    uint64_t ip;
} fault_case;

#define I(op, a, b) {FOP_##op, a, b}

static void test_faults(void)
{
    static const fault_case cases[] = {
        {"fall off the end", {I(PUSH_CONST, 0, 0), I(POP, 0, 0)}, 2, 0, false, false,
         "instruction pointer out of range", 2},
        {"jump out of range", {I(JUMP, 99, 0)}, 1, 0, false, false,
         "instruction pointer out of range: 99", 99},
        {"negative jump", {I(PUSH_CONST, 0, 0), I(JUMP_IF_ZERO, -1, 0), I(JUMP, -5, 0)}, 3, 0,
         false, false, "instruction pointer out of range", 4294967291u},
        {"underflow AddInt", {I(PUSH_CONST, 0, 0), I(ADD_INT, 0, 0)}, 2, 0, false, false,
         "operand-stack underflow", 1},
        {"underflow Pop", {I(POP, 0, 0)}, 1, 0, false, false, "operand-stack underflow", 0},
        {"underflow StoreGlobal", {I(STORE_GLOBAL, 0, 0)}, 1, 0, false, false,
         "operand-stack underflow", 0},
        {"underflow JumpIfZero", {I(JUMP_IF_ZERO, 0, 0)}, 1, 0, false, false,
         "operand-stack underflow", 0},
        {"underflow CastIntToStr", {I(CAST_INT_TO_STR, 0, 0)}, 1, 0, false, false,
         "operand-stack underflow", 0},
        {"type AddInt", {I(PUSH_CONST, 1, 0), I(PUSH_CONST, 0, 0), I(ADD_INT, 0, 0)}, 3, 0, false,
         false, "type mismatch: AddInt", 2},
        {"type LessInt", {I(PUSH_CONST, 0, 0), I(PUSH_CONST, 1, 0), I(LESS_INT, 0, 0)}, 3, 0,
         false, false, "type mismatch: LessInt", 2},
        {"type ConcatStr", {I(PUSH_CONST, 1, 0), I(PUSH_CONST, 0, 0), I(CONCAT_STR, 0, 0)}, 3, 0,
         false, false, "type mismatch: ConcatStr", 2},
        {"type CastIntToStr", {I(PUSH_CONST, 1, 0), I(CAST_INT_TO_STR, 0, 0)}, 2, 0, false, false,
         "type mismatch: CastIntToStr", 1},
        {"type JumpIfZero", {I(PUSH_CONST, 1, 0), I(JUMP_IF_ZERO, 0, 0)}, 2, 0, false, false,
         "type mismatch: JumpIfZero", 1},
        {"bad constant", {I(PUSH_CONST, 2, 0)}, 1, 0, false, false, "bad constant index 2", 0},
        {"negative constant", {I(PUSH_CONST, -1, 0)}, 1, 0, false, false, "bad constant index -1", 0},
        {"bad local load", {I(LOAD_LOCAL, 1, 0)}, 1, 1, false, false, "bad local index 1", 0},
        {"bad local store", {I(PUSH_CONST, 0, 0), I(STORE_LOCAL, 0, 0)}, 2, 0, false, false,
         "bad local index 0", 1},
        {"bad global", {I(LOAD_GLOBAL, 1, 0)}, 1, 0, false, false, "bad global index 1", 0},
        {"bad global store", {I(PUSH_CONST, 0, 0), I(STORE_GLOBAL, 3, 0)}, 2, 0, false, false,
         "bad global index 3", 1},
        {"bad host", {I(CALL_HOST, 2, 0)}, 1, 0, false, false, "bad host index 2", 0},
        {"host-argument underflow", {I(PUSH_CONST, 1, 0), I(CALL_HOST, 0, 2)}, 2, 0, false, false,
         "host-argument underflow", 1},
        {"negative argc", {I(CALL_HOST, 1, -1)}, 1, 0, false, false, "host-argument underflow", 0},
        {"missing host boundary", {I(PUSH_CONST, 1, 0), I(CALL_HOST, 1, 1), I(HALT, 0, 0)}, 3, 0,
         true, false, "missing host boundary", 1},
        {"host failure", {I(PUSH_CONST, 1, 0), I(CALL_HOST, 1, 1), I(HALT, 0, 0)}, 3, 0, false,
         true, "host function llOwnerSay failed: the region said no", 1},
        {"unknown opcode", {I(PUSH_CONST, 0, 0), {200, 0, 0}}, 2, 0, false, false,
         "unknown opcode 200", 1},
        {"stack overflow", {I(PUSH_CONST, 0, 0), I(JUMP, 0, 0)}, 2, 0, false, false,
         "operand-stack overflow", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fault_case *fc = &cases[i];
        gsvm_lsl_program *p = crafted(fc->locals);
        for (int k = 0; k < fc->ncode; k++)
            fal_program_emit(p, (fal_op)fc->code[k].op, fc->code[k].a, fc->code[k].b);
        recorder r = {0};
        r.fail = fc->host_fails;
        gsvm_lsl_vm *vm = new_vm(p, fc->no_host ? NULL : &r);
        gsvm_error err;
        /* the static verifier refuses every program that can fault by
         * itself; the two host cases are well-formed programs */
        bool well_formed = fc->no_host || fc->host_fails;
        gsvm_status vst = gsvm_lsl_program_verify(p, &err);
        if ((vst == GSVM_OK) != well_formed) {
            test_failed++;
            fprintf(stderr, "verify of fault case '%s': status %d (%s)\n", fc->what, vst,
                    vst ? err.message : "ok");
        } else {
            test_passed++;
        }
        CHECK(gsvm_lsl_vm_dispatch(vm, "go", NULL, 0, &err) == GSVM_OK);
        gsvm_lsl_run_status st = gsvm_lsl_vm_run(vm, 1000000);
        const char *msg = gsvm_lsl_vm_fault(vm);
        if (st != GSVM_LSL_ERROR || !msg || strncmp(msg, fc->message, strlen(fc->message)) != 0 ||
            gsvm_lsl_vm_fault_ip(vm) != fc->ip) {
            test_failed++;
            fprintf(stderr, "fault case '%s': status %d, message '%s', ip %llu\n", fc->what, st,
                    msg ? msg : "(none)", (unsigned long long)gsvm_lsl_vm_fault_ip(vm));
        } else {
            test_passed++;
        }
        /* a faulted script is finished: it stays stopped until the next dispatch */
        CHECK(gsvm_lsl_vm_finished(vm));
        CHECK_INT(gsvm_lsl_vm_run(vm, 10), GSVM_LSL_ERROR);
        uint64_t total = gsvm_lsl_vm_total(vm);
        CHECK_INT(gsvm_lsl_vm_run(vm, 10), GSVM_LSL_ERROR);
        CHECK_INT(gsvm_lsl_vm_total(vm), total);
        CHECK(gsvm_lsl_vm_dispatch(vm, "go", NULL, 0, &err) == GSVM_OK);
        CHECK(gsvm_lsl_vm_fault(vm) == NULL);
        gsvm_lsl_vm_free(vm);
        gsvm_buf_free(&r.text);
        gsvm_lsl_program_free(p);
    }
}

/* Verifier cases the fault list does not cover. */
static void test_verifier(void)
{
    static const struct {
        const char *what;
        fal_insn code[8];
        int ncode;
        uint32_t locals;
        const char *message; /* NULL: verifies */
    } cases[] = {
        {"branches that join with equal depths",
         {I(PUSH_CONST, 0, 0), I(JUMP_IF_ZERO, 4, 0), I(PUSH_CONST, 0, 0), I(POP, 0, 0),
          I(HALT, 0, 0)}, 5, 0, NULL},
        {"depths differ at a join 2",
         {I(PUSH_CONST, 0, 0), I(PUSH_CONST, 0, 0), I(JUMP_IF_ZERO, 4, 0), I(POP, 0, 0),
          I(PUSH_CONST, 0, 0), I(HALT, 0, 0)}, 6, 0, "the stack holds"},
        {"a local that may be a string",
         {I(PUSH_CONST, 0, 0), I(JUMP_IF_ZERO, 4, 0), I(PUSH_CONST, 1, 0), I(STORE_LOCAL, 0, 0),
          I(LOAD_LOCAL, 0, 0), I(CAST_INT_TO_STR, 0, 0), I(POP, 0, 0), I(HALT, 0, 0)}, 8, 1,
         "needs integer, the stack may hold integer or string"},
        {"a string local used as a string",
         {I(PUSH_CONST, 1, 0), I(STORE_LOCAL, 0, 0), I(LOAD_LOCAL, 0, 0), I(CALL_HOST, 1, 1),
          I(HALT, 0, 0)}, 5, 1, NULL},
        {"a global changing type",
         {I(PUSH_CONST, 1, 0), I(STORE_GLOBAL, 0, 0), I(HALT, 0, 0)}, 3, 0, "needs integer"},
        {"llSay with its arguments swapped",
         {I(PUSH_CONST, 1, 0), I(PUSH_CONST, 0, 0), I(CALL_HOST, 0, 2), I(HALT, 0, 0)}, 4, 0,
         "needs string"},
        {"a loop that keeps the depth",
         {I(LOAD_GLOBAL, 0, 0), I(JUMP_IF_ZERO, 3, 0), I(JUMP, 0, 0), I(HALT, 0, 0)}, 4, 0, NULL},
        {"no Halt", {I(PUSH_CONST, 0, 0), I(POP, 0, 0)}, 2, 0, "control leaves the code"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gsvm_lsl_program *p = crafted(cases[i].locals);
        for (int k = 0; k < cases[i].ncode; k++)
            fal_program_emit(p, (fal_op)cases[i].code[k].op, cases[i].code[k].a, cases[i].code[k].b);
        gsvm_error err;
        gsvm_status st = gsvm_lsl_program_verify(p, &err);
        bool good = cases[i].message ? st == GSVM_ERR_INPUT && strstr(err.message, cases[i].message)
                                     : st == GSVM_OK;
        if (!good) {
            test_failed++;
            fprintf(stderr, "verify '%s': %s\n", cases[i].what, st ? err.message : "ok");
        } else {
            test_passed++;
        }
        gsvm_lsl_program_free(p);
    }
}

/* A host that returns a value: CallHost pushes it. */
static void test_host_result(void)
{
    gsvm_lsl_program *p = crafted(1);
    fal_program_emit(p, FOP_CALL_HOST, 1, 0); /* llOwnerSay() returning 42 */
    fal_program_emit(p, FOP_STORE_LOCAL, 0, 0);
    fal_program_emit(p, FOP_PUSH_CONST, 0, 0);
    fal_program_emit(p, FOP_LOAD_LOCAL, 0, 0);
    fal_program_emit(p, FOP_CAST_INT_TO_STR, 0, 0);
    fal_program_emit(p, FOP_CALL_HOST, 0, 2);
    fal_program_emit(p, FOP_HALT, 0, 0);
    recorder r = {0};
    r.return_int = true;
    gsvm_lsl_vm *vm = new_vm(p, &r);
    gsvm_error err;
    CHECK(gsvm_lsl_vm_dispatch(vm, "go", NULL, 0, &err) == GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_run(vm, 100), GSVM_LSL_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&r.text), "llOwnerSay()\nllSay(5,\"42\")\n");
    CHECK_INT(gsvm_lsl_vm_total(vm), 7);
    gsvm_lsl_vm_free(vm);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
}

/* dispatch: unknown events and wrong arguments are rejected, and the VM
 * is untouched by a rejected dispatch. */
static void test_dispatch_checks(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder r = {0};
    gsvm_lsl_vm *vm = new_vm(p, &r);
    gsvm_error err;
    CHECK(gsvm_lsl_vm_dispatch(vm, "timer", NULL, 0, &err) == GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "no 'timer' handler") != NULL);
    CHECK(gsvm_lsl_vm_dispatch(vm, "touch_start", NULL, 0, &err) == GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "takes 1 argument, got 0") != NULL);
    gsvm_lsl_hostval s = {GSVM_LSL_STRING, 0, "x", 1};
    CHECK(gsvm_lsl_vm_dispatch(vm, "touch_start", &s, 1, &err) == GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "must be integer, got string") != NULL);
    gsvm_lsl_hostval two[2] = {{GSVM_LSL_INTEGER, 1, NULL, 0}, {GSVM_LSL_INTEGER, 1, NULL, 0}};
    CHECK(gsvm_lsl_vm_dispatch(vm, "state_entry", two, 1, &err) == GSVM_ERR_INPUT);
    CHECK(gsvm_lsl_vm_finished(vm));
    CHECK_INT(gsvm_lsl_vm_run(vm, 10), GSVM_LSL_FINISHED);
    /* dispatch restarts a handler from its entry with a clear stack */
    CHECK(gsvm_lsl_vm_dispatch(vm, "touch_start", two, 1, &err) == GSVM_OK);
    gsvm_lsl_vm_run(vm, 6);
    CHECK(gsvm_lsl_vm_dispatch(vm, "touch_start", two, 1, &err) == GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_run(vm, 1000), GSVM_LSL_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&r.text), "llSay(0,\"touched 2 by 1\")\n");
    gsvm_lsl_vm_free(vm);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
}

/* Integer arithmetic wraps at 32 bits as in LSL. */
static void test_integer_semantics(void)
{
    gsvm_lsl_program *p = compile(
        "default { state_entry() {\n"
        "  integer big = 2147483647;\n"
        "  llOwnerSay((string)(big + 1));\n"
        "  llOwnerSay((string)(big * 2));\n"
        "  llOwnerSay((string)(-2147483648 - 1));\n"
        "  llOwnerSay((string)(0 - big));\n"
        "  llOwnerSay((string)(0xFFFFFFFF));\n"
        "  llOwnerSay((string)(3 < 4) + (string)(4 < 3) + (string)(5 > 4) + (string)(7 == 7));\n"
        "  integer i = 5; integer j = i++; integer k = ++i; i -= 10; i *= 3;\n"
        "  llOwnerSay((string)j + \" \" + (string)k + \" \" + (string)i + \" \" + (string)(-i));\n"
        "  string s = \"a\"; s += \"b\"; string t = (s = s + \"c\");\n"
        "  llOwnerSay(s + t + \"\\t|\\n|\\\"|\\\\\");\n"
        "} }");
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    recorder r = {0};
    gsvm_lsl_vm *vm = new_vm(p, &r);
    ev se = {"state_entry", 0, 0};
    run_all(vm, &se, 1, 1024);
    CHECK_STR(gsvm_buf_cstr(&r.text),
              "llOwnerSay(\"-2147483648\")\n"
              "llOwnerSay(\"-2\")\n"
              "llOwnerSay(\"2147483647\")\n"
              "llOwnerSay(\"-2147483647\")\n"
              "llOwnerSay(\"-1\")\n"
              "llOwnerSay(\"1011\")\n"
              "llOwnerSay(\"5 7 -9 9\")\n"
              "llOwnerSay(\"abcabc    |\n|\"|\\\")\n");
    gsvm_lsl_vm_free(vm);
    gsvm_buf_free(&r.text);
    gsvm_lsl_program_free(p);
}

/* ---- program files ------------------------------------------------------------------ */

static void test_fpc_roundtrip_and_rejects(void)
{
    gsvm_lsl_program *p = compile(counter_src);
    if (!p) {
        CHECK(p != NULL);
        return;
    }
    uint8_t *data, *again;
    size_t len, len2;
    gsvm_error err;
    CHECK(gsvm_lsl_program_save(p, &data, &len, &err) == GSVM_OK);
    CHECK(gsvm_lsl_is_program_file(data, len));
    gsvm_lsl_program *q = NULL;
    CHECK(gsvm_lsl_program_load(data, len, "t.fpc", &q, &err) == GSVM_OK);
    CHECK(q != NULL);
    if (!q)
        return;
    CHECK(gsvm_lsl_program_save(q, &again, &len2, &err) == GSVM_OK);
    CHECK(len == len2 && memcmp(data, again, len) == 0);
    char *l1, *l2;
    gsvm_lsl_program_list(p, &l1, &err);
    gsvm_lsl_program_list(q, &l2, &err);
    CHECK_STR(l1, l2);
    free(l1);
    free(l2);
    /* the loaded program runs the same */
    recorder a = {0}, b = {0};
    gsvm_lsl_vm *va = new_vm(p, &a), *vb = new_vm(q, &b);
    run_all(va, touches3, 4, 100);
    run_all(vb, touches3, 4, 100);
    CHECK_STR(gsvm_buf_cstr(&b.text), gsvm_buf_cstr(&a.text));
    gsvm_lsl_vm_free(va);
    gsvm_lsl_vm_free(vb);
    gsvm_buf_free(&a.text);
    gsvm_buf_free(&b.text);

    int accepted = 0;
    for (size_t n = 0; n < len; n++) {
        gsvm_lsl_program *t = NULL;
        if (gsvm_lsl_program_load(data, n, "t.fpc", &t, &err) == GSVM_OK)
            accepted++;
        CHECK(t == NULL || n == len);
        if (err.offset < 0 || err.offset > (long long)n)
            accepted += 1000;
    }
    CHECK_INT(accepted, 0);
    uint8_t *bad = malloc(len + 4);
    memcpy(bad, data, len);
    memcpy(bad + len, "junk", 4);
    gsvm_lsl_program *junk = NULL;
    CHECK(gsvm_lsl_program_load(bad, len + 4, "t.fpc", &junk, &err) == GSVM_ERR_INPUT);
    CHECK(junk == NULL);
    CHECK(strstr(err.message, "trailing garbage") != NULL);
    CHECK_INT(err.offset, (long long)len);
    /* the code ends where format 2's line table (u32 runs R, 12 bytes a run) starts */
    size_t code_end = 0;
    for (size_t r = 0, at; !code_end && 13 + 12 * r <= len; r++)
        at = len - 4 - 12 * r, code_end = data[at] == r && !data[at + 1] && data[at - 9] == FOP_HALT ? at : 0;
    CHECK(code_end > 0);
    struct {
        size_t at;
        uint8_t value;
        const char *message;
    } corrupt[] = {
        {1, 'Q', "not a Falcon program"},
        {4, 9, "format version 9"},
        {10, 3, "program ABI 3 is not implemented"},
        {17, 0xFF, "constant count"},
        {18, 7, "unknown value tag 7"},
        {code_end - 9, 99, "unknown opcode 99"},
        {code_end + 4, 0xFF, "outside the code"},
    };
    for (size_t i = 0; i < sizeof corrupt / sizeof corrupt[0]; i++) {
        memcpy(bad, data, len);
        bad[corrupt[i].at] = corrupt[i].value;
        gsvm_lsl_program *t = NULL;
        CHECK(gsvm_lsl_program_load(bad, len, "t.fpc", &t, &err) == GSVM_ERR_INPUT);
        CHECK(t == NULL);
        if (!strstr(err.message, corrupt[i].message)) {
            test_failed++;
            fprintf(stderr, "corrupt .fpc at %zu: message '%s'\n", corrupt[i].at, err.message);
        } else {
            test_passed++;
        }
        char text[1024];
        gsvm_error_format(&err, text, sizeof text);
        CHECK(strncmp(text, "t.fpc: byte ", 12) == 0);
    }
    free(bad);
    free(data);
    free(again);
    gsvm_lsl_program_free(q);
    gsvm_lsl_program_free(p);
}

/* An event whose entry lies outside the code is refused at load. */
static void test_fpc_entry_check(void)
{
    gsvm_lsl_program *p = crafted(0);
    fal_program_emit(p, FOP_HALT, 0, 0);
    p->events[0].entry_ip = 5;
    uint8_t *data;
    size_t len;
    gsvm_error err;
    gsvm_lsl_program_save(p, &data, &len, &err);
    gsvm_lsl_program *q = NULL;
    CHECK(gsvm_lsl_program_load(data, len, "e.fpc", &q, &err) == GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "starts at ip 5") != NULL);
    free(data);
    gsvm_lsl_program_free(p);
}

/* ---- the cache ------------------------------------------------------------------------ */

static void test_cache(void)
{
    char dir[] = "/tmp/gsvm-lsl-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    gsvm_lsl_program *p;
    gsvm_error err;
    bool hit = true;
    CHECK(gsvm_lsl_compile_cached(counter_src, strlen(counter_src), "c.lsl", dir, &p, &hit, &err) ==
          GSVM_OK);
    CHECK(!hit);
    gsvm_lsl_program_free(p);
    CHECK(gsvm_lsl_compile_cached(counter_src, strlen(counter_src), "c.lsl", dir, &p, &hit, &err) ==
          GSVM_OK);
    CHECK(hit);
    CHECK_INT(gsvm_lsl_program_code_size(p) > 0, 1);
    gsvm_lsl_program_free(p);
    /* a different source is a different entry */
    const char *other = "default { state_entry() { llOwnerSay(\"x\"); } }";
    CHECK(gsvm_lsl_compile_cached(other, strlen(other), "o.lsl", dir, &p, &hit, &err) == GSVM_OK);
    CHECK(!hit);
    gsvm_lsl_program_free(p);
    /* corrupt every entry: they are recompiled, not trusted */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "for f in %s/lsl/*/*.fpc; do printf 'HWZPjunk' > \"$f\"; done", dir);
    CHECK(system(cmd) == 0);
    CHECK(gsvm_lsl_compile_cached(counter_src, strlen(counter_src), "c.lsl", dir, &p, &hit, &err) ==
          GSVM_OK);
    CHECK(!hit);
    gsvm_lsl_program_free(p);
    CHECK(gsvm_lsl_compile_cached(counter_src, strlen(counter_src), "c.lsl", dir, &p, &hit, &err) ==
          GSVM_OK);
    CHECK(hit);
    gsvm_lsl_program_free(p);
    /* a compile error is reported, never cached */
    const char *bad = "default { state_entry() { x = 1; } }";
    CHECK(gsvm_lsl_compile_cached(bad, strlen(bad), "b.lsl", dir, &p, &hit, &err) == GSVM_ERR_INPUT);
    CHECK_INT(err.line, 1);
    /* no directory: plain compile */
    CHECK(gsvm_lsl_compile_cached(other, strlen(other), "o.lsl", NULL, &p, &hit, &err) == GSVM_OK);
    CHECK(!hit);
    gsvm_lsl_program_free(p);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    char buf[256];
    setenv("XDG_CACHE_HOME", "/x/y", 1);
    CHECK_STR(gsvm_lsl_default_cache_dir(buf, sizeof buf), "/x/y/gsvm");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    CHECK_STR(gsvm_lsl_default_cache_dir(buf, sizeof buf), "/home/u/.cache/gsvm");
}

int main(void)
{
    test_touch_counter();
    test_slices();
    test_infinite_loop();
    test_snapshot_every_instruction();
    test_mid_handler_snapshot();
    test_snapshot_layout();
    test_snapshot_rejects();
    test_faults();
    test_verifier();
    test_host_result();
    test_dispatch_checks();
    test_integer_semantics();
    test_fpc_roundtrip_and_rejects();
    test_fpc_entry_check();
    test_cache();
    TEST_MAIN_END();
}
