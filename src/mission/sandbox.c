/* The sandbox: Lua 5.4 with base, string, table and math only, minus the
 * functions that walk tables in hash order, print, load code, reach the
 * garbage collector or leak addresses, and with wrappers that make limits
 * uncatchable and charge the work C library functions do.
 *
 * Removed: collectgarbage dofile getmetatable load loadfile next pairs print
 * rawequal rawlen warn xpcall package, string.dump/find/match/gmatch/gsub,
 * math.random/randomseed.  Never opened: io os debug coroutine utf8 (so there
 * are no coroutines, and xpcall handlers, gsub callbacks and load readers do
 * not exist to swallow a limit error).
 * Wrapped: pcall (re-raises limits), setmetatable (refuses __gc/__mode/__close,
 * installs a protected copy), tostring and string.format (no addresses),
 * require (checked names, fixed search path, text modules only), and the
 * charged library functions below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lualib.h>

#include "mission/internal.h"

static lua_CFunction original(lua_State *L)
{
    return lua_tocfunction(L, lua_upvalueindex(1));
}

/* Converts a count to instruction units without overflow. */
static uint64_t units_of(double x)
{
    if (!(x > 0))
        return 0;
    if (x > 1e18)
        return (uint64_t)1e18;
    return (uint64_t)x;
}

/* A string turned into a number costs a pass of strtod over all its digits
 * (25 MB of them take 20 ms, a thousand VM instructions' worth per
 * kilobyte), which no hook sees.  Every library function that reads a
 * number may be handed a string instead (string.rep('x', s), t[1] + s
 * through the string metatable's __add, math.floor(s)), so a long string
 * argument from `from` to `to` (-1: the last) that starts like a numeral is charged one unit
 * per byte; with `others`, any other long string costs a scan (tonumber
 * looks through the whole text for an 'n' of "nan" before strtod). */
