/* The one API of gsvm/lsl.h: the same script compiled for ABI 2 and for
 * ABI 3 runs through the very same calls (compile_with, vm_new, set_hosts,
 * start, post, run in slices, snapshot and restore into a fresh VM,
 * advance) and gives the same trace; the ABI query, the host-visible
 * readers (current event and tag, queue length, state, listens, next
 * deadline, globals by name, the clock) answer alike on both; faults carry
 * line:column on both; program files of both load through one call; the
 * ABI-2-only calls refuse an ABI-3 VM; typed posts (no JSON) carry every
 * argument type. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "gsvm/lsl.h"
#include "test.h"

static const char counter_src[] =
    "integer count = 0;\n"
    "string greeting = \"Touch me\";\n"
    "default {\n"
    "    state_entry() { llOwnerSay(greeting + \"!\"); }\n"
    "    touch_start(integer n) {\n"
    "        count += 1;\n"
    "        llSay(0, \"Touched \" + (string)count + \" time(s) by \" + (string)n);\n"
    "    }\n"
    "}\n";

/* One trace line per host call, and what the host read of the VM while
 * answering it (the event being handled, its tag). */
static gsvm_status cb_say(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)err;
    gsvm_lsl_vm **vm = fn_user;
    gsvm_buf *log = vm_user;
    uint32_t tag;
    const char *ev = gsvm_lsl_vm_current_event(*vm, &tag);
    size_t len;
    const char *m = gsvm_lsl_arg_str(c, gsvm_lsl_call_argc(c) - 1, &len);
    gsvm_buf_printf(log, "%s %s/%u: %.*s\n", gsvm_lsl_call_name(c), ev ? ev : "-", tag, (int)len, m);
    return GSVM_OK;
}

/* Runs to idle in `slice`-instruction slices; the statuses it saw. */
static gsvm_lsl_run_status run_idle(gsvm_lsl_vm *vm, uint64_t slice)
{
    gsvm_lsl_run_status st;
    for (int guard = 0; (st = gsvm_lsl_vm_run(vm, slice)) == GSVM_LSL_YIELDED && guard < 100000; guard++)
        ;
    return st;
}

static gsvm_lsl_vm *new_vm(const gsvm_lsl_program *p, gsvm_lsl_hosts *h, gsvm_buf *log)
{
    gsvm_lsl_vm *vm = NULL;
    gsvm_error err;
    CHECK(gsvm_lsl_vm_new(p, &vm, &err) == GSVM_OK);
    if (vm)
        gsvm_lsl_vm_set_hosts(vm, h, log);
    return vm;
}

