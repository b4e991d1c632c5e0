/* What the headers promise about threads, exercised: four threads run every
 * engine at once and must each get exactly what one thread alone gets.
 *
 * Shared between the threads, as the headers allow: one compiled LSL
 * program (each thread its own VMs, with a snapshot moved between them),
 * one Pathologic program and one natives stack (each thread its own sims).
 * Per thread: HavokScript chunks and VMs, missions (whose wall-clock
 * watchdog is the one piece the process shares).  Under ASan a corruption
 * shows as a report; a race that changes a result fails the comparison. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#ifdef GSVM_WITH_LSL
#include "gsvm/lsl.h"
#endif
#ifdef GSVM_WITH_HKS
#include "gsvm/hks.h"
#endif
#ifdef GSVM_WITH_PATHO
#include "gsvm/patho_host.h"
#endif
#ifdef GSVM_WITH_MISSION
#include "gsvm/mission.h"
#endif

enum { THREADS = 4, ROUNDS = 3 };

/* FNV-1a over everything a run produced. */
static void mix(uint64_t *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ p[i]) * 0x100000001b3ull;
}

#ifdef GSVM_WITH_LSL
static gsvm_lsl_program *lsl_prog;
static const char lsl_src[] =
    "integer count = 0;\n"
    "default {\n"
    "  state_entry() { llOwnerSay(\"ready\"); }\n"
    "  touch_start(integer n) { count = count + n; llSay(0, \"touched \" + (string)count); }\n"
    "}\n";

static gsvm_status lsl_host(void *user, const char *name, const gsvm_lsl_hostval *args, size_t argc,
                            gsvm_lsl_hostval *result, bool *has_result, gsvm_error *err)
{
    (void)result;
    (void)err;
    *has_result = false;
    mix(user, name, strlen(name));
    if (argc && args[argc - 1].type == GSVM_LSL_STRING)
        mix(user, args[argc - 1].str, args[argc - 1].len);
    return GSVM_OK;
}

static uint64_t lsl_run(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    gsvm_error err;
    gsvm_lsl_vm *vm, *moved;
    if (gsvm_lsl_vm_new(lsl_prog, &vm, &err) != GSVM_OK)
        return 0;
    gsvm_lsl_vm_set_host(vm, lsl_host, &h);
    gsvm_lsl_vm_dispatch(vm, "state_entry", NULL, 0, &err);
    while (gsvm_lsl_vm_run(vm, 8) == GSVM_LSL_YIELDED)
        ;
    for (int i = 1; i <= 40; i++) {
        gsvm_lsl_hostval n = {GSVM_LSL_INTEGER, i, NULL, 0};
        gsvm_lsl_vm_dispatch(vm, "touch_start", &n, 1, &err);
        while (gsvm_lsl_vm_run(vm, 8) == GSVM_LSL_YIELDED)
            ;
        if (i == 20) { /* move the script to a fresh VM */
            uint8_t *snap;
            size_t len;
            if (gsvm_lsl_vm_snapshot(vm, &snap, &len, &err) != GSVM_OK ||
                gsvm_lsl_vm_new(lsl_prog, &moved, &err) != GSVM_OK)
                return 0;
            gsvm_status st = gsvm_lsl_vm_restore(moved, snap, len, "snap", &err);
            free(snap);
            gsvm_lsl_vm_free(vm);
            if (st != GSVM_OK)
                return 0;
            vm = moved;
            gsvm_lsl_vm_set_host(vm, lsl_host, &h);
        }
    }
    uint64_t total = gsvm_lsl_vm_total(vm);
    mix(&h, &total, sizeof total);
    gsvm_lsl_vm_free(vm);
    return h;
}
#endif

#ifdef GSVM_WITH_HKS
static const char hks_src[] =
    "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
    "local t = {}\n"
    "for i = 1, 200 do t[#t + 1] = tostring(fib(i % 15)) end\n"
    "result = table.concat(t, ',')\n"
    "function get() return result end\n";