static void charge_numerals(lua_State *L, int from, int to, bool others)
{
    int top = lua_gettop(L);
    if (to < 0 || to > top)
        to = top;
    for (int i = from; i <= to; i++) {
        if (lua_type(L, i) != LUA_TSTRING)
            continue;
        size_t l;
        const char *s = lua_tolstring(L, i, &l);
        if (l <= 64)
            continue;
        size_t k = 0;
        while (k < l && strchr(" \f\n\r\t\v", s[k]) && s[k])
            k++;
        if (k < l && (s[k] == '-' || s[k] == '+'))
            k++;
        if (k < l && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.'))
            ms_charge(L, l);
        else if (others)
            ms_charge(L, 1 + l / 64);
    }
}

/* tonumber, the math library and the string metatable's arithmetic. */
static int w_numeric(lua_State *L)
{
    ms_check_tripped(L);
    charge_numerals(L, 1, -1, true);
    return original(L)(L);
}

/* The common entry of a charged wrapper: a tripped limit raises, and the
 * arguments from..to that the function reads as numbers are charged. */
static void enter(lua_State *L, int from, int to)
{
    ms_check_tripped(L);
    charge_numerals(L, from, to, false);
}

/* select(n, ...) and error(v, level): their counts may be strings too. */
static int w_numargs(lua_State *L)
{
    enter(L, 1, 2);
    return original(L)(L);
}

/* The stock table functions read the length through __len a second time
 * (after the wrapper read it to charge the work), and a __len that answers
 * 1 and then 2^62 would make table.remove shift 2^62 elements inside C,
 * where no hook runs.  So the wrapper reads the length once and, while the
 * stock function runs, the table's metatable answers that same length: its
 * __len is swapped for a constant.  The metatable is the private copy
 * setmetatable installed for this one table, and it is put back however the
 * call ends. */
static int fixed_len(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

/* Reads the length of the table at 1 once; pushes the metatable (or nil)
 * and, when it has a __len, the original __len below the call's
 * arguments... (see call_fixed_len). */
static lua_Integer len_once(lua_State *L, bool *has_len)
{
    *has_len = false;
    if (lua_getmetatable(L, 1)) {
        lua_pushliteral(L, "__len");
        *has_len = lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 2);
    }
    return luaL_len(L, 1); /* may run __len, which the hook charges */
}

/* Calls the stock function with all the wrapper's arguments; with a __len
 * (has_len) the metatable answers `n` meanwhile. */
static int call_fixed_len(lua_State *L, bool has_len, lua_Integer n)
{
    lua_CFunction f = original(L);
    if (!has_len)
        return f(L);
    int nargs = lua_gettop(L);
    lua_getmetatable(L, 1);                 /* nargs+1: mt */
    lua_pushliteral(L, "__len");
    lua_rawget(L, -2);                      /* nargs+2: the script's __len */
    lua_pushliteral(L, "__len");
    lua_pushinteger(L, n);
    lua_pushcclosure(L, fixed_len, 1);
    lua_rawset(L, nargs + 1);
    lua_pushcfunction(L, f);
    for (int i = 1; i <= nargs; i++)
        lua_pushvalue(L, i);
    int st = lua_pcall(L, nargs, LUA_MULTRET, 0);
    int base = nargs + 2; /* results (or the error) start above here */
    lua_pushliteral(L, "__len");
    lua_pushvalue(L, nargs + 2);
    lua_rawset(L, nargs + 1);
    if (st != LUA_OK) {
        lua_settop(L, base + 1);
        return lua_error(L);
    }
    return lua_gettop(L) - base;
}

/* The comparison of a sort without a comparator: `<` charged by the bytes
 * it compares (two 1 MiB strings cost a 1 MiB compare, not one unit). */
static int sort_lt(lua_State *L)
{
    size_t la, lb;
    uint64_t units = 1;
    if (lua_type(L, 1) == LUA_TSTRING && lua_type(L, 2) == LUA_TSTRING) {
        lua_tolstring(L, 1, &la);
        lua_tolstring(L, 2, &lb);
        units += (la < lb ? la : lb) / 64;
    }
    ms_charge(L, units);
    lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
    return 1;
}

/* table.sort: n log2 n comparisons are charged before sorting, so sorting
 * two million numbers faults at once instead of running for a second and a
 * half outside the count hook; each comparison is charged again by what it
 * compares (sort_lt, or a comparator's own instructions, which the hook
 * counts). */
static int w_sort(lua_State *L)
{
    ms_check_tripped(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    bool has_len;
    lua_Integer len = len_once(L, &has_len);
    double n = (double)len;
    if (n > 1)
        ms_charge(L, units_of(n * ceil(log2(n)) + n));
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_pushcfunction(L, sort_lt);
    }
    lua_settop(L, 2);
    return call_fixed_len(L, has_len, len);
}

/* table.insert(t, pos, v) and table.remove(t, pos) shift every element
 * after pos: charge one unit per element moved (an insert without a
 * position appends, a remove without one takes the last element). */
static int shift_charged(lua_State *L, bool insert)
{
    enter(L, 2, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    bool has_len;
    lua_Integer n = len_once(L, &has_len);
    lua_Integer pos = !insert ? luaL_optinteger(L, 2, n) : lua_gettop(L) == 3 ? luaL_checkinteger(L, 2) : n + 1;
    if (pos >= 1 && pos <= n)
        ms_charge(L, units_of((double)n - (double)pos + 1));
    ms_charge(L, 1);
    return call_fixed_len(L, has_len, n);
}

static int w_insert(lua_State *L) { return shift_charged(L, true); }
static int w_remove(lua_State *L) { return shift_charged(L, false); }

/* table.concat / table.unpack: one unit per element (bytes are charged by
 * the allocator). */
static int w_concat(lua_State *L)
{
    enter(L, 3, 4);
    luaL_checktype(L, 1, LUA_TTABLE);
    bool has_len = false;
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_Integer j = lua_isnoneornil(L, 4) ? len_once(L, &has_len) : luaL_checkinteger(L, 4);
    ms_charge(L, units_of((double)j - (double)i + 1));
    return call_fixed_len(L, has_len, j);
}

static int w_unpack(lua_State *L)
{
    enter(L, 2, 3);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    bool has_len = false;
    lua_Integer j;
    if (lua_isnoneornil(L, 3))
        j = lua_type(L, 1) == LUA_TTABLE ? len_once(L, &has_len) : luaL_len(L, 1);
    else
        j = luaL_checkinteger(L, 3);
    ms_charge(L, units_of((double)j - (double)i + 1));
    return call_fixed_len(L, has_len, j);
}

static int w_move(lua_State *L)
{
    enter(L, 2, 4);
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    ms_charge(L, units_of((double)e - (double)f + 1));
    return original(L)(L);
}

/* string.rep loops n times even when the result is empty
 * (string.rep("", 1e15) never returns in stock Lua): charge n/16 (one loop
 * turn costs a few nanoseconds) plus the bytes. */
static int w_rep(lua_State *L)
{
    enter(L, 2, 2);
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0)
        ms_charge(L, 1 + units_of((double)n / 16.0 + ((double)l + (double)lsep) * (double)n / 64.0));
    return original(L)(L);
}

static int w_byte(lua_State *L)
{
    enter(L, 2, 3);
    size_t l;
    luaL_checklstring(L, 1, &l);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer j = luaL_optinteger(L, 3, i);
    double span = (double)j - (double)i + 1;
    if (span > (double)l)
        span = (double)l;
    ms_charge(L, units_of(span));
    return original(L)(L);
}

/* string.upper/lower/reverse and friends: one unit per 64 bytes of every
 * string argument. */
static int w_bytes(lua_State *L)
{
    enter(L, 2, -1);
    size_t total = 0;
    for (int i = 1, top = lua_gettop(L); i <= top; i++)
        if (lua_type(L, i) == LUA_TSTRING) {
            size_t l;
            lua_tolstring(L, i, &l);
            total += l;
        }
    ms_charge(L, 1 + total / 64);
    return original(L)(L);
}

/* string.pack/unpack/packsize: a format is read option by option, 10 to 25
 * ns each (string.pack of 30 MB of "x" took 0.66 s, string.unpack of as
 * many 0.77 s, inside one C call), where the bytes of w_bytes cost about
 * one: each format byte is charged 32 units, the other strings as w_bytes
 * does.  Formats that scripts write are a few bytes long. */
static int w_pack(lua_State *L)
{
    enter(L, 2, -1);
    size_t fl = 0, total = 0;
    luaL_checklstring(L, 1, &fl);
    for (int i = 2, top = lua_gettop(L); i <= top; i++)
        if (lua_type(L, i) == LUA_TSTRING) {
            size_t l;
            lua_tolstring(L, i, &l);
            total += l;
        }
    ms_charge(L, 1 + units_of((double)fl * 32.0 + (double)total / 64.0));
    return original(L)(L);
}

/* string.format: %p would print an address and %s of a table would print
 * one through luaL_tolstring; both are made reproducible here. */
static int w_format(lua_State *L)
{
    ms_check_tripped(L);
    size_t fl;
    const char *fmt = luaL_checklstring(L, 1, &fl);
    int arg = 1, top = lua_gettop(L);
    for (size_t i = 0; i < fl; i++) {
        if (fmt[i] != '%')
            continue;
        if (++i < fl && fmt[i] == '%')
            continue;
        while (i < fl && strchr("-+ #0123456789.", fmt[i]))
            i++;
        if (i >= fl)
            break;
        arg++;
        if (fmt[i] == 'p')
            return luaL_error(L, "invalid conversion '%%p' to 'format'");
        if (fmt[i] == 'q' && arg <= top && lua_type(L, arg) == LUA_TSTRING) {
            /* %q walks the string byte by byte and prints each control
             * byte with snprintf (16 MB of NULs took 0.9 s of CPU in one
             * call): one unit per byte, like a numeral's conversion. */
            size_t ql;
            lua_tolstring(L, arg, &ql);
            ms_charge(L, 1 + ql);
        }
        if (strchr("diouxXcaAeEfFgG", fmt[i]) && arg <= top && lua_type(L, arg) == LUA_TSTRING) {
            /* A string where a number is expected is converted (see
             * charge_numerals): one unit per byte of a long one. */
            size_t nl;
            lua_tolstring(L, arg, &nl);
            if (nl > 64)
                ms_charge(L, nl);
        }
        if (fmt[i] == 's' && arg <= top) {
            int t = lua_type(L, arg);
            if (t != LUA_TSTRING && t != LUA_TNUMBER) {
                ms_tostring(L, arg);
                lua_replace(L, arg);
            }
        }
    }
    ms_charge(L, 1 + fl / 64);
    return original(L)(L);
}

void ms_tostring(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
        lua_pop(L, 1);
        luaL_tolstring(L, idx, NULL);
        return;
    }
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING:
        luaL_tolstring(L, idx, NULL);
        return;
    default: break;
    }
    /* Objects are named by the order in which they were first printed:
     * "table: 1", the same on every run. */
    gsvm_mission *m = ms_from_L(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, m->ref_objid);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    lua_Integer id;
    if (lua_isinteger(L, -1)) {
        id = lua_tointeger(L, -1);
        lua_pop(L, 1);
    } else {
        lua_pop(L, 1);
        id = (lua_Integer)++m->next_objid;
        lua_pushvalue(L, idx);
        lua_pushinteger(L, id);
        lua_rawset(L, -3);
    }
    lua_pop(L, 1);
    lua_pushfstring(L, "%s: %I", luaL_typename(L, idx), (LUAI_UACINT)id);
}