/* The whole embedding, for one ABI; the trace into `log`. */
static void run_counter(int abi, gsvm_buf *log)
{
    gsvm_error err;
    gsvm_lsl_compile_opts o = {.abi = abi};
    gsvm_lsl_program *p = NULL;
    CHECK(gsvm_lsl_compile_with(counter_src, strlen(counter_src), "counter.lsl", &o, &p, &err) == GSVM_OK);
    if (!p)
        return;
    CHECK_INT(gsvm_lsl_program_abi(p), abi);
    CHECK((gsvm_lsl_program_abi3(p) != NULL) == (abi == 3));
    CHECK(gsvm_lsl_program_has_event(p, "touch_start"));
    CHECK_INT(gsvm_lsl_program_global_count(p), 2);

    gsvm_lsl_vm *vm = NULL;
    gsvm_lsl_hosts *h;
    gsvm_lsl_hosts_new(&h, &err);
    gsvm_lsl_hosts_add(h, "llOwnerSay", cb_say, &vm, &err);
    gsvm_lsl_hosts_add(h, "llSay", cb_say, &vm, &err);
    vm = new_vm(p, h, log);
    gsvm_lsl_program_release(p); /* the VM holds its own reference */
    if (!vm)
        return;
    CHECK_INT(gsvm_lsl_vm_abi(vm), abi);
    CHECK((gsvm_lsl_vm_abi3(vm) != NULL) == (abi == 3));
    CHECK_INT(gsvm_lsl_vm_run(vm, 100), GSVM_LSL_FINISHED); /* nothing started yet */
    CHECK(gsvm_lsl_vm_current_event(vm, NULL) == NULL);

    CHECK(gsvm_lsl_vm_start(vm, &err) == GSVM_OK);
    CHECK_INT(run_idle(vm, 1), GSVM_LSL_FINISHED);
    /* three touches wait at once; the second carries a tag */
    json_t *a1 = json_pack("[i]", 1), *a2 = json_pack("[i]", 2), *bad = json_pack("[s]", "x");
    bool queued;
    CHECK(gsvm_lsl_vm_post(vm, "touch_start", a1, &queued, &err) == GSVM_OK && queued);
    CHECK(gsvm_lsl_vm_post_tagged(vm, "touch_start", a2, 7, &queued, &err) == GSVM_OK && queued);
    gsvm_lsl_item one = {.type = GSVM_LSL_T_INTEGER, .i = 1}, text = {.type = GSVM_LSL_T_STRING, .s = "x", .len = 1};
    CHECK(gsvm_lsl_vm_post_items(vm, "touch_start", &one, 1, 0, &queued, &err) == GSVM_OK && queued);
    CHECK(gsvm_lsl_vm_post(vm, "touch_start", bad, &queued, &err) == GSVM_ERR_INPUT && !queued);
    CHECK(gsvm_lsl_vm_post_items(vm, "touch_start", &text, 1, 0, &queued, &err) == GSVM_ERR_INPUT && !queued);
    CHECK(strstr(err.message, "touch_start argument 1 must be") != NULL);
    CHECK(gsvm_lsl_vm_post_items(vm, "touch_start", NULL, 0, 0, &queued, &err) == GSVM_ERR_INPUT && !queued);
    CHECK(gsvm_lsl_vm_post(vm, "timer", NULL, &queued, &err) == GSVM_OK && !queued); /* no handler: dropped */
    CHECK(gsvm_lsl_vm_post(vm, "no_such_event", NULL, &queued, &err) == GSVM_ERR_INPUT);
    CHECK_INT(gsvm_lsl_vm_queue_length(vm), 3);

    /* the first touch runs in 3-instruction slices */
    for (int i = 0; i < 100 && gsvm_lsl_vm_queue_length(vm) == 3; i++)
        CHECK_INT(gsvm_lsl_vm_run(vm, 3), GSVM_LSL_YIELDED);
    while (gsvm_lsl_vm_queue_length(vm) == 2)
        gsvm_lsl_vm_run(vm, 1);
    /* now inside the second (tagged) touch; ABI 2's snapshot (the
     * document's HWZS) cannot hold the third, waiting one */
    uint8_t *snap = NULL;
    size_t len = 0;
    CHECK_STR(gsvm_lsl_vm_current_event(vm, NULL), "touch_start");
    uint32_t tag;
    gsvm_lsl_vm_current_event(vm, &tag);
    CHECK_INT(tag, 7);
    gsvm_status sst = gsvm_lsl_vm_snapshot(vm, &snap, &len, &err);
    CHECK_INT(sst, abi == 2 ? GSVM_ERR_USAGE : GSVM_OK);
    free(snap);
    snap = NULL;
    CHECK_INT(run_idle(vm, 1000), GSVM_LSL_FINISHED);
    CHECK_INT(gsvm_lsl_vm_queue_length(vm), 0);

    /* a fourth touch, snapshotted mid-handler and finished in a fresh VM */
    CHECK(gsvm_lsl_vm_post(vm, "touch_start", a2, &queued, &err) == GSVM_OK && queued);
    gsvm_lsl_vm_run(vm, 1); /* dispatches it and runs one instruction */
    CHECK_INT(gsvm_lsl_vm_queue_length(vm), 0);
    CHECK(gsvm_lsl_vm_snapshot(vm, &snap, &len, &err) == GSVM_OK);
    gsvm_lsl_vm *again = new_vm(p, h, log); /* p lives on: vm holds it */
    gsvm_lsl_vm_free(vm);
    vm = again;
    if (vm && snap) {
        CHECK(gsvm_lsl_vm_restore(vm, snap, len, "t.snap", &err) == GSVM_OK);
        CHECK_STR(gsvm_lsl_vm_current_event(vm, NULL), "touch_start");
        CHECK_INT(run_idle(vm, 2), GSVM_LSL_FINISHED);
    }
    free(snap);

    if (vm) {
        /* what a host reads of the idle script, the same on both ABIs */
        json_t *g = gsvm_lsl_vm_global_named(vm, "count");
        CHECK(json_is_integer(g) && json_integer_value(g) == 4);
        json_decref(g);
        g = gsvm_lsl_vm_global_named(vm, "greeting");
        CHECK(json_is_string(g) && strcmp(json_string_value(g), "Touch me") == 0);
        json_decref(g);
        CHECK(gsvm_lsl_vm_global_named(vm, "nothing") == NULL);
        CHECK_STR(gsvm_lsl_vm_state(vm), "default");
        CHECK_INT(gsvm_lsl_vm_listen_count(vm), 0);
        gsvm_lsl_listen_info li;
        CHECK(!gsvm_lsl_vm_listen(vm, 0, &li));
        uint64_t at;
        CHECK(!gsvm_lsl_vm_next_deadline(vm, &at));
        uint64_t t0 = gsvm_lsl_vm_now_ms(vm);
        CHECK_INT(gsvm_lsl_vm_advance(vm, 1500), 1500);
        CHECK_INT(gsvm_lsl_vm_now_ms(vm), t0 + 1500);
        CHECK(gsvm_lsl_vm_fault(vm) == NULL);
        CHECK(gsvm_lsl_vm_finished(vm));
        CHECK(gsvm_lsl_vm_total(vm) > 0);
        /* the document's dispatch is ABI 2's alone */
        gsvm_lsl_hostval one = {GSVM_LSL_INTEGER, 1, NULL, 0};
        CHECK_INT(gsvm_lsl_vm_dispatch(vm, "touch_start", &one, 1, &err), abi == 2 ? GSVM_OK : GSVM_ERR_USAGE);
    }
    gsvm_lsl_vm_free(vm);
    gsvm_lsl_hosts_free(h);
    json_decref(a1);
    json_decref(a2);
    json_decref(bad);
}

