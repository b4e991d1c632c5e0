/* Falcon ABI 3 through the C API: the language's semantics (each case a
 * script and the host calls it must make), faults, memory accounting,
 * states/timers/listens/sleep on simulation time, the program file, the
 * fair tick, and the snapshot: after EVERY instruction k of scripts using
 * all of the above, snapshot + restore into a fresh VM continues with the
 * same host calls; corrupt, truncated or foreign snapshots are refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/file.h"
#include "gsvm/lsl.h"
#include "lsl/prog3.h"
#include "test.h"

/* ---- a host recording every call as a JSON line ---------------------------- */

typedef struct recorder {
    gsvm_buf text;
    int calls;
} recorder;

static gsvm_status rec_host(void *user, const char *name, const json_t *args, json_t **result, gsvm_error *err)
{
    recorder *r = user;
    (void)err;
    char *a = json_dumps(args, JSON_COMPACT);
    gsvm_buf_printf(&r->text, "%s%s\n", name, a ? a : "?");
    free(a);
    r->calls++;
    *result = NULL;
    if (strcmp(name, "llGetOwner") == 0)
        *result = json_string("00000000-0000-0000-0000-0000000000aa");
    return GSVM_OK;
}

static gsvm_lsl3_program *compile(const char *src)
{
    gsvm_lsl3_program *p = NULL;
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_lsl3_compile(src, strlen(src), "t.lsl", &p, &err) != GSVM_OK)
        fprintf(stderr, "compile: %s:%ld:%ld: %s\n", err.file, err.line, err.column, err.message);
    return p;
}

/* A timeline step: post an event (args as JSON text) or advance time. */
typedef struct step {
    const char *event;
    const char *args;
    uint64_t advance;
} step;

/* Runs `src` through `steps` in slices of `budget`; when snap_every, after
 * every slice the VM is snapshotted and replaced by a fresh one restored
 * from it.  Appends host calls (and a final fault line) to r. */
static void run_timeline(const gsvm_lsl3_program *p, const step *steps, size_t nsteps, uint64_t budget,
                         bool snap_every, recorder *r, uint64_t *total)
{
    gsvm_error err;
    gsvm_lsl3_vm *vm;
    if (gsvm_lsl3_vm_new(p, &vm, &err) != GSVM_OK) {
        CHECK(!"vm_new");
        return;
    }
    gsvm_lsl3_vm_set_host(vm, rec_host, r);
    gsvm_lsl3_vm_start(vm, &err);
    size_t si = 0;
    uint64_t pending_advance = 0;
    for (int guard = 0; guard < 10000000; guard++) {
        gsvm_lsl_run_status st = gsvm_lsl3_vm_run(vm, budget);
        if (snap_every && st != GSVM_LSL_ERROR) {
            uint8_t *blob;
            size_t len;
            if (gsvm_lsl3_vm_snapshot(vm, &blob, &len, &err) != GSVM_OK) {
                CHECK(!"snapshot");
                break;
            }
            size_t used = gsvm_lsl3_vm_used_memory(vm);
            gsvm_lsl3_vm *fresh;
            gsvm_lsl3_vm_new(p, &fresh, &err);
            gsvm_lsl3_vm_set_host(fresh, rec_host, r);
            gsvm_status rs = gsvm_lsl3_vm_restore(fresh, blob, len, "snap", &err);
            if (rs != GSVM_OK) {
                fprintf(stderr, "restore failed: %s\n", err.message);
                CHECK(rs == GSVM_OK);
                free(blob);
                gsvm_lsl3_vm_free(fresh);
                break;
            }
            if (gsvm_lsl3_vm_used_memory(fresh) != used) {
                fprintf(stderr, "memory %zu after restore, %zu before\n", gsvm_lsl3_vm_used_memory(fresh), used);
                CHECK(!"memory accounting differs after restore");
            }
            free(blob);
            gsvm_lsl3_vm_free(vm);
            vm = fresh;
        }
        if (st == GSVM_LSL_ERROR) {
            gsvm_buf_printf(&r->text, "fault %s at %llu\n", gsvm_lsl3_vm_fault(vm),
                            (unsigned long long)gsvm_lsl3_vm_fault_ip(vm));
            break;
        }
        if (st == GSVM_LSL_YIELDED)
            continue;
        /* idle or sleeping: the next piece of the timeline */
        if (pending_advance) {
            pending_advance -= gsvm_lsl3_vm_advance(vm, pending_advance);
            continue;
        }
        if (si == nsteps)
            break;
        const step *s = &steps[si++];
        if (s->event) {
            json_error_t je;
            json_t *a = json_loads(s->args ? s->args : "[]", 0, &je);
            bool q;
            CHECK(gsvm_lsl3_vm_post(vm, s->event, a, &q, &err) == GSVM_OK);
            json_decref(a);
        } else
            pending_advance = s->advance;
    }
    if (total)
        *total = gsvm_lsl3_vm_total(vm);
    gsvm_lsl3_vm_free(vm);
}

