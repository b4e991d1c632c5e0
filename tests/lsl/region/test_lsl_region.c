/* The region through its C API: programs shared between VMs, idle scripts
 * that cost no slices, fair round-robin among busy scripts, per-owner and
 * per-object budgets, a busy loop that delays nobody's events by more than
 * one frame, timers on the region's heap, and chat delivered only through
 * the channel index. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gsvm/lsl.h"
#include "gsvm/lsl_region.h"
#include "lsl/region_int.h"
#include "test.h"

typedef struct capture {
    gsvm_lsl_region *r;
    int lines;
    char last[512];
    uint64_t last_ms;
} capture;

static void cap_out(void *user, json_t *line)
{
    capture *c = user;
    c->lines++;
    char *s = json_dumps(line, JSON_COMPACT);
    snprintf(c->last, sizeof c->last, "%s", s ? s : "");
    free(s);
    gsvm_lsl_region_stats st;
    gsvm_lsl_region_get_stats(c->r, &st);
    c->last_ms = st.now_ms;
    json_decref(line);
}

static gsvm_lsl3_program *compile(const char *src)
{
    gsvm_lsl3_program *p = NULL;
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_lsl3_compile(src, strlen(src), "t.lsl", &p, &err) != GSVM_OK)
        fprintf(stderr, "compile: %s\n", err.message);
    return p;
}

static const char *OWNER1 = "a2e76fcd-9360-4f6d-a924-000000000001";
static const char *OWNER2 = "a2e76fcd-9360-4f6d-a924-000000000002";

static const char *SPIN = "default { state_entry() { integer i; while (TRUE) i++; } }";
static const char *IDLE = "default { state_entry() { llSetTimerEvent(60.0); llListen(42, \"\", NULL_KEY, \"\"); }\n"
                          " timer() { llOwnerSay(\"tick\"); } listen(integer c, string n, key k, string m) { } }";
static const char *BELL = "default { touch_start(integer n) { llOwnerSay(\"ding \" + llDetectedName(0)); } }";

static uint64_t script_total(gsvm_lsl_region *r, uint32_t i) { return gsvm_lsl3_vm_total(rg_script_of(r, i)->vm); }

static void test_world_shares_programs(void)
{
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_region_new(NULL, &r, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_region_load_world(r, "examples/lsl/region/world.json", &err), GSVM_OK);
    gsvm_lsl_region_stats st;
    gsvm_lsl_region_get_stats(r, &st);
    CHECK_INT(st.scripts, 6);
    CHECK_INT(st.programs, 5); /* the two bells run one program */
    CHECK_INT(st.objects, 5);
    CHECK_INT(st.prims, 6);
    CHECK(rg_script_of(r, 2)->vm->prog == rg_script_of(r, 3)->vm->prog);
    gsvm_lsl_region_free(r);
}

static void test_idle_scripts_cost_nothing(void)
{
    gsvm_lsl3_program *idle = compile(IDLE);
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.slice_guard_us = o.frame_guard_us = 0; /* counts must not depend on the machine's load */
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_region_new(&o, &r, &err);
    enum { N = 500 };
    for (int i = 0; i < N; i++) {
        char id[32];
        float pos[3] = {(float)(i % 256), (float)(i / 256), 20};
        uint32_t prim;
        snprintf(id, sizeof id, "o%d", i);
        CHECK_INT(gsvm_lsl_region_add_object(r, id, OWNER1, NULL, pos, &prim, &err), GSVM_OK);
        gsvm_lsl_region_add_script(r, prim, "idle.lsl", gsvm_lsl_program_of3(idle), &err);
    }
    gsvm_lsl_region_advance(r, 0, &err); /* every state_entry */
    gsvm_lsl_region_stats a, b;
    gsvm_lsl_region_get_stats(r, &a);
    CHECK_INT(a.slices, N);
    gsvm_lsl_region_advance(r, 10000, &err); /* 450 frames, no timer due yet */
    gsvm_lsl_region_get_stats(r, &b);
    CHECK_INT(b.frames - a.frames, 450);
    CHECK_INT(b.slices, a.slices);             /* not one slice for an idle script */
    CHECK_INT(b.instructions, a.instructions); /* nor one instruction */
    /* chat on a channel nobody listens on is offered to nobody */
    float origin[3] = {0, 0, 20};
    gsvm_lsl_region_chat(r, 41, "Bob", OWNER2, origin, -1, "x", &err);
    gsvm_lsl_region_get_stats(r, &b);
    CHECK_INT(b.chat_offered, 0);
    gsvm_lsl_region_chat(r, 42, "Bob", OWNER2, origin, -1, "x", &err);
    gsvm_lsl_region_get_stats(r, &b);
    CHECK_INT(b.chat_offered, N);
    CHECK_INT(b.chat_heard, N);
    /* the 60 s timers fire once each, through the heap */
    capture c = {r, 0, "", 0};
    gsvm_lsl_region_set_output(r, cap_out, &c);
    gsvm_lsl_region_advance(r, 50000, &err);
    CHECK_INT(c.lines, N);
    CHECK_INT(c.last_ms, 60000);
    gsvm_lsl_region_get_stats(r, &b);
    CHECK_INT(b.timers_fired, N);
    gsvm_lsl_region_free(r);
    gsvm_lsl3_program_free(idle);
}

