/* The front end against Linden Lab's LSL definitions (src/lsl/builtins.def,
 * generated from shared/data/lsl): every event handler signature, every
 * function call with arguments of its types and every constant must parse;
 * the ABI-2 compiler must accept exactly its slice of them (state_entry,
 * touch_start, llOwnerSay, llSay) and reject each other one at its place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "gsvm/lsl.h"
#include "lsl/arena.h"
#include "lsl/parser.h"
#include "test.h"

typedef struct def {
    const char *name;
    const char *argtypes;
} def;

static const def events[] = {
#define LSL_EVENT(name, index, argtypes, argnames) {#name, argtypes},
#include "lsl/builtins.def"
};
#undef LSL_EVENT
static const def functions[] = {
#define LSL_FUNCTION(name, id, ret, argtypes, argnames, sleep, energy, flags) {#name, argtypes},
#include "lsl/builtins.def"
};
#undef LSL_FUNCTION
static const char *const constants[] = {
#define LSL_CONST_INTEGER(name, value, flags) #name,
#define LSL_CONST_FLOAT(name, value, flags) #name,
#define LSL_CONST_STRING(name, literal, length, flags) #name,
#define LSL_CONST_VECTOR(name, x, y, z, flags) #name,
#define LSL_CONST_ROTATION(name, x, y, z, s, flags) #name,
#include "lsl/builtins.def"
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *type_word(char c)
{
    switch (c) {
    case 'i': return "integer";
    case 'f': return "float";
    case 's': return "string";
    case 'k': return "key";
    case 'v': return "vector";
    case 'r': return "rotation";
    default: return "list";
    }
}

static const char *literal(char c)
{
    switch (c) {
    case 'i': return "1";
    case 'f': return "1.5";
    case 's': return "\"s\"";
    case 'k': return "\"00000000-0000-0000-0000-000000000000\"";
    case 'v': return "<1, 2, 3>";
    case 'r': return "<0, 0, 0, 1>";
    default: return "[1, \"a\", <1,2,3>]";
    }
}

static void put_params(gsvm_buf *b, const char *types)
{
    for (size_t k = 0; types[k]; k++)
        gsvm_buf_printf(b, "%s%s p%zu", k ? ", " : "", type_word(types[k]), k);
}

static void put_args(gsvm_buf *b, const char *types)
{
    for (size_t k = 0; types[k]; k++)
        gsvm_buf_printf(b, "%s%s", k ? ", " : "", literal(types[k]));
}

/* One script with everything: it parses, with the right shape. */
static void test_everything_parses(void)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_puts(&b, "everything()\n{\n    list x;\n");
    for (size_t i = 0; i < COUNT(functions); i++) {
        gsvm_buf_printf(&b, "    %s(", functions[i].name);
        put_args(&b, functions[i].argtypes);
        gsvm_buf_puts(&b, ");\n");
    }
    for (size_t i = 0; i < COUNT(constants); i++)
        gsvm_buf_printf(&b, "    x = (list)%s;\n", constants[i]);
    gsvm_buf_puts(&b, "}\ndefault\n{\n");
    for (size_t i = 0; i < COUNT(events); i++) {
        gsvm_buf_printf(&b, "    %s(", events[i].name);
        put_params(&b, events[i].argtypes);
        gsvm_buf_puts(&b, ") { everything(); }\n");
    }
    gsvm_buf_puts(&b, "}\n");
    lsl_arena *a = lsl_arena_new();
    lsl_script *sc = NULL;
    gsvm_error err;
    gsvm_status st = lsl_parse((const char *)b.data, b.len, "all.lsl", a, &sc, &err);
    CHECK_INT(st, GSVM_OK);
    if (st != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
    } else {
        CHECK_INT(sc->nfuncs, 1);
        CHECK_INT(sc->funcs[0].body->nstmts, 1 + COUNT(functions) + COUNT(constants));
        CHECK_INT(sc->nstates, 1);
        CHECK_INT(sc->states[0].nevents, COUNT(events));
        size_t arity_ok = 0;
        for (size_t i = 0; i < COUNT(functions); i++) {
            const lsl_expr *call = sc->funcs[0].body->stmts[1 + i]->expr;
            arity_ok += call->kind == E_CALL && strcmp(call->name, functions[i].name) == 0 &&
                        call->nitems == strlen(functions[i].argtypes);
        }
        CHECK_INT(arity_ok, COUNT(functions));
        size_t params_ok = 0;
        for (size_t i = 0; i < COUNT(events); i++)
            params_ok += sc->states[0].events[i].nparams == strlen(events[i].argtypes);
        CHECK_INT(params_ok, COUNT(events));
    }
    printf("parsed %zu functions, %zu constants, %zu events from the LSL definitions\n",
           COUNT(functions), COUNT(constants), COUNT(events));
    CHECK(COUNT(functions) > 400 && COUNT(events) > 30 && COUNT(constants) > 500);
    lsl_arena_free(a);
    gsvm_buf_free(&b);
}

