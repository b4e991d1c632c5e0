/* The assembler and the importer: features a modder uses, every lossless
 * corner of the format surviving list -> asm, and bad listings rejected
 * with the right line:column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "gsvm/patho.h"
#include "patho/isa.h"
#include "patho/text.h"
#include "test.h"

static gsvm_patho_program *assemble(const char *text, gsvm_patho_layout layout)
{
    gsvm_error err;
    gsvm_patho_program *p = NULL;
    if (gsvm_patho_asm(text, strlen(text), "t.lst", layout, &p, &err) != GSVM_OK) {
        fprintf(stderr, "asm failed: %d:%d: %s\n", (int)err.line, (int)err.column, err.message);
        return NULL;
    }
    return p;
}

/* save -> load -> list -> asm -> save gives the same bytes */
static void check_lossless(gsvm_patho_program *p, const char *what)
{
    gsvm_error err;
    uint8_t *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    CHECK_INT(gsvm_patho_save(p, &a, &alen, &err), GSVM_OK);
    gsvm_patho_program *q = NULL, *r = NULL;
    CHECK_INT(gsvm_patho_load(a, alen, p->layout, what, &q, &err), GSVM_OK);
    char *text = NULL;
    size_t tlen;
    if (q && gsvm_patho_list(q, 0, &text, &tlen, &err) == GSVM_OK) {
        gsvm_status st = gsvm_patho_asm(text, tlen, what, GSVM_PATHO_LAYOUT_AUTO, &r, &err);
        if (st != GSVM_OK)
            fprintf(stderr, "%s: relist failed %ld:%ld %s\n%s", what, err.line, err.column, err.message, text);
        CHECK_INT(st, GSVM_OK);
    }
    if (r)
        CHECK_INT(gsvm_patho_save(r, &b, &blen, &err), GSVM_OK);
    CHECK(a && b && alen == blen && memcmp(a, b, alen) == 0);
    free(a);
    free(b);
    free(text);
    gsvm_patho_free(q);
    gsvm_patho_free(r);
}

static void test_features(void)
{
    /* strings by text: found (also as a tail of a longer one) or appended;
     * UTF-8 text becomes UTF-16; labels forward and back; N:M arguments */
    const char *src = ".layout hd\n"
                      ".pool\n"
                      "    W \"Hello world\"\n"
                      ".import Trace 1\n"
                      ".task 0 params=0 vars=(int)\n"
                      ".code\n"
                      "start: PushS \"world\"      ; tail of Hello world\n"
                      "    PushS \"Привет\"\n"
                      "    PushS \"Hello world\"\n"
                      "    Func Trace(s1)\n"
                      "    Jump end\n"
                      "end:\n"
                      "    ObjFunc s1, \"Enable\", (t0, 3:5)\n"
                      "    Return 3\n";
    gsvm_patho_program *p = assemble(src, GSVM_PATHO_LAYOUT_AUTO);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT(p->layout, GSVM_PATHO_LAYOUT_HD);
    CHECK_INT(p->ninsns, 7);
    CHECK_INT(p->insns[0].a[0], 12); /* "world" is the tail at byte 12 */
    CHECK_INT(p->insns[1].a[0], 24); /* appended after the 24-byte "Hello world" */
    CHECK_INT(p->insns[2].a[0], 0);
    /* Привет = 6 UTF-16 units + terminator = 14 bytes, then "Enable" narrow */
    CHECK_INT(p->insns[5].a[1], 38);
    CHECK_INT(p->pool_size, 38 + 7);
    CHECK(memcmp(p->pool + 24, "\x1f\x04", 2) == 0); /* П = U+041F */
    CHECK_INT(p->insns[4].a[0], 5);
    CHECK_INT(p->insns[5].list_len, 2);
    CHECK_INT(p->args[p->insns[5].list].mode, 1);
    CHECK_INT(p->args[p->insns[5].list + 1].var, 3);
    CHECK_INT(p->args[p->insns[5].list + 1].mode, 5);
    CHECK_INT(p->insns[3].raw, 0x53); /* Func in hd */
    gsvm_patho_free(p);
    /* an offset that no longer holds its text (the pool was edited): the
     * text decides, found at its new place */
    p = assemble(".pool\n    W \"longer now\"\n    A \"Enable\"\n.code\n"
                 "    ObjFunc s1, @0x8 \"Enable\", ()\n    PushS @0x0 \"longer now\"\n"
                 "    PushS @0x0 \"gone\"\n",
                 GSVM_PATHO_LAYOUT_AUTO);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT(p->insns[0].a[1], 22);
    CHECK_INT(p->insns[1].a[0], 0);
    CHECK_INT(p->insns[2].a[0], 29); /* appended after "Enable" */
    CHECK_INT(p->pool_size, 29 + 10);
    gsvm_patho_free(p);
    p = assemble(src, GSVM_PATHO_LAYOUT_AUTO);
    if (!p)
        return;
    check_lossless(p, "features");
    gsvm_patho_free(p);

    /* the layout override renumbers: Func is 0x51 in alpha */
    p = assemble(src, GSVM_PATHO_LAYOUT_ALPHA);
    CHECK(p && p->insns[3].raw == 0x51 && p->layout == GSVM_PATHO_LAYOUT_ALPHA);
    gsvm_patho_free(p);
}

