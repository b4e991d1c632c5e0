/* A hostile mission author against the runtime: the eight breakages of
 * issue 11 (each of which crashed, stalled or bloated the host, or lost
 * data, before the fix) and their neighbours.  Every case asserts what the
 * host sees: the process lives, the mission faults or commits as it must,
 * other missions go on, and nothing is stored that the script did not ask
 * for. */
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "mission/internal.h" /* ms_test_unprotected, gsvm_mission.L */

static char dir[256];
static gsvm_mission_world *worlds[16];
static int nworlds;

static gsvm_mission *open_cfg(const char *src, gsvm_mission_config *cfg)
{
    gsvm_error err;
    gsvm_mission *m = open_with(src, cfg, &err);
    if (!m)
        fprintf(stderr, "open failed: %s\n", err.message);
    return m;
}

/* The harness's configuration with what a case changes: the budget and the
 * wall limit (0 keeps the default), the state file and the world (NULL:
 * none).  Every case that needs other limits starts here. */
static gsvm_mission_config hostile_config(rec_host *h, uint64_t budget, uint32_t wall_ms, const char *db,
                                          const gsvm_mission_world *w)
{
    gsvm_mission_config cfg;
    harness_config(&cfg, h);
    if (budget)
        cfg.callback_budget = budget;
    if (wall_ms)
        cfg.callback_wall_ms = wall_ms;
    cfg.state_path = db;
    cfg.world = w;
    return cfg;
}

/* An unbounded budget, so only the wall guard can stop the callback. */
#define NO_BUDGET (UINT64_C(1) << 60)

/* Runs `body` as the session_joined handler under the default limits (or
 * `cfg`), one report; the caller closes. */
static gsvm_mission *run_one(const char *body, rec_host *h, gsvm_mission_config *cfg_in)
{
    static char src[16384];
    snprintf(src, sizeof src, "return { on_event_session_joined = function(c, st, ev)\n%s\nend }", body);
    /* Budget cases get a long wall limit: a busy machine must not turn them into time faults. */
    gsvm_mission_config cfg = cfg_in ? *cfg_in : hostile_config(h, 0, 600000, NULL, NULL);
    gsvm_mission *m = open_cfg(src, &cfg);
    if (m)
        report(m, "session_joined");
    return m;
}

static void expect_fault_with(const char *body, gsvm_mission_config *cfg, const char *want)
{
    rec_host h;
    gsvm_mission *m = run_one(body, &h, cfg);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK(gsvm_mission_faulted(m));
    if (!strstr(gsvm_mission_fault_text(m), want)) {
        fprintf(stderr, "  body: %.200s\n  fault: '%s', want '%s'\n", body, gsvm_mission_fault_text(m), want);
        CHECK(!"fault text");
    }
    CHECK_INT(gsvm_mission_variable_count(m), 0);
    gsvm_mission_close(m);
}

/* ---- 1. a full arena faults the mission, never the process ---- */

/* Every callback keeps a new table holding the event handle, so nothing
 * becomes garbage and the arena fills by a fixed amount per callback.
 * Across a range of arena caps the allocation that fails falls on every
 * byte of a callback's pattern once, including the event handle the
 * runtime allocates before the script runs (which aborted the process) and
 * the capture of the program while opening.  Meanwhile another mission of
 * the same process keeps working. */
static const char keeper[] =
    "keep = nil\n"
    "return { on_event_session_joined = function(c, st, ev) keep = {prev = keep, ev = ev} end }";

static void test_arena_full(void)
{
    rec_host oh;
    gsvm_mission *other = open_src("return { on_event_session_joined = function(c, st)\n"
                                   " c:set_variable('n', (st:variable('n') or 0) + 1) end }",
                                   &oh);
    CHECK(other != NULL);
    if (!other)
        return;
    /* The smallest arena the script opens in (a binary search, which also
     * fails allocations at every point of the opening). */
    size_t lo = 4096, hi = 8u << 20;
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        rec_host h;
        gsvm_mission_config cfg = hostile_config(&h, 0, 0, NULL, NULL);
        cfg.arena_bytes = mid;
        gsvm_error err;
        gsvm_mission *m = open_with(keeper, &cfg, &err);
        if (m)
            hi = mid;
        else
            lo = mid;
        gsvm_mission_close(m);
    }
    /* Open failures just below the minimum: every one an error, no crash. */
    int open_failures = 0;
    for (size_t cap = hi - 300; cap < hi; cap++) {
        rec_host h;
        gsvm_mission_config cfg = hostile_config(&h, 0, 0, NULL, NULL);
        cfg.arena_bytes = cap;
        gsvm_error err;
        gsvm_mission *m = open_with(keeper, &cfg, &err);
        open_failures += m == NULL;
        gsvm_mission_close(m);
    }
    CHECK_INT(open_failures, 300);
    int faulted = 0, probes = 0;
    for (size_t cap = hi + 8192; cap < hi + 8192 + 400; cap++) {
        rec_host h;
        gsvm_mission_config cfg = hostile_config(&h, 0, 0, NULL, NULL);
        cfg.arena_bytes = cap;
        gsvm_mission *m = open_cfg(keeper, &cfg);
        CHECK(m != NULL);
        if (!m)
            break;
        probes++;
        for (int i = 0; i < 400 && !gsvm_mission_faulted(m); i++)
            report(m, "session_joined");
        if (gsvm_mission_faulted(m)) {
            faulted++;
            if (!strstr(gsvm_mission_fault_text(m), "not enough memory"))
                fprintf(stderr, "  cap %zu: fault '%s'\n", cap, gsvm_mission_fault_text(m));
            CHECK(strstr(gsvm_mission_fault_text(m), "not enough memory") != NULL);
            CHECK(gsvm_mission_memory_used(m) <= cap);
        }
        gsvm_mission_close(m);
        report(other, "session_joined");
    }
    CHECK_INT(faulted, probes);
    CHECK(!gsvm_mission_faulted(other));
    CHECK_INT(var_int(other, "n"), probes);
    gsvm_mission_close(other);
}

