/* Inside a host callback (both ABIs): run() on the same VM is refused
 * without faulting it (it used to recurse until the C stack died), and a
 * snapshot taken there is of the state after the call, so a VM restored
 * from it goes on with the next call instead of repeating this one (llSay
 * used to print twice).  ABI 3 refuses such a snapshot, naming the
 * function, when the call returns a value or forces a delay. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/lsl.h"
#include "test.h"

/* ---- ABI 2 ------------------------------------------------------------------ */

typedef struct host2 {
    gsvm_lsl_vm *vm;
    gsvm_buf calls;
    uint8_t *snap;
    size_t snap_len;
    int reentry; /* what run() said from inside */
    bool in_host;
} host2;

static gsvm_status h2(void *user, const char *name, const gsvm_lsl_hostval *args, size_t argc,
                      gsvm_lsl_hostval *result, bool *has_result, gsvm_error *err)
{
    host2 *h = user;
    (void)result, (void)has_result, (void)err;
    gsvm_buf_printf(&h->calls, "%s(%.*s)\n", name, (int)args[argc - 1].len, args[argc - 1].str);
    if (h->vm && !h->snap) {
        h->in_host = gsvm_lsl_vm_in_host_call(h->vm);
        h->reentry = gsvm_lsl_vm_run(h->vm, 1000);
        gsvm_error e;
        gsvm_lsl_vm_snapshot(h->vm, &h->snap, &h->snap_len, &e);
    }
    return GSVM_OK;
}

static void test_abi2(void)
{
    const char *src = "integer n = 1;\ndefault { state_entry() { llSay(0, \"first\"); n = n + 1;\n"
                      "  llOwnerSay(\"second \" + (string)n); } }\n";
    gsvm_lsl_program *p;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_compile(src, strlen(src), "h.lsl", &p, &err), GSVM_OK);
    host2 h;
    memset(&h, 0, sizeof h);
    gsvm_buf_init(&h.calls);
    gsvm_lsl_vm *vm;
    gsvm_lsl_vm_new(p, &vm, &err);
    h.vm = vm;
    gsvm_lsl_vm_set_host(vm, h2, &h);
    gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err);
    CHECK_INT(gsvm_lsl_vm_run(vm, 100000), GSVM_LSL_FINISHED);
    CHECK(h.in_host);
    CHECK_INT(h.reentry, GSVM_LSL_ERROR);
    CHECK(gsvm_lsl_vm_fault(vm) == NULL); /* refused, not faulted */
    CHECK(!gsvm_lsl_vm_in_host_call(vm));
    gsvm_buf_append(&h.calls, "", 1);
    CHECK_STR((char *)h.calls.data, "llSay(first)\nllOwnerSay(second 2)\n");
    uint64_t total = gsvm_lsl_vm_total(vm);
    CHECK(h.snap != NULL);

    host2 g;
    memset(&g, 0, sizeof g);
    gsvm_buf_init(&g.calls);
    gsvm_lsl_vm *vm2;
    gsvm_lsl_vm_new(p, &vm2, &err);
    gsvm_lsl_vm_set_host(vm2, h2, &g);
    CHECK_INT(gsvm_lsl_vm_restore(vm2, h.snap, h.snap_len, "snap", &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_run(vm2, 100000), GSVM_LSL_FINISHED);
    gsvm_buf_append(&g.calls, "", 1);
    CHECK_STR((char *)g.calls.data, "llOwnerSay(second 2)\n"); /* not llSay again */
    CHECK_INT(gsvm_lsl_vm_total(vm2), total);
    gsvm_lsl_vm_free(vm2);
    gsvm_lsl_vm_free(vm);
    gsvm_lsl_program_free(p);
    free(h.snap);
    gsvm_buf_free(&h.calls);
    gsvm_buf_free(&g.calls);
}

/* ---- ABI 3 ------------------------------------------------------------------ */

typedef struct host3 {
    gsvm_lsl3_vm *vm;
    gsvm_buf calls;
    uint8_t *snap;
    size_t snap_len;
    int reentry;
    char refused[600];
} host3;

static gsvm_status h3(void *user, const char *name, const json_t *args, json_t **result, gsvm_error *err)
{
    host3 *h = user;
    (void)err;
    *result = NULL;
    char *a = json_dumps(args, JSON_COMPACT);
    gsvm_buf_printf(&h->calls, "%s%s\n", name, a);
    free(a);
    if (!h->vm)
        return GSVM_OK;
    gsvm_error e;
    gsvm_error_clear(&e);
    if (strcmp(name, "llGetPos") == 0) {
        uint8_t *s = NULL;
        size_t n;
        if (gsvm_lsl3_vm_snapshot(h->vm, &s, &n, &e) != GSVM_OK)
            snprintf(h->refused, sizeof h->refused, "%s", e.message);
        free(s);
    } else if (strcmp(name, "llSay") == 0 && !h->snap) {
        h->reentry = gsvm_lsl3_vm_run(h->vm, 1000);
        gsvm_lsl3_vm_snapshot(h->vm, &h->snap, &h->snap_len, &e);
    }
    return GSVM_OK;
}

static void test_abi3(void)
{
    const char *src = "integer n = 1;\ndefault { state_entry() { vector p = llGetPos(); llSay(0, \"first\");\n"
                      "  n += 1; llOwnerSay(\"second \" + (string)n); } }\n";
    gsvm_lsl3_program *p;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl3_compile(src, strlen(src), "h.lsl", &p, &err), GSVM_OK);
    host3 h;
    memset(&h, 0, sizeof h);
    gsvm_buf_init(&h.calls);
    gsvm_lsl3_vm *vm;
    gsvm_lsl3_vm_new(p, &vm, &err);
    h.vm = vm;
    gsvm_lsl3_vm_set_host(vm, h3, &h);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 100000), GSVM_LSL_FINISHED);
    CHECK_INT(h.reentry, GSVM_LSL_ERROR);
    CHECK(gsvm_lsl3_vm_fault(vm) == NULL);
    CHECK(strstr(h.refused, "llGetPos") != NULL);
    gsvm_buf_append(&h.calls, "", 1);
    CHECK_STR((char *)h.calls.data, "llGetPos[]\nllSay[0,\"first\"]\nllOwnerSay[\"second 2\"]\n");
    uint64_t total = gsvm_lsl3_vm_total(vm);
    CHECK(h.snap != NULL);

    host3 g;
    memset(&g, 0, sizeof g);
    gsvm_buf_init(&g.calls);
    gsvm_lsl3_vm *vm2;
    gsvm_lsl3_vm_new(p, &vm2, &err);
    gsvm_lsl3_vm_set_host(vm2, h3, &g);
    CHECK_INT(gsvm_lsl3_vm_restore(vm2, h.snap, h.snap_len, "snap", &err), GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_run(vm2, 100000), GSVM_LSL_FINISHED);
    gsvm_buf_append(&g.calls, "", 1);
    CHECK_STR((char *)g.calls.data, "llOwnerSay[\"second 2\"]\n");
    CHECK_INT(gsvm_lsl3_vm_total(vm2), total);
    gsvm_lsl3_vm_free(vm2);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
    free(h.snap);
    gsvm_buf_free(&h.calls);
    gsvm_buf_free(&g.calls);
}

int main(void)
{
    test_abi2();
    test_abi3();
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}