/* a line far longer than usual: a PushV of 300 types, an import of 200 args */
static void test_long_lines(void)
{
    char *src = malloc(16384);
    if (!src)
        return;
    size_t n = (size_t)snprintf(src, 16384, ".import Many 200\n.code\n    PushV (");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(src + n, 16384 - n, "%sint", i ? ", " : "");
    n += (size_t)snprintf(src + n, 16384 - n, ")\n    Func Many(");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(src + n, 16384 - n, "%ss%d", i ? ", " : "", i);
    snprintf(src + n, 16384 - n, ")\n");
    gsvm_patho_program *p = assemble(src, GSVM_PATHO_LAYOUT_HD);
    free(src);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT(p->insns[0].list_len, 300);
    CHECK_INT(p->insns[1].list_len, 200);
    check_lossless(p, "long lines");
    gsvm_patho_free(p);
}

static void test_corners(void)
{
    /* bits the community listing loses, unusual names and types, raw pool
     * bytes, NaN: all must survive list -> asm */
    const char *src = ".layout hd\n"
                      ".global int \"\"\n"
                      ".global object \"x y\" flag=2 long\n"
                      ".global 9\n"
                      ".pool\n"
                      "    A \"abc\"\n"
                      "    B 41 00 42\n"
                      ".import \"we ird\" 2 long\n"
                      ".import Dup 0\n"
                      ".import Dup 0\n"
                      ".entry 0 0\n"
                      ".task 0 params=2 vars=(7, cvector)\n"
                      "    .on 4294967295 L1 (bool)\n"
                      ".event 3 99 ()\n"
                      ".code\n"
                      "    PushE s2, mode=7, -3, pad=0xabcdef\n"
                      "L1: PopE t2, -1, keep, bits=0xf0\n"
                      "    PopGE g1, keep, bits=0x80\n"
                      "    PushF f32:0x7fc00001\n"
                      "    MovV s1, -0.0, 1e-07, 3.40282347e+38\n"
                      "    Func \"we ird\"(s1, t2)\n"
                      "    Func Dup#2()\n"
                      "    Add2 t1, s2, t3, pop=31\n"
                      "    FuncExist2 s1, t2, s3, t4, pop=15\n"
                      "    JumpB s1, 12345, 200, pop=65535\n"
                      "    CString2 t1, s2, pop=63\n"
                      "    MovI s1, -2147483648\n"
                      "    PushI 4294967295\n"
                      "    EventEnable -1\n"
                      "    PushV (bool, 0, 255)\n";
    gsvm_patho_program *p = assemble(src, GSVM_PATHO_LAYOUT_AUTO);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT(p->nglobals, 3);
    CHECK_INT(p->globals[0].has_name, 1);
    CHECK_INT(p->globals[0].name.len, 0);
    CHECK_INT(p->globals[1].has_name, 2);
    CHECK_INT(p->globals[1].name.long_prefix, 1);
    CHECK_INT(p->globals[2].has_name, 0);
    CHECK_INT(p->pool_size, 7);
    CHECK_INT(p->insns[0].a[1], 7);        /* T mode byte */
    CHECK_INT(p->insns[0].a[3], 0xabcdef); /* pad */
    CHECK_INT(p->insns[1].a[2], 0xf0 | 2 | 1);
    CHECK_INT(p->insns[2].a[1], 0x81);
    CHECK_INT(p->insns[3].a[0], 0x7fc00001);
    CHECK_INT(p->insns[4].a[1], 0x80000000u);
    CHECK_INT(p->insns[6].a[0], 2);
    CHECK_INT(p->insns[7].a[3], 0x80 | 0x20 | 31);
    CHECK_INT(p->insns[8].a[4], 0x40 | 0x10 | 15);
    CHECK_INT(p->insns[9].a[3], 65535);
    CHECK_INT(p->insns[10].a[2], 0x80 | 63);
    CHECK_INT(p->tasks[0].events[0].op, 1);
    CHECK_INT(p->events[0].op, 99);
    check_lossless(p, "corners");
    gsvm_patho_free(p);
}