/* ---- 1b. the panic handler: an error outside any protected call ----
 * The runtime allocates on a mission's state only inside lua_pcall, so no
 * script reaches Lua's panic; the test hook raises a memory error outside
 * any protected call (an allocation far past the arena) just before one
 * mission's callback.  Without the handler Lua aborts the process; with it
 * that mission faults, its callback commits nothing, its state is gone
 * (reports are refused, no crash), and the process goes on: another open
 * mission, a newly opened one, and the victim after reload_script. */
static lua_State *panic_victim;
static int panic_raised;

static void raise_unprotected(lua_State *L)
{
    if (L != panic_victim)
        return;
    panic_raised++;
    lua_newuserdatauv(L, (size_t)1 << 30, 0); /* refused: raises LUA_ERRMEM with no handler */
}

static void test_panic(void)
{
    static const char counter[] = "return { on_event_session_joined = function(c, st)\n"
                                  " c:set_variable('n', (st:variable('n') or 0) + 1) end }";
    rec_host vh, oh, fh;
    gsvm_mission *victim = open_src(counter, &vh), *other = open_src(counter, &oh);
    CHECK(victim && other);
    if (!victim || !other)
        return;
    report(victim, "session_joined");
    report(other, "session_joined");
    panic_victim = victim->L;
    ms_test_unprotected = raise_unprotected;
    report(victim, "session_joined");
    CHECK_INT(panic_raised, 1);
    /* The victim's Lua state is gone; a new one may get its address. */
    panic_victim = NULL;
    CHECK(gsvm_mission_faulted(victim));
    CHECK_STR(gsvm_mission_fault_text(victim), "mission Lua state panicked: not enough memory");
    CHECK_INT(vh.faults, 1);
    CHECK_INT(var_int(victim, "n"), 1); /* the panicked callback committed nothing */
    gsvm_error err;
    CHECK_INT(gsvm_mission_report(victim, "session_joined", NULL, 0, &err), GSVM_ERR_USAGE);
    CHECK(strstr(err.message, "not loaded") != NULL);
    for (int i = 0; i < 3; i++)
        report(other, "session_joined");
    CHECK(!gsvm_mission_faulted(other));
    CHECK_INT(var_int(other, "n"), 4);
    gsvm_mission *fresh = open_src(counter, &fh);
    CHECK(fresh != NULL);
    if (fresh) {
        report(fresh, "session_joined");
        CHECK_INT(var_int(fresh, "n"), 1);
        CHECK(!gsvm_mission_faulted(fresh));
    }
    ms_test_unprotected = NULL;
    panic_victim = NULL;
    CHECK_INT(gsvm_mission_reload_script(victim, NULL, 0, &err), GSVM_OK);
    CHECK(!gsvm_mission_faulted(victim));
    report(victim, "session_joined");
    CHECK_INT(var_int(victim, "n"), 2);
    gsvm_mission_close(fresh);
    gsvm_mission_close(other);
    gsvm_mission_close(victim);
}

/* ---- 6b. a chain of runtime events never stalls the host ----
 * Each callback within its limits may raise the event that runs the next:
 * set_phase in on_event_phase_entered, a request in on_event_effect_result
 * (the host accepts at once).  Before the per-tick bound one report never
 * returned.  Now a report runs at most GSVM_MISSION_CALLBACKS_PER_TICK
 * callbacks and every server tick as many again, in order, committing as
 * they go. */
static void test_event_chain(void)
{
    static const char *const chains[] = {
        "return { on_event_session_joined = function(c) c:set_phase(1) end,\n"
        " on_event_phase_entered = function(c, st, ev) c:set_phase(ev.phase % 2 + 1)\n"
        "   c:set_variable('n', (st:variable('n') or 0) + 1) end }",
        "return { on_event_session_joined = function(c) c.lifetime:set{state = 2} end,\n"
        " on_event_effect_result = function(c, st) c.lifetime:set{state = 2}\n"
        "   c:set_variable('n', (st:variable('n') or 0) + 1) end }",
    };
    for (int i = 0; i < 2; i++) {
        rec_host h;
        gsvm_mission *m = open_src(chains[i], &h);
        CHECK(m != NULL);
        if (!m)
            continue;
        report(m, "session_joined");
        CHECK(!gsvm_mission_faulted(m));
        CHECK_INT(gsvm_mission_callbacks_run(m), GSVM_MISSION_CALLBACKS_PER_TICK);
        long long n = var_int(m, "n");
        CHECK(n >= GSVM_MISSION_CALLBACKS_PER_TICK - 2 && n < GSVM_MISSION_CALLBACKS_PER_TICK);
        gsvm_error err;
        CHECK_INT(gsvm_mission_advance(m, 3 * (uint64_t)gsvm_mission_tick_ms(m), &err), GSVM_OK);
        CHECK_INT(gsvm_mission_callbacks_run(m), 4 * GSVM_MISSION_CALLBACKS_PER_TICK);
        CHECK_INT(var_int(m, "n"), n + 3 * GSVM_MISSION_CALLBACKS_PER_TICK);
        CHECK(!gsvm_mission_faulted(m));
        gsvm_mission_close(m);
    }
}