static char *run_src(const char *src, const step *steps, size_t n, uint64_t budget)
{
    gsvm_lsl3_program *p = compile(src);
    if (!p)
        return strdup("compile failed");
    recorder r = {0};
    gsvm_buf_init(&r.text);
    run_timeline(p, steps, n, budget, false, &r, NULL);
    gsvm_lsl3_program_free(p);
    char *out = strdup(gsvm_buf_cstr(&r.text));
    gsvm_buf_free(&r.text);
    return out;
}

/* ---- semantics: each script prints with llOwnerSay ------------------------ */

static const struct {
    const char *body; /* inside state_entry */
    const char *want; /* the llOwnerSay texts, one per line */
} cases[] = {
    {"integer a = 2147483647; a += 1; llOwnerSay((string)a);", "-2147483648"},
    {"llOwnerSay((string)(-7 / 2) + \" \" + (string)(-7 % 3) + \" \" + (string)(0x80000000 / -1));", "-3 -1 -2147483648"},
    {"llOwnerSay((string)(1 << 33) + \" \" + (string)(-16 >> 2) + \" \" + (string)(~5) + \" \" + (string)(6 ^ 3));", "2 -4 -6 5"},
    {"float f = 1.0 / 3; llOwnerSay((string)f + \" \" + (string)(f * 3));", "0.333333 1.000000"},
    {"llOwnerSay((string)((integer)\"0x1A\") + \" \" + (string)((integer)\" 42abc\") + \" \" + (string)((integer)3.99) + \" \" + (string)((integer)-3.99));", "26 42 3 -3"},
    {"llOwnerSay((string)<1,2,3> + \" \" + (string)<1,2,3,4>);", "<1.00000, 2.00000, 3.00000> <1.00000, 2.00000, 3.00000, 4.00000>"},
    {"llOwnerSay((string)(<1,2,3> * <4,5,6>) + \" \" + (string)(<1,0,0> % <0,1,0>));", "32.000000 <0.00000, 0.00000, 1.00000>"},
    {"rotation r = llEuler2Rot(<0,0,PI_BY_TWO>); llOwnerSay((string)(<1,0,0> * r) + \" \" + (string)(<1,0,0> / r));",
     "<0.00000, 1.00000, 0.00000> <0.00000, -1.00000, 0.00000>"},
    {"list a = [1,2,3]; list b = [4]; llOwnerSay((string)(a == b) + \" \" + (string)(a != b) + \" \" + (string)(a == [7,8,9]));", "0 2 1"},
    {"list l = [1, 2.5, \"x\"] + <1,2,3>; l += 9; llOwnerSay((string)llGetListLength(l) + \" \" + llList2String(l, 3) + \" \" + (string)llList2Integer(l, -1));",
     "5 <1.000000, 2.000000, 3.000000> 9"},
    {"key k = \"00000000-0000-0000-0000-000000000001\"; key z = NULL_KEY; key s = \"abc\"; if (k) llOwnerSay(\"k\"); if (z) llOwnerSay(\"z\"); if (s) llOwnerSay(\"s\");", "k"},
    {"integer n = 0; integer x = (n = 3) && (n = 0); llOwnerSay((string)x + \" \" + (string)n);", "0 3"},
    {"integer i = 1; integer r = (i = 5) + i; llOwnerSay((string)r);", "6"},
    {"integer i; for (i = 0; i < 3; ++i) llOwnerSay((string)i); do i--; while (i > 0); llOwnerSay((string)i);", "0\n1\n2\n0"},
    {"vector v = <1,2,3>; v.y = 7; v.z += 1; v.x++; llOwnerSay((string)v + \" \" + (string)v.y);", "<2.00000, 7.00000, 4.00000> 7.000000"},
    {"integer i = 10; i *= 2.5; float f = 3; f /= 2; llOwnerSay((string)i + \" \" + (string)f);", "25 1.500000"},
    {"string s = \"a\"; s += \"b\"; s = s + s; llOwnerSay(s + (string)llStringLength(s));", "abab4"},
    {"integer j = 0; @top; j++; if (j < 5) jump top; llOwnerSay((string)j);", "5"},
    {"rotation r; vector v; list l; string s; key k; float f; integer i; llOwnerSay((string)r + (string)v + (string)llGetListLength(l) + s + (string)k + (string)f + (string)i);",
     "<0.00000, 0.00000, 0.00000, 1.00000><0.00000, 0.00000, 0.00000>00.0000000"},
    {"llOwnerSay((string)llAbs(-5) + \" \" + llToUpper(\"abc\") + \" \" + llMD5String(\"a\", 0) + \" \" + (string)llGetListEntryType([1.0, <1,2,3>], 1));",
     "5 ABC 1311656a4fbf190b4e6e29841876fae2 5"},
    {"llOwnerSay((string)(-<1,2,3>) + \" \" + (string)(!0) + \" \" + (string)(-2147483648 * -1));", "<-1.00000, -2.00000, -3.00000> 1 -2147483648"},
    {"float a = 1e30; float b = a * a; llOwnerSay((string)b + \" \" + (string)((integer)b));", "Infinity -2147483648"},
    {"integer a = llListen(1, \"\", \"\", \"\"); integer b = llListen(1, \"\", \"\", \"\"); integer c = llListen(2, \"\", \"\", \"\"); llListenRemove(a); llOwnerSay((string)a + (string)b + (string)c + (string)llListen(1, \"\", \"\", \"\"));", "1123"},
    {"llOwnerSay((string)(3 == 3.0) + \" \" + (string)(2 < 2.5) + \" \" + (string)(\"a\" != \"b\") + \" \" + (string)((key)\"a\" == \"a\"));", "1 1 1 1"},
};