/* A host allocator that counts live bytes (a size header before each
 * block) and can be told to fail. */
typedef struct counting {
    size_t live, blocks, calls;
    size_t fail_after; /* 0 = never */
} counting;

static void *count_realloc(void *user, void *ptr, size_t size)
{
    counting *c = user;
    size_t *h = ptr ? (size_t *)ptr - 2 : NULL;
    if (size == 0) {
        if (h) {
            c->live -= h[0];
            c->blocks--;
            free(h);
        }
        return NULL;
    }
    if (c->fail_after && ++c->calls > c->fail_after)
        return NULL;
    size_t old = h ? h[0] : 0;
    size_t *n = realloc(h, size + 2 * sizeof(size_t));
    if (!n)
        return NULL;
    if (!h)
        c->blocks++;
    n[0] = size;
    c->live = c->live - old + size;
    return n + 2;
}

/* Every script's memory goes through the host's allocator, an idle script
 * holds under 2 KiB of it with the region's tables for it (its VM has no
 * stack, frames or queue: only its globals, constants, listens and fixed
 * fields), and all of it comes back. */
static void test_host_allocator(void)
{
    gsvm_lsl3_program *idle = compile(IDLE);
    counting c = {0, 0, 0, 0};
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.alloc = count_realloc;
    o.alloc_user = &c;
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_region_new(&o, &r, &err), GSVM_OK);
    size_t fixed = c.live; /* the region itself */
    enum { N = 100 };
    for (int i = 0; i < N; i++) {
        char id[32];
        float pos[3] = {(float)i, 0, 20};
        uint32_t prim;
        snprintf(id, sizeof id, "o%d", i);
        gsvm_lsl_region_add_object(r, id, OWNER1, NULL, pos, &prim, &err);
        CHECK_INT(gsvm_lsl_region_add_script(r, prim, "idle.lsl", gsvm_lsl_program_of3(idle), &err), GSVM_OK);
    }
    CHECK_INT(gsvm_lsl_region_advance(r, 1000, &err), GSVM_OK); /* state_entry: a timer and a listen each */
    CHECK(c.blocks > 0);
    /* the goal: under 2 KB an idle script, the region's own tables
     * for it (script, prim, timer heap, listen index) included */
    CHECK((c.live - fixed) / N < 2048);
    for (int i = 0; i < N; i++) {
        gsvm_lsl3_vm *vm = rg_script_of(r, (uint32_t)i)->vm;
        CHECK(vm->stack == NULL && vm->frames == NULL && vm->sched.queue == NULL);
        CHECK_INT(gsvm_lsl3_vm_listen_count(vm), 1);
    }
    /* heard chat runs a handler (stack and frames back for it) and the
     * script is idle again after */
    float origin[3] = {0, 0, 20};
    size_t before = c.live;
    gsvm_lsl_region_chat(r, 42, "Bob", OWNER2, origin, -1, "hello", &err);
    CHECK_INT(gsvm_lsl_region_advance(r, 100, &err), GSVM_OK);
    CHECK_INT(c.live, before);
    gsvm_lsl_region_free(r);
    CHECK_INT(c.live, 0);
    CHECK_INT(c.blocks, 0);
    /* an allocator that fails part-way: the script is refused whole */
    for (size_t k = 1; k < 12; k++) {
        counting f = {0, 0, 0, k};
        o.alloc_user = &f;
        gsvm_lsl_region_new(&o, &r, &err);
        float pos[3] = {0, 0, 20};
        uint32_t prim;
        gsvm_lsl_region_add_object(r, "o", OWNER1, NULL, pos, &prim, &err);
        gsvm_status st = gsvm_lsl_region_add_script(r, prim, "idle.lsl", gsvm_lsl_program_of3(idle), &err);
        if (st == GSVM_OK)
            gsvm_lsl_region_advance(r, 1000, &err); /* may fault "out of memory"; never crash */
        else
            CHECK(st == GSVM_ERR_NOMEM || st == GSVM_ERR_FAULT);
        gsvm_lsl_region_free(r);
        CHECK_INT(f.live, 0);
    }
    gsvm_lsl3_program_free(idle);
}