/* ---- 2. work inside one C call is charged by what it costs ---- */

static void test_c_call_cost(void)
{
    /* 4,000 references to one 1 MiB string: each comparison compares 1 MiB. */
    expect_fault_with("local s = string.rep('a', 1 << 20) local t = {}\n"
                      "for i = 1, 4000 do t[i] = s end table.sort(t) c:set_variable('ok', true)",
                      NULL, "mission instruction budget exhausted");
    /* With an unbounded budget the wall-clock guard stops it (1 s limit here 200 ms). */
    static const char time_limit[] = "mission callback exceeded its time limit";
    rec_host h;
    gsvm_mission_config cfg = hostile_config(&h, NO_BUDGET, 200, NULL, NULL);
    expect_fault_with("local s = string.rep('a', 1 << 20) local t = {}\n"
                      "for i = 1, 20000 do t[i] = s end table.sort(t) c:set_variable('ok', true)",
                      &cfg, time_limit);
    /* == and < of two distinct 16 MB strings: one instruction each; the
     * watchdog stops the loop at the deadline. */
    expect_fault_with("local a = string.rep('a', 16000000) local b = string.rep('a', 16000000)\n"
                      "while true do local x = a == b local y = a < b end",
                      &cfg, time_limit);
    /* tonumber of 25 MB of digits: strtod over every byte, charged by byte. */
    expect_fault_with("local s = string.rep('1', 25000000)\n"
                      "for i = 1, 10 do local x = tonumber(s) end c:set_variable('ok', true)",
                      NULL, "mission instruction budget exhausted");
    expect_fault_with("local s = string.rep('7', 25000000)\n"
                      "for i = 1, 10 do local x = math.floor(s) end c:set_variable('ok', true)",
                      NULL, "mission instruction budget exhausted");
    /* A string where a number is expected is converted in C (strtod over
     * every byte): through the string metatable's arithmetic, the counts
     * of string.rep/select/error/table.insert and string.format's numeric
     * conversions, each charged by its bytes like tonumber. */
    static const char *const numeral_uses[] = {
        "local x = s + 0", "local x = -s", "pcall(string.rep, 'x', s)", "pcall(select, s, 1)",
        "pcall(error, 'e', s)", "pcall(string.format, '%d', s)", "pcall(string.format, '%5.1f', s)",
        "pcall(table.insert, {}, s, 1)", "pcall(string.sub, 'abc', s)", "pcall(table.concat, {}, '', s)",
    };
    for (size_t i = 0; i < sizeof numeral_uses / sizeof numeral_uses[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "local s = string.rep('1', 25000000)\n"
                 "for i = 1, 40 do %s end c:set_variable('ok', true)",
                 numeral_uses[i]);
        expect_fault_with(body, NULL, "mission instruction budget exhausted");
    }
    /* A Lua comparator's `<` is one instruction the hook cannot charge by
     * its bytes: the watchdog stops the sort at the deadline. */
    cfg = hostile_config(&h, 0, 200, NULL, NULL);
    expect_fault_with("local s = string.rep('a', 1 << 20) local t = {}\n"
                      "for i = 1, 20000 do t[i] = s end table.sort(t, function(x, y) return x < y end)\n"
                      "c:set_variable('ok', true)",
                      &cfg, time_limit);
    /* string.format('%q') prints each control byte with snprintf: charged
     * one unit per byte quoted (6 MB of plain bytes exceed the budget,
     * where the buffer's allocations alone cost 200,000 units) ... */
    expect_fault_with("local t = string.format('%q', string.rep('a', 6000000)) c:set_variable('n', #t)",
                      NULL, "mission instruction budget exhausted");
    /* ... and with an unbounded budget the wall guard stops the one C call
     * inside it: past the deadline the allocator refuses the buffer's next
     * growth.  16 MB of NULs quote to 32 MB, which the 64 MiB arena cannot
     * hold next to the input and the buffer: a call run to its end faults
     * with "not enough memory" after a second or so of snprintf; the buffer's
     * last growth comes half-way, long after the 100 ms deadline. */
    cfg = hostile_config(&h, NO_BUDGET, 100, NULL, NULL);
    /* (The string is built while opening, so the callback's first
     * instructions run before the deadline and only the one call is late.) */
    gsvm_mission *m = open_cfg("local s = string.rep('\\0', 16000000)\n"
                 "return { on_event_session_joined = function(c)\n"
                 "  local t = string.format('%q', s) c:set_variable('n', #t) end }", &cfg);
    CHECK(m != NULL);
    if (m) {
        report(m, "session_joined");
        CHECK(gsvm_mission_faulted(m));
        CHECK_STR(gsvm_mission_fault_text(m), time_limit);
    }
    gsvm_mission_close(m);
    /* string.unpack('z') scans its data for a NUL: charged by the data's
     * bytes (40 scans of 8 MB), not by the one-byte format. */
    expect_fault_with("local s = string.rep('a', 8000000)\n"
                      "for i = 1, 40 do pcall(string.unpack, 'z', s) end c:set_variable('ok', true)",
                      NULL, "mission instruction budget exhausted");
    /* string.pack/unpack/packsize read their format option by option (tens
     * of ns each, 0.66 s for one pack of 30 MB of "x"): charged per format
     * byte, so a 4 MB format is refused before the call, and a small one
     * still works. */
    static const char *const formats[] = {
        "local f = string.rep('x', 4000000) local s = string.pack(f) c:set_variable('n', #s)",
        "local f = string.rep('x', 4000000) local v = string.unpack(f, string.rep('a', 4000000)) c:set_variable('n', v)",
        "local f = string.rep('!', 4000000) local n = string.packsize(f) c:set_variable('n', n)",
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        expect_fault_with(formats[i], NULL, "mission instruction budget exhausted");
    rec_host h3;
    m = run_one("local s = string.pack('<i4s1', 7, 'ab') local a, b = string.unpack('<i4s1', s)\n"
                "c:set_variable('n', a + string.packsize('<i4i2')) c:set_variable('s', b)",
                &h3, NULL);
    CHECK(m && !gsvm_mission_faulted(m));
    if (m) {
        CHECK_INT(var_int(m, "n"), 13);
        CHECK_STR(var_str(m, "s"), "ab");
    }
    gsvm_mission_close(m);
    /* Ordinary sorts still sort. */
    rec_host h2;
    m = run_one("local t = {'pear', 'apple', 'fig'} table.sort(t) c:set_variable('s', table.concat(t, ','))\n"
                "local u = {3, 1, 2} table.sort(u, function(a, b) return a > b end)\n"
                "c:set_variable('u', table.concat(u, ','))",
                &h2, NULL);
    CHECK(m && !gsvm_mission_faulted(m));
    if (m) {
        CHECK_STR(var_str(m, "s"), "apple,fig,pear");
        CHECK_STR(var_str(m, "u"), "3,2,1");
    }
    gsvm_mission_close(m);
}

/* ---- 3. a __len that answers differently twice ---- */

static void test_len_twice(void)
{
    static const char *const calls[] = {
        "table.remove(t, 1)", "table.insert(t, 1, 'x')", "table.sort(t)", "table.concat(t)",
        "table.unpack(t)",
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "local n = 0\n"
                 "local t = setmetatable({'a'}, {__len = function() n = n + 1 if n == 1 then return 1 end return 1 << 62 end})\n"
                 "%s c:set_variable('ok', n)",
                 calls[i]);
        rec_host h;
        gsvm_mission *m = run_one(body, &h, NULL);
        CHECK(m != NULL);
        if (!m)
            continue;
        if (gsvm_mission_faulted(m))
            fprintf(stderr, "  %s: fault %s\n", calls[i], gsvm_mission_fault_text(m));
        CHECK(!gsvm_mission_faulted(m));
        CHECK_INT(var_int(m, "ok"), 1); /* __len ran once */
        gsvm_mission_close(m);
    }
    /* The script's __len is back after the call (and after an error in it). */
    rec_host h;
    gsvm_mission *m = run_one("local t = setmetatable({3, 1, 2}, {__len = function() return 3 end})\n"
                              "pcall(table.sort, t, function(a, b) error('x') end)\n"
                              "table.sort(t) c:set_variable('len', #t) c:set_variable('s', table.concat(t, ','))",
                              &h, NULL);
    CHECK(m && !gsvm_mission_faulted(m));
    if (m) {
        CHECK_INT(var_int(m, "len"), 3);
        CHECK_STR(var_str(m, "s"), "1,2,3");
    }
    gsvm_mission_close(m);
}

