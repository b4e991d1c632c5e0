/* The VM through its library API, on chunks assembled from listings here:
 * preemptible budgets that resume exactly, the instruction and memory
 * limits, mode 0's refusal of an unverified chunk and mode 2's run-time
 * fetch check, natives, faults with function/pc/line, many VMs at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsvm/hks.h"
#include "test.h"

#define HEADER                                                                              \
    ".header version=0x51 format=14 endian=little int=4 size_t=8 instruction=4 number=8 "  \
    "integral=0 flags=0x09 referenced=0\n.profile base\n.types standard\n"
#define FN0(maxstack) \
    ".function 0\n.upvalues 0\n.params 0\n.vararg 0x02\n.maxstack " #maxstack "\n.code\n"

/* sum of 1..1000, printed */
static const char *const SUM = HEADER FN0(6)
    "LOADK 0 -1\nLOADK 1 -2\nLOADK 2 -3\nLOADK 3 -2\nFORPREP 1 1\nADD 0 0 4\nFORLOOP 1 -2\n"
    "GETGLOBAL 4 -4\nMOVE 5 0\nCALL 4 2 1\nRETURN 0 1\n"
    ".constants\nnumber 0\nnumber 1\nnumber 1000\nstring \"print\"\n.end\n";

/* while true do end */
static const char *const ENDLESS = HEADER FN0(2) "JMP -1\nRETURN 0 1\n.constants\n.end\n";

/* local t, i = {}, 1; while true do t[i] = {}; i = i + 1 end */
static const char *const BOMB = HEADER FN0(4)
    "NEWTABLE 0 0 0\nLOADK 1 -1\nNEWTABLE 2 0 0\nSETTABLE 0 1 2\nADD 1 1 -1\nJMP -4\n"
    "RETURN 0 1\n.constants\nnumber 1\n.end\n";

/* a jump past the end of the code */
static const char *const WILD = HEADER FN0(2) "JMP 5\nRETURN 0 1\n.constants\n.end\n";

/* print(Host.add(2, 40)); error("boom") on line 7 */
static const char *const NATIVE = HEADER FN0(6)
    "GETGLOBAL 0 -1\nGETGLOBAL 1 -2\nGETFIELD 1 1 -3\nDATA 0 0\nDATA 0 0\nLOADK 2 -4\n"
    "LOADK 3 -5\nCALL 1 3 0\nCALL 0 0 1\nGETGLOBAL 0 -6\nLOADK 1 -7\nCALL 0 2 1\nRETURN 0 1\n"
    ".constants\nstring \"print\"\nstring \"Host\"\nstring \"add\"\nnumber 2\nnumber 40\n"
    "string \"error\"\nstring \"boom\"\n"
    ".debug 1\n.linedefined 0 0\n.source \"@native.lua\"\n.name \"(main chunk)\"\n"
    ".lines 1 1 1 1 1 1 1 1 1 7 7 7 8\n.end\n";

static gsvm_hks_vm *make(const char *listing, gsvm_hks_mode mode, uint64_t max_instr,
                         uint64_t max_mem, gsvm_status *load_status)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_hks_chunk *c = NULL;
    if (gsvm_hks_asm(listing, strlen(listing), "test.hksl", &c, &err) != GSVM_OK) {
        fprintf(stderr, "asm: %s\n", err.message);
        return NULL;
    }
    gsvm_hks_vm_options o;
    memset(&o, 0, sizeof o);
    o.mode = mode;
    o.limits.max_instructions = max_instr;
    o.limits.max_memory = max_mem;
    gsvm_hks_vm *vm;
    if (gsvm_hks_vm_new(&o, &vm, &err) != GSVM_OK) {
        gsvm_hks_chunk_free(c);
        return NULL;
    }
    gsvm_status st = gsvm_hks_vm_load(vm, c, &err);
    if (load_status)
        *load_status = st;
    return vm;
}

typedef struct capture {
    char text[256];
    int lines;
} capture;

static void cap_print(void *ctx, const char *const *parts, const size_t *lens, int n)
{
    capture *c = ctx;
    for (int i = 0; i < n; i++) {
        size_t at = strlen(c->text);
        snprintf(c->text + at, sizeof c->text - at, "%s%.*s", i ? "\t" : "", (int)lens[i],
                 parts[i]);
    }
    size_t at = strlen(c->text);
    snprintf(c->text + at, sizeof c->text - at, "\n");
    c->lines++;
}