/* A program is reference-counted: its VMs keep it alive after the host
 * drops its own reference (ASan reports any use after free). */
static void test_program_refcount(void)
{
    gsvm_lsl3_program *p = compile(BELL);
    gsvm_lsl3_vm *a, *b;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl3_vm_new(p, &a, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_new(p, &b, &err), GSVM_OK);
    gsvm_lsl3_program_free(p); /* the VMs' references remain */
    CHECK(gsvm_lsl3_program_has_event(a->prog, "touch_start"));
    gsvm_lsl3_vm_free(a);
    json_t *args = json_pack("[i]", 1);
    bool q;
    CHECK_INT(gsvm_lsl3_vm_post(b, "touch_start", args, &q, &err), GSVM_OK);
    CHECK(q);
    json_decref(args);
    CHECK_INT(gsvm_lsl3_vm_run(b, 1000), GSVM_LSL_FINISHED);
    gsvm_lsl3_vm_free(b); /* the last reference: the program goes with it */
}

static void test_round_robin_and_budgets(void)
{
    gsvm_lsl3_program *spin = compile(SPIN);
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.throttle_above = 0; /* fairness alone */
    o.slice_guard_us = o.frame_guard_us = 0;
    o.frame_budget = 20000;
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_region_new(&o, &r, &err);
    uint32_t prim;
    float pos[3] = {1, 1, 1};
    /* four spinners of owner 1 in one object, four of owner 2 apart */
    gsvm_lsl_region_add_object(r, "one", OWNER1, NULL, pos, &prim, &err);
    for (int i = 0; i < 4; i++)
        gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    for (int i = 0; i < 4; i++) {
        char id[16];
        snprintf(id, sizeof id, "two%d", i);
        gsvm_lsl_region_add_object(r, id, OWNER2, NULL, pos, &prim, &err);
        gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    }
    gsvm_lsl_region_advance(r, 1000, &err); /* 46 frames (0 .. 1000 ms) */
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
    for (uint32_t i = 0; i < 8; i++) {
        uint64_t t = script_total(r, i);
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
        sum += t;
    }
    CHECK_INT(sum, 46 * 20000);            /* the frame budget, all of it */
    CHECK(hi - lo <= o.slice);              /* round-robin: within one slice */
    gsvm_lsl_region_free(r);

    /* per-owner and per-object budgets */
    o.owner_budget = 6000;
    o.object_budget = 2000;
    gsvm_lsl_region_new(&o, &r, &err);
    gsvm_lsl_region_add_object(r, "a", OWNER1, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_add_object(r, "b", OWNER1, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_add_object(r, "c", OWNER2, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_advance(r, 1000, &err);
    CHECK_INT(script_total(r, 0) + script_total(r, 1), 46 * 2000); /* object a's budget */
    CHECK_INT(script_total(r, 2), 46 * 2000);                      /* object b's */
    CHECK_INT(script_total(r, 3), 46 * 2000);
    gsvm_lsl_region_free(r);

    o.owner_budget = 3000;
    o.object_budget = 0;
    gsvm_lsl_region_new(&o, &r, &err);
    gsvm_lsl_region_add_object(r, "a", OWNER1, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_add_object(r, "b", OWNER1, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_add_object(r, "c", OWNER2, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_advance(r, 1000, &err);
    CHECK_INT(script_total(r, 0) + script_total(r, 1), 46 * 3000); /* owner 1's budget */
    CHECK_INT(script_total(r, 2), 46 * 3000);
    gsvm_lsl_region_free(r);
    gsvm_lsl3_program_free(spin);
}

/* With busy loops filling the region, a touch is handled in the very next
 * frame, and a busy script is throttled. */
static void test_busy_loops_delay_nobody(void)
{
    gsvm_lsl3_program *spin = compile(SPIN), *bell = compile(BELL);
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.slice_guard_us = o.frame_guard_us = 0;
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_region_new(&o, &r, &err);
    capture c = {r, 0, "", 0};
    gsvm_lsl_region_set_output(r, cap_out, &c);
    uint32_t prim;
    float pos[3] = {1, 1, 1};
    for (int i = 0; i < 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", i);
        gsvm_lsl_region_add_object(r, id, OWNER1, NULL, pos, &prim, &err);
        gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    }
    gsvm_lsl_region_add_object(r, "bell", OWNER2, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "bell.lsl", gsvm_lsl_program_of3(bell), &err);
    gsvm_lsl_region_advance(r, 1000, &err);
    gsvm_lsl_region_stats st;
    gsvm_lsl_region_get_stats(r, &st);
    CHECK_INT(st.throttled, 10);
    CHECK(strstr(c.last, "\"throttled\":true") != NULL);
    json_t *t = json_pack("{s:{s:s,s:s,s:s}}", "touch", "object", "bell", "avatar", OWNER2, "name", "Bob");
    CHECK_INT(gsvm_lsl_region_apply(r, t, "t", 1, &err), GSVM_OK);
    json_decref(t);
    int before = c.lines;
    gsvm_lsl_region_advance(r, 23, &err); /* one frame: 1022 ms */
    CHECK_INT(c.lines, before + 1);
    CHECK_STR(c.last, "{\"object\":\"bell\",\"script\":\"bell.lsl\",\"host\":\"llOwnerSay\",\"args\":[\"ding Bob\"]}");
    CHECK_INT(c.last_ms, 1022);
    gsvm_lsl_region_free(r);
    gsvm_lsl3_program_free(spin);
    gsvm_lsl3_program_free(bell);
}

/* A guard clock that moves 1 ms each time it is read: where the guards
 * stop follows from the code alone, whatever the machine's load. */
static uint64_t tick_clock(void *user)
{
    uint64_t *t = user;
    return *t += 1000;
}

/* The wall-clock guards: with budgets far beyond what a frame can run, a
 * slice stops after slice_guard_us and the frame after frame_guard_us, so a
 * spinner listed first still lets the next script start in the same frame.
 * The clock is read at the frame's start, before each turn, at each slice's
 * start and after each 256-instruction chunk: a spinner's slice is two
 * chunks (reads at +0, +1, +2 ms), the greeter's ends with its handler
 * (one read), and the frame's 20 ms run out after five spinner slices. */
static void test_wall_guard(void)
{
    gsvm_lsl3_program *spin = compile(SPIN);
    gsvm_lsl3_program *hello = compile("default { state_entry() { llOwnerSay(\"hello\"); } }");
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.frame_budget = o.script_budget = o.slice = UINT64_C(1) << 40;
    o.throttle_above = 0;
    o.slice_guard_us = 2000;
    o.frame_guard_us = 20000;
    uint64_t clock = 0;
    o.wall_us = tick_clock;
    o.wall_user = &clock;
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_region_new(&o, &r, &err), GSVM_OK);
    capture c = {r, 0, "", 0};
    gsvm_lsl_region_set_output(r, cap_out, &c);
    uint32_t prim;
    float pos[3] = {1, 1, 1};
    gsvm_lsl_region_add_object(r, "spinner", OWNER1, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "spin.lsl", gsvm_lsl_program_of3(spin), &err);
    gsvm_lsl_region_add_object(r, "greeter", OWNER2, NULL, pos, &prim, &err);
    gsvm_lsl_region_add_script(r, prim, "hello.lsl", gsvm_lsl_program_of3(hello), &err);
    CHECK_INT(gsvm_lsl_region_advance(r, 0, &err), GSVM_OK); /* frame 0 */
    gsvm_lsl_region_stats st;
    gsvm_lsl_region_get_stats(r, &st);
    CHECK_INT(st.frames, 1);
    CHECK_INT(st.slices, 6); /* spinner, greeter, then four more of the spinner */
    CHECK(st.instructions >= 5 * 512 && st.instructions < 5 * 512 + 64); /* 512 a spinner slice */
    CHECK_INT(clock, 24000);
    CHECK_INT(c.lines, 1);
    CHECK_STR(c.last, "{\"object\":\"greeter\",\"script\":\"hello.lsl\",\"host\":\"llOwnerSay\",\"args\":[\"hello\"]}");
    gsvm_lsl_region_free(r);
    gsvm_lsl3_program_free(spin);
    gsvm_lsl3_program_free(hello);
}

static void test_bad_input(void)
{
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_lsl_region_new(NULL, &r, &err);
    float pos[3] = {0, 0, 0};
    CHECK_INT(gsvm_lsl_region_add_object(r, "x", "not a key", NULL, pos, NULL, &err), GSVM_ERR_INPUT);
    CHECK_INT(gsvm_lsl_region_add_object(r, "x", OWNER1, NULL, pos, NULL, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl_region_add_object(r, "x", OWNER1, NULL, pos, NULL, &err), GSVM_ERR_INPUT);
    json_t *l = json_pack("{s:{s:s}}", "teleport", "object", "x");
    CHECK_INT(gsvm_lsl_region_apply(r, l, "t.jsonl", 7, &err), GSVM_ERR_INPUT);
    CHECK_INT(err.line, 7);
    json_decref(l);
    l = json_pack("{s:{s:s,s:s}}", "touch", "object", "nobody", "avatar", OWNER1);
    CHECK_INT(gsvm_lsl_region_apply(r, l, "t.jsonl", 8, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "nobody") != NULL);
    json_decref(l);
    l = json_pack("{s:{s:s,s:s}}", "dataserver", "request", OWNER1, "data", "x");
    CHECK_INT(gsvm_lsl_region_apply(r, l, "t.jsonl", 9, &err), GSVM_ERR_INPUT);
    json_decref(l);
    gsvm_lsl_region_free(r);
    gsvm_lsl_region_opts o;
    gsvm_lsl_region_opts_default(&o);
    o.frames_per_second = 0;
    CHECK_INT(gsvm_lsl_region_new(&o, &r, &err), GSVM_ERR_USAGE);
}


/* The per-VM queries a region needs (gsvm/lsl.h): the running event and its
 * tag, queue length, next deadline, state, listens, globals by name; and a
 * host answering with the wrong type is named in the fault. */
static gsvm_status wrong_host(void *user, const char *name, const json_t *args, json_t **result, gsvm_error *err)
{
    (void)user, (void)args, (void)err;
    *result = strcmp(name, "llGetPos") == 0 ? json_string("not a vector") : NULL;
    return GSVM_OK;
}

static void test_vm_queries(void)
{
    gsvm_lsl3_program *p = compile(
        "integer count = 5; string who = \"x\";\n"
        "default { state_entry() { llListen(3, \"Bob\", NULL_KEY, \"hi\"); llSetTimerEvent(2.0); }\n"
        "  touch_start(integer n) { count += n; if (count > 100) state open; } }\n"
        "state open { state_entry() { llOwnerSay((string)llGetPos()); } }\n");
    gsvm_lsl3_vm *vm;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl3_vm_new(p, &vm, &err), GSVM_OK);
    gsvm_lsl3_vm_set_host(vm, wrong_host, NULL);
    uint32_t tag = 99;
    CHECK(gsvm_lsl3_vm_current_event(vm, &tag) == NULL);
    CHECK_INT(tag, 0);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1000), GSVM_LSL_FINISHED);
    CHECK_STR(gsvm_lsl3_vm_current_event(vm, NULL), "state_entry");
    CHECK_STR(gsvm_lsl3_vm_state(vm), "default");
    uint64_t at = 0;
    CHECK(gsvm_lsl3_vm_next_deadline(vm, &at));
    CHECK_INT(at, 2000);
    CHECK_INT(gsvm_lsl3_vm_listen_count(vm), 1);
    gsvm_lsl3_listen_info li;
    CHECK(gsvm_lsl3_vm_listen(vm, 0, &li));
    CHECK_INT(li.channel, 3);
    CHECK_STR(li.name, "Bob");
    CHECK_STR(li.msg, "hi");
    CHECK_STR(li.key, "");
    CHECK(!gsvm_lsl3_vm_listen(vm, 1, &li));
    json_t *a1 = json_pack("[i]", 1), *a200 = json_pack("[i]", 200);
    bool q;
    CHECK_INT(gsvm_lsl3_vm_post_tagged(vm, "touch_start", a1, 7, &q, &err), GSVM_OK);
    CHECK(q);
    CHECK_INT(gsvm_lsl3_vm_post_tagged(vm, "touch_start", a200, 8, &q, &err), GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_queue_length(vm), 2);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 2), GSVM_LSL_YIELDED); /* inside the first touch, before its store */
    CHECK_STR(gsvm_lsl3_vm_current_event(vm, &tag), "touch_start");
    CHECK_INT(tag, 7);
    CHECK_INT(gsvm_lsl3_vm_queue_length(vm), 1);
    json_t *g = gsvm_lsl3_vm_global_by_name(vm, "count");
    CHECK_INT(json_integer_value(g), 5);
    json_decref(g);
    CHECK(gsvm_lsl3_vm_global_by_name(vm, "nobody") == NULL);
    /* the second touch changes state, whose state_entry gets a string for llGetPos */
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1000), GSVM_LSL_ERROR);
    CHECK_STR(gsvm_lsl3_vm_state(vm), "open");
    CHECK(strstr(gsvm_lsl3_vm_fault(vm), "llGetPos") != NULL);
    g = gsvm_lsl3_vm_global_by_name(vm, "count");
    CHECK_INT(json_integer_value(g), 206);
    json_decref(g);
    json_decref(a1);
    json_decref(a200);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
}

