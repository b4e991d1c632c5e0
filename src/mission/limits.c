/* Limits no script can catch: an instruction budget (a count hook every 100
 * instructions plus explicit charges for work done inside C library
 * functions and for every byte allocated), a capped allocator arena, and a
 * wall-clock guard.
 *
 * Why "sticky": Lua offers scripts ways to catch errors (pcall, and in stock
 * Lua xpcall, coroutines, __close, __gc).  The sandbox removes or wraps all of
 * them, and on top of that, once a limit trips it stays tripped for the rest
 * of the callback: the hook fires on every following instruction and raises
 * again, every wrapped library function raises on entry, the sandbox's pcall
 * re-raises, and the runtime treats the callback as faulted by the limit no
 * matter how it returned.  So a script that somehow swallowed the error can
 * run no further Lua code and still cannot commit. */
#define _DEFAULT_SOURCE /* CLOCK_MONOTONIC_COARSE */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mission/internal.h"

/* Every 64 bytes allocated cost one instruction: copying them costs about as
 * much as a few VM instructions, and this charges the string concatenations,
 * table growth and string building that no count hook sees. */
#define ALLOC_BYTES_PER_UNIT 64u

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *ms_limit_message(int which)
{
    switch (which) {
    case LIM_INSTRUCTIONS: return "mission instruction budget exhausted";
    case LIM_MEMORY: return "not enough memory";
    case LIM_TIME: return "mission callback exceeded its time limit";
    case LIM_BURST: return "mission request burst exceeded (1+63 requests per callback)";
    default: return "mission limit reached";
    }
}

void *ms_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    gsvm_mission *m = ud;
    mlimits *l = &m->lim;
    if (ptr == NULL)
        osize = 0;
    if (nsize == 0) {
        free(ptr);
        l->arena_used -= osize;
        return NULL;
    }
    if (nsize > osize) {
        size_t grow = nsize - osize;
        if (l->charging && l->tripped)
            return NULL; /* a tripped callback gets nothing more */
        /* A C function that builds its result as it goes (a buffer that
         * doubles, a table that grows) allocates every so often: once the
         * watchdog saw the deadline pass, the next allocation is refused and
         * the callback stops with the time limit inside that C call, however
         * cheap the call was charged. */
        if (l->charging && l->wd_fired && l->deadline_ns && now_ns() > l->deadline_ns) {
            l->tripped = LIM_TIME;
            return NULL;
        }
        if (l->arena_used + grow > l->arena_cap || l->arena_used + grow < l->arena_used) {
            /* Lua collects and tries once more; a second refusal without a
             * success in between is a real memory error, made sticky. */
            if (l->mem_refused && l->charging && !l->tripped)
                l->tripped = LIM_MEMORY;
            l->mem_refused = true;
            return NULL;
        }
        if (l->charging) {
            l->used += grow / ALLOC_BYTES_PER_UNIT;
            if (l->used > l->budget && !l->tripped) {
                /* The allocator cannot raise; it refuses, Lua raises a memory
                 * error, and the sticky flag turns it into the budget error. */
                l->tripped = LIM_INSTRUCTIONS;
                return NULL;
            }
        }
    }
    void *p = realloc(ptr, nsize);
    if (!p && nsize > osize)
        return NULL;
    if (!p) /* shrinking failed: keep the old block, which is big enough */
        return ptr;
    if (nsize > osize)
        l->mem_refused = false;
    l->arena_used = l->arena_used - osize + nsize;
    if (l->arena_used > l->arena_peak)
        l->arena_peak = l->arena_used;
    return p;
}

gsvm_mission *ms_from_L(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

bool ms_memory_error_is_real(gsvm_mission *m)
{
    return m->lim.tripped == LIM_MEMORY || m->lim.mem_refused;
}

int ms_raise_limit(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    if (!m->lim.tripped)
        m->lim.tripped = LIM_INSTRUCTIONS;
    /* From now on every instruction raises again. */
    lua_sethook(L, lua_gethook(L), LUA_MASKCOUNT, 1);
    lua_pushstring(L, ms_limit_message(m->lim.tripped));
    return lua_error(L);
}

static void trip(lua_State *L, int which)
{
    gsvm_mission *m = ms_from_L(L);
    if (!m->lim.tripped)
        m->lim.tripped = which;
    ms_raise_limit(L);
}

void ms_check_tripped(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    if (m->lim.tripped)
        ms_raise_limit(L);
}

static void check_clock(lua_State *L, mlimits *l)
{
    if (l->deadline_ns && now_ns() > l->deadline_ns)
        trip(L, LIM_TIME);
}

void ms_charge(lua_State *L, uint64_t units)
{
    gsvm_mission *m = ms_from_L(L);
    mlimits *l = &m->lim;
    if (l->tripped)
        ms_raise_limit(L);
    if (!l->charging)
        return;
    l->used += units;
    if (l->used > l->budget || l->used < units)
        trip(L, LIM_INSTRUCTIONS);
    /* Large charges and C loops that charge as they go (a sort's
     * comparisons) look at the clock once the watchdog says it is time. */
    if (units >= 1024 || l->wd_fired)
        check_clock(L, l);
}

#define HOOK_EVERY 100

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    gsvm_mission *m = ms_from_L(L);
    mlimits *l = &m->lim;
    if (l->tripped)
        ms_raise_limit(L);
    if (!l->charging)
        return;
    if (l->wd_fired) {
        /* The watchdog set the hook to every instruction: the deadline has
         * passed (or the watchdog saw an old one; then back to normal). */
        check_clock(L, l);
        l->wd_fired = 0;
        lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
        return;
    }
    l->used += HOOK_EVERY;
    if (l->used > l->budget)
        trip(L, LIM_INSTRUCTIONS);
    check_clock(L, l);
}