static int w_tostring(lua_State *L)
{
    ms_check_tripped(L);
    luaL_checkany(L, 1);
    ms_tostring(L, 1);
    return 1;
}

/* pcall: the function must be a real function, and a limit error or a
 * memory error is raised again instead of being returned. */
static int w_pcall(lua_State *L)
{
    ms_check_tripped(L);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    gsvm_mission *m = ms_from_L(L);
    /* Lua raises a memory error for any error whose value is the string
     * "not enough memory" (lua_error compares it with its own message), so
     * the status says nothing: only the allocator knows (identity, not text). */
    if (status == LUA_ERRMEM && !m->lim.tripped && ms_memory_error_is_real(m))
        m->lim.tripped = LIM_MEMORY;
    if (m->lim.tripped)
        return ms_raise_limit(L);
    lua_pushboolean(L, status == LUA_OK);
    lua_insert(L, 1);
    return lua_gettop(L);
}

static int w_setmetatable(lua_State *L)
{
    ms_check_tripped(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TNIL) {
        lua_settop(L, 1);
        lua_pushnil(L);
        lua_setmetatable(L, 1);
        return 1;
    }
    static const char *const refused[] = {"__gc", "__mode", "__close"};
    for (int i = 0; i < 3; i++) {
        lua_pushstring(L, refused[i]);
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "collection-sensitive metamethod is unavailable");
        lua_pop(L, 1);
    }
    /* A shallow copy, so later edits of `mt` change nothing, protected by
     * __metatable=false (getmetatable is gone anyway). */
    lua_settop(L, 2);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        ms_charge(L, 1);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, 3);
    }
    lua_pushboolean(L, 0);
    lua_setfield(L, 3, "__metatable");
    lua_setmetatable(L, 1);
    lua_settop(L, 1);
    return 1;
}

