/* The LSL front end: lexer and parser over the whole language (checked by
 * printing the syntax tree back as S-expressions), and the compiler's
 * diagnostics with their exact FILE:LINE:COL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "gsvm/lsl.h"
#include "lsl/arena.h"
#include "lsl/lexer.h"
#include "lsl/parser.h"
#include "test.h"

/* ---- an S-expression printer for the syntax tree ----------------------------------- */

static void dump_expr(gsvm_buf *b, const lsl_expr *e);

static void dump_items(gsvm_buf *b, lsl_expr *const *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        gsvm_buf_putc(b, ' ');
        dump_expr(b, items[i]);
    }
}

static const char *op(lsl_tok t)
{
    const char *n = lsl_tok_name(t); /* "'+'" */
    static char buf[8];
    size_t len = strlen(n);
    snprintf(buf, sizeof buf, "%.*s", (int)(len - 2), n + 1);
    return buf;
}

static void dump_expr(gsvm_buf *b, const lsl_expr *e)
{
    switch (e->kind) {
    case E_INT: gsvm_buf_printf(b, "%d", (int)e->ival); break;
    case E_FLOAT: gsvm_buf_printf(b, "%gf", e->fval); break;
    case E_STRING: gsvm_buf_printf(b, "\"%.*s\"", (int)e->slen, e->sval); break;
    case E_IDENT: gsvm_buf_puts(b, e->name); break;
    case E_VECTOR: gsvm_buf_puts(b, "(vec"); dump_items(b, e->items, e->nitems); gsvm_buf_putc(b, ')'); break;
    case E_ROTATION: gsvm_buf_puts(b, "(rot"); dump_items(b, e->items, e->nitems); gsvm_buf_putc(b, ')'); break;
    case E_LIST: gsvm_buf_puts(b, "(list"); dump_items(b, e->items, e->nitems); gsvm_buf_putc(b, ')'); break;
    case E_CALL: gsvm_buf_printf(b, "(call %s", e->name); dump_items(b, e->items, e->nitems); gsvm_buf_putc(b, ')'); break;
    case E_UNARY: gsvm_buf_printf(b, "(%s ", op(e->op)); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    case E_BINARY:
    case E_ASSIGN:
        gsvm_buf_printf(b, "(%s ", op(e->op));
        dump_expr(b, e->lhs);
        gsvm_buf_putc(b, ' ');
        dump_expr(b, e->rhs);
        gsvm_buf_putc(b, ')');
        break;
    case E_PREINC: gsvm_buf_puts(b, "(pre++ "); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    case E_PREDEC: gsvm_buf_puts(b, "(pre-- "); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    case E_POSTINC: gsvm_buf_puts(b, "(post++ "); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    case E_POSTDEC: gsvm_buf_puts(b, "(post-- "); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    case E_CAST: gsvm_buf_printf(b, "(cast %s ", lsl_type_name(e->cast_type)); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    case E_MEMBER: gsvm_buf_puts(b, "(. "); dump_expr(b, e->lhs); gsvm_buf_printf(b, " %s)", e->name); break;
    case E_PRINT: gsvm_buf_puts(b, "(print "); dump_expr(b, e->lhs); gsvm_buf_putc(b, ')'); break;
    }
}