/* ---- the watchdog ----
 * The count hook sees the clock every 100 instructions, but one instruction
 * can cost milliseconds (== or < on two 25 MB strings), so 100 of them can
 * overrun the wall limit many times over.  One thread per process watches
 * the deadlines of the callbacks that run (a list under a mutex; a callback
 * joins at its start and leaves at its end, so the watchdog never touches a
 * Lua state that is not running a callback) and, when one passes, sets that
 * state's hook to fire on the next instruction (lua_sethook is safe to call
 * asynchronously; Lua's own signal handler does the same).  It sleeps
 * until the earliest deadline listed (a condition variable on the monotonic
 * clock), and with none listed until a callback joins, so the overrun is
 * the wake-up latency plus one instruction.  (It polled every 5 ms before:
 * 200 wake-ups a second in an idle server, 6% of a fuzzing process's CPU.)
 * A callback that joins signals it only when its deadline is earlier than
 * the one it sleeps towards (wd_target): most callbacks last microseconds,
 * so in a busy process it wakes about once per wall limit. */
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond;
static mlimits *wd_head;
static bool wd_running;
static uint64_t wd_target; /* the deadline the thread sleeps towards; 0: none */
#define WD_REFIRE_NS 5000000u

static uint64_t precise_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *wd_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wd_lock);
    for (;;) {
        /* Due is judged by the coarse clock the deadlines and the hook's
         * check_clock use, so the hook always agrees that a deadline the
         * watchdog fired for has passed.  The precise clock only says when
         * to wake: a deadline the coarse clock has not reached yet is
         * looked at again a millisecond later, and a callback already
         * fired for is fired for again every WD_REFIRE_NS until it leaves
         * (its hook may not have run yet: one C call can take seconds). */
        uint64_t now = now_ns(), precise = precise_ns(), next = 0;
        for (mlimits *l = wd_head; l; l = l->wd_next) {
            if (!l->deadline_ns)
                continue;
            uint64_t wake;
            if (now > l->deadline_ns) {
                l->wd_fired = 1;
                lua_sethook(l->L, count_hook, LUA_MASKCOUNT, 1);
                wake = precise + WD_REFIRE_NS;
            } else {
                wake = l->deadline_ns > precise ? l->deadline_ns : precise + 1000000u;
            }
            if (!next || wake < next)
                next = wake;
        }
        wd_target = next;
        if (!next) {
            pthread_cond_wait(&wd_cond, &wd_lock);
        } else {
            struct timespec ts = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
            pthread_cond_timedwait(&wd_cond, &wd_lock, &ts);
        }
    }
    return NULL;
}

/* A forked child has no watchdog thread: it starts its own when needed. */
static void wd_after_fork(void)
{
    pthread_mutex_init(&wd_lock, NULL);
    wd_head = NULL;
    wd_running = false;
}

static void wd_join(mlimits *l)
{
    pthread_mutex_lock(&wd_lock);
    if (!wd_running) {
        static bool atfork_set;
        if (!atfork_set && pthread_atfork(NULL, NULL, wd_after_fork) == 0)
            atfork_set = true;
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&a, 64 * 1024);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&wd_cond, &ca);
        pthread_condattr_destroy(&ca);
        wd_target = 0;
        /* Without the thread the hook's own clock checks still hold. */
        wd_running = pthread_create(&t, &a, wd_main, NULL) == 0;
        pthread_attr_destroy(&a);
    }
    if (wd_running && (!wd_target || l->deadline_ns < wd_target))
        pthread_cond_signal(&wd_cond);
    l->wd_prev = NULL;
    l->wd_next = wd_head;
    if (wd_head)
        wd_head->wd_prev = l;
    wd_head = l;
    l->wd_listed = true;
    pthread_mutex_unlock(&wd_lock);
}

static void wd_leave(mlimits *l)
{
    if (!l->wd_listed)
        return;
    pthread_mutex_lock(&wd_lock);
    if (l->wd_prev)
        l->wd_prev->wd_next = l->wd_next;
    else
        wd_head = l->wd_next;
    if (l->wd_next)
        l->wd_next->wd_prev = l->wd_prev;
    l->wd_listed = false;
    pthread_mutex_unlock(&wd_lock);
}

void ms_limits_begin(gsvm_mission *m, uint64_t budget, uint32_t wall_ms)
{
    mlimits *l = &m->lim;
    l->used = 0;
    l->budget = budget;
    l->tripped = LIM_NONE;
    l->mem_refused = false;
    l->charging = true;
    l->wd_fired = 0;
    l->L = m->L;
    l->deadline_ns = wall_ms ? now_ns() + (uint64_t)wall_ms * 1000000u : 0;
    lua_sethook(m->L, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
    if (l->deadline_ns)
        wd_join(l);
}

void ms_limits_end(gsvm_mission *m)
{
    wd_leave(&m->lim);
    m->lim.charging = false;
    m->lim.deadline_ns = 0;
    m->lim.wd_fired = 0;
    lua_sethook(m->L, NULL, 0, 0);
}