static gsvm_status compile_text(const char *src, gsvm_error *err)
{
    gsvm_lsl_program *p = NULL;
    gsvm_status st = gsvm_lsl_compile(src, strlen(src), "one.lsl", &p, err);
    gsvm_lsl_program_free(p);
    return st;
}

/* Each event alone: ABI 2 takes state_entry and touch_start(integer). */
static void test_events_abi2(void)
{
    size_t accepted = 0, bad = 0;
    for (size_t i = 0; i < COUNT(events); i++) {
        gsvm_buf b;
        gsvm_buf_init(&b);
        gsvm_buf_printf(&b, "default {\n  %s(", events[i].name);
        put_params(&b, events[i].argtypes);
        gsvm_buf_puts(&b, ") { }\n}\n");
        gsvm_error err;
        gsvm_status st = compile_text(gsvm_buf_cstr(&b), &err);
        bool slice = strcmp(events[i].name, "state_entry") == 0 ||
                     strcmp(events[i].name, "touch_start") == 0;
        if (st == GSVM_OK)
            accepted++;
        if (slice ? st != GSVM_OK
                  : st != GSVM_ERR_INPUT || err.line != 2 || err.column != 3 ||
                        !strstr(err.message, "is not supported by ABI 2")) {
            bad++;
            fprintf(stderr, "event %s: status %d, %ld:%ld %s\n", events[i].name, st, err.line,
                    err.column, err.message);
        }
        gsvm_buf_free(&b);
    }
    CHECK_INT(accepted, 2);
    CHECK_INT(bad, 0);
}

/* Each function called alone: ABI 2 has llOwnerSay and llSay. */
static void test_functions_abi2(void)
{
    size_t accepted = 0, bad = 0;
    for (size_t i = 0; i < COUNT(functions); i++) {
        gsvm_buf b;
        gsvm_buf_init(&b);
        gsvm_buf_printf(&b, "default { state_entry() {\n    %s(", functions[i].name);
        /* arguments ABI 2 can type, so only the function itself is refused */
        for (size_t k = 0; functions[i].argtypes[k]; k++)
            gsvm_buf_printf(&b, "%s%s", k ? ", " : "",
                            functions[i].argtypes[k] == 's' ? "\"s\"" : "1");
        gsvm_buf_puts(&b, ");\n} }\n");
        gsvm_error err;
        gsvm_status st = compile_text(gsvm_buf_cstr(&b), &err);
        bool slice = strcmp(functions[i].name, "llOwnerSay") == 0 ||
                     strcmp(functions[i].name, "llSay") == 0;
        if (st == GSVM_OK)
            accepted++;
        if (slice ? st != GSVM_OK
                  : st != GSVM_ERR_INPUT || err.line != 2 || err.column != 5 ||
                        !strstr(err.message, "is not supported by ABI 2")) {
            bad++;
            if (bad < 5)
                fprintf(stderr, "function %s: status %d, %ld:%ld %s\n", functions[i].name, st,
                        err.line, err.column, err.message);
        }
        gsvm_buf_free(&b);
    }
    CHECK_INT(accepted, 2);
    CHECK_INT(bad, 0);
}

int main(void)
{
    test_everything_parses();
    test_events_abi2();
    test_functions_abi2();
    TEST_MAIN_END();
}