/* ---- 4. and 5. request arguments: bounded, charged, byte-faithful ---- */

static const char squads_world[] = "{\"squads\": [{\"id\": \"wave1\"}]}";

static gsvm_mission *run_squad(const char *body, rec_host *h, const char *db, gsvm_mission_answer a)
{
    static char src[8192];
    snprintf(src, sizeof src, "return { on_event_session_joined = function(c, st, ev)\n%s\nend }", body);
    gsvm_mission_world *w = NULL;
    gsvm_error err;
    CHECK_INT(gsvm_mission_world_parse(squads_world, strlen(squads_world), "w", &w, &err), GSVM_OK);
    gsvm_mission_config cfg = hostile_config(h, 0, 600000, db, w);
    h->answer = a;
    gsvm_mission *m = open_cfg(src, &cfg);
    if (m)
        report(m, "session_joined");
    /* The world must outlive the mission: freed at the end of the test. */
    if (nworlds < 16)
        worlds[nworlds++] = w;
    return m;
}

static void test_request_args(void)
{
    /* Eight requests with a 24 MiB argument each: refused with a catchable error. */
    rec_host h;
    gsvm_mission *m = run_squad("local big = string.rep('x', 24 << 20) local refused = 0\n"
                                "for i = 1, 8 do\n"
                                "  local ok, e = pcall(function() c:squad('wave1'):actor_command{command = 'say', value = big} end)\n"
                                "  if not ok then refused = refused + 1 c:set_variable('e', e) end\n"
                                "end c:set_variable('refused', refused)",
                                &h, NULL, GSVM_MISSION_ACCEPT);
    if (m && gsvm_mission_faulted(m))
        fprintf(stderr, "  fault: %s\n", gsvm_mission_fault_text(m));
    CHECK(m && !gsvm_mission_faulted(m));
    if (m) {
        CHECK_INT(var_int(m, "refused"), 8);
        CHECK(strstr(var_str(m, "e"), "effect arguments exceed 8192 bytes") != NULL);
        CHECK_INT(h.requests, 0);
    }
    gsvm_mission_close(m);
    /* Under the bound, every byte is charged: 64 requests of 8 KB each cost
     * more than a budget of 100,000 instructions. */
    gsvm_mission_world *w = NULL;
    gsvm_error err;
    gsvm_mission_world_parse(squads_world, strlen(squads_world), "w", &w, &err);
    gsvm_mission_config cfg = hostile_config(&h, 100000, 0, NULL, w);
    m = open_cfg("return { on_event_session_joined = function(c)\n"
                 " local v = string.rep('y', 8000)\n"
                 " for i = 1, 60 do c:squad('wave1'):actor_command{command = 'say', value = v} end end }",
                 &cfg);
    CHECK(m != NULL);
    if (m) {
        report(m, "session_joined");
        CHECK(gsvm_mission_faulted(m));
        CHECK_STR(gsvm_mission_fault_text(m), "mission instruction budget exhausted");
        CHECK_INT(h.requests, 0);
    }
    gsvm_mission_close(m);
    gsvm_mission_world_free(w);
}

