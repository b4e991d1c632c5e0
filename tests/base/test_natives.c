/* The shared native-declaration format (src/base/natives.h): what it
 * accepts, what each field becomes, and that every error names the
 * line:column of the value at fault. */
#include "base/natives.h"
#include "test.h"

static const char *const words[] = {"int", "float", "string", "bool", "object", "vector", "any",
                                     NULL};

static void test_fields(void)
{
    const char *text = "{\"natives\": [\n"
                       "  {\"name\": \"Sleep\", \"args\": [\"float\", \"bool?\"], \"latent\": \"time\"},\n"
                       "  {\"name\": \"Hold\", \"latent\": \"event\"},\n"
                       "  {\"name\": \"rand\", \"args\": [\"float\", \"float\"], \"result\": \"float\",\n"
                       "   \"out\": 0, \"answer\": 0.5},\n"
                       "  {\"name\": \"Trace\", \"args\": [\"any\", \"varargs\"], \"needs_script_stack\": true},\n"
                       "  {\"name\": \"Sleep\", \"args\": [], \"latent\": \"frame\"}\n"
                       "]}\n";
    gsvm_natives n;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK_INT(gsvm_natives_parse(text, strlen(text), "n.json", words, &n, &err), GSVM_OK);
    CHECK_INT(n.count, 5);
    const gsvm_native_decl *s1 = gsvm_natives_find(&n, "Sleep", 1);
    const gsvm_native_decl *s2 = gsvm_natives_find(&n, "Sleep", 2);
    const gsvm_native_decl *s0 = gsvm_natives_find(&n, "Sleep", 0);
    CHECK(s1 && s1 == s2 && s1->min_args == 1 && s1->nargs == 2);
    CHECK(s1 && s1->arg_types[0] == 1 && s1->arg_types[1] == 3);
    CHECK(s1 && s1->latent == GSVM_NATIVE_WAIT_TIME && s1->line == 2 && s1->column == 3);
    CHECK(s0 && s0 != s1 && s0->latent == GSVM_NATIVE_WAIT_FRAME);
    CHECK(gsvm_natives_find(&n, "Sleep", 3) == NULL);
    const gsvm_native_decl *h = gsvm_natives_find(&n, "Hold", 0);
    CHECK(h && h->latent == GSVM_NATIVE_WAIT_EVENT && h->result == -1 && h->out == -1);
    const gsvm_native_decl *r = gsvm_natives_find(&n, "rand", 2);
    CHECK(r && r->result == 1 && r->out == 0 && json_real_value(r->answer) == 0.5);
    CHECK(r && r->latent == GSVM_NATIVE_NOW && !r->needs_script_stack);
    const gsvm_native_decl *t = gsvm_natives_find(&n, "Trace", 7);
    CHECK(t && t->varargs && t->min_args == 1 && t->needs_script_stack);
    CHECK(gsvm_natives_find(&n, "Trace", 0) == NULL);
    CHECK(gsvm_natives_find_name(&n, "Trace") == t);
    CHECK(gsvm_natives_find_name(&n, "Nope") == NULL);
    CHECK_STR(gsvm_native_latent_name(GSVM_NATIVE_WAIT_ANIM), "anim");
    gsvm_natives_free(&n);
    CHECK_INT(n.count, 0);
}

/* Each bad text is rejected at the line:column given, with the message part. */
static void check_bad(const char *text, long line, long col, const char *part)
{
    gsvm_natives n;
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_status st = gsvm_natives_parse(text, strlen(text), "bad.json", words, &n, &err);
    CHECK_INT(st, GSVM_ERR_INPUT);
    CHECK_INT(n.count, 0);
    CHECK(n.decls == NULL);
    CHECK_STR(err.file, "bad.json");
    CHECK_INT(err.line, line);
    CHECK_INT(err.column, col);
    if (!strstr(err.message, part)) {
        test_failed++;
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.message, part);
    }
}

static void test_errors(void)
{
    check_bad("{\"natives\": [\n  {\"name\": \"a\", \"args\": [\"int\", \"flaot\"]}]}", 2, 33,
              "unknown type word \"flaot\"");
    check_bad("{\"natives\": [{\"name\": \"a\",\n \"latent\": \"soon\"}]}", 2, 12, "\"latent\" must be");
    check_bad("{\"natives\": [{\"name\": \"a\"},\n  {\"name\": \"a\", \"args\": [\"int?\"]}]}", 2, 3,
              "declared for the same argument count at 1:14");
    check_bad("{\"natives\": [{\"name\": \"a\", \"args\": [\"varargs\", \"int\"]}]}", 1, 37,
              "\"varargs\" must be the last");
    check_bad("{\"natives\": [{\"name\": \"a\", \"args\": [\"int?\", \"int\"]}]}", 1, 45,
              "a required argument");
    check_bad("{\"natives\": [{\"name\": \"a\", \"rsult\": \"int\"}]}", 1, 37, "unknown field \"rsult\"");
    check_bad("{\"natives\": [{\"name\": \"\"}]}", 1, 23, "\"name\" must be");
    check_bad("{\"natives\": [{\"name\": \"a\", \"args\": [\"int\"], \"out\": 1}]}", 1, 52,
              "\"out\" must be");
    check_bad("{\"natives\": [{\"name\": \"a\", \"result\": \"vec\"}]}", 1, 38, "unknown type word");
    check_bad("{\"natives\": [\n  7]}", 2, 3, "a declaration is an object");
    check_bad("{\"natives\": {}}", 1, 13, "expected an object {\"natives\"");
    check_bad("[1]", 1, 1, "expected an object");
    check_bad("{\"natives\": [\n  {\"name\": \"a\",,}]}", 2, 16, "invalid JSON");
    check_bad("{\"natives\": [], \"natives\": []}", 1, 25, "invalid JSON");
    check_bad("{\"natives\": [{\"name\": \"a\", \"needs_script_stack\": 1}]}", 1, 50,
              "must be true or false");
}

static void test_load_missing(void)
{
    gsvm_natives n;
    gsvm_error err;
    CHECK(gsvm_natives_load("/nonexistent/natives.json", words, &n, &err) != GSVM_OK);
    CHECK_INT(n.count, 0);
}

int main(void)
{
    test_fields();
    test_errors();
    test_load_missing();
    TEST_MAIN_END();
}