static void test_budget_resumes_exactly(void)
{
    /* one run without slices, then the same chunk in slices of 7: the same
     * output and the same instruction count */
    gsvm_status ls;
    gsvm_hks_vm *a = make(SUM, GSVM_HKS_MODE_0, 0, 0, &ls);
    CHECK(a && ls == GSVM_OK);
    if (!a)
        return;
    capture ca = {{0}, 0}, cb = {{0}, 0};
    gsvm_hks_vm_set_print(a, cap_print, &ca);
    bool done = false;
    gsvm_error err;
    CHECK(gsvm_hks_vm_run(a, 0, &done, &err) == GSVM_OK && done);
    CHECK_STR(ca.text, "500500\n");
    uint64_t steps = gsvm_hks_vm_steps(a);
    CHECK(steps > 2000);
    gsvm_hks_vm *b = make(SUM, GSVM_HKS_MODE_0, 0, 0, &ls);
    gsvm_hks_vm_set_print(b, cap_print, &cb);
    int slices = 0;
    done = false;
    while (!done && slices < 100000) {
        uint64_t before = gsvm_hks_vm_steps(b);
        CHECK(gsvm_hks_vm_run(b, 7, &done, &err) == GSVM_OK);
        if (!done)
            CHECK_INT(gsvm_hks_vm_steps(b) - before, 7); /* exactly the slice */
        slices++;
    }
    CHECK(done);
    CHECK_STR(cb.text, "500500\n");
    CHECK_INT(gsvm_hks_vm_steps(b), steps);
    CHECK_INT(slices, (int)((steps + 6) / 7));
    gsvm_hks_vm_free(a);
    gsvm_hks_vm_free(b);
}

static void test_limits(void)
{
    gsvm_status ls;
    gsvm_error err;
    bool done;
    gsvm_hks_vm *vm = make(ENDLESS, GSVM_HKS_MODE_0, 100000, 0, &ls);
    CHECK(vm && ls == GSVM_OK);
    CHECK(gsvm_hks_vm_run(vm, 0, &done, &err) == GSVM_ERR_LIMIT);
    CHECK_INT(gsvm_hks_vm_steps(vm), 100000);
    gsvm_hks_fault f;
    CHECK(gsvm_hks_vm_fault(vm, &f));
    CHECK(strstr(f.message, "instruction limit") != NULL);
    gsvm_hks_vm_free(vm);

    vm = make(BOMB, GSVM_HKS_MODE_0, 0, 4u << 20, &ls);
    CHECK(vm && ls == GSVM_OK);
    CHECK(gsvm_hks_vm_run(vm, 0, &done, &err) == GSVM_ERR_LIMIT);
    CHECK(gsvm_hks_vm_fault(vm, &f) && strstr(f.message, "memory limit") != NULL);
    gsvm_hks_vm_free(vm);
}

static void test_modes(void)
{
    gsvm_status ls;
    gsvm_error err;
    bool done;
    gsvm_hks_vm *vm = make(WILD, GSVM_HKS_MODE_0, 0, 0, &ls);
    CHECK(vm && ls == GSVM_ERR_INPUT); /* mode 0 runs only verified chunks */
    gsvm_hks_vm_free(vm);
    vm = make(WILD, GSVM_HKS_MODE_2, 0, 0, &ls);
    CHECK(vm && ls == GSVM_OK);
    CHECK(gsvm_hks_vm_run(vm, 0, &done, &err) == GSVM_ERR_FAULT);
    gsvm_hks_fault f;
    CHECK(gsvm_hks_vm_fault(vm, &f));
    CHECK(strstr(f.message, "VM Kernel error: invalid instruction pointer.") != NULL);
    gsvm_hks_vm_free(vm);
    /* a verified chunk never trips mode 2 */
    capture c = {{0}, 0};
    vm = make(SUM, GSVM_HKS_MODE_2, 0, 0, &ls);
    gsvm_hks_vm_set_print(vm, cap_print, &c);
    CHECK(gsvm_hks_vm_run(vm, 0, &done, &err) == GSVM_OK && done);
    CHECK_STR(c.text, "500500\n");
    gsvm_hks_vm_free(vm);
}