static void dump_stmt(gsvm_buf *b, const lsl_stmt *s)
{
    switch (s->kind) {
    case S_EMPTY: gsvm_buf_puts(b, "(;)"); break;
    case S_EXPR: dump_expr(b, s->expr); break;
    case S_DECL:
        gsvm_buf_printf(b, "(decl %s %s", lsl_type_name(s->decl_type), s->name);
        if (s->expr) {
            gsvm_buf_putc(b, ' ');
            dump_expr(b, s->expr);
        }
        gsvm_buf_putc(b, ')');
        break;
    case S_BLOCK:
        gsvm_buf_puts(b, "{");
        for (size_t i = 0; i < s->nstmts; i++) {
            gsvm_buf_putc(b, ' ');
            dump_stmt(b, s->stmts[i]);
        }
        gsvm_buf_puts(b, " }");
        break;
    case S_IF:
        gsvm_buf_puts(b, "(if ");
        dump_expr(b, s->expr);
        gsvm_buf_putc(b, ' ');
        dump_stmt(b, s->body);
        if (s->else_body) {
            gsvm_buf_puts(b, " else ");
            dump_stmt(b, s->else_body);
        }
        gsvm_buf_putc(b, ')');
        break;
    case S_WHILE:
    case S_DO:
        gsvm_buf_puts(b, s->kind == S_WHILE ? "(while " : "(do-while ");
        dump_expr(b, s->expr);
        gsvm_buf_putc(b, ' ');
        dump_stmt(b, s->body);
        gsvm_buf_putc(b, ')');
        break;
    case S_FOR:
        gsvm_buf_puts(b, "(for (");
        dump_items(b, s->init, s->ninit);
        gsvm_buf_puts(b, ") ");
        if (s->expr)
            dump_expr(b, s->expr);
        gsvm_buf_puts(b, " (");
        dump_items(b, s->step, s->nstep);
        gsvm_buf_puts(b, ") ");
        dump_stmt(b, s->body);
        gsvm_buf_putc(b, ')');
        break;
    case S_JUMP: gsvm_buf_printf(b, "(jump %s)", s->name); break;
    case S_LABEL: gsvm_buf_printf(b, "(@ %s)", s->name); break;
    case S_RETURN:
        gsvm_buf_puts(b, "(return");
        if (s->expr) {
            gsvm_buf_putc(b, ' ');
            dump_expr(b, s->expr);
        }
        gsvm_buf_putc(b, ')');
        break;
    case S_STATE: gsvm_buf_printf(b, "(state %s)", s->name); break;
    }
}

static void dump_func(gsvm_buf *b, const lsl_func *f)
{
    gsvm_buf_printf(b, "%s %s(", lsl_type_name(f->ret), f->name);
    for (size_t i = 0; i < f->nparams; i++)
        gsvm_buf_printf(b, "%s%s %s", i ? ", " : "", lsl_type_name(f->params[i].type), f->params[i].name);
    gsvm_buf_puts(b, ") ");
    dump_stmt(b, f->body);
    gsvm_buf_putc(b, '\n');
}