static uint64_t hks_run(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    gsvm_error err;
    gsvm_hks_compile_options o;
    gsvm_hks_compile_preset("doubles", &o);
    o.chunkname = "@t.lua";
    o.file = "t.lua";
    gsvm_hks_chunk *c;
    if (gsvm_hks_compile(hks_src, strlen(hks_src), &o, &c, &err) != GSVM_OK)
        return 0;
    gsvm_hks_vm_options vo;
    memset(&vo, 0, sizeof vo);
    gsvm_hks_vm *vm;
    if (gsvm_hks_vm_new(&vo, &vm, &err) != GSVM_OK) {
        gsvm_hks_chunk_free(c);
        return 0;
    }
    bool done = false;
    if (gsvm_hks_vm_load(vm, c, &err) == GSVM_OK)
        while (!done && gsvm_hks_vm_run(vm, 500, &done, &err) == GSVM_OK)
            ;
    gsvm_hks_value res;
    int n = 0;
    if (done && gsvm_hks_vm_call(vm, "get", NULL, 0, &res, 1, &n, &err) == GSVM_OK && n == 1 &&
        res.type == GSVM_HKS_V_STRING)
        mix(&h, res.s, res.len);
    else
        h = 0;
    uint64_t steps = gsvm_hks_vm_steps(vm);
    mix(&h, &steps, sizeof steps);
    gsvm_hks_vm_free(vm);
    return h;
}
#endif

#ifdef GSVM_WITH_PATHO
static gsvm_patho_program *patho_prog;
static gsvm_patho_natives *patho_natives;
static const char patho_lst[] =
    ".layout hd\n"
    ".import Trace 1\n.import Sleep 1\n.import Hold 0\n.import StopGroup0 0\n"
    ".entry 0 main\n"
    ".task 0 params=0 vars=(int)\n"
    "    .on 10 on_use (object)\n"
    ".code\n"
    "main:\n    TMovI t0, 0\n"
    "loop:\n    PushF 0.5\n    Func Sleep(s1)\n    Pop 1\n    PushI 30\n    LT t0, s1, pop=1\n"
    "    JumpB s1, done, 0, pop=1\n    Func Hold()\n    Jump loop\n"
    "done:\n    PushS \"done\"\n    Func Trace(s1)\n    Return 1\n"
    "on_use:\n    PushI 1\n    Add2 t0, s1, t0, pop=1\n    PushS \"used\"\n    Func Trace(s1)\n"
    "    Func StopGroup0()\n    Return 1\n";

static void patho_emit(void *user, const char *line, size_t len) { mix(user, line, len); }

static uint64_t patho_run(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    gsvm_error err;
    gsvm_patho_sim_opts o = {patho_natives, 0, 0, patho_emit, &h};
    gsvm_patho_sim *sim;
    if (gsvm_patho_sim_new(patho_prog, "t.bin", &o, &sim, &err) != GSVM_OK)
        return 0;
    gsvm_patho_sim_start(sim);
    for (int i = 0; i < 40; i++) {
        gsvm_patho_value who = gsvm_patho_object(7);
        gsvm_patho_event_result r;
        gsvm_patho_sim_event(sim, 10, &who, 1, &r);
        for (int f = 0; f < 30; f++)
            gsvm_patho_sim_advance(sim, 20);
    }
    gsvm_patho_sim_outcome out = gsvm_patho_sim_outcome_of(sim);
    mix(&h, &out, sizeof out);
    gsvm_patho_sim_free(sim);
    return out == GSVM_PATHO_SIM_FINISHED ? h : 0; /* 30 uses end the script */
}
#endif

#ifdef GSVM_WITH_MISSION
static const char mission_src[] =
    "return {\n"
    "  on_start = function(c) c:set_variable('n', 0) c:start_timer('t', 100) end,\n"
    "  on_event_session_joined = function(c, st, ev)\n"
    "    c:set_variable('n', st:variable('n') + 1)\n"
    "    c:set_variable('last', ev.member_key)\n"
    "  end,\n"
    "  on_event_timer_elapsed = function(c, st, ev) c:set_phase(st.phase + 1) c:start_timer('t', 100) end,\n"
    "}\n";