static bool module_name_ok(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (c == '.') {
            if (s[i + 1] == '.')
                return false;
        } else if (!alnum) {
            return false;
        }
    }
    return true;
}

/* require(name): ROOT/sdk/lua/?.lua, then ROOT/scripts/?.lua; text only. */
static int w_require(lua_State *L)
{
    ms_check_tripped(L);
    size_t n;
    const char *name = luaL_checklstring(L, 1, &n);
    if (!module_name_ok(name, n) || n > 200)
        return luaL_error(L, "generated SDK module name is invalid");
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "gsvm.mission.loaded");
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 2) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    gsvm_mission *m = ms_from_L(L);
    char rel[256], file[1400];
    for (size_t i = 0; i <= n; i++)
        rel[i] = name[i] == '.' ? '/' : name[i];
    static const char *const dirs[] = {"sdk/lua", "scripts"};
    struct stat st;
    const char *found = NULL;
    char chunkname[300];
    for (int d = 0; d < 2 && !found; d++) {
        snprintf(file, sizeof file, "%s/%s/%s.lua", m->sdk_root, dirs[d], rel);
        if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
            found = file;
            snprintf(chunkname, sizeof chunkname, "@%s/%s.lua", dirs[d], rel);
        }
    }
    if (!found)
        return luaL_error(L, "module '%s' not found", name);
    /* The parser runs inside C, out of the count hook's sight: bound the
     * module size and charge its text up front. */
    if (st.st_size > (off_t)(4 * 1024 * 1024))
        return luaL_error(L, "module '%s' is too large", name);
    size_t size = (size_t)st.st_size;
    char *buf = lua_newuserdatauv(L, size ? size : 1, 0); /* Lua-owned: no leak on error */
    FILE *f = fopen(found, "rb");
    size_t got = f ? fread(buf, 1, size, f) : 0;
    if (f)
        fclose(f);
    if (got != size)
        return luaL_error(L, "module '%s' cannot be read", name);
    ms_charge(L, size / 8);
    if (luaL_loadbufferx(L, buf, size, chunkname, "t") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, 2);
    return 1;
}

static void wrap(lua_State *L, const char *lib, const char *fn, lua_CFunction w)
{
    lua_getglobal(L, lib);
    if (lua_getfield(L, -1, fn) != LUA_TFUNCTION)
        luaL_error(L, "sandbox: %s.%s is missing", lib, fn); /* a build mistake, never silent */
    lua_pushcclosure(L, w, 1);
    lua_setfield(L, -2, fn);
    lua_pop(L, 1);
}

static void remove_fields(lua_State *L, const char *lib, const char *const *names)
{
    lua_getglobal(L, lib);
    for (; *names; names++) {
        lua_pushnil(L);
        lua_setfield(L, -2, *names);
    }
    lua_pop(L, 1);
}

