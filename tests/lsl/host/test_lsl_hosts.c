/* Typed host functions (gsvm_lsl_hosts): one table answers ABI-2 and ABI-3
 * scripts; arguments of every type read through the accessors, results of
 * every type reach the script, a wrong result type faults naming the
 * function, functions the library or VM answer cannot be registered, and
 * functions the table lacks go to the untyped host or get the default. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/lsl.h"
#include "test.h"

typedef struct seen {
    gsvm_buf log; /* one line per call, as the callbacks read it */
} seen;

static gsvm_status cb_say(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)err;
    seen *s = vm_user;
    size_t len;
    const char *m = gsvm_lsl_arg_str(c, gsvm_lsl_call_argc(c) - 1, &len);
    gsvm_buf_printf(&s->log, "%s[%s](", gsvm_lsl_call_name(c), (const char *)fn_user);
    if (gsvm_lsl_call_argc(c) == 2)
        gsvm_buf_printf(&s->log, "%d,", gsvm_lsl_arg_int(c, 0));
    gsvm_buf_printf(&s->log, "%.*s)\n", (int)len, m);
    return GSVM_OK;
}

static gsvm_status cb_name(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)err;
    return gsvm_lsl_return_string(c, "Door", 4);
}

static gsvm_status cb_pos(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)err;
    const float v[3] = {1.5f, 2, 3};
    return gsvm_lsl_return_vector(c, v);
}

static gsvm_status cb_rot(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)err;
    const float v[4] = {0, 0, 0.5f, 0.5f};
    return gsvm_lsl_return_rotation(c, v);
}

/* llSetText(string, vector, float): logs what it read */
static gsvm_status cb_text(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)err;
    seen *s = vm_user;
    gsvm_lsl_item t, col, a;
    CHECK(gsvm_lsl_arg(c, 0, &t) && t.type == GSVM_LSL_T_STRING);
    CHECK(gsvm_lsl_arg(c, 1, &col) && col.type == GSVM_LSL_T_VECTOR);
    CHECK(gsvm_lsl_arg(c, 2, &a) && a.type == GSVM_LSL_T_FLOAT);
    CHECK(!gsvm_lsl_arg(c, 3, &a));
    gsvm_buf_printf(&s->log, "llSetText(%.*s,<%g,%g,%g>,%g)\n", (int)t.len, t.s, col.v[0], col.v[1], col.v[2],
                    gsvm_lsl_arg_float(c, 2));
    return GSVM_OK;
}

/* llGetObjectDetails(key, list): echoes the list's elements back with a
 * key and a rotation added */
static gsvm_status cb_details(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)err;
    gsvm_lsl_item l, items[8];
    CHECK(gsvm_lsl_arg(c, 1, &l) && l.type == GSVM_LSL_T_LIST);
    size_t n = 0;
    for (size_t k = 0; k < l.len && n < 6; k++)
        if (gsvm_lsl_arg_list_item(c, 1, k, &items[n]))
            n++;
    CHECK(!gsvm_lsl_arg_list_item(c, 1, l.len, &items[7]));
    items[n] = (gsvm_lsl_item){.type = GSVM_LSL_T_KEY, .s = gsvm_lsl_arg_str(c, 0, &items[n].len)};
    gsvm_lsl_arg_str(c, 0, &items[n].len);
    n++;
    items[n++] = (gsvm_lsl_item){.type = GSVM_LSL_T_ROTATION, .v = {0, 0, 0, 1}};
    return gsvm_lsl_return_list(c, items, n);
}

/* the wrong type for llGetObjectName (string): an integer */
static gsvm_status cb_wrong(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)err;
    CHECK_INT(gsvm_lsl_return_int(c, 7), GSVM_ERR_USAGE);
    return GSVM_OK;
}

static gsvm_status cb_fail(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)c;
    return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "the object is gone");
}

/* the untyped (JSON) host: sees only what the table lacks */
static gsvm_status json_host(void *user, const char *name, const json_t *args, json_t **result,
                             gsvm_error *err)
{
    (void)args, (void)err;
    seen *s = user;
    gsvm_buf_printf(&s->log, "json:%s\n", name);
    *result = NULL;
    return GSVM_OK;
}