/* What the host is sent and what the store keeps are the request made. */
static void test_request_bytes(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/bytes.db", dir);
    rec_host h;
    /* A NUL byte travels as \u0000; the head request stalls, so it is in the store. */
    gsvm_mission *m = run_squad("c:squad('wave1'):place{mode = 'a\\0b', spawn_rule = {k = 'x\\0y'}}",
                                &h, db, GSVM_MISSION_STALL);
    CHECK(m && !gsvm_mission_faulted(m));
    if (!strstr(h.log, "{\"mode\":\"a\\u0000b\",\"spawn_rule\":{\"k\":\"x\\u0000y\"},\"squad\":\"wave1\"}"))
        fprintf(stderr, "  host saw: %s\n", h.log);
    CHECK(strstr(h.log, "{\"mode\":\"a\\u0000b\",\"spawn_rule\":{\"k\":\"x\\u0000y\"},\"squad\":\"wave1\"}") != NULL);
    gsvm_mission_close(m);
    sqlite3 *s;
    CHECK_INT(sqlite3_open(db, &s), SQLITE_OK);
    sqlite3_stmt *q;
    CHECK_INT(sqlite3_prepare_v2(s, "SELECT body FROM requests", -1, &q, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(q), SQLITE_ROW);
    const char *body = (const char *)sqlite3_column_text(q, 0);
    if (body && !strstr(body, "\"args\":{\"mode\":\"a\\u0000b\",\"spawn_rule\":{\"k\":\"x\\u0000y\"},\"squad\":\"wave1\"}"))
        fprintf(stderr, "  stored: %s\n", body);
    CHECK(body && strstr(body, "\"args\":{\"mode\":\"a\\u0000b\",\"spawn_rule\":{\"k\":\"x\\u0000y\"},\"squad\":\"wave1\"}"));
    sqlite3_finalize(q);
    sqlite3_close(s);
    /* Invalid UTF-8, in a value or a key, and keys that would collide in
     * JSON (1 and "1") are refused with an error the script can catch. */
    static const char *const bad[] = {
        "c:squad('wave1'):actor_command{command = '\\255'}",
        "c:squad('wave1'):actor_command{command = 'x', value = {['\\200k'] = 1}}",
        "c:squad('wave1'):actor_command{command = 'x', value = {['a\\0b'] = 1}}",
        "c:squad('wave1'):actor_command{command = 'x', value = {[1] = 1, ['1'] = 2}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body2[512];
        snprintf(body2, sizeof body2, "local ok, e = pcall(function() %s end) c:set_variable('ok', ok)", bad[i]);
        rec_host h2;
        m = run_squad(body2, &h2, NULL, GSVM_MISSION_ACCEPT);
        CHECK(m && !gsvm_mission_faulted(m));
        if (m) {
            if (var_int(m, "ok") != 0)
                fprintf(stderr, "  accepted: %s\n  host saw: %s\n", bad[i], h2.log);
            CHECK_INT(var_int(m, "ok"), 0);
            CHECK_INT(h2.requests, 0);
        }
        gsvm_mission_close(m);
    }
}

/* ---- 6. the clock: idle ticks are skipped; the bound is enforced ---- */

static void test_advance(void)
{
    rec_host h;
    /* A timer that re-arms itself every 4 * 10^9 ms (the longest delay is u32). */
    gsvm_mission *m = open_src("return { on_start = function(c) c:start_timer('far', 4000000000) end,\n"
                               " on_event_timer_elapsed = function(c, st, ev)\n"
                               "   c:set_variable('fired', (st:variable('fired') or 0) + 1)\n"
                               "   c:set_variable('at', ev.timer_deadline_tick) c:start_timer('far', 4000000000) end }",
                               &h);
    CHECK(m != NULL);
    if (!m)
        return;
    gsvm_error err;
    /* 10^12 ms is 2*10^10 ticks: only the 250 ticks of the timer run. */
    CHECK_INT(gsvm_mission_advance(m, 1000000000000ull, &err), GSVM_OK);
    CHECK_INT(var_int(m, "fired"), 250);
    CHECK_STR(var_str(m, "at"), "1000000000000");
    CHECK(gsvm_mission_now_ms(m) == 1000000000000ull);
    CHECK_INT(gsvm_mission_callbacks_run(m), 251);
    gsvm_mission_close(m);
    /* Past 2^53 ms: refused, the clock unchanged. */
    m = open_src("return {}", &h);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_INT(gsvm_mission_advance(m, 1000, &err), GSVM_OK);
    CHECK_INT(gsvm_mission_advance(m, UINT64_C(9223372036854775807), &err), GSVM_ERR_USAGE);
    CHECK(strstr(err.message, "2^53") != NULL);
    CHECK(gsvm_mission_now_ms(m) == 1000);
    CHECK_INT(gsvm_mission_advance(m, GSVM_MISSION_MAX_CLOCK_MS - 1000, &err), GSVM_OK);
    CHECK(gsvm_mission_now_ms(m) == GSVM_MISSION_MAX_CLOCK_MS);
    CHECK_INT(gsvm_mission_advance(m, 1, &err), GSVM_ERR_USAGE);
    gsvm_mission_close(m);
    /* A stalled delivery's 2 s deadline is met exactly when jumping. */
    gsvm_mission_config cfg = hostile_config(&h, 0, 0, NULL, NULL);
    h.answer = GSVM_MISSION_STALL;
    m = open_cfg("return { on_start = function(c) c.lifetime:set{state = 1} end,\n"
                 " on_event_effect_result = function(c, st, ev) c:set_variable('o', ev.outcome)\n"
                 "   c:start_timer('t', 7) end,\n"
                 " on_event_timer_elapsed = function(c, st, ev) c:set_variable('t', ev.timer_deadline_tick) end }",
                 &cfg);
    CHECK(m != NULL);
    if (m) {
        CHECK_INT(gsvm_mission_advance(m, 1000000000ull, &err), GSVM_OK);
        CHECK_STR(var_str(m, "o"), "refused");
        CHECK_STR(var_str(m, "t"), "2007"); /* the result at 2000 ms, its timer 7 ms later */
        CHECK_INT(gsvm_mission_callbacks_run(m), 3);
    }
    gsvm_mission_close(m);
}

/* ---- 7. the script's own "not enough memory" is a plain error ---- */

static void test_error_identity(void)
{
    static const char *const texts[] = {"not enough memory", "mission instruction budget exhausted",
                                        "mission callback exceeded its time limit"};
    for (size_t i = 0; i < 3; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "local ok, e = pcall(error, '%s') c:set_variable('ok', ok) c:set_variable('e', e)\n"
                 "local ok2 = pcall(function() error('%s', 0) end) c:set_variable('ok2', ok2)",
                 texts[i], texts[i]);
        rec_host h;
        gsvm_mission *m = run_one(body, &h, NULL);
        CHECK(m != NULL);
        if (!m)
            continue;
        if (gsvm_mission_faulted(m))
            fprintf(stderr, "  '%s' faulted: %s\n", texts[i], gsvm_mission_fault_text(m));
        CHECK(!gsvm_mission_faulted(m));
        CHECK_INT(var_int(m, "ok"), 0);
        CHECK_INT(var_int(m, "ok2"), 0);
        CHECK_STR(var_str(m, "e"), texts[i]);
        gsvm_mission_close(m);
    }
    /* A real memory error is still uncatchable. */
    expect_fault_with("local ok = pcall(function() local s = 'x' while true do s = s .. s end end)\n"
                      "c:set_variable('ok', ok)",
                      NULL, "not enough memory");
}