static int build(lua_State *L)
{
    gsvm_mission *m = ms_from_L(L);
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    lua_settop(L, 0);

    static const char *const base_removed[] = {"collectgarbage", "dofile", "getmetatable", "load",
                                               "loadfile", "next", "pairs", "print", "rawequal",
                                               "rawlen", "warn", "xpcall", "package", "require",
                                               NULL};
    static const char *const string_removed[] = {"dump", "find", "match", "gmatch", "gsub", NULL};
    static const char *const math_removed[] = {"random", "randomseed", NULL};
    remove_fields(L, LUA_GNAME, base_removed);
    remove_fields(L, LUA_STRLIBNAME, string_removed);
    remove_fields(L, LUA_MATHLIBNAME, math_removed);

    lua_pushcfunction(L, w_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, w_setmetatable);
    lua_setglobal(L, "setmetatable");
    lua_pushcfunction(L, w_tostring);
    lua_setglobal(L, "tostring");
    if (m->sdk_root[0]) {
        lua_newtable(L);
        lua_setfield(L, LUA_REGISTRYINDEX, "gsvm.mission.loaded");
        lua_pushcfunction(L, w_require);
        lua_setglobal(L, "require");
    }
    wrap(L, LUA_TABLIBNAME, "sort", w_sort);
    wrap(L, LUA_TABLIBNAME, "insert", w_insert);
    wrap(L, LUA_TABLIBNAME, "remove", w_remove);
    wrap(L, LUA_TABLIBNAME, "concat", w_concat);
    wrap(L, LUA_TABLIBNAME, "unpack", w_unpack);
    wrap(L, LUA_TABLIBNAME, "move", w_move);
    wrap(L, LUA_STRLIBNAME, "rep", w_rep);
    wrap(L, LUA_STRLIBNAME, "byte", w_byte);
    wrap(L, LUA_STRLIBNAME, "format", w_format);
    wrap(L, LUA_GNAME, "tonumber", w_numeric);
    wrap(L, LUA_GNAME, "select", w_numargs);
    wrap(L, LUA_GNAME, "error", w_numargs);
    /* s + 0 runs the string metatable's __add, which converts s in C. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    static const char *const arith[] = {"__add", "__sub", "__mul", "__mod", "__pow", "__div", "__idiv", "__unm",
                                        NULL};
    for (const char *const *a = arith; *a; a++) {
        if (lua_getfield(L, -1, *a) != LUA_TFUNCTION)
            luaL_error(L, "sandbox: the string metatable's %s is missing", *a);
        lua_pushcclosure(L, w_numeric, 1);
        lua_setfield(L, -2, *a);
    }
    lua_pop(L, 2);
    static const char *const math_fns[] = {"abs", "ceil", "floor", "fmod", "modf", "sqrt", "exp", "log",
                                           "sin", "cos", "tan", "asin", "acos", "atan", "tointeger",
                                           "ult", "max", "min", "type", NULL};
    for (const char *const *f = math_fns; *f; f++)
        wrap(L, LUA_MATHLIBNAME, *f, w_numeric);
    static const char *const byte_fns[] = {"upper", "lower", "reverse", "sub", "char", "len", NULL};
    for (const char *const *f = byte_fns; *f; f++)
        wrap(L, LUA_STRLIBNAME, *f, w_bytes);
    static const char *const pack_fns[] = {"pack", "unpack", "packsize", NULL};
    for (const char *const *f = pack_fns; *f; f++)
        wrap(L, LUA_STRLIBNAME, *f, w_pack);

    /* Object ids for tostring, in a weak-keyed table of the registry. */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    m->ref_objid = luaL_ref(L, LUA_REGISTRYINDEX);

    /* Keep the limit messages interned so raising them needs no memory. */
    lua_newtable(L);
    for (int i = LIM_INSTRUCTIONS; i <= LIM_BURST; i++) {
        lua_pushstring(L, ms_limit_message(i));
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "gsvm.mission.messages");
    ms_api_register(L);
    return 0;
}

bool ms_sandbox_open(gsvm_mission *m, gsvm_error *err)
{
    m->lim.arena_used = 0;
    m->lim.charging = false;
    m->lim.tripped = 0;
    m->L = lua_newstate(ms_alloc, m);
    if (!m->L) {
        gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "cannot create a Lua state");
        return false;
    }
    ms_install_panic(m);
    lua_gc(m->L, LUA_GCSTOP);
    lua_pushcfunction(m->L, build);
    if (lua_pcall(m->L, 0, 0, 0) != LUA_OK) {
        gsvm_error_set(err, GSVM_ERR_NOMEM, m->activity_id, "cannot build the sandbox: %s",
                       lua_tostring(m->L, -1) ? lua_tostring(m->L, -1) : "?");
        lua_close(m->L);
        m->L = NULL;
        return false;
    }
    return true;
}