static gsvm_lsl3_vm *vm3_of(const char *src, gsvm_lsl3_program **prog)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl3_vm *vm = NULL;
    if (gsvm_lsl3_compile(src, strlen(src), "t.lsl", prog, &err) != GSVM_OK ||
        gsvm_lsl3_vm_new(*prog, &vm, &err) != GSVM_OK)
        fprintf(stderr, "%s\n", err.message);
    return vm;
}

static void test_registration(void)
{
    gsvm_lsl_hosts *h;
    gsvm_error err;
    CHECK_INT(gsvm_lsl_hosts_new(&h, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_hosts_add(h, "llNoSuch", cb_say, NULL, &err), GSVM_ERR_USAGE);
    CHECK_STR(err.message, "llNoSuch is not an LSL function");
    CHECK_INT(gsvm_lsl_hosts_add(h, "llStringLength", cb_say, NULL, &err), GSVM_ERR_USAGE);
    CHECK_STR(err.message, "llStringLength is answered by the library, not by the host");
    CHECK_INT(gsvm_lsl_hosts_add(h, "llSetTimerEvent", cb_say, NULL, &err), GSVM_ERR_USAGE);
    CHECK_STR(err.message, "llSetTimerEvent is answered by the VM, not by the host");
    CHECK_INT(gsvm_lsl_hosts_add(h, "llOwnerSay", cb_say, "a", &err), GSVM_OK);
    gsvm_lsl_hosts_free(h);
}

/* The same table drives an ABI-2 and an ABI-3 script. */
static void test_both_abis(void)
{
    gsvm_lsl_hosts *h;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_hosts_new(&h, &err);
    gsvm_lsl_hosts_add(h, "llOwnerSay", cb_say, "t", &err);
    gsvm_lsl_hosts_add(h, "llSay", cb_say, "t", &err);
    gsvm_lsl_hosts_add(h, "llGetObjectName", cb_name, NULL, &err);
    gsvm_lsl_hosts_add(h, "llGetPos", cb_pos, NULL, &err);
    gsvm_lsl_hosts_add(h, "llGetRot", cb_rot, NULL, &err);
    gsvm_lsl_hosts_add(h, "llSetText", cb_text, NULL, &err);
    gsvm_lsl_hosts_add(h, "llGetObjectDetails", cb_details, NULL, &err);

    /* ABI 2 */
    static const char src2[] = "default { state_entry() { llOwnerSay(\"hi\"); llSay(7, \"there\"); } }";
    gsvm_lsl_program *p2;
    gsvm_lsl_vm *v2;
    CHECK_INT(gsvm_lsl_compile(src2, strlen(src2), "t2.lsl", &p2, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_new(p2, &v2, &err), GSVM_OK);
    seen s2;
    gsvm_buf_init(&s2.log);
    gsvm_lsl_vm_set_hosts(v2, h, &s2);
    CHECK_INT(gsvm_lsl_vm_dispatch(v2, "state_entry", NULL, 0, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_vm_run(v2, 1000), GSVM_LSL_FINISHED);
    gsvm_buf_putc(&s2.log, 0);
    CHECK_STR((const char *)s2.log.data, "llOwnerSay[t](hi)\nllSay[t](7,there)\n");
    gsvm_lsl_vm_free(v2);
    gsvm_lsl_program_free(p2);
    gsvm_buf_free(&s2.log);

    /* ABI 3: every result type reaches the script */
    static const char src3[] =
        "default { state_entry() {\n"
        "  llSetText(llGetObjectName(), llGetPos(), 0.5);\n"
        "  llOwnerSay((string)llGetPos() + (string)llGetRot());\n"
        "  list d = llGetObjectDetails(\"0b8e1a5b-1f5e-4e55-9d2f-1e4e6a7b8c9d\", [1, 2.5, \"x\", <1,2,3>]);\n"
        "  llOwnerSay(llList2CSV(d) + \" \" + (string)llGetListEntryType(d, 4));\n"
        "  llSay(0, \"ok\"); llRegionSay(5, \"to json\");\n"
        "} }";
    gsvm_lsl3_program *p3;
    gsvm_lsl3_vm *v3 = vm3_of(src3, &p3);
    seen s3;
    gsvm_buf_init(&s3.log);
    gsvm_lsl3_vm_set_hosts(v3, h, &s3);
    gsvm_lsl3_vm_set_host(v3, json_host, &s3);
    CHECK_INT(gsvm_lsl3_vm_start(v3, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_run(v3, 10000), GSVM_LSL_FINISHED);
    gsvm_buf_putc(&s3.log, 0);
    CHECK_STR((const char *)s3.log.data,
              "llSetText(Door,<1.5,2,3>,0.5)\n"
              "llOwnerSay[t](<1.50000, 2.00000, 3.00000><0.00000, 0.00000, 0.50000, 0.50000>)\n"
              "llOwnerSay[t](1, 2.500000, x, <1.000000, 2.000000, 3.000000>, "
              "0b8e1a5b-1f5e-4e55-9d2f-1e4e6a7b8c9d, <0.000000, 0.000000, 0.000000, 1.000000> 4)\n"
              "llSay[t](0,ok)\n"
              "json:llRegionSay\n");
    gsvm_lsl3_vm_free(v3);
    gsvm_lsl3_program_free(p3);
    gsvm_buf_free(&s3.log);
    gsvm_lsl_hosts_free(h);
}

/* A wrong result type or a failing callback faults the script, naming the
 * function. */
static void test_faults(void)
{
    static const char src[] = "default { state_entry() { llOwnerSay(llGetObjectName()); } }";
    gsvm_lsl_hosts *h;
    gsvm_error err;
    gsvm_lsl_hosts_new(&h, &err);
    gsvm_lsl_hosts_add(h, "llGetObjectName", cb_wrong, NULL, &err);
    gsvm_lsl3_program *p;
    gsvm_lsl3_vm *vm = vm3_of(src, &p);
    gsvm_lsl3_vm_set_hosts(vm, h, NULL);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1000), GSVM_LSL_ERROR);
    CHECK_STR(gsvm_lsl3_vm_fault(vm), "the host's result for llGetObjectName (string): integer");
    gsvm_lsl3_vm_free(vm);

    gsvm_lsl_hosts_add(h, "llGetObjectName", cb_fail, NULL, &err); /* replaces */
    vm = NULL;
    CHECK_INT(gsvm_lsl3_vm_new(p, &vm, &err), GSVM_OK);
    gsvm_lsl3_vm_set_hosts(vm, h, NULL);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1000), GSVM_LSL_ERROR);
    CHECK(strstr(gsvm_lsl3_vm_fault(vm), "the object is gone") != NULL);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);

    /* ABI 2: a result for a function that returns nothing */
    gsvm_lsl_hosts_add(h, "llOwnerSay", cb_name, NULL, &err);
    static const char src2[] = "default { state_entry() { llOwnerSay(\"x\"); } }";
    gsvm_lsl_program *p2;
    gsvm_lsl_vm *v2;
    gsvm_lsl_compile(src2, strlen(src2), "t2.lsl", &p2, &err);
    gsvm_lsl_vm_new(p2, &v2, &err);
    gsvm_lsl_vm_set_hosts(v2, h, NULL);
    gsvm_lsl_vm_dispatch(v2, "state_entry", NULL, 0, &err);
    CHECK_INT(gsvm_lsl_vm_run(v2, 1000), GSVM_LSL_ERROR);
    CHECK(strstr(gsvm_lsl_vm_fault(v2), "llOwnerSay") != NULL);
    CHECK(strstr(gsvm_lsl_vm_fault(v2), "returns nothing") != NULL);
    gsvm_lsl_vm_free(v2);
    gsvm_lsl_program_free(p2);
    gsvm_lsl_hosts_free(h);
}

int main(void)
{
    test_registration();
    test_both_abis();
    test_faults();
    TEST_MAIN_END();
}