static void test_semantics(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[2048];
        snprintf(src, sizeof src, "default { state_entry() { %s } }", cases[i].body);
        char *got = run_src(src, NULL, 0, 1000);
        /* the expected texts as llOwnerSay lines */
        gsvm_buf want;
        gsvm_buf_init(&want);
        const char *w = cases[i].want;
        while (*w) {
            const char *nl = strchr(w, '\n');
            size_t len = nl ? (size_t)(nl - w) : strlen(w);
            json_t *a = json_pack("[s%]", w, len);
            char *t = json_dumps(a, JSON_COMPACT);
            gsvm_buf_printf(&want, "llOwnerSay%s\n", t);
            free(t);
            json_decref(a);
            w += len + (nl ? 1 : 0);
        }
        if (strcmp(got, gsvm_buf_cstr(&want)) != 0)
            fprintf(stderr, "case %zu: %s\n got: %s want: %s\n", i, cases[i].body, got, gsvm_buf_cstr(&want));
        CHECK_STR(got, gsvm_buf_cstr(&want));
        free(got);
        gsvm_buf_free(&want);
    }
}

/* ---- faults ---------------------------------------------------------------- */

static void expect_fault(const char *src, const char *msg)
{
    char *got = run_src(src, NULL, 0, 100000);
    char want[200];
    snprintf(want, sizeof want, "fault %s at", msg);
    if (!strstr(got, want))
        fprintf(stderr, "want a %s fault, got: %s\n", msg, got);
    CHECK(strstr(got, want) != NULL);
    free(got);
}

static void test_faults(void)
{
    expect_fault("default { state_entry() { integer z; llOwnerSay((string)(1 / z)); } }", "Math Error");
    expect_fault("default { state_entry() { integer z; llOwnerSay((string)(1 % z)); } }", "Math Error");
    expect_fault("default { state_entry() { float z; llOwnerSay((string)(1.0 / z)); } }", "Math Error");
    expect_fault("default { state_entry() { vector v = <1,2,3>; float z; v = v / z; } }", "Math Error");
    /* memory: a string doubling until it cannot fit 64 KiB */
    expect_fault("default { state_entry() { string s = \"x\"; while (1) s += s; } }", "Stack-Heap Collision");
    /* a list growing */
    expect_fault("default { state_entry() { list l; while (1) l += [1]; } }", "Stack-Heap Collision");
    /* unbounded recursion */
    expect_fault("integer f(integer n) { return f(n + 1) + 1; } default { state_entry() { f(0); } }", "Stack-Heap Collision");
    /* the script stops, the VM stays usable for inspection */
    gsvm_lsl3_program *p = compile("default { state_entry() { integer z; z = 1 / z; } touch_start(integer n) { llOwnerSay(\"x\"); } }");
    gsvm_lsl3_vm *vm;
    gsvm_error err;
    gsvm_lsl3_vm_new(p, &vm, &err);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1000), GSVM_LSL_ERROR);
    CHECK_STR(gsvm_lsl3_vm_fault(vm), "Math Error");
    CHECK_INT(gsvm_lsl3_vm_run(vm, 1000), GSVM_LSL_ERROR);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
}

/* ---- diagnostics ----------------------------------------------------------- */

static void expect_error(const char *src, long line, long col, const char *part)
{
    gsvm_lsl3_program *p = NULL;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_status st = gsvm_lsl3_compile(src, strlen(src), "bad.lsl", &p, &err);
    CHECK(st == GSVM_ERR_INPUT);
    CHECK(p == NULL);
    if (err.line != line || err.column != col || !strstr(err.message, part))
        fprintf(stderr, "for %s: got %ld:%ld %s\n", src, err.line, err.column, err.message);
    CHECK_INT(err.line, line);
    CHECK_INT(err.column, col);
    CHECK(strstr(err.message, part) != NULL);
}

static void test_diagnostics(void)
{
    expect_error("default { state_entry() { integer i = \"x\"; } }", 1, 39, "cannot use string as integer");
    expect_error("default { state_entry() {\n  llSay(\"x\", 0); } }", 2, 9, "argument 1 of llSay must be integer");
    expect_error("default { state_entry() { state nowhere; } }", 1, 27, "no state named 'nowhere'");
    expect_error("default { state_entry() { jump nowhere; } }", 1, 27, "no label 'nowhere'");
    expect_error("default { touch_start(string s) { } }", 1, 30, "parameter 1 of touch_start must be integer");
    expect_error("default { state_entry() { list l = [[1]]; } }", 1, 37, "Lists can't be included in lists");
    expect_error("default { state_entry() { vector v; v.s = 1; } }", 1, 38, "a vector has no member 's'");
    expect_error("integer f() { return; } default { state_entry() { } }", 1, 15, "return needs a value of type integer");
    expect_error("default { state_entry() { undefined(); } }", 1, 27, "no function named 'undefined'");
}

