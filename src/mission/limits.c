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
        if (l->arena_used + grow > l->arena_cap || l->arena_used + grow < l->arena_used)
            return NULL; /* Lua raises a memory error (after an emergency collection) */
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
    if (units >= 1024)
        check_clock(L, l);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    gsvm_mission *m = ms_from_L(L);
    mlimits *l = &m->lim;
    if (l->tripped)
        ms_raise_limit(L);
    if (!l->charging)
        return;
    l->used += 100;
    if (l->used > l->budget)
        trip(L, LIM_INSTRUCTIONS);
    check_clock(L, l);
}

void ms_limits_begin(gsvm_mission *m, uint64_t budget, uint32_t wall_ms)
{
    mlimits *l = &m->lim;
    l->used = 0;
    l->budget = budget;
    l->tripped = LIM_NONE;
    l->charging = true;
    l->deadline_ns = wall_ms ? now_ns() + (uint64_t)wall_ms * 1000000u : 0;
    lua_sethook(m->L, count_hook, LUA_MASKCOUNT, 100);
}

void ms_limits_end(gsvm_mission *m)
{
    m->lim.charging = false;
    m->lim.deadline_ns = 0;
    lua_sethook(m->L, NULL, 0, 0);
}