static char *parse_dump(const char *src)
{
    lsl_arena *a = lsl_arena_new();
    lsl_script *sc;
    gsvm_error err;
    gsvm_buf b;
    gsvm_buf_init(&b);
    if (lsl_parse(src, strlen(src), "t.lsl", a, &sc, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        gsvm_buf_puts(&b, msg);
    } else {
        for (size_t i = 0; i < sc->nglobals; i++) {
            gsvm_buf_printf(&b, "global %s %s", lsl_type_name(sc->globals[i].type), sc->globals[i].name);
            if (sc->globals[i].init) {
                gsvm_buf_puts(&b, " = ");
                dump_expr(&b, sc->globals[i].init);
            }
            gsvm_buf_putc(&b, '\n');
        }
        for (size_t i = 0; i < sc->nfuncs; i++)
            dump_func(&b, &sc->funcs[i]);
        for (size_t i = 0; i < sc->nstates; i++) {
            gsvm_buf_printf(&b, "state %s\n", sc->states[i].name);
            for (size_t k = 0; k < sc->states[i].nevents; k++) {
                gsvm_buf_puts(&b, "  ");
                dump_func(&b, &sc->states[i].events[k]);
            }
        }
    }
    lsl_arena_free(a);
    gsvm_buf_cstr(&b);
    size_t len;
    return (char *)gsvm_buf_take(&b, &len);
}

/* The whole grammar: every type, operator, assignment form, statement,
 * user functions, several states, jumps and labels, casts, literals. */
static void test_full_grammar(void)
{
    const char *src =
        "integer gi = -5; float gf = 1.5e2; string gs = \"a\\tb\"; key gk = \"k\";\n"
        "vector gv = <1, 2.5, -3>; rotation gr = <0., .5, 0, 1>; quaternion gq; list gl = [1, \"x\", <0,0,0>];\n"
        "integer add(integer a, integer b) { return a + b; }\n"
        "go() { state other; }\n"
        "default {\n"
        "  state_entry() {\n"
        "    integer x = 1 + 2 * 3 - 4 / 2 % 3;\n"
        "    x = a || b && c | d ^ e & f == g != h < i <= j > k >= l << m >> n;\n"
        "    x += 1; x -= 2; x *= 3; x /= 4; x %= 5; x = y = z;\n"
        "    ++x; --x; x++; x--; -x; !x; ~x;\n"
        "    v.x = (float)x; f = v.y * (integer)\"3\" + (vector)s * <1,2,3>;\n"
        "    l = (list)x + [] + [v.z];\n"
        "    if (x) ; else if (y) { } else x = 0;\n"
        "    for (i = 0, j = 1; i < 10; ++i, j *= 2) x++;\n"
        "    for (;;) jump out;\n"
        "    do x--; while (x > 0);\n"
        "    while (x < v.z) { @out; }\n"
        "    return;\n"
        "  }\n"
        "  touch_start(integer n) { state other; }\n"
        "}\n"
        "state other { state_entry() { state default; } }\n";
    char *got = parse_dump(src);
    const char *want =
        "global integer gi = (- 5)\n"
        "global float gf = 150f\n"
        "global string gs = \"a    b\"\n"
        "global key gk = \"k\"\n"
        "global vector gv = (vec 1 2.5f (- 3))\n"
        "global rotation gr = (rot 0f 0.5f 0 1)\n"
        "global rotation gq\n"
        "global list gl = (list 1 \"x\" (vec 0 0 0))\n"
        "integer add(integer a, integer b) { (return (+ a b)) }\n"
        "void go() { (state other) }\n"
        "state default\n"
        "  void state_entry() { "
        "(decl integer x (- (+ 1 (* 2 3)) (% (/ 4 2) 3))) "
        "(= x (&& (|| a b) (| c (^ d (& e (!= (== f g) (>= (> (<= (< h i) j) k) (>> (<< l m) n)))))))) "
        "(+= x 1) (-= x 2) (*= x 3) (/= x 4) (%= x 5) (= x (= y z)) "
        "(pre++ x) (pre-- x) (post++ x) (post-- x) (- x) (! x) (~ x) "
        "(= (. v x) (cast float x)) (= f (+ (* (. v y) (cast integer \"3\")) (* (cast vector s) (vec 1 2 3)))) "
        "(= l (+ (+ (cast list x) (list)) (list (. v z)))) "
        "(if x (;) else (if y { } else (= x 0))) "
        "(for ( (= i 0) (= j 1)) (< i 10) ( (pre++ i) (*= j 2)) (post++ x)) "
        "(for ()  () (jump out)) "
        "(do-while (> x 0) (post-- x)) "
        "(while (< x (. v z)) { (@ out) }) "
        "(return) }\n"
        "  void touch_start(integer n) { (state other) }\n"
        "state other\n"
        "  void state_entry() { (state default) }\n";
    CHECK_STR(got, want);
    free(got);
}

/* Parse errors with their positions. */
static void test_parse_errors(void)
{
    static const struct {
        const char *src, *want;
    } cases[] = {
        {"default { state_entry() { x = 1 } }", "t.lsl:1:33: error: Syntax error: expected ';' after the expression, found '}'"},
        {"integer x\ndefault { state_entry() { } }", "t.lsl:2:1: error: Syntax error: expected ';' after the global declaration, found 'default'"},
        {"", "t.lsl:1:1: error: Syntax error: the script has no default state"},
        {"state s { state_entry() { } }", "t.lsl:1:1: error: Syntax error: the first state must be 'default'"},
        {"default { state_entry() { } } default { state_entry() { } }", "t.lsl:1:31: error: Syntax error: state 'default' is defined twice"},
        {"default { }", "t.lsl:1:11: error: Syntax error: a state needs at least one event handler"},
        {"default {\n  state_entry() {\n    if (1 {\n", "t.lsl:3:11: error: Syntax error: expected ')' after the condition, found '{'"},
        {"default { state_entry() { \"abc } }", "t.lsl:1:27: error: Syntax error: unterminated string literal"},
        {"default { /* never closed", "t.lsl:1:11: error: Syntax error: unterminated /* comment"},
        {"default { state_entry() { x = 1 # 2; } }", "t.lsl:1:35: error: Syntax error: expected ';' after the expression, found integer literal"},
        {"default { state_entry() { x = 0x; } }", "t.lsl:1:31: error: Syntax error: hexadecimal literal has no digits"},
        {"default { state_entry() { x = <1, 2>; } }", "t.lsl:1:37: error: Syntax error: expected an expression, found ';'"},
        {"default { state_entry() { 1 = x; } }", "t.lsl:1:29: error: Syntax error: the left side of '=' must be a variable"},
        {"default { state_entry() { x.q = 1; } }", "t.lsl:1:29: error: Syntax error: expected a component x, y, z or s after '.'"},
        {"default { state_entry() { 5++; } }", "t.lsl:1:28: error: Syntax error: '++' needs a variable"},
        {"default { state_entry() {\n\t\"\xC3\xA9\xC3\xA9\" + \xC3\xA9; } }", "t.lsl:2:10: error: Syntax error: expected an expression, found ';'"},
        {"default { state_entry() { \"bad \xFF\"; } }", "t.lsl:1:32: error: Syntax error: invalid UTF-8 in string literal"},
        {"default { integer x; }", "t.lsl:1:11: error: Syntax error: expected an event handler, found 'integer'"},
        {"default { state_entry() { }", "t.lsl:1:9: error: Syntax error: this state's '{' is never closed"},
        {"default { state_entry() { } } integer x;", "t.lsl:1:31: error: Syntax error: globals and functions must come before the states (found 'integer')"},
        {"foo; default { state_entry() { } }", "t.lsl:1:1: error: Syntax error: expected a type before the global 'foo'"},
        {"default { state_entry() { integer; } }", "t.lsl:1:34: error: Syntax error: expected a name after 'integer', found ';'"},
        {"default { state_entry() { x = 12abc; } }", "t.lsl:1:33: error: Syntax error: unexpected 'a' after a number"},
        {"\xEF\xBB\xBF" "default { # }", "t.lsl:1:13: error: Syntax error: a state needs at least one event handler"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = parse_dump(cases[i].src);
        CHECK_STR(got, cases[i].want);
        free(got);
    }
    /* hostile nesting (100,000 parentheses, unary minuses, blocks) is
     * refused with FILE:LINE:COL at the token where the bound was reached,
     * never a stack overflow (the parser keeps its work stack on the heap);
     * the bound, LSL_MAX_NESTING levels, is the depth SL's parser accepts */
    static const char *const opener[] = {"x = (", "x = -", "{"};
    for (size_t k = 0; k < 3; k++) {
        size_t n = 100000, w = strlen(opener[k]) - (k < 2 ? 4 : 0);
        char *deep = malloc(w * n + 64);
        strcpy(deep, "default { state_entry() { ");
        size_t at = strlen(deep);
        if (k < 2) {
            strcpy(deep + at, "x = ");
            at += 4;
        }
        for (size_t i = 0; i < n; i++, at += w)
            memcpy(deep + at, opener[k] + (k < 2 ? 4 : 0), w);
        strcpy(deep + at, "1; } }");
        char *got = parse_dump(deep);
        long col = 0;
        int used = 0;
        CHECK(sscanf(got, "t.lsl:1:%ld: error: Syntax error: nested too deeply%n", &col, &used) == 1 && used > 0);
        /* the column is that of an opener inside the run of them */
        CHECK(col > (long)strlen("default { state_entry() { ") && col <= (long)(at - w + 1));
        free(got);
        free(deep);
    }
}

/* Tokens and their positions (columns count characters, not bytes). */
static void test_lexer(void)
{
    const char *src = "integer x=0x1F;// c\n  \"\xC3\xA9t\xC3\xA9\" /* a\nb */ 1.5e3f .25 7 99999999999 <<= >>\n\"a\\\"b\\\\c\\q\"";
    lsl_arena *a = lsl_arena_new();
    lsl_lexer lx;
    gsvm_error err;
    lsl_lexer_init(&lx, src, strlen(src), "t.lsl", a, &err);
    lsl_token t;
    struct {
        lsl_tok kind;
        long line, col;
    } want[] = {
        {T_INTEGER, 1, 1}, {T_IDENT, 1, 9}, {T_ASSIGN, 1, 10}, {T_INT_LIT, 1, 11}, {T_SEMI, 1, 15},
        {T_STRING_LIT, 2, 3}, {T_FLOAT_LIT, 3, 6}, {T_FLOAT_LIT, 3, 13}, {T_INT_LIT, 3, 17},
        {T_INT_LIT, 3, 19}, {T_SHL, 3, 31}, {T_ASSIGN, 3, 33}, {T_SHR, 3, 35},
        {T_STRING_LIT, 4, 1}, {T_EOF, 4, 12},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK(lsl_lexer_next(&lx, &t));
        if (t.kind != want[i].kind || t.line != want[i].line || t.col != want[i].col) {
            test_failed++;
            fprintf(stderr, "token %zu: %s at %ld:%ld, want %s at %ld:%ld\n", i, lsl_tok_name(t.kind),
                    t.line, t.col, lsl_tok_name(want[i].kind), want[i].line, want[i].col);
        } else {
            test_passed++;
        }
        if (i == 3)
            CHECK_INT(t.ival, 31);
        if (i == 5)
            CHECK(t.slen == 5 && memcmp(t.sval, "\xC3\xA9t\xC3\xA9", 5) == 0);
        if (i == 6)
            CHECK(t.fval == 1500.0);
        if (i == 7)
            CHECK(t.fval == 0.25);
        if (i == 9)
            CHECK_INT(t.ival, -1); /* past 32 bits */
        if (i == 13)
            CHECK(t.slen == 6 && memcmp(t.sval, "a\"b\\cq", 6) == 0);
    }
    lsl_arena_free(a);
}

/* Compiler diagnostics: typing and what ABI 2 leaves out, at their line:col. */
static void test_compile_errors(void)
{
    static const struct {
        const char *src, *want;
    } cases[] = {
        {"default { state_entry() { llSay(0, 5); } }",
         "t.lsl:1:36: error: Function call mismatches type or number of arguments: argument 2 of llSay must be string, got integer"},
        {"default { state_entry() { llSay(\"x\"); } }", "t.lsl:1:27: error: Function call mismatches type or number of arguments: llSay takes 2 arguments, got 1"},
        {"default { state_entry() { llOwnerSay(1 + \"a\"); } }",
         "t.lsl:1:40: error: Type mismatch: cannot apply '+' to integer and string"},
        {"default {\n state_entry() {\n  integer x = \"a\";\n }\n}", "t.lsl:3:15: error: Type mismatch: cannot initialize integer 'x' with string"},
        {"default { state_entry() { y = 1; } }", "t.lsl:1:27: error: Name not defined within scope: undeclared variable 'y'"},
        {"default { state_entry() { string s = \"a\" - \"b\"; } }",
         "t.lsl:1:42: error: Type mismatch: cannot apply '-' to string and string"},
        {"default { state_entry() { if (\"a\" == \"b\") ; } }",
         "t.lsl:1:35: error: comparing strings with '==' is not supported by ABI 2"},
        {"default { state_entry() { integer i = (integer)\"5\"; } }",
         "t.lsl:1:39: error: casting string to integer is not supported by ABI 2"},
        {"default { state_entry() { float f = 1.0; } }",
         "t.lsl:1:27: error: type 'float' is not supported by ABI 2 (it has integer and string)"},
        {"default { state_entry() { llOwnerSay((string)[1]); } }",
         "t.lsl:1:46: error: type 'list' is not supported by ABI 2 (it has integer and string)"},
        {"default { state_entry() { integer i; for (i = 0; i < 3; i++) ; } }",
         "t.lsl:1:38: error: 'for' loops are not supported by ABI 2"},
        {"default { state_entry() { do ; while (0); } }",
         "t.lsl:1:27: error: 'do ... while' loops are not supported by ABI 2"},
        {"default { state_entry() { jump x; @x; } }", "t.lsl:1:27: error: jumps and labels are not supported by ABI 2"},
        {"default { state_entry() { integer x = 4 / 2; } }",
         "t.lsl:1:41: error: operator '/' is not supported by ABI 2"},
        {"default { state_entry() { integer x = !1; } }",
         "t.lsl:1:39: error: operator '!' is not supported by ABI 2"},
        {"default { state_entry() { llSetText(\"x\"); } }",
         "t.lsl:1:27: error: function 'llSetText' is not supported by ABI 2 (it has llOwnerSay and llSay)"},
        {"f() { }\ndefault { state_entry() { } }", "t.lsl:1:1: error: user-defined functions are not supported by ABI 2"},
        {"default { state_entry() { } }\nstate two { state_entry() { } }",
         "t.lsl:2:1: error: states other than 'default' are not supported by ABI 2"},
        {"default { timer() { } }",
         "t.lsl:1:11: error: event 'timer' is not supported by ABI 2 (it has state_entry and touch_start)"},
        {"default { touch_start(string s) { } }", "t.lsl:1:11: error: Syntax error: touch_start takes (integer num_detected)"},
        {"default { state_entry() { } state_entry() { } }",
         "t.lsl:1:29: error: Name previously declared within scope: event 'state_entry' is handled twice in this state"},
        {"integer a; integer a;\ndefault { state_entry() { } }", "t.lsl:1:20: error: Name previously declared within scope: 'a' is a global"},
        {"integer a = 1 + 1;\ndefault { state_entry() { } }", "t.lsl:1:15: error: Syntax error: a global's initializer must be a constant"},
        {"string s = 5;\ndefault { state_entry() { } }", "t.lsl:1:12: error: Type mismatch: cannot initialize string 's' with integer"},
        {"default { state_entry() { integer x; { integer x; } integer x; } }",
         "t.lsl:1:61: error: Name previously declared within scope: 'x' is already declared in this scope"},
        {"default { state_entry() { string s; s++; } }",
         "t.lsl:1:38: error: Type mismatch: '++' needs an integer variable, 's' is string"},
        {"default { state_entry() { string s; s -= \"a\"; } }",
         "t.lsl:1:39: error: Type mismatch: operator '-=' needs integers, not strings"},
        {"default { state_entry() { integer x; x = llOwnerSay(\"a\"); } }",
         "t.lsl:1:40: error: Type mismatch: cannot assign void to 'x', which is integer"},
        {"default { state_entry() { while (\"s\") ; } }",
         "t.lsl:1:34: error: the condition of 'while' must be an integer in ABI 2, got string"},
        {"default { state_entry() { return 1; } }", "t.lsl:1:34: error: Return statement type doesn't match function return type: an event handler cannot return a value"},
        {"default { state_entry() { state default; } }", "t.lsl:1:27: error: state changes are not supported by ABI 2"},
        {"default { state_entry() { TRUE = 2; } }", "t.lsl:1:27: error: Syntax error: cannot assign to the constant TRUE"},
        {"default { state_entry() { vector v; } }",
         "t.lsl:1:27: error: type 'vector' is not supported by ABI 2 (it has integer and string)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gsvm_lsl_program *p = NULL;
        gsvm_error err;
        gsvm_error_clear(&err);
        gsvm_status st = gsvm_lsl_compile(cases[i].src, strlen(cases[i].src), "t.lsl", &p, &err);
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        CHECK_INT(st, GSVM_ERR_INPUT);
        CHECK(p == NULL);
        CHECK_STR(msg, cases[i].want);
        gsvm_lsl_program_free(p);
    }
}

/* What ABI 2 accepts, including the lowered assignment forms. */
static void test_compile_accepts(void)
{
    const char *src =
        "integer a = -3; integer b = a; integer t = TRUE; string s = \"x\"; string u = s;\n"
        "default {\n"
        "  state_entry() {\n"
        "    integer i; string z;\n"
        "    { integer i2 = i; { string i3 = z; } }\n"
        "    if (a < b) llOwnerSay(s); else { llSay(PUBLIC_CHANNEL, u); }\n"
        "    while (i < 3) i += 1;\n"
        "    a = b = 4; s += u; a -= 1; a *= 2; ++a; a--; i = -i; i = -(i + 1);\n"
        "    llOwnerSay((string)((string)a) + (string)(a == b) + (string)(a > b));\n"
        "    return;\n"
        "  }\n"
        "  touch_start(integer n) { ; }\n"
        "}\n";
    gsvm_lsl_program *p = NULL;
    gsvm_error err;
    CHECK(gsvm_lsl_compile(src, strlen(src), "ok.lsl", &p, &err) == GSVM_OK);
    CHECK(p && gsvm_lsl_program_global_count(p) == 5);
    CHECK(p && gsvm_lsl_program_has_event(p, "touch_start"));
    gsvm_lsl_program_free(p);
}

int main(void)
{
    test_full_grammar();
    test_parse_errors();
    test_lexer();
    test_compile_errors();
    test_compile_accepts();
    TEST_MAIN_END();
}