static void test_same_trace(void)
{
    gsvm_buf t2, t3;
    gsvm_buf_init(&t2);
    gsvm_buf_init(&t3);
    run_counter(2, &t2);
    run_counter(3, &t3);
    CHECK_STR(gsvm_buf_cstr(&t2), "llOwnerSay state_entry/0: Touch me!\n"
                                  "llSay touch_start/0: Touched 1 time(s) by 1\n"
                                  "llSay touch_start/7: Touched 2 time(s) by 2\n"
                                  "llSay touch_start/0: Touched 3 time(s) by 1\n"
                                  "llSay touch_start/0: Touched 4 time(s) by 2\n");
    CHECK_STR(gsvm_buf_cstr(&t3), gsvm_buf_cstr(&t2));
    gsvm_buf_free(&t2);
    gsvm_buf_free(&t3);
}

/* Compiling with abi 0 takes ABI 2 when the script fits, else ABI 3; the
 * files of both load through gsvm_lsl_program_load and list alike. */
static void test_auto_abi_and_files(void)
{
    const char *floaty = "default { state_entry() { float f = 1.5; llOwnerSay((string)f); } }";
    const char *srcs[] = {counter_src, floaty};
    for (int i = 0; i < 2; i++) {
        gsvm_error err;
        gsvm_lsl_program *p = NULL, *q = NULL;
        CHECK(gsvm_lsl_compile_with(srcs[i], strlen(srcs[i]), "a.lsl", NULL, &p, &err) == GSVM_OK);
        if (!p)
            continue;
        CHECK_INT(gsvm_lsl_program_abi(p), i == 0 ? 2 : 3);
        uint8_t *data;
        size_t len;
        CHECK(gsvm_lsl_program_save(p, &data, &len, &err) == GSVM_OK);
        CHECK(gsvm_lsl_program_load(data, len, "a.bin", &q, &err) == GSVM_OK);
        if (q) {
            CHECK_INT(gsvm_lsl_program_abi(q), gsvm_lsl_program_abi(p));
            char *l1 = NULL, *l2 = NULL;
            gsvm_lsl_program_list(p, &l1, &err);
            gsvm_lsl_program_list(q, &l2, &err);
            CHECK(l1 && l2 && strcmp(l1, l2) == 0);
            free(l1);
            free(l2);
        }
        free(data);
        gsvm_lsl_program_release(q);
        gsvm_lsl_program_release(p);
    }
    gsvm_lsl_compile_opts two = {.abi = 2}, four = {.abi = 4};
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    CHECK(gsvm_lsl_compile_with(floaty, strlen(floaty), "f.lsl", &two, &p, &err) == GSVM_ERR_INPUT && !p);
    CHECK(strstr(err.message, "not supported by ABI 2") != NULL);
    CHECK(gsvm_lsl_compile_with(floaty, strlen(floaty), "f.lsl", &four, &p, &err) == GSVM_ERR_USAGE && !p);
}