/* ---- time, states, listens ------------------------------------------------- */

static const char *timed_src =
    "integer n;\n"
    "default {\n"
    "  state_entry() { llSetTimerEvent(1.0); llListen(3, \"Bob\", NULL_KEY, \"\"); }\n"
    "  timer() { n++; llOwnerSay(\"t\" + (string)n + \" \" + (string)llGetTime()); if (n == 3) state other; }\n"
    "  listen(integer c, string name, key k, string m) { llOwnerSay(name + \":\" + m); }\n"
    "  state_exit() { llOwnerSay(\"exit\"); }\n"
    "}\n"
    "state other {\n"
    "  state_entry() { llOwnerSay(\"entry\"); llSleep(0.5); llOwnerSay(\"woke \" + (string)llGetTime()); }\n"
    "  timer() { n++; llOwnerSay(\"o\" + (string)n); if (n == 5) llResetScript(); }\n"
    "  listen(integer c, string name, key k, string m) { llOwnerSay(\"never\"); }\n"
    "}\n";

static const step timed_steps[] = {
    {"listen", "[3, \"Bob\", \"00000000-0000-0000-0000-000000000002\", \"hi\"]", 0},
    {"listen", "[3, \"Eve\", \"00000000-0000-0000-0000-000000000002\", \"filtered by name\"]", 0},
    {"listen", "[4, \"Bob\", \"00000000-0000-0000-0000-000000000002\", \"filtered by channel\"]", 0},
    {NULL, NULL, 3200},
    {"listen", "[3, \"Bob\", \"00000000-0000-0000-0000-000000000002\", \"listens cleared\"]", 0},
    {NULL, NULL, 2500},
    {NULL, NULL, 1000},
};

static void test_time(void)
{
    char *got = run_src(timed_src, timed_steps, sizeof timed_steps / sizeof timed_steps[0], 50);
    const char *want =
        "llOwnerSay[\"Bob:hi\"]\n"
        "llOwnerSay[\"t1 1.000000\"]\n"
        "llOwnerSay[\"t2 2.000000\"]\n"
        "llOwnerSay[\"t3 3.000000\"]\n"
        "llOwnerSay[\"exit\"]\n"
        "llOwnerSay[\"entry\"]\n"
        "llOwnerSay[\"woke 3.500000\"]\n"
        "llOwnerSay[\"o4\"]\n"
        "llOwnerSay[\"o5\"]\n"
        /* llResetScript at 5 s: globals, timer and time start again */
        "llOwnerSay[\"t1 1.000000\"]\n";
    CHECK_STR(got, want);
    free(got);
}

/* ---- snapshots at every instruction ---------------------------------------- */

static char *read_text(const char *path)
{
    gsvm_buf b;
    gsvm_error err;
    if (gsvm_file_read(path, &b, &err) != GSVM_OK)
        return NULL;
    gsvm_buf_cstr(&b);
    size_t len;
    return (char *)gsvm_buf_take(&b, &len);
}

static void every_k(const char *name, const char *src, const step *steps, size_t nsteps)
{
    gsvm_lsl3_program *p = compile(src);
    CHECK(p != NULL);
    if (!p)
        return;
    recorder a = {0}, b = {0};
    gsvm_buf_init(&a.text);
    gsvm_buf_init(&b.text);
    uint64_t ta = 0, tb = 0;
    run_timeline(p, steps, nsteps, 1u << 30, false, &a, &ta);
    run_timeline(p, steps, nsteps, 1, true, &b, &tb);
    if (strcmp(gsvm_buf_cstr(&a.text), gsvm_buf_cstr(&b.text)) != 0)
        fprintf(stderr, "%s: output differs with a snapshot after every instruction\n--- straight\n%s--- snapshots\n%s",
                name, gsvm_buf_cstr(&a.text), gsvm_buf_cstr(&b.text));
    CHECK_STR(gsvm_buf_cstr(&b.text), gsvm_buf_cstr(&a.text));
    CHECK_INT(tb, ta);
    CHECK(a.calls > 0);
    printf("%s: %llu instructions, a snapshot after each gives the same %d host calls\n", name,
           (unsigned long long)ta, a.calls);
    gsvm_buf_free(&a.text);
    gsvm_buf_free(&b.text);
    gsvm_lsl3_program_free(p);
}