typedef struct bad_case {
    const char *text;
    long line, column;
    const char *needle;
} bad_case;

static void test_errors(void)
{
    static const bad_case cases[] = {
        {".code\n    Nope s1\n", 2, 5, "unknown instruction"},
        {".code\n    Push s1, s2\n", 2, 14, "too many operands"},
        {".code\n    Push t1\n", 2, 10, "stack variable"},
        {".code\n    Jump nowhere\n", 2, 10, "undefined label"},
        {".code\nx:\nx:\n", 3, 1, "defined twice"},
        {".code\n    Func Trace(s1)\n", 2, 10, "no import Trace"},
        {".import Trace 1\n.code\n    Func Trace#0()\n", 3, 10, "takes 1 arguments"},
        {".code\n    PushS \"abc\n", 2, 11, "unterminated string"},
        {".pool\n    W \"ab\"\n.code\n    PushS @0x0 \"xy\" \"z\"\n", 4, 16, "expected a string after"},
        {".code\n    Add s1, s2, pop=64\n", 2, 5, "does not fit"},
        {".layout alpha\n.code\n    CString s1, pop=0\n", 3, 5, "does not exist in the alpha layout"},
        {".layout beta\n", 1, 9, "unknown layout"},
        {".task 1 params=0\n", 1, 7, "out of order"},
        {".pool\n    W \"\\q\"\n", 2, 8, "unknown escape"},
        {".code\n    PushI 99999999999\n", 2, 11, "32-bit integer"},
        {".code\n    PushF nanx\n", 2, 11, "expected a float"},
        {"PushI 1\n", 1, 1, "outside .code"},
        {".code\n    PushV (bool, wat)\n", 2, 18, "expected a type"},
        /* lines in the lister's own form that the assembler's fast lane
         * must hand to the general path, which reports them */
        {".code\n    Pop 1x\n", 2, 9, "unsigned integer"},
        {".code\n    Pop 1 2\n", 2, 9, "expected an integer"},
        {".code\nL0:\n    JumpB s1, L0, 256, pop=1\n", 3, 19, "a byte"},
        {".code\n    Push s4294967296\n", 2, 10, "expected a variable"},
        {".code\n    PushF 1.5e\n", 2, 11, "expected a float"},
        {".code\n    PushGE g1, 2\n", 2, 16, "too many operands"},
        {".import Trace 2\n.code\n    Func Trace(s1)\n", 3, 10, "no import Trace with 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gsvm_error err;
        gsvm_patho_program *p = (gsvm_patho_program *)1;
        gsvm_status st = gsvm_patho_asm(cases[i].text, strlen(cases[i].text), "e.lst",
                                        GSVM_PATHO_LAYOUT_AUTO, &p, &err);
        CHECK_INT(st, GSVM_ERR_INPUT);
        CHECK(p == NULL);
        if (err.line != cases[i].line || err.column != cases[i].column ||
            !strstr(err.message, cases[i].needle)) {
            fprintf(stderr, "case %zu: got %ld:%ld %s\n", i, err.line, err.column, err.message);
            test_failed++;
        } else {
            test_passed++;
        }
        CHECK_STR(err.file, "e.lst");
    }
}

static void test_import_re(void)
{
    /* the community syntax: every arithmetic family, task addressing, the
     * Mov operand order and a multi-line string */
    const char *src = "GlobalVarCount = 1\n"
                      "\tG_VAR_0 int Counter\n\n"
                      "Strings:\n\tW:a\n\n"
                      "Import:\n\tTrace (1 args)\n\n"
                      "RunOp = 0x0\nRunTask = 0\n\n"
                      "GlobalTasks: \n\tGTASK_0 Vars = (int) Params = 0\n"
                      "\t\tEVENT_5 Op = 0x1 Vars = (bool)\n\n"
                      "0x0: Stack[-2] = Stack[-1]\n"
                      "0x1: Stack[0 + Tasks[-1].StackPointer] = Stack[-3]\n"
                      "0x2: Stack[-1] = Stack[1 + Tasks[-1].StackPointer] + Stack[-2]; Pop(3);\n"
                      "0x3: Pop(1); Push((bool) Stack[2 + Tasks[-1].StackPointer] <= Stack[-1])\n"
                      "0x4: Pop(0); PushNull((bool) Stack[-1] == 0)\n"
                      "0x5: Push(\"two\nlines\")\n"
                      "0x6: @ Trace(Stack[-0]T)\n"
                      "0x7: Call2 0x0\n"
                      "0x8: Return(); Pop(0)\n";
    gsvm_error err;
    gsvm_patho_program *p = NULL;
    gsvm_status st = gsvm_patho_import_re(src, strlen(src), "c.asm", GSVM_PATHO_LAYOUT_AUTO, &p, &err);
    if (st != GSVM_OK)
        fprintf(stderr, "import: %ld:%ld %s\n", err.line, err.column, err.message);
    CHECK_INT(st, GSVM_OK);
    if (!p)
        return;
    CHECK_INT(p->layout, GSVM_PATHO_LAYOUT_HD); /* Call2 */
    CHECK_INT(p->ninsns, 9);
    CHECK_INT(p->insns[0].op, 0);           /* Mov */
    CHECK_INT(p->insns[0].a[0], 2);          /* printed first, stored first */
    CHECK_INT(p->insns[1].a[0], 3);          /* TMov: source first */
    CHECK_INT(p->insns[1].a[1], 0);
    CHECK_INT(p->insns[2].a[3], 0x80 | 3);   /* Add2: a task, pop 3 */
    CHECK_INT(p->insns[2].a[2], 1);          /* out = Stack[-1] */
    CHECK_INT(p->insns[3].a[2], 0x80 | 1);   /* LE with a task var */
    CHECK_STR(gsvm_patho_op_name(p->insns[4].op), "NullEq");
    CHECK_INT(p->pool_size, 4 + 20);         /* "a" then "two\nlines" appended */
    CHECK_INT(p->insns[5].a[0], 4);
    CHECK_INT(p->args[p->insns[6].list].mode, 1);
    CHECK_INT(p->globals[0].has_name, 1);
    CHECK_STR(p->globals[0].name.str, "Counter");
    gsvm_patho_free(p);

    const char *bad = "Import:\n\tTrace (1 args)\n\n0x0: @ Nope(Stack[-1])\n";
    st = gsvm_patho_import_re(bad, strlen(bad), "b.asm", GSVM_PATHO_LAYOUT_AUTO, &p, &err);
    CHECK_INT(st, GSVM_ERR_INPUT);
    CHECK_INT(err.line, 4);
    CHECK_INT(err.column, 6);
    const char *bad2 = "0x0: Pop(0)\n0x2: Pop(0)\n";
    st = gsvm_patho_import_re(bad2, strlen(bad2), "b.asm", GSVM_PATHO_LAYOUT_AUTO, &p, &err);
    CHECK_INT(st, GSVM_ERR_INPUT);
    CHECK_INT(err.line, 2);
    const char *bad3 = "0x0: Frobnicate(1)\n";
    st = gsvm_patho_import_re(bad3, strlen(bad3), "b.asm", GSVM_PATHO_LAYOUT_AUTO, &p, &err);
    CHECK_INT(st, GSVM_ERR_INPUT);
    CHECK(strstr(err.message, "cannot read instruction") != NULL);
}

/* The release-2 syntax: what it lost is filled as the community assembler
 * fills it, each kind warned once at its first line; --strict refuses. */
typedef struct warnings {
    int n;
    long lines[16];
    char text[16][600];
} warnings;

static void collect_warning(void *user, const gsvm_error *w)
{
    warnings *ws = user;
    if (ws->n < 16) {
        ws->lines[ws->n] = w->line;
        snprintf(ws->text[ws->n], sizeof ws->text[0], "%s", w->message);
    }
    ws->n++;
}

static void test_import_release2(void)
{
    const char *src = "GlobalVarCount = 0\n\nStrings:\n\tSay\n\thi\n\n"
                      "Import:\n\tTrace (1 args)\n\n"
                      "RunOp = 0x0\nRunTask = 0\n\nGlobalTasks: \n\tGTASK_0 Vars = (object) Params = 0\n\n"
                      "0x0: PushEmpty(int, int)\n"
                      "0x1: Stack[-1] = Stack[-2]\n"             /* release 2: dst first */
                      "0x2: Stack[-1] = NEW1(Stack[-2]); Pop(0)\n"
                      "0x3: Pop(0); Push((bool) Stack[-1] == 0)\n" /* NullEq or Not */
                      "0x4: IF (Stack[-1] == 1) GOTO 0x5; Pop(1)\n"
                      "0x5: Push([0.5, 0.0, 2.0])\n"
                      "0x6: @@ Say(Stack[-1])\n"
                      "0x7: @ Trace(Stack[-2])\n"
                      "0x8: @ Trace(Stack[-2])\n"
                      "0x9: Call2 0x0\n"
                      "0xa: Return(); Pop(0)\n";
    warnings ws;
    memset(&ws, 0, sizeof ws);
    gsvm_patho_import_opts o = {GSVM_PATHO_LAYOUT_AUTO, false, collect_warning, &ws};
    gsvm_patho_program *p = NULL;
    gsvm_error err;
    CHECK_INT(gsvm_patho_import_re_opts(src, strlen(src), "r2.asm", &o, &p, &err), GSVM_OK);
    if (!p)
        return;
    CHECK_INT(p->insns[1].a[0], 2); /* Mov: the source (Stack[-2]) is stored first */
    CHECK_INT(p->insns[1].a[1], 1);
    CHECK_STR(gsvm_patho_op_name(p->insns[2].op), "CString2");
    CHECK_STR(gsvm_patho_op_name(p->insns[3].op), "Not");
    CHECK_STR(gsvm_patho_op_name(p->insns[5].op), "PushVec");
    CHECK_INT(p->insns[5].a[0], gsvm_patho_f32_bits(0.5f));
    CHECK_STR(gsvm_patho_op_name(p->insns[6].op), "ObjFunc");
    CHECK_INT(p->insns[6].a[0], 0); /* the object slot, as the community asm fills it */
    gsvm_patho_free(p);
    /* width, NullEq, JumpB, float, object slot, TObjFunc, task flags: once each */
    CHECK_INT(ws.n, 7);
    static const struct {
        long line;
        const char *part;
    } want[] = {{4, "A:/W: width"}, {19, "NullEq prints as Not"}, {20, "IF compare byte"},
                {21, "floats are rounded"}, {22, "object slot"}, {22, "TObjFunc prints as ObjFunc"},
                {22, "task flags"}};
    for (int i = 0; i < 7 && i < ws.n; i++) {
        CHECK_INT(ws.lines[i], want[i].line);
        CHECK(strstr(ws.text[i], want[i].part) != NULL);
    }
    o.strict = true;
    CHECK_INT(gsvm_patho_import_re_opts(src, strlen(src), "r2.asm", &o, &p, &err), GSVM_ERR_INPUT);
    CHECK(p == NULL);
    CHECK_INT(err.line, 4);
    CHECK(strstr(err.message, "refused: --strict") != NULL);
    /* An exact listing (widths, Obj=) is not release 2: no warning, Mov source first. */
    const char *exact = "Strings:\n\tA:Say\n\nGlobalTasks: \n\tGTASK_0 Vars = (object) Params = 0\n\n"
                        "0x0: PushEmpty(int, int)\n0x1: Stack[-1] = Stack[-2]\n"
                        "0x2: IF (Stack[-1] == 1) GOTO 0x3; Pop(1)\n"
                        "0x3: @@ Say(Stack[-1]); Obj=1\n0x4: Return(); Pop(0)\n";
    memset(&ws, 0, sizeof ws);
    CHECK_INT(gsvm_patho_import_re_opts(exact, strlen(exact), "e.asm", &o, &p, &err), GSVM_OK);
    CHECK_INT(ws.n, 0);
    if (p) {
        CHECK_INT(p->insns[1].a[0], 1);
        CHECK_INT(p->insns[3].a[0], 1);
        gsvm_patho_free(p);
    }
}

static void test_verify(void)
{
    const char *src = ".pool\n    W \"hello\"\n.import Trace 1\n.entry 0 start\n"
                      ".task 0 params=0 vars=(int)\n    .on 5 handler (int)\n.code\n"
                      "start:\n    PushS @0x2 \"ello\"\n    PushS @0x1\n    Pop 3\n    TaskCall 3\n"
                      "    Jump 99\nhandler:\n    Add s1, s2, pop=0\n    Return 1\n";
    gsvm_patho_program *p = assemble(src, GSVM_PATHO_LAYOUT_HD);
    CHECK(p != NULL);
    if (!p)
        return;
    gsvm_patho_issue *is;
    size_t n;
    gsvm_error err;
    CHECK_INT(gsvm_patho_verify(p, &is, &n, &err), GSVM_OK);
    CHECK_INT(n, 5);
    int seen_align = 0, seen_task = 0, seen_jump = 0, seen_pop = 0, seen_event = 0;
    for (size_t i = 0; i < n; i++) {
        if (is[i].insn == 1 && strstr(is[i].message, "not on a character"))
            seen_align++;
        if (is[i].insn == 3 && strstr(is[i].message, "task 3"))
            seen_task++;
        if (is[i].insn == 4 && strstr(is[i].message, "outside the code"))
            seen_jump++;
        if (is[i].insn == 2 && strstr(is[i].message, "goes negative on a path from RunOp"))
            seen_pop++;
        if (is[i].insn == 5 && strstr(is[i].message, "event 5"))
            seen_event++;
    }
    CHECK(seen_align == 1 && seen_task == 1 && seen_jump == 1 && seen_pop == 1 && seen_event == 1);
    free(is);
    gsvm_patho_free(p);
}


/* Floats: the listing's literals read back to the same bits, and the
 * assembler's exact fast path agrees with strtof on every decimal it
 * accepts (random literals of every length, sign and point position). */
static uint32_t next_rand(uint64_t *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*st >> 33);
}