/* ---- 8. the event sequence never goes back, even after kill -9 ---- */

static void seq_child(const char *db, int fd)
{
    rec_host h;
    gsvm_mission_config cfg = hostile_config(&h, 0, 0, db, NULL);
    gsvm_mission *m = open_cfg("return { on_event_session_joined = function(c, st, ev)\n"
                               " if not st:variable('first') then c:set_variable('first', ev.sequence) end end }",
                               &cfg);
    if (!m)
        _exit(2);
    for (long long i = 1;; i++) {
        report(m, "session_joined"); /* the first commits; the others commit nothing */
        if (write(fd, &i, sizeof i) != (ssize_t)sizeof i)
            _exit(3);
        if (i == 5)
            for (;;)
                pause();
    }
}

static void test_sequence_kill9(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/seq.db", dir);
    int p[2];
    if (pipe(p) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        seq_child(db, p[1]);
    }
    close(p[1]);
    long long n = 0, got = 0;
    while (got < 5 && read(p[0], &n, sizeof n) == (ssize_t)sizeof n)
        got++;
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    close(p[0]);
    CHECK_INT(got, 5);
    rec_host h;
    gsvm_mission_config cfg = hostile_config(&h, 0, 0, db, NULL);
    gsvm_mission *m = open_cfg("return { on_event_session_joined = function(c, st, ev)\n"
                               " c:set_variable('next', ev.sequence) end }",
                               &cfg);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_STR(var_str(m, "first"), "1");
    report(m, "session_joined");
    /* Sequences 1..5 were handed out before the kill. */
    CHECK(atoll(var_str(m, "next")) > 5);
    gsvm_mission_close(m);
}

/* ---- the asynchronous outcome API ---- */

static const char async_src[] =
    "return { on_event_session_joined = function(c) c.lifetime:set{state = 1} end,\n"
    " on_event_effect_result = function(c, st, ev) c:set_variable('r' .. ev.request_key.value, ev.outcome) end }";