static void test_snapshot_every_k(void)
{
    every_k("timed", timed_src, timed_steps, sizeof timed_steps / sizeof timed_steps[0]);
    char *tour = read_text("examples/lsl/abi3_tour.lsl");
    CHECK(tour != NULL);
    if (tour) {
        static const step tour_steps[] = {
            {NULL, NULL, 4500},
            {"listen", "[7, \"Bob\", \"00000000-0000-0000-0000-000000000002\", \"hi\"]", 0},
            {"listen", "[7, \"Bob\", \"00000000-0000-0000-0000-000000000002\", \"go\"]", 0},
            {NULL, NULL, 6000},
            {"touch_start", "[2]", 0},
        };
        every_k("tour", tour, tour_steps, sizeof tour_steps / sizeof tour_steps[0]);
        free(tour);
    }
    static const char *const conf[] = {"tests/lsl/conformance/integers.lsl", "tests/lsl/conformance/vectors.lsl",
                                       "tests/lsl/conformance/strings_keys.lsl", "tests/lsl/conformance/floats.lsl",
                                       "tests/lsl/abi3/fused.lsl"};
    for (size_t i = 0; i < sizeof conf / sizeof conf[0]; i++) {
        char *src = read_text(conf[i]);
        if (!src) {
            printf("skipped %s (not present)\n", conf[i]);
            continue;
        }
        every_k(conf[i], src, NULL, 0);
        free(src);
    }
}

/* ---- snapshot validation --------------------------------------------------- */

static void test_snapshot_rejects(void)
{
    const char *src = "integer g = 1; list l = [\"a\", 2];\n"
                      "integer f(integer n) { if (n == 0) { llOwnerSay(\"bottom\"); return 0; } return 1 + f(n - 1); }\n"
                      "default { state_entry() { string s = \"abc\"; g = f(5); llSetTimerEvent(1); llListen(1, \"\", \"\", \"\"); llOwnerSay(s + (string)g); } }";
    gsvm_lsl3_program *p = compile(src), *q = compile("default { state_entry() { llOwnerSay(\"other\"); } }");
    CHECK(p && q);
    if (!p || !q)
        return;
    gsvm_error err;
    gsvm_lsl3_vm *vm;
    gsvm_lsl3_vm_new(p, &vm, &err);
    gsvm_lsl3_vm_start(vm, &err);
    for (int i = 0; i < 1000 && vm->nframes < 4; i++)
        gsvm_lsl3_vm_run(vm, 1); /* into the recursion */
    CHECK(vm->nframes >= 4);
    uint8_t *blob;
    size_t len;
    CHECK(gsvm_lsl3_vm_snapshot(vm, &blob, &len, &err) == GSVM_OK);
    CHECK_INT(gsvm_lsl_snapshot_abi(blob, len), 3);
    /* another program */
    gsvm_lsl3_vm *other;
    gsvm_lsl3_vm_new(q, &other, &err);
    gsvm_error_clear(&err);
    CHECK(gsvm_lsl3_vm_restore(other, blob, len, "s", &err) == GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "another program") != NULL);
    gsvm_lsl3_vm_free(other);
    /* every truncation, trailing garbage, and every single-byte change */
    gsvm_lsl3_vm *t;
    gsvm_lsl3_vm_new(p, &t, &err);
    int rejected = 0;
    for (size_t cut = 0; cut < len; cut++) {
        gsvm_error_clear(&err);
        rejected += gsvm_lsl3_vm_restore(t, blob, cut, "s", &err) != GSVM_OK;
    }
    CHECK_INT(rejected, (long long)len);
    uint8_t *big = malloc(len + 1);
    memcpy(big, blob, len);
    big[len] = 0;
    CHECK(gsvm_lsl3_vm_restore(t, big, len + 1, "s", &err) != GSVM_OK);
    CHECK(strstr(err.message, "trailing") != NULL);
    free(big);
    uint8_t *mut = malloc(len);
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(mut, blob, len);
            mut[i] ^= (uint8_t)(1u << bit);
            gsvm_error_clear(&err);
            gsvm_lsl3_vm *m;
            gsvm_lsl3_vm_new(p, &m, &err);
            recorder r = {0};
            gsvm_buf_init(&r.text);
            gsvm_lsl3_vm_set_host(m, rec_host, &r);
            if (gsvm_lsl3_vm_restore(m, mut, len, "s", &err) == GSVM_OK)
                gsvm_lsl3_vm_run(m, 100000); /* whatever it holds must run safely */
            gsvm_buf_free(&r.text);
            gsvm_lsl3_vm_free(m);
        }
    free(mut);
    /* the untouched blob still restores and finishes as the original */
    recorder r1 = {0}, r2 = {0};
    gsvm_buf_init(&r1.text);
    gsvm_buf_init(&r2.text);
    gsvm_lsl3_vm_set_host(vm, rec_host, &r1);
    gsvm_lsl3_vm_set_host(t, rec_host, &r2);
    CHECK(gsvm_lsl3_vm_restore(t, blob, len, "s", &err) == GSVM_OK);
    CHECK_INT(gsvm_lsl3_vm_used_memory(t), gsvm_lsl3_vm_used_memory(vm));
    CHECK_INT(gsvm_lsl3_vm_run(vm, 100000), GSVM_LSL_FINISHED);
    CHECK_INT(gsvm_lsl3_vm_run(t, 100000), GSVM_LSL_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&r2.text), gsvm_buf_cstr(&r1.text));
    CHECK_STR(gsvm_buf_cstr(&r1.text), "llOwnerSay[\"bottom\"]\nllOwnerSay[\"abc5\"]\n");
    gsvm_buf_free(&r1.text);
    gsvm_buf_free(&r2.text);
    free(blob);
    gsvm_lsl3_vm_free(t);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
    gsvm_lsl3_program_free(q);
}