/* Significant digits of a decimal literal (before any exponent). */
static int sig_digits(const char *s)
{
    char d[64];
    int n = 0;
    for (; *s && *s != 'e' && *s != 'E' && n < 63; s++)
        if (*s >= '0' && *s <= '9')
            d[n++] = *s;
    int lo = 0, hi = n;
    while (lo < hi && d[lo] == '0')
        lo++;
    while (hi > lo && d[hi - 1] == '0')
        hi--;
    return hi > lo ? hi - lo : 1;
}

static void test_floats(void)
{
    uint64_t st = 12345;
    int mismatch = 0, fast = 0;
    for (int i = 0; i < 200000; i++) {
        char lit[40];
        int n = 0;
        uint32_t r = next_rand(&st);
        if (r & 1)
            lit[n++] = '-';
        int digits = 1 + (int)(next_rand(&st) % 12), point = (int)(next_rand(&st) % (unsigned)(digits + 2));
        for (int d = 0; d < digits; d++) {
            if (d == point)
                lit[n++] = '.';
            lit[n++] = (char)('0' + next_rand(&st) % 10);
        }
        lit[n] = 0;
        float want = strtof(lit, NULL), got;
        if (patho_parse_float_exact(lit, (size_t)n, &got)) {
            fast++;
            uint32_t a, b;
            memcpy(&a, &want, 4);
            memcpy(&b, &got, 4);
            if (a != b && mismatch++ < 5)
                fprintf(stderr, "float fast path: %s -> %08x, strtof %08x\n", lit, b, a);
        }
        bool ok;
        got = patho_parse_float(lit, (size_t)n, &ok);
        CHECK(ok);
        if (memcmp(&got, &want, 4) != 0 && mismatch++ < 5)
            fprintf(stderr, "patho_parse_float: %s differs from strtof\n", lit);
    }
    CHECK_INT(mismatch, 0);
    CHECK(fast > 50000); /* the fast path is really taken */
    /* printed floats: read back to the same bits, and the shortest text
     * (no form with fewer significant digits reads back) */
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t bits = next_rand(&st);
        if (i % 3 == 0) { /* few-decimal values, the common literals */
            float f = (float)((int32_t)(next_rand(&st) % 2000000) - 1000000) / 1000.0f;
            memcpy(&bits, &f, 4);
        } else if (i % 3 == 1) { /* sixty-fourths: 425.078125 ties at 5 decimals */
            float f = (float)((int32_t)(next_rand(&st) % 2000000) - 1000000) / 64.0f;
            memcpy(&bits, &f, 4);
        }
        float f;
        memcpy(&f, &bits, 4);
        if (f != f || f - f != 0)
            continue;
        gsvm_buf b;
        gsvm_buf_init(&b);
        patho_put_float(&b, bits);
        gsvm_buf_cstr(&b);
        float back = strtof((char *)b.data, NULL);
        char ref[48];
        for (int prec = 1; prec <= 9; prec++) {
            snprintf(ref, sizeof ref, "%.*g", prec, (double)f);
            if (strtof(ref, NULL) == f && (f != 0 || signbit(strtof(ref, NULL)) == signbit(f)))
                break;
        }
        /* as short as the %g search (a tie between two shortest forms,
         * 1521803.25 as .2 or .3, may go either way) */
        /* with 5 or more decimals the text is exactly the %g search's
         * (ties to even there; the direct form takes up to 8 decimals) */
        const char *dot = strchr((char *)b.data, '.');
        bool long_form = dot && strlen(dot + 1) >= 5 && !strpbrk((char *)b.data, "eE");
        if ((memcmp(&back, &f, 4) != 0 || sig_digits((char *)b.data) > sig_digits(ref) ||
             (long_form && strcmp((char *)b.data, ref) != 0)) && bad++ < 5)
            fprintf(stderr, "put_float %08x: '%s' (reference %s)\n", bits, (char *)b.data, ref);
        gsvm_buf_free(&b);
    }
    CHECK_INT(bad, 0);
}