/* A fault names its source line:column on both ABIs (ABI 2: from the
 * .fpc's line table too). */
static gsvm_status cb_quiet(void *fn_user, void *vm_user, gsvm_lsl_call *c, gsvm_error *err)
{
    (void)fn_user, (void)vm_user, (void)c, (void)err;
    return GSVM_OK;
}

static void test_fault_lines(void)
{
    static const char grow[] = "string s = \"xxxxxxxxxxxxxxxx\";\n"
                               "default {\n"
                               "    state_entry() {\n"
                               "        llOwnerSay(\"growing\");\n"
                               "        while (1)\n"
                               "            s = s + s;\n"
                               "    }\n"
                               "}\n";
    gsvm_lsl_hosts *h;
    gsvm_error err;
    gsvm_lsl_hosts_new(&h, &err);
    gsvm_lsl_hosts_add(h, "llOwnerSay", cb_quiet, NULL, &err);
    for (int abi = 2; abi <= 3; abi++) {
        gsvm_lsl_compile_opts o = {.abi = abi};
        gsvm_lsl_program *p = NULL, *q = NULL;
        CHECK(gsvm_lsl_compile_with(grow, strlen(grow), "grow.lsl", &o, &p, &err) == GSVM_OK);
        uint8_t *data = NULL;
        size_t len;
        if (p && gsvm_lsl_program_save(p, &data, &len, &err) == GSVM_OK)
            CHECK(gsvm_lsl_program_load(data, len, "grow.bin", &q, &err) == GSVM_OK);
        free(data);
        gsvm_lsl_program *both[] = {p, q};
        for (int k = 0; k < 2; k++) {
            gsvm_lsl_vm *vm = both[k] ? new_vm(both[k], h, NULL) : NULL;
            if (!vm)
                continue;
            gsvm_lsl_vm_start(vm, &err);
            CHECK_INT(run_idle(vm, 100000), GSVM_LSL_ERROR);
            uint32_t line, col;
            CHECK(gsvm_lsl_vm_fault(vm) != NULL);
            CHECK(gsvm_lsl_vm_fault_line(vm, &line, &col));
            CHECK_INT(line, 6);
            uint32_t pl, pc;
            CHECK(gsvm_lsl_program_line(both[k], gsvm_lsl_vm_fault_ip(vm), &pl, &pc) && pl == line && pc == col);
            CHECK_INT(gsvm_lsl_vm_run(vm, 10), GSVM_LSL_ERROR); /* a fault is for good */
            gsvm_lsl_vm_free(vm);
        }
        gsvm_lsl_program_release(q);
        gsvm_lsl_program_release(p);
    }
    gsvm_lsl_hosts_free(h);
}

/* Typed posts carry every argument type an event has: chat through the
 * script's listens (strings, a key), a list argument, rotations; what
 * does not fit the handler is refused naming the argument. */
static const char typed_src[] =
    "default {\n"
    "    state_entry() { llListen(5, \"\", NULL_KEY, \"\"); }\n"
    "    listen(integer ch, string name, key id, string msg) {\n"
    "        llOwnerSay(name + \" said \" + msg + \" on \" + (string)ch + \" as \" + (string)id);\n"
    "    }\n"
    "    http_response(key id, integer status, list meta, string body) {\n"
    "        llOwnerSay((string)status + \" \" + llList2CSV(meta) + \" \" + body);\n"
    "    }\n"
    "    at_rot_target(integer n, rotation want, rotation got) { llOwnerSay((string)n + \" \" + (string)want); }\n"
    "}\n";