/* The scheduler (sched.c) inside the snapshot: queued events, listens, timer
 * and script time come back, and its handled-events mask must be the
 * current state's (a queue of events the state cannot run is refused). */
static void test_snapshot_scheduler(void)
{
    gsvm_lsl3_program *p = compile("default { state_entry() { llListen(3, \"\", \"\", \"\"); llSetTimerEvent(2.0); }\n"
                                   "  listen(integer c, string n, key k, string m) { llOwnerSay(m); }\n"
                                   "  timer() { llOwnerSay(\"t\" + (string)llGetTime()); } }\n"
                                   "state two { state_entry() { } }");
    CHECK(p != NULL);
    if (!p)
        return;
    gsvm_error err;
    gsvm_lsl3_vm *vm, *t;
    gsvm_lsl3_vm_new(p, &vm, &err);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 100000), GSVM_LSL_FINISHED);
    uint64_t moved = 0;
    while (moved < 2000)
        moved += gsvm_lsl3_vm_advance(vm, 2000 - moved);
    json_t *a = json_loads("[3, \"Bob\", \"00000000-0000-0000-0000-000000000002\", \"hi there\"]", 0, NULL);
    bool q = false;
    CHECK(gsvm_lsl3_vm_post(vm, "listen", a, &q, &err) == GSVM_OK && q);
    json_decref(a);
    CHECK_INT(vm->sched.count, 2); /* timer, listen */
    uint8_t *blob;
    size_t len;
    CHECK(gsvm_lsl3_vm_snapshot(vm, &blob, &len, &err) == GSVM_OK);
    gsvm_lsl3_vm_new(p, &t, &err);
    CHECK(gsvm_lsl3_vm_restore(t, blob, len, "s", &err) == GSVM_OK);
    CHECK_INT(t->sched.count, 2);
    CHECK_INT(t->sched.nlistens, 1);
    CHECK_INT(t->sched.timer_period_ms, 2000);
    CHECK_INT(t->sched.now_ms, 2000);
    CHECK_INT(gsvm_lsl3_vm_used_memory(t), gsvm_lsl3_vm_used_memory(vm));
    recorder r1 = {0}, r2 = {0};
    gsvm_buf_init(&r1.text);
    gsvm_buf_init(&r2.text);
    gsvm_lsl3_vm_set_host(vm, rec_host, &r1);
    gsvm_lsl3_vm_set_host(t, rec_host, &r2);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 100000), GSVM_LSL_FINISHED);
    CHECK_INT(gsvm_lsl3_vm_run(t, 100000), GSVM_LSL_FINISHED);
    CHECK_STR(gsvm_buf_cstr(&r2.text), gsvm_buf_cstr(&r1.text));
    CHECK_STR(gsvm_buf_cstr(&r1.text), "llOwnerSay[\"t2.000000\"]\nllOwnerSay[\"hi there\"]\n");
    gsvm_buf_free(&r1.text);
    gsvm_buf_free(&r2.text);
    /* the handled mask, found as its 8 bytes (once) in the blob */
    uint64_t mask = fal3_handled_mask(p, 0), other = fal3_handled_mask(p, 1);
    CHECK(mask != other);
    uint8_t m8[8];
    for (int i = 0; i < 8; i++)
        m8[i] = (uint8_t)(mask >> (8 * i));
    size_t at = SIZE_MAX, hits = 0;
    for (size_t i = 0; i + 8 <= len; i++)
        if (memcmp(blob + i, m8, 8) == 0) {
            at = i;
            hits++;
        }
    CHECK_INT(hits, 1);
    if (hits == 1) {
        /* state two's mask in state default; then default's without listen */
        uint64_t bad[2] = {other, mask & ~(UINT64_C(1) << LSL_SCHED_EV_LISTEN)};
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 8; i++)
                blob[at + i] = (uint8_t)(bad[k] >> (8 * i));
            gsvm_lsl3_vm *m;
            gsvm_lsl3_vm_new(p, &m, &err);
            gsvm_error_clear(&err);
            CHECK(gsvm_lsl3_vm_restore(m, blob, len, "s", &err) == GSVM_ERR_INPUT);
            CHECK(strstr(err.message, "handled") != NULL);
            gsvm_lsl3_vm_free(m);
        }
    }
    free(blob);
    gsvm_lsl3_vm_free(t);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
}

/* ---- the compiled-program cache (shared with ABI 2) ------------------------ */