/* The compile-time shape table (isa.c) agrees with the operand letters
 * read at run time. */
static void test_shapes(void)
{
    for (unsigned op = 0; op < gsvm_patho_op_count(); op++) {
        const char *ops = gsvm_patho_op_operands(op);
        unsigned nmodes = 0, size = 2, wide = 0, narrow = 0, jump = 0, task = 0, sizes = 0;
        int flag_at = -1, list_at = -1;
        for (unsigned k = 0; ops[k]; k++) {
            char c = ops[k];
            size += (unsigned)gsvm_patho_operand_size(c);
            sizes |= (unsigned)(gsvm_patho_operand_size(c) - 1) << (2 * k);
            nmodes += c == 'm';
            if (c == 'f' && flag_at < 0)
                flag_at = (int)k;
            if ((c == 'F' || c == 'R' || c == 'L') && list_at < 0)
                list_at = (int)k;
            wide |= (unsigned)(c == 's') << k;
            narrow |= (unsigned)(c == 'n') << k;
            jump |= (unsigned)(c == 'j') << k;
            task |= (unsigned)(c == 'k') << k;
        }
        gsvm_patho_shape sh = gsvm_patho_op_shape(op);
        CHECK_INT(sh.nmodes, nmodes);
        CHECK_INT(sh.popmask, flag_at >= 0 ? 0xFFu >> nmodes : 0u);
        CHECK_INT(sh.flag_at, flag_at);
        CHECK_INT(sh.list_at, list_at);
        CHECK_INT(sh.fixed_size, size);
        CHECK_INT(sh.wide_mask, wide);
        CHECK_INT(sh.narrow_mask, narrow);
        CHECK_INT(sh.jump_mask, jump);
        CHECK_INT(sh.task_mask, task);
        CHECK_INT(sh.sizes, sizes);
        CHECK_INT(sh.ref_mask, wide | narrow | jump | task);
        /* the opcode tables give each op back from its code */
        for (int lay = GSVM_PATHO_LAYOUT_ALPHA; lay <= GSVM_PATHO_LAYOUT_HD; lay++) {
            int code = gsvm_patho_op_code(op, (gsvm_patho_layout)lay);
            if (code >= 0)
                CHECK_INT(gsvm_patho_op_from_code((unsigned)code, (gsvm_patho_layout)lay), (int)op);
        }
    }
    CHECK_INT(gsvm_patho_op_shape(gsvm_patho_op_count()).fixed_size, 2);
    CHECK_INT(gsvm_patho_op_from_code(0x5A, GSVM_PATHO_LAYOUT_HD), -1);
    CHECK_INT(gsvm_patho_op_from_code(0x58, GSVM_PATHO_LAYOUT_ALPHA), -1);
    CHECK_INT(gsvm_patho_op_from_code(0x100, GSVM_PATHO_LAYOUT_HD), -1);
}