static void test_typed_post(void)
{
    gsvm_error err;
    gsvm_lsl_compile_opts o = {.abi = 3};
    gsvm_lsl_program *p = NULL;
    CHECK(gsvm_lsl_compile_with(typed_src, strlen(typed_src), "typed.lsl", &o, &p, &err) == GSVM_OK);
    if (!p)
        return;
    gsvm_buf log;
    gsvm_buf_init(&log);
    gsvm_lsl_vm *vm = NULL;
    gsvm_lsl_hosts *h;
    gsvm_lsl_hosts_new(&h, &err);
    gsvm_lsl_hosts_add(h, "llOwnerSay", cb_say, &vm, &err);
    vm = new_vm(p, h, &log);
    gsvm_lsl_program_release(p);
    if (!vm)
        return;
    CHECK(gsvm_lsl_vm_start(vm, &err) == GSVM_OK);
    CHECK_INT(run_idle(vm, 50), GSVM_LSL_FINISHED);
    const char *key = "00000000-0000-0000-0000-000000000001";
    gsvm_lsl_item chat[4] = {{.type = GSVM_LSL_T_INTEGER, .i = 5},
                             {.type = GSVM_LSL_T_STRING, .s = "Ann", .len = 3},
                             {.type = GSVM_LSL_T_KEY, .s = key, .len = strlen(key)},
                             {.type = GSVM_LSL_T_STRING, .s = "hello there", .len = 5}};
    bool queued;
    CHECK(gsvm_lsl_vm_post_items(vm, "listen", chat, 4, 0, &queued, &err) == GSVM_OK && queued);
    chat[0].i = 6; /* no listen on channel 6: not heard */
    CHECK(gsvm_lsl_vm_post_items(vm, "listen", chat, 4, 0, &queued, &err) == GSVM_OK && !queued);
    gsvm_lsl_item meta[3] = {{.type = GSVM_LSL_T_INTEGER, .i = 7},
                             {.type = GSVM_LSL_T_FLOAT, .f = 0.5},
                             {.type = GSVM_LSL_T_VECTOR, .v = {1, 2, 3}}};
    gsvm_lsl_item http[4] = {{.type = GSVM_LSL_T_STRING, .s = key, .len = strlen(key)},
                             {.type = GSVM_LSL_T_INTEGER, .i = 200},
                             {.type = GSVM_LSL_T_LIST, .len = 3, .list = meta},
                             {.type = GSVM_LSL_T_STRING, .s = "ok", .len = 2}};
    CHECK(gsvm_lsl_vm_post_items(vm, "http_response", http, 4, 9, &queued, &err) == GSVM_OK && queued);
    gsvm_lsl_item rot[3] = {{.type = GSVM_LSL_T_INTEGER, .i = 1},
                            {.type = GSVM_LSL_T_ROTATION, .v = {0, 0, 0, 1}},
                            {.type = GSVM_LSL_T_ROTATION, .v = {0, 0, 1, 0}}};
    CHECK(gsvm_lsl_vm_post_items(vm, "at_rot_target", rot, 3, 0, &queued, &err) == GSVM_OK && queued);
    CHECK_INT(gsvm_lsl_vm_queue_length(vm), 3);
    /* refused: a vector for a rotation, a list in a list, a list without its items */
    rot[2].type = GSVM_LSL_T_VECTOR;
    CHECK(gsvm_lsl_vm_post_items(vm, "at_rot_target", rot, 3, 0, &queued, &err) == GSVM_ERR_INPUT && !queued);
    CHECK(strstr(err.message, "at_rot_target argument 3 must be rotation") != NULL);
    meta[2] = (gsvm_lsl_item){.type = GSVM_LSL_T_LIST};
    CHECK(gsvm_lsl_vm_post_items(vm, "http_response", http, 4, 0, &queued, &err) == GSVM_ERR_USAGE && !queued);
    CHECK(strstr(err.message, "list element 3 is a list") != NULL);
    http[2].list = NULL;
    CHECK(gsvm_lsl_vm_post_items(vm, "http_response", http, 4, 0, &queued, &err) == GSVM_ERR_USAGE && !queued);
    CHECK_INT(gsvm_lsl_vm_queue_length(vm), 3);
    CHECK_INT(run_idle(vm, 7), GSVM_LSL_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&log), "llOwnerSay listen/0: Ann said hello on 5 as 00000000-0000-0000-0000-000000000001\n"
                                   "llOwnerSay http_response/9: 200 7, 0.500000, <1.000000, 2.000000, 3.000000> ok\n"
                                   "llOwnerSay at_rot_target/0: 1 <0.00000, 0.00000, 0.00000, 1.00000>\n");
    gsvm_lsl_vm_free(vm);
    gsvm_lsl_hosts_free(h);
    gsvm_buf_free(&log);
}

int main(void)
{
    test_typed_post();
    test_same_trace();
    test_auto_abi_and_files();
    test_fault_lines();
    TEST_MAIN_END();
}