static void test_cache3(void)
{
    char dir[] = "/tmp/gsvm-lsl3-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    /* a script outside the ABI-2 slice (user function, list) */
    const char *src = "list l; integer f(integer n) { return n * 2; }\n"
                      "default { state_entry() { l += [f(21)]; llOwnerSay(llList2CSV(l)); } }";
    gsvm_lsl3_program *p, *q;
    gsvm_error err;
    bool hit = true;
    CHECK(gsvm_lsl3_compile_cached(src, strlen(src), "c.lsl", dir, &p, &hit, &err) == GSVM_OK);
    CHECK(!hit);
    CHECK(gsvm_lsl3_compile_cached(src, strlen(src), "c.lsl", dir, &q, &hit, &err) == GSVM_OK);
    CHECK(hit);
    /* the cached program is the compiled one: same bytes, so same hash and
     * a snapshot of one restores into the other */
    uint8_t *a, *b;
    size_t na, nb;
    CHECK(gsvm_lsl3_program_save(p, &a, &na, &err) == GSVM_OK);
    CHECK(gsvm_lsl3_program_save(q, &b, &nb, &err) == GSVM_OK);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);
    gsvm_lsl3_program_free(q);
    /* ABI 2 and ABI 3 never share an entry, even for one source */
    const char *both = "default { state_entry() { llOwnerSay(\"x\"); } }";
    gsvm_lsl_program *p2;
    CHECK(gsvm_lsl_compile_cached(both, strlen(both), "o.lsl", dir, &p2, &hit, &err) == GSVM_OK);
    CHECK(!hit);
    gsvm_lsl_program_free(p2);
    CHECK(gsvm_lsl3_compile_cached(both, strlen(both), "o.lsl", dir, &q, &hit, &err) == GSVM_OK);
    CHECK(!hit);
    gsvm_lsl3_program_free(q);
    CHECK(gsvm_lsl3_compile_cached(both, strlen(both), "o.lsl", dir, &q, &hit, &err) == GSVM_OK);
    CHECK(hit);
    gsvm_lsl3_program_free(q);
    /* a corrupt entry is recompiled (and rewritten), never trusted */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "for f in %s/lsl/*/*.fp3; do printf 'HWZ3junk' > \"$f\"; done", dir);
    CHECK(system(cmd) == 0);
    CHECK(gsvm_lsl3_compile_cached(src, strlen(src), "c.lsl", dir, &q, &hit, &err) == GSVM_OK);
    CHECK(!hit);
    CHECK(gsvm_lsl3_program_save(q, &b, &nb, &err) == GSVM_OK);
    CHECK(gsvm_lsl3_program_save(p, &a, &na, &err) == GSVM_OK);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);
    gsvm_lsl3_program_free(q);
    CHECK(gsvm_lsl3_compile_cached(src, strlen(src), "c.lsl", dir, &q, &hit, &err) == GSVM_OK);
    CHECK(hit);
    gsvm_lsl3_program_free(q);
    gsvm_lsl3_program_free(p);
    /* a compile error is reported with its position, never cached */
    const char *bad = "default { state_entry() { x = 1; } }";
    CHECK(gsvm_lsl3_compile_cached(bad, strlen(bad), "b.lsl", dir, &q, &hit, &err) == GSVM_ERR_INPUT);
    CHECK_INT(err.line, 1);
    CHECK(gsvm_lsl3_compile_cached(bad, strlen(bad), "b.lsl", dir, &q, &hit, &err) == GSVM_ERR_INPUT);
    CHECK(!hit);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* ---- 64 KiB of live data: snapshot size ------------------------------------ */

static void test_snapshot_size(void)
{
    /* strings of 1000 ASCII characters (each charged 16 + 2000 bytes) */
    gsvm_lsl3_program *p = compile(
        "list keep;\n"
        "default { state_entry() { string s = \"0123456789\"; integer i; for (i = 0; i < 100; i++) s += \"0123456789\"; s = llGetSubString(s, 0, 999);\n"
        "  while (llGetFreeMemory() > 2200) keep += [s + (string)llGetListLength(keep)];\n"
        "  llOwnerSay((string)llGetListLength(keep) + \" \" + (string)llGetUsedMemory()); } }");
    CHECK(p != NULL);
    if (!p)
        return;
    gsvm_error err;
    gsvm_lsl3_vm *vm;
    recorder r = {0};
    gsvm_buf_init(&r.text);
    gsvm_lsl3_vm_new(p, &vm, &err);
    gsvm_lsl3_vm_set_host(vm, rec_host, &r);
    gsvm_lsl3_vm_start(vm, &err);
    CHECK_INT(gsvm_lsl3_vm_run(vm, 10000000), GSVM_LSL_FINISHED);
    size_t used = gsvm_lsl3_vm_used_memory(vm);
    CHECK(used > 60000 && used <= 65536);
    uint8_t *blob;
    size_t len;
    CHECK(gsvm_lsl3_vm_snapshot(vm, &blob, &len, &err) == GSVM_OK);
    /* the live data as bytes: each string's UTF-8 text; the snapshot adds headers */
    printf("64 KiB script: %zu bytes used, snapshot %zu bytes; %s", used, len, gsvm_buf_cstr(&r.text));
    CHECK(len <= used + used / 10);
    free(blob);
    gsvm_buf_free(&r.text);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
}

/* ---- program files, fair ticks, ABI checks --------------------------------- */