/* Programs of both ABIs go into a region through the same calls: an ABI-2
 * program (the document's VM) and an ABI-3 one, each compiled by
 * gsvm_lsl_compile_with and released at once (the region holds its own
 * references), answer the same touches alike; the same program added
 * twice is stored once. */
static void test_programs_of_both_abis(void)
{
    static const char src[] = "default { touch_start(integer n) { llOwnerSay(\"ding \" + (string)n); } }";
    gsvm_lsl_region *r;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_lsl_region_new(NULL, &r, &err), GSVM_OK);
    capture c = {r, 0, "", 0};
    gsvm_lsl_region_set_output(r, cap_out, &c);
    float pos[3] = {5, 5, 5};
    const char *ids[2] = {"bell2", "bell3"};
    for (int abi = 2; abi <= 3; abi++) {
        gsvm_lsl_compile_opts o = {.abi = abi};
        gsvm_lsl_program *p = NULL;
        uint32_t prim;
        CHECK_INT(gsvm_lsl_compile_with(src, strlen(src), "bell.lsl", &o, &p, &err), GSVM_OK);
        CHECK_INT(gsvm_lsl_region_add_object(r, ids[abi - 2], OWNER1, NULL, pos, &prim, &err), GSVM_OK);
        CHECK_INT(gsvm_lsl_region_add_script(r, prim, "bell.lsl", p, &err), GSVM_OK);
        CHECK_INT(gsvm_lsl_region_add_program(r, p, &err), GSVM_OK); /* already stored */
        gsvm_lsl_program_release(p);
    }
    gsvm_lsl_region_stats st;
    gsvm_lsl_region_get_stats(r, &st);
    CHECK_INT(st.programs, 2);
    CHECK_INT(st.scripts, 2);
    CHECK_INT(gsvm_lsl_region_advance(r, 100, &err), GSVM_OK);
    for (int k = 0; k < 2; k++) {
        json_t *t = json_pack("{s:{s:s,s:s,s:s}}", "touch", "object", ids[k], "avatar", OWNER2, "name", "Bob");
        CHECK_INT(gsvm_lsl_region_apply(r, t, "t.jsonl", 1, &err), GSVM_OK);
        json_decref(t);
        c.lines = 0;
        CHECK_INT(gsvm_lsl_region_advance(r, 100, &err), GSVM_OK);
        CHECK_INT(c.lines, 1);
        char want[160];
        snprintf(want, sizeof want,
                 "{\"object\":\"%s\",\"script\":\"bell.lsl\",\"host\":\"llOwnerSay\",\"args\":[\"ding 1\"]}",
                 ids[k]);
        CHECK_STR(c.last, want);
    }
    gsvm_lsl_region_free(r);
}

int main(void)
{
    test_programs_of_both_abis();
    test_vm_queries();
    test_world_shares_programs();
    test_idle_scripts_cost_nothing();
    test_host_allocator();
    test_program_refcount();
    test_round_robin_and_budgets();
    test_busy_loops_delay_nobody();
    test_wall_guard();
    test_bad_input();
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}