/* A .layout line after code changes the codes (and so the bytes) of what
 * came before it, as if it had come first; an op the new layout lacks is
 * an error naming the instruction. */
static void test_layout_after_code(void)
{
    const char *first = ".layout alpha\n.code\nL0:\n    Call L0\n    TaskReturn\n    Return 0\n";
    const char *last = ".code\nL0:\n    Call L0\n    TaskReturn\n    Return 0\n.layout alpha\n";
    gsvm_patho_program *a = assemble(first, GSVM_PATHO_LAYOUT_AUTO);
    gsvm_patho_program *b = assemble(last, GSVM_PATHO_LAYOUT_AUTO);
    CHECK(a && b);
    if (a && b) {
        gsvm_error err;
        uint8_t *da = NULL, *db = NULL;
        size_t la = 0, lb = 0;
        CHECK_INT(gsvm_patho_save(a, &da, &la, &err), GSVM_OK);
        CHECK_INT(gsvm_patho_save(b, &db, &lb, &err), GSVM_OK);
        CHECK(la == lb && la > 0 && memcmp(da, db, la) == 0);
        CHECK_INT(b->insns[0].raw, gsvm_patho_op_code(GSVM_PATHO_OP_Call, GSVM_PATHO_LAYOUT_ALPHA));
        for (uint32_t i = 0; i < a->ninsns && i < b->ninsns; i++) {
            CHECK_INT(b->insns[i].offset, a->insns[i].offset);
            CHECK_INT(b->insns[i].size, a->insns[i].size);
        }
        CHECK_INT(b->file_size, a->file_size);
        free(da);
        free(db);
    }
    gsvm_patho_free(a);
    gsvm_patho_free(b);
    const char *lacking = ".layout hd\n.code\n    CString s1, pop=0\n.layout alpha\n";
    gsvm_error err;
    gsvm_patho_program *c = NULL;
    CHECK_INT(gsvm_patho_asm(lacking, strlen(lacking), "t.lst", GSVM_PATHO_LAYOUT_AUTO, &c, &err),
              GSVM_ERR_INPUT);
    CHECK(c == NULL && strstr(err.message, "no opcode for it in the alpha layout") != NULL);
}

int main(void)
{
    test_shapes();
    test_layout_after_code();
    test_floats();
    test_features();
    test_corners();
    test_long_lines();
    test_errors();
    test_import_re();
    test_import_release2();
    test_verify();
    TEST_MAIN_END();
}
