/* No-op callbacks through the library API (bench/bench_mission.sh, figure 2
 * of issue 11: >= 300,000 per second).  Each shape runs N callbacks on one
 * in-memory mission; the shapes and a reference are interleaved round by
 * round and each figure is the median over the rounds, in CPU time (the
 * thread's own, which other processes on a busy machine disturb least) and
 * in wall time:
 *   event   an event handler with an empty body (session_joined, no fields)
 *   fields  the same handler, the report carrying three fields
 *   reads   an event handler that reads the record three times and one field
 *   timer   a timer handler that re-arms its timer (one clock advance per
 *           callback: the timer's removal and re-arming commit each time)
 *   packet  16 reports per gsvm_mission_report_packet call
 *   lua     the reference: stock Lua 5.4 calling the same empty function
 *           through lua_pcall with three arguments (no sandbox, no limits,
 *           no transaction): the floor any runtime built on Lua pays.
 * Usage: mission_bench_callbacks [N [ROUNDS [SHAPE]]] (defaults 200000 5, every
 * shape; one SHAPE alone is for a profiler). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "gsvm/mission.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, const gsvm_error *err)
{
    fprintf(stderr, "mission_bench_callbacks: %s: %s\n", what, err ? err->message : "failed");
    exit(1);
}

static const char event_src[] = "return { on_event_session_joined = function(context, state, event) end }\n";
static const char reads_src[] =
    "return {\n"
    "  on_start = function(context, state) context:set_variable('a', 1) end,\n"
    "  on_event_session_joined = function(context, state, event)\n"
    "    local a = state:variable('a')\n"
    "    local b = state:has_variable('b')\n"
    "    local t = state:timer('t')\n"
    "    local s = event.sequence\n"
    "  end,\n"
    "}\n";
static const char timer_src[] =
    "return {\n"
    "  on_start = function(context, state) context:start_timer('t', 0) end,\n"
    "  on_event_timer_elapsed = function(context, state, event) context:start_timer('t', 0) end,\n"
    "}\n";

enum { S_EVENT, S_FIELDS, S_READS, S_TIMER, S_PACKET, S_LUA, S_COUNT };
static const char *const shape_names[S_COUNT] = {"event", "fields", "reads", "timer", "packet", "lua"};

static gsvm_mission *open_mission(const char *src)
{
    gsvm_mission_config cfg;
    gsvm_mission_config_init(&cfg);
    gsvm_mission *m;
    gsvm_error err;
    if (gsvm_mission_open(&cfg, src, strlen(src), &m, &err) != GSVM_OK)
        die("open", &err);
    /* on_start runs on the first tick after the (empty) initial state. */
    if (gsvm_mission_advance(m, gsvm_mission_tick_ms(m), &err) != GSVM_OK)
        die("advance", &err);
    return m;
}

static void check(gsvm_mission *m, uint64_t before, uint64_t want)
{
    if (gsvm_mission_faulted(m)) {
        fprintf(stderr, "mission_bench_callbacks: faulted: %s\n", gsvm_mission_fault_text(m));
        exit(1);
    }
    if (gsvm_mission_callbacks_run(m) - before != want) {
        fprintf(stderr, "mission_bench_callbacks: %llu callbacks ran, %llu wanted\n",
                (unsigned long long)(gsvm_mission_callbacks_run(m) - before), (unsigned long long)want);
        exit(1);
    }
}

/* Runs N callbacks of one shape; the time of the calls only (opening and
 * closing the mission are outside). */
static void run_shape(int shape, long n, double *cpu, double *wall)
{
    gsvm_error err;
    if (shape == S_LUA) {
        lua_State *L = luaL_newstate();
        luaL_openlibs(L);
        if (luaL_dostring(L, event_src) != LUA_OK)
            die("lua reference", NULL);
        lua_getfield(L, -1, "on_event_session_joined");
        int ref = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_newtable(L);
        lua_newtable(L);
        lua_newuserdatauv(L, 16, 0);
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        for (long i = 0; i < n; i++) {
            lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
            lua_pushvalue(L, 1);
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            if (lua_pcall(L, 3, 0, 0) != LUA_OK)
                die("lua reference call", NULL);
        }
        *cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        *wall = clock_s(CLOCK_MONOTONIC) - w0;
        lua_close(L);
        return;
    }
    gsvm_mission *m = open_mission(shape == S_READS ? reads_src : shape == S_TIMER ? timer_src : event_src);
    uint64_t before = gsvm_mission_callbacks_run(m);
    gsvm_mission_field fields[3] = {
        {"member_key", {.type = GSVM_MV_STR, .s = "member-0001", .len = 11}},
        {"role", {.type = GSVM_MV_INT, .i = 2}},
        {"ready", {.type = GSVM_MV_BOOL, .b = true}},
    };
    gsvm_mission_report_item items[16];
    for (int i = 0; i < 16; i++)
        items[i] = (gsvm_mission_report_item){"session_joined", NULL, 0};
    uint32_t tick = gsvm_mission_tick_ms(m);
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    long done = 0;
    while (done < n) {
        gsvm_status st = GSVM_OK;
        switch (shape) {
        case S_EVENT:
        case S_READS: st = gsvm_mission_report(m, "session_joined", NULL, 0, &err); done++; break;
        case S_FIELDS: st = gsvm_mission_report(m, "session_joined", fields, 3, &err); done++; break;
        case S_TIMER: st = gsvm_mission_advance(m, tick, &err); done++; break;
        case S_PACKET:
            st = gsvm_mission_report_packet(m, items, 16, &err);
            done += 16;
            break;
        }
        if (st != GSVM_OK)
            die(shape_names[shape], &err);
    }
    *cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    *wall = clock_s(CLOCK_MONOTONIC) - w0;
    check(m, before, (uint64_t)done);
    gsvm_mission_close(m);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 16 || rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: mission_bench_callbacks [N>=16 [ROUNDS 1..100]]\n");
        return 2;
    }
    n -= n % 16;
    int only = -1;
    for (int s = 0; argc > 3 && s < S_COUNT; s++)
        if (strcmp(argv[3], shape_names[s]) == 0)
            only = s;
    if (argc > 3 && only < 0) {
        fprintf(stderr, "mission_bench_callbacks: unknown shape '%s'\n", argv[3]);
        return 2;
    }
    static double cpu[S_COUNT][100], wall[S_COUNT][100];
    for (int r = 0; r < rounds; r++)
        for (int s = 0; s < S_COUNT; s++)
            if (only < 0 || s == only || s == S_LUA)
                run_shape(s, n, &cpu[s][r], &wall[s][r]);
    double ref_cpu = median(cpu[S_LUA], rounds);
    printf("library: %ld callbacks per shape, median of %d interleaved rounds\n", n, rounds);
    for (int s = 0; s < S_COUNT; s++) {
        if (only >= 0 && s != only && s != S_LUA)
            continue;
        double c = median(cpu[s], rounds), w = median(wall[s], rounds);
        printf("figure 2 (library, %s): %.0f callbacks/s cpu, %.0f wall, %.3f us each cpu, %.1fx the lua "
               "pcall reference%s\n",
               shape_names[s], n / c, n / w, c / n * 1e6, c / ref_cpu,
               s == S_LUA ? "" : n / c >= 300000 ? " (target >= 300000: met)" : " (target >= 300000: NOT met)");
    }
    return 0;
}