static gsvm_status host_add(void *ctx, gsvm_hks_vm *vm, const gsvm_hks_value *args, int nargs,
                            gsvm_hks_value *res, int max, int *nres, gsvm_error *err)
{
    (void)vm;
    (void)max;
    int *calls = ctx;
    (*calls)++;
    if (nargs != 2 || args[0].type != GSVM_HKS_V_NUMBER || args[1].type != GSVM_HKS_V_NUMBER)
        return gsvm_error_set(err, GSVM_ERR_FAULT, NULL, "Host.add: two numbers expected");
    res[0].type = GSVM_HKS_V_NUMBER;
    res[0].n = args[0].n + args[1].n;
    *nres = 1;
    return GSVM_OK;
}

static void test_natives_and_faults(void)
{
    int calls = 0;
    gsvm_hks_native nat = {"Host.add", host_add, &calls};
    gsvm_error err;
    gsvm_hks_chunk *c = NULL;
    CHECK(gsvm_hks_asm(NATIVE, strlen(NATIVE), "native.hksl", &c, &err) == GSVM_OK);
    gsvm_hks_vm_options o;
    memset(&o, 0, sizeof o);
    o.natives = &nat;
    o.nnatives = 1;
    gsvm_hks_vm *vm;
    CHECK(gsvm_hks_vm_new(&o, &vm, &err) == GSVM_OK);
    capture cp = {{0}, 0};
    gsvm_hks_vm_set_print(vm, cap_print, &cp);
    CHECK(gsvm_hks_vm_load(vm, c, &err) == GSVM_OK);
    bool done;
    CHECK(gsvm_hks_vm_run(vm, 0, &done, &err) == GSVM_ERR_FAULT);
    CHECK_STR(cp.text, "42\n");
    CHECK_INT(calls, 1);
    gsvm_hks_fault f;
    CHECK(gsvm_hks_vm_fault(vm, &f));
    CHECK_STR(f.message, "native.lua:7: boom");
    CHECK_INT(f.line, 7);
    CHECK_INT(f.pc, 11);
    CHECK_STR(f.function, "0 (main chunk)");
    /* a wrong argument shape faults the script, not the host */
    gsvm_hks_value args[1] = {{GSVM_HKS_V_STRING, false, 0, "x", 1}};
    gsvm_hks_value res[2];
    int nres;
    CHECK(gsvm_hks_vm_call(vm, "Host.add", args, 1, res, 2, &nres, &err) == GSVM_ERR_FAULT);
    CHECK(strstr(err.message, "two numbers expected") != NULL);
    gsvm_hks_value two[2] = {{GSVM_HKS_V_NUMBER, false, 1, NULL, 0},
                             {GSVM_HKS_V_NUMBER, false, 2, NULL, 0}};
    CHECK(gsvm_hks_vm_call(vm, "Host.add", two, 2, res, 2, &nres, &err) == GSVM_OK);
    CHECK_INT(nres, 1);
    CHECK(res[0].type == GSVM_HKS_V_NUMBER && res[0].n == 3);
    gsvm_hks_value s[1] = {{GSVM_HKS_V_NUMBER, false, 12.5, NULL, 0}};
    CHECK(gsvm_hks_vm_call(vm, "tostring", s, 1, res, 2, &nres, &err) == GSVM_OK);
    CHECK(nres == 1 && res[0].type == GSVM_HKS_V_STRING && strcmp(res[0].s, "12.5") == 0);
    gsvm_hks_vm_free(vm);
}

static void test_many_vms(void)
{
    /* two VMs advanced in turns do not disturb each other */
    gsvm_status ls;
    gsvm_hks_vm *a = make(SUM, GSVM_HKS_MODE_0, 0, 0, &ls);
    gsvm_hks_vm *b = make(SUM, GSVM_HKS_MODE_2, 0, 0, &ls);
    capture ca = {{0}, 0}, cb = {{0}, 0};
    gsvm_hks_vm_set_print(a, cap_print, &ca);
    gsvm_hks_vm_set_print(b, cap_print, &cb);
    bool da = false, db = false;
    gsvm_error err;
    for (int i = 0; i < 10000 && !(da && db); i++) {
        if (!da)
            gsvm_hks_vm_run(a, 13, &da, &err);
        if (!db)
            gsvm_hks_vm_run(b, 5, &db, &err);
    }
    CHECK(da && db);
    CHECK_STR(ca.text, "500500\n");
    CHECK_STR(cb.text, "500500\n");
    gsvm_hks_vm_free(a);
    gsvm_hks_vm_free(b);
}

int main(void)
{
    test_budget_resumes_exactly();
    test_limits();
    test_modes();
    test_natives_and_faults();
    test_many_vms();
    TEST_MAIN_END();
}