static gsvm_mission *open_async(rec_host *h, const char *db)
{
    gsvm_mission_config cfg = hostile_config(h, 0, 0, db, NULL);
    h->answer = GSVM_MISSION_DEFER;
    cfg.commit_wait_ms = 300;
    cfg.network_wait_ms = 1000;
    cfg.cancel_wait_ms = 200;
    cfg.expire_ms = 5000;
    return open_cfg(async_src, &cfg);
}

static void test_async(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/async.db", dir);
    rec_host h;
    gsvm_error err;
    gsvm_mission *m = open_async(&h, db);
    CHECK(m != NULL);
    if (!m)
        return;
    report(m, "session_joined");
    gsvm_mission_request head;
    bool deferred = false;
    CHECK(gsvm_mission_head_request(m, &head, &deferred) && deferred && head.key == 1);
    /* Wrong key, and an outcome that does not fit the stage: refused. */
    CHECK_INT(gsvm_mission_report_outcome(m, 2, GSVM_MISSION_STAGED, &err), GSVM_ERR_USAGE);
    CHECK_INT(gsvm_mission_report_outcome(m, 1, GSVM_MISSION_COMMITTED, &err), GSVM_OK);
    CHECK_INT(gsvm_mission_report_outcome(m, 1, GSVM_MISSION_COMMITTED, &err), GSVM_ERR_USAGE);
    CHECK_INT(gsvm_mission_report_outcome(m, 1, GSVM_MISSION_REFUSED, &err), GSVM_ERR_USAGE);
    /* The stage survives a reopen: still committed, the network wait goes on. */
    CHECK_INT(gsvm_mission_advance(m, 600, &err), GSVM_OK);
    gsvm_mission_close(m);
    m = open_async(&h, db);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK(gsvm_mission_head_request(m, &head, &deferred) && deferred && head.key == 1);
    CHECK_INT(gsvm_mission_report_outcome(m, 1, GSVM_MISSION_REFUSED, &err), GSVM_ERR_USAGE);
    CHECK_INT(gsvm_mission_report_outcome(m, 1, GSVM_MISSION_STAGED, &err), GSVM_OK);
    CHECK_STR(var_str(m, "r1"), "transport_staged");
    /* Never committed: refused after the 300 ms commit wait. */
    report(m, "session_joined");
    CHECK_INT(gsvm_mission_advance(m, 250, &err), GSVM_OK);
    CHECK_STR(var_str(m, "r2"), "(none)");
    CHECK_INT(gsvm_mission_advance(m, 100, &err), GSVM_OK);
    CHECK_STR(var_str(m, "r2"), "refused");
    /* Committed, then the network wait: a cancel is asked for; unconfirmed, the mission faults. */
    report(m, "session_joined");
    CHECK_INT(gsvm_mission_report_outcome(m, 3, GSVM_MISSION_COMMITTED, &err), GSVM_OK);
    CHECK_INT(gsvm_mission_advance(m, 1000, &err), GSVM_OK);
    CHECK(!gsvm_mission_faulted(m));
    CHECK_INT(gsvm_mission_advance(m, 200, &err), GSVM_OK);
    CHECK(gsvm_mission_faulted(m));
    CHECK_STR(gsvm_mission_fault_text(m), "mission request cancel was not confirmed");
    gsvm_mission_close(m);
}

/* ---- also seen ---- */

static void test_report_slots(void)
{
    static const char world_text[] = "{\"slots\": [{\"id\": \"gate\", \"type\": 4}]}";
    gsvm_mission_world *w = NULL;
    gsvm_error err;
    CHECK_INT(gsvm_mission_world_parse(world_text, strlen(world_text), "w", &w, &err), GSVM_OK);
    rec_host h;
    gsvm_mission_config cfg = hostile_config(&h, 0, 0, NULL, w);
    gsvm_mission *m = open_cfg("return { on_event_object_interacted = function(c, st, ev)\n"
                               " c:set_variable('n', (st:variable('n') or 0) + 1) end }",
                               &cfg);
    CHECK(m != NULL);
    if (m) {
        gsvm_mission_field f = {"slot", {GSVM_MV_STR, false, 0, 0, "gate", 4}};
        CHECK_INT(gsvm_mission_report(m, "object_interacted", &f, 1, &err), GSVM_OK);
        f.value = (gsvm_mission_value){GSVM_MV_STR, false, 0, 0, "nope", 4};
        CHECK_INT(gsvm_mission_report(m, "object_interacted", &f, 1, &err), GSVM_ERR_INPUT);
        CHECK(strstr(err.message, "unknown slot 'nope'") != NULL);
        f.value = (gsvm_mission_value){GSVM_MV_NUM, false, 0, 2.5, NULL, 0};
        CHECK_INT(gsvm_mission_report(m, "object_interacted", &f, 1, &err), GSVM_ERR_INPUT);
        CHECK(strstr(err.message, "slot must be") != NULL);
        f.value = (gsvm_mission_value){GSVM_MV_INT, false, 2, 0, NULL, 0};
        CHECK_INT(gsvm_mission_report(m, "object_interacted", &f, 1, &err), GSVM_ERR_INPUT);
        f.value = (gsvm_mission_value){GSVM_MV_INT, false, 1, 0, NULL, 0};
        CHECK_INT(gsvm_mission_report(m, "object_interacted", &f, 1, &err), GSVM_OK);
        CHECK_INT(var_int(m, "n"), 2);
    }
    gsvm_mission_close(m);
    gsvm_mission_world_free(w);
}