static uint64_t mission_run(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    gsvm_error err;
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    cfg.activity_id = "threads";
    gsvm_mission *m;
    if (gsvm_mission_open(&cfg, mission_src, strlen(mission_src), &m, &err) != GSVM_OK)
        return 0;
    for (int i = 0; i < 30; i++) {
        char who[16];
        snprintf(who, sizeof who, "p%d", i);
        gsvm_mission_field f = {"member_key", {.type = GSVM_MV_STR, .s = who, .len = strlen(who)}};
        gsvm_mission_report(m, "session_joined", &f, 1, &err);
        gsvm_mission_advance(m, 50, &err);
    }
    uint64_t rec[3] = {gsvm_mission_phase(m), gsvm_mission_revision(m), gsvm_mission_faulted(m)};
    mix(&h, rec, sizeof rec);
    gsvm_mission_value v;
    bool last = gsvm_mission_variable(m, "last", &v) && v.type == GSVM_MV_STR && v.len == 3 &&
                memcmp(v.s, "p29", 3) == 0;
    if (last)
        mix(&h, v.s, v.len);
    gsvm_mission_close(m);
    return last && !rec[2] ? h : 0; /* every report committed, no fault */
}
#endif

enum { E_LSL, E_HKS, E_PATHO, E_MISSION, E_COUNT };

static void run_all(uint64_t out[E_COUNT])
{
    memset(out, 0, E_COUNT * sizeof *out);
#ifdef GSVM_WITH_LSL
    out[E_LSL] = lsl_run();
#endif
#ifdef GSVM_WITH_HKS
    out[E_HKS] = hks_run();
#endif
#ifdef GSVM_WITH_PATHO
    out[E_PATHO] = patho_run();
#endif
#ifdef GSVM_WITH_MISSION
    out[E_MISSION] = mission_run();
#endif
}

typedef struct worker {
    pthread_t t;
    uint64_t got[ROUNDS][E_COUNT];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < ROUNDS; r++)
        run_all(w->got[r]);
    return NULL;
}

int main(void)
{
    gsvm_error err;
    (void)err; /* a build of engines that compile nothing here */
#ifdef GSVM_WITH_LSL
    CHECK(gsvm_lsl_compile(lsl_src, strlen(lsl_src), "t.lsl", &lsl_prog, &err) == GSVM_OK);
#endif
#ifdef GSVM_WITH_PATHO
    CHECK(gsvm_patho_asm(patho_lst, strlen(patho_lst), "t.lst", GSVM_PATHO_LAYOUT_AUTO, &patho_prog, &err) ==
          GSVM_OK);
    CHECK(gsvm_patho_natives_new(true, &patho_natives, &err) == GSVM_OK);
#endif
    if (test_failed)
        TEST_MAIN_END();
    uint64_t want[E_COUNT];
    run_all(want); /* one thread alone */
    static const char *const names[E_COUNT] = {"lsl", "hks", "patho", "mission"};
    for (int e = 0; e < E_COUNT; e++)
        printf("%s: %016llx\n", names[e], (unsigned long long)want[e]);
#ifdef GSVM_WITH_LSL
    CHECK(want[E_LSL] != 0);
#endif
#ifdef GSVM_WITH_HKS
    CHECK(want[E_HKS] != 0);
#endif
#ifdef GSVM_WITH_PATHO
    CHECK(want[E_PATHO] != 0);
#endif
#ifdef GSVM_WITH_MISSION
    CHECK(want[E_MISSION] != 0);
#endif
    static worker w[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&w[i].t, NULL, work, &w[i]) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(w[i].t, NULL);
    for (int i = 0; i < THREADS; i++)
        for (int r = 0; r < ROUNDS; r++)
            for (int e = 0; e < E_COUNT; e++)
                if (w[i].got[r][e] != want[e]) {
                    fprintf(stderr, "thread %d round %d: %s gave %016llx, alone %016llx\n", i, r, names[e],
                            (unsigned long long)w[i].got[r][e], (unsigned long long)want[e]);
                    test_failed++;
                } else {
                    test_passed++;
                }
#ifdef GSVM_WITH_LSL
    gsvm_lsl_program_free(lsl_prog);
#endif
#ifdef GSVM_WITH_PATHO
    gsvm_patho_natives_free(patho_natives);
    gsvm_patho_free(patho_prog);
#endif
    TEST_MAIN_END();
}