static void test_program_file(void)
{
    char *tour = read_text("examples/lsl/abi3_tour.lsl");
    if (!tour)
        return;
    gsvm_lsl3_program *p = compile(tour);
    free(tour);
    CHECK(p != NULL);
    if (!p)
        return;
    uint8_t *data;
    size_t len;
    gsvm_error err;
    CHECK(gsvm_lsl3_program_save(p, &data, &len, &err) == GSVM_OK);
    CHECK(gsvm_lsl3_is_program_file(data, len));
    gsvm_lsl3_program *l;
    CHECK(gsvm_lsl3_program_load(data, len, "t.fpc", &l, &err) == GSVM_OK);
    CHECK(memcmp(gsvm_lsl3_program_hash(l), gsvm_lsl3_program_hash(p), 32) == 0);
    gsvm_lsl3_program_free(l);
    /* truncations are rejected; byte changes either load (and verify) or are rejected */
    int bad = 0;
    for (size_t cut = 0; cut < len; cut += 7)
        bad += gsvm_lsl3_program_load(data, cut, "t.fpc", &l, &err) != GSVM_OK;
    CHECK_INT(bad, (long long)((len + 6) / 7));
    for (size_t i = 0; i < len; i += 3) {
        data[i] ^= 0x41;
        if (gsvm_lsl3_program_load(data, len, "t.fpc", &l, &err) == GSVM_OK)
            gsvm_lsl3_program_free(l);
        data[i] ^= 0x41;
    }
    free(data);
    gsvm_lsl3_program_free(p);
}

static void test_tick(void)
{
    gsvm_lsl3_program *p = compile("default { state_entry() { integer i; while (1) i++; } }");
    gsvm_lsl3_program *q = compile("default { state_entry() { llOwnerSay(\"short\"); } }");
    gsvm_lsl3_vm *vms[3];
    gsvm_error err;
    gsvm_lsl3_vm_new(p, &vms[0], &err);
    gsvm_lsl3_vm_new(q, &vms[1], &err);
    gsvm_lsl3_vm_new(p, &vms[2], &err);
    for (int i = 0; i < 3; i++)
        gsvm_lsl3_vm_start(vms[i], &err);
    gsvm_lsl_run_status st[3];
    for (int t = 0; t < 10; t++)
        CHECK_INT(gsvm_lsl3_tick(vms, 3, 500, st), 2);
    CHECK_INT(gsvm_lsl3_vm_total(vms[0]), 5000);
    CHECK_INT(gsvm_lsl3_vm_total(vms[2]), 5000);
    CHECK_INT(st[1], GSVM_LSL_FINISHED);
    for (int i = 0; i < 3; i++)
        gsvm_lsl3_vm_free(vms[i]);
    gsvm_lsl3_program_free(p);
    gsvm_lsl3_program_free(q);
}

static void test_host_result(void)
{
    char *got = run_src("default { state_entry() { key k = llGetOwner(); llOwnerSay((string)k); llOwnerSay((string)llGetPos()); } }", NULL, 0, 100);
    CHECK_STR(got, "llGetOwner[]\nllOwnerSay[\"00000000-0000-0000-0000-0000000000aa\"]\nllGetPos[]\n"
                   "llOwnerSay[\"<0.00000, 0.00000, 0.00000>\"]\n");
    free(got);
}

static void test_post_checks(void)
{
    gsvm_lsl3_program *p = compile("default { touch_start(integer n) { } listen(integer c, string n, key k, string m) { } }");
    gsvm_lsl3_vm *vm;
    gsvm_error err;
    gsvm_lsl3_vm_new(p, &vm, &err);
    bool q;
    json_t *a = json_loads("[\"x\"]", 0, NULL);
    CHECK(gsvm_lsl3_vm_post(vm, "touch_start", a, &q, &err) == GSVM_ERR_INPUT);
    json_decref(a);
    CHECK(gsvm_lsl3_vm_post(vm, "no_such_event", NULL, &q, &err) == GSVM_ERR_INPUT);
    a = json_loads("[1]", 0, NULL);
    int n = 0;
    for (int i = 0; i < 100; i++) {
        CHECK(gsvm_lsl3_vm_post(vm, "touch_start", a, &q, &err) == GSVM_OK);
        n += q;
    }
    CHECK_INT(n, 64); /* the queue holds 64, later events are dropped */
    json_decref(a);
    /* a listen without llListen is not delivered */
    gsvm_lsl3_vm_run(vm, 1000000);
    a = json_loads("[0, \"a\", \"\", \"m\"]", 0, NULL);
    CHECK(gsvm_lsl3_vm_post(vm, "listen", a, &q, &err) == GSVM_OK);
    CHECK(!q);
    json_decref(a);
    gsvm_lsl3_vm_free(vm);
    gsvm_lsl3_program_free(p);
}

int main(void)
{
    test_semantics();
    test_faults();
    test_diagnostics();
    test_time();
    test_snapshot_rejects();
    test_snapshot_scheduler();
    test_cache3();
    test_snapshot_size();
    test_program_file();
    test_tick();
    test_post_checks();
    test_host_result();
    test_snapshot_every_k();
    TEST_MAIN_END();
}