/* A report is used whole or refused: a field name too long for the event
 * (it was dropped silently) is an error, and in a packet nothing of the
 * packet is queued. */
static void test_report_fields(void)
{
    rec_host h;
    gsvm_mission *m = open_src("return { on_event_session_joined = function(c, st, ev)\n"
                               " c:set_variable('n', (st:variable('n') or 0) + 1) end }",
                               &h);
    CHECK(m != NULL);
    if (!m)
        return;
    gsvm_error err;
    static const char long_name[] = "a_field_name_of_exactly_forty_bytes_xyz0";
    gsvm_mission_field f = {long_name, {.type = GSVM_MV_INT, .i = 1}};
    CHECK_INT(gsvm_mission_report(m, "session_joined", &f, 1, &err), GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "event field names have 1 to 39 bytes") != NULL);
    f.name = "";
    CHECK_INT(gsvm_mission_report(m, "session_joined", &f, 1, &err), GSVM_ERR_INPUT);
    gsvm_mission_field good = {"a_field_name_of_39_bytes_is_just_right9", {.type = GSVM_MV_INT, .i = 1}};
    f.name = long_name;
    gsvm_mission_report_item items[2] = {{"session_joined", &good, 1}, {"session_joined", &f, 1}};
    CHECK_INT(gsvm_mission_report_packet(m, items, 2, &err), GSVM_ERR_INPUT);
    CHECK_INT(gsvm_mission_callbacks_run(m), 0);
    CHECK_INT(gsvm_mission_report(m, "session_joined", &good, 1, &err), GSVM_OK);
    CHECK_INT(var_int(m, "n"), 1);
    gsvm_mission_close(m);
}

/* A world without declared slots takes any slot name, so a client could
 * make first reports without end: each was looked up in a list (quadratic)
 * and kept forever.  Past MS_MAX_FIRST_REPORTS distinct slots a report is
 * refused; the ones before still count once each. */
static void test_first_report_flood(void)
{
    rec_host h;
    gsvm_mission *m = open_src("return { on_event_entity_died = function(c, st, ev)\n"
                               " c:set_variable('n', (st:variable('n') or 0) + 1) end }",
                               &h);
    CHECK(m != NULL);
    if (!m)
        return;
    gsvm_error err;
    char id[32];
    gsvm_mission_field f = {"slot", {.type = GSVM_MV_STR, .s = id}};
    int refused = 0;
    for (int i = 0; i <= MS_MAX_FIRST_REPORTS; i++) {
        f.value.len = (size_t)snprintf(id, sizeof id, "s%d", i);
        if (gsvm_mission_report(m, "entity_died", &f, 1, &err) != GSVM_OK) {
            refused++;
            CHECK(strstr(err.message, "slots made a first report") != NULL);
        }
    }
    CHECK_INT(refused, 1);
    CHECK(!gsvm_mission_faulted(m));
    CHECK_INT(gsvm_mission_callbacks_run(m), 0); /* first reports of entity_died are only recorded */
    f.value.len = (size_t)snprintf(id, sizeof id, "s7");
    CHECK_INT(gsvm_mission_report(m, "entity_died", &f, 1, &err), GSVM_OK);
    CHECK_INT(var_int(m, "n"), 1);
    gsvm_mission_close(m);
}

static void test_locked_state(void)
{
    char db[300];
    snprintf(db, sizeof db, "%s/locked.db", dir);
    rec_host h1, h2;
    gsvm_mission_config cfg = hostile_config(&h1, 0, 0, db, NULL);
    gsvm_mission *a = open_cfg("return {}", &cfg);
    CHECK(a != NULL);
    cfg = hostile_config(&h2, 0, 0, db, NULL);
    gsvm_error err;
    gsvm_mission *b = open_with("return {}", &cfg, &err);
    CHECK(b == NULL);
    if (!b)
        CHECK(strstr(err.message, "another process holds this mission record") != NULL);
    gsvm_mission_close(b);
    gsvm_mission_close(a);
}

/* Each part's wall time, so a slow part shows in the log. */
static void timed(const char *name, void (*fn)(void))
{
    /* GSVM_TEST_ONLY=test_advance runs one part (to try one case alone). */
    const char *only = getenv("GSVM_TEST_ONLY");
    if (only && strcmp(only, name) != 0)
        return;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    fn();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%s: %.2f s\n", name, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/gsvm_hostile_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    timed("test_error_identity", test_error_identity);
    timed("test_len_twice", test_len_twice);
    timed("test_request_args", test_request_args);
    timed("test_request_bytes", test_request_bytes);
    timed("test_advance", test_advance);
    timed("test_async", test_async);
    timed("test_report_slots", test_report_slots);
    timed("test_report_fields", test_report_fields);
    timed("test_first_report_flood", test_first_report_flood);
    timed("test_locked_state", test_locked_state);
    timed("test_sequence_kill9", test_sequence_kill9);
    timed("test_c_call_cost", test_c_call_cost);
    timed("test_arena_full", test_arena_full);
    timed("test_panic", test_panic);
    timed("test_event_chain", test_event_chain);
    for (int i = 0; i < nworlds; i++)
        gsvm_mission_world_free(worlds[i]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    TEST_MAIN_END();
}
