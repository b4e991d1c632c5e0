/* Unit tests of the HavokScript chunk code: the opcode tables and profiles,
 * field extraction, load/dump/list/asm round trips on chunks written here,
 * rejection of truncated and corrupted chunks (with byte offsets) and of bad
 * listings (with line:column), the verifier and its hypotheses, SCRI. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "gsvm/hks.h"
#include "test.h"

static const char *src_dir(void)
{
    const char *d = getenv("GSVM_SOURCE_DIR");
    return d ? d : ".";
}

/* Assembles a listing text; NULL (and the error in *err) when rejected. */
static gsvm_hks_chunk *asm_text(const char *text, gsvm_error *err)
{
    gsvm_hks_chunk *c = NULL;
    gsvm_error_clear(err);
    if (gsvm_hks_asm(text, strlen(text), "t.hksl", &c, err) != GSVM_OK)
        return NULL;
    return c;
}

static gsvm_hks_chunk *asm_file(const char *name, uint8_t **bytes, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/hks/%s", src_dir(), name);
    gsvm_buf b;
    gsvm_error err;
    gsvm_error_clear(&err);
    if (gsvm_file_read(path, &b, &err) != GSVM_OK) {
        fprintf(stderr, "cannot read %s\n", path);
        gsvm_buf_free(&b);
        return NULL;
    }
    gsvm_hks_chunk *c = NULL;
    if (gsvm_hks_asm((const char *)b.data, b.len, path, &c, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
    }
    gsvm_buf_free(&b);
    if (c && bytes && gsvm_hks_chunk_dump(c, bytes, len, &err) != GSVM_OK) {
        gsvm_hks_chunk_free(c);
        return NULL;
    }
    return c;
}

static void test_isa(void)
{
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BASE, 0), "GETFIELD");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BASE, 28), "JMP");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BASE, 60), "CONCAT");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BASE, 76), "DATA");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BASE, 91), "GETGLOBAL_MEM");
    CHECK(gsvm_hks_op_name(GSVM_HKS_PROFILE_BASE, 92) == NULL);
    /* BO3: eight opcodes at 60-67, everything after moved up by 8 */
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 59), "LE_BK");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 60), "LEFT_SHIFT");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 67), "BIT_OR_BK");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 68), "CONCAT");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 84), "DATA");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 99), "GETGLOBAL_MEM");
    CHECK(gsvm_hks_op_name(GSVM_HKS_PROFILE_BO3, 100) == NULL);
    /* Ghosts: DELETE / DELETE_BK appended */
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_GHOSTS, 91), "GETGLOBAL_MEM");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_GHOSTS, 92), "DELETE");
    CHECK_STR(gsvm_hks_op_name(GSVM_HKS_PROFILE_GHOSTS, 93), "DELETE_BK");
    CHECK(gsvm_hks_op_name(GSVM_HKS_PROFILE_GHOSTS, 94) == NULL);
    /* every row has a distinct name */
    unsigned rows = gsvm_hks_op_rows();
    CHECK_INT(rows, 102);
    int dups = 0;
    for (unsigned i = 0; i < rows; i++)
        for (unsigned j = i + 1; j < rows; j++)
            dups += strcmp(gsvm_hks_op_row_name(i), gsvm_hks_op_row_name(j)) == 0;
    CHECK_INT(dups, 0);
    gsvm_hks_profile p;
    CHECK(gsvm_hks_profile_parse("bo3", &p) && p == GSVM_HKS_PROFILE_BO3);
    CHECK(!gsvm_hks_profile_parse("t8", &p));
    CHECK(gsvm_hks_profile_parse("iw6", &p) && p == GSVM_HKS_PROFILE_GHOSTS);
    CHECK(gsvm_hks_profile_parse("t7", &p) && p == GSVM_HKS_PROFILE_BO3);
}

static void test_fields(void)
{
    /* op 15 (SETFIELD) | B 3 | C 256+7 | A 9 */
    uint32_t w = 15u << 25 | 3u << 17 | 263u << 8 | 9u;
    CHECK_INT(GSVM_HKS_OP(w), 15);
    CHECK_INT(GSVM_HKS_A(w), 9);
    CHECK_INT(GSVM_HKS_B(w), 3);
    CHECK_INT(GSVM_HKS_C(w), 263);
    /* sBx is Bx - 0xFFFF: Bx 0xFFFF + 5 jumps 5 forward */
    uint32_t j = 28u << 25 | (0xFFFFu + 5u) << 8;
    CHECK_INT(GSVM_HKS_SBX(j), 5);
    j = 28u << 25 | (0xFFFFu - 3u) << 8;
    CHECK_INT(GSVM_HKS_SBX(j), -3);
    CHECK_INT(GSVM_HKS_BX(j), 0xFFFF - 3);
}

/* Dump -> load -> dump gives the same bytes, and list -> asm too. */
static void check_roundtrip(const char *name, const uint8_t *bytes, size_t len,
                            const gsvm_hks_load_options *o)
{
    gsvm_error err;
    gsvm_error_clear(&err);
    gsvm_hks_chunk *c = NULL, *c2 = NULL;
    CHECK(gsvm_hks_chunk_load(bytes, len, o, name, &c, &err) == GSVM_OK);
    if (!c)
        return;
    char *text = NULL;
    size_t tlen = 0;
    uint8_t *out = NULL, *out2 = NULL;
    size_t olen = 0, olen2 = 0;
    CHECK(gsvm_hks_chunk_dump(c, &out, &olen, &err) == GSVM_OK);
    CHECK(olen == len && memcmp(out, bytes, len) == 0);
    CHECK(gsvm_hks_list(c, &text, &tlen, &err) == GSVM_OK);
    CHECK(gsvm_hks_asm(text, tlen, name, &c2, &err) == GSVM_OK);
    if (c2) {
        CHECK(gsvm_hks_chunk_dump(c2, &out2, &olen2, &err) == GSVM_OK);
        CHECK(olen2 == len && memcmp(out2, bytes, len) == 0);
        CHECK_INT(c2->profile, c->profile);
    }
    free(out);
    free(out2);
    free(text);
    gsvm_hks_chunk_free(c);
    gsvm_hks_chunk_free(c2);
}

static void test_own_chunks(void)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    gsvm_hks_chunk *c = asm_file("counter.hksl", &bytes, &len);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK_INT(c->format, 14);
    CHECK_INT(c->endian, 1);
    CHECK_INT(c->main.ncode, 13);
    CHECK_INT(c->main.np, 1);
    CHECK_INT(c->main.p[0].nups, 1);
    CHECK_INT(c->main.nk, 7);
    CHECK_INT(c->main.k[4].type, GSVM_HKS_K_LUD);
    CHECK(c->main.k[4].bits == 0x572b96b9u);
    CHECK_INT(c->main.k[5].type, GSVM_HKS_K_UI64);
    CHECK(c->main.k[5].bits == 0x123456789abcdefull);
    CHECK_INT(c->nstructs, 1);
    CHECK_INT(c->structs[0].nslots, 2);
    CHECK_INT(c->ntrailing, 4);
    /* the header bytes as the document gives them for Shadow of War */
    static const uint8_t sow[14] = {0x1b, 'L', 'u', 'a', 0x51, 0x0e, 1, 4, 8, 4, 4, 0, 3, 0};
    CHECK(len > 14 && memcmp(bytes, sow, 14) == 0);
    /* code is aligned to 4 bytes (offsets are known once loaded) */
    gsvm_hks_chunk *loaded = NULL;
    gsvm_error lerr;
    CHECK(gsvm_hks_chunk_load(bytes, len, NULL, "counter", &loaded, &lerr) == GSVM_OK);
    if (!loaded) {
        gsvm_hks_chunk_free(c);
        free(bytes);
        return;
    }
    CHECK_INT(loaded->main.code_offset % 4, 0);
    CHECK_INT(loaded->main.p[0].code_offset % 4, 0);
    size_t k0_at = (size_t)loaded->main.code_offset + 4 * (size_t)loaded->main.ncode + 4;
    gsvm_hks_chunk_free(loaded);
    check_roundtrip("counter", bytes, len, NULL);

    /* every truncation before the trailing bytes is rejected, with an offset */
    size_t body = len - c->ntrailing;
    int rejected = 0, offsets_ok = 0;
    for (size_t n = 0; n < body; n++) {
        gsvm_hks_chunk *t = NULL;
        gsvm_error err;
        gsvm_error_clear(&err);
        if (gsvm_hks_chunk_load(bytes, n, NULL, "trunc", &t, &err) != GSVM_OK && t == NULL) {
            rejected++;
            offsets_ok += err.offset >= 0 && (size_t)err.offset <= n;
        }
        gsvm_hks_chunk_free(t);
    }
    CHECK_INT(rejected, (long long)body);
    CHECK_INT(offsets_ok, (long long)body);
    /* a chunk inside a larger file: --offset, prefix kept */
    uint8_t *big = malloc(len + 10);
    memset(big, 0xAB, 10);
    memcpy(big + 10, bytes, len);
    gsvm_hks_load_options o = {10, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, false};
    check_roundtrip("offset", big, len + 10, &o);
    gsvm_hks_load_options scan = {0, GSVM_HKS_PROFILE_AUTO, GSVM_HKS_STRUCTS_AUTO, true};
    check_roundtrip("scan", big, len + 10, &scan);
    {
        gsvm_hks_chunk *t = NULL;
        gsvm_error err;
        gsvm_error_clear(&err);
        CHECK(gsvm_hks_chunk_load(big, len + 10, NULL, "big", &t, &err) == GSVM_ERR_INPUT);
        CHECK(strstr(err.message, "starts at byte 10") != NULL);
        CHECK_INT(err.offset, 0);
    }
    free(big);

    /* corruptions, each named with its offset */
    struct { size_t at; uint8_t value; const char *says; } bad[] = {
        {0, 'X', "signature"},    {4, 0x52, "version"},       {5, 15, "format"},
        {6, 2, "endianness"},     {8, 16, "size_t"},          {10, 2, "lua_Number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *m = malloc(len);
        memcpy(m, bytes, len);
        m[bad[i].at] = bad[i].value;
        gsvm_hks_chunk *t = NULL;
        gsvm_error err;
        gsvm_error_clear(&err);
        CHECK(gsvm_hks_chunk_load(m, len, NULL, "bad", &t, &err) == GSVM_ERR_INPUT);
        CHECK(t == NULL);
        CHECK_INT(err.offset, (long long)bad[i].at);
        CHECK(strstr(err.message, bad[i].says) != NULL);
        free(m);
    }
    /* a constant of unknown type: the first constant's type byte */
    {
        size_t at = k0_at;
        uint8_t *m = malloc(len);
        memcpy(m, bytes, len);
        CHECK_INT(m[at], GSVM_HKS_K_NUMBER);
        m[at] = 7;
        gsvm_hks_chunk *t = NULL;
        gsvm_error err;
        gsvm_error_clear(&err);
        CHECK(gsvm_hks_chunk_load(m, len, NULL, "bad", &t, &err) == GSVM_ERR_INPUT);
        gsvm_hks_chunk_free(t);
        t = NULL;
        CHECK_INT(err.offset, (long long)at);
        CHECK(strstr(err.message, "has type 7") != NULL);
        /* an absurd constant count is refused before any allocation */
        m[at] = GSVM_HKS_K_NUMBER;
        memset(m + at - 4, 0x7f, 4);
        CHECK(gsvm_hks_chunk_load(m, len, NULL, "bad", &t, &err) == GSVM_ERR_INPUT);
        CHECK(strstr(err.message, "constant count") != NULL);
        gsvm_hks_chunk_free(t);
        free(m);
    }
    /* verify: no violations; the hypotheses find some */
    gsvm_hks_verify_result r;
    CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, NULL, NULL, &r, NULL) == GSVM_OK);
    CHECK_INT(r.violations, 0);
    CHECK_INT(r.functions, 2);
    CHECK_INT(r.instructions, 30);
    CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_SWAP_AB, NULL, NULL, &r, NULL) == GSVM_OK);
    CHECK(r.violations > 0);
    CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_OP_LOW_BIT, NULL, NULL, &r, NULL) == GSVM_OK);
    CHECK(r.violations > 0);
    /* stats */
    gsvm_hks_stats st;
    memset(&st, 0, sizeof st);
    gsvm_hks_stats_add(&st, c);
    CHECK_INT(st.files, 1);
    CHECK_INT(st.functions, 2);
    CHECK_INT(st.instructions, 30);
    CHECK_INT(st.data_words, 4);
    CHECK_INT(st.constants, 9);
    CHECK_INT(st.structures, 1);
    CHECK_INT(st.op_count[76], 4);
    CHECK_INT(st.op_count[0], 1);
    /* cfg of the loop function: FORPREP jumps, FORLOOP loops back */
    const gsvm_hks_proto *f = gsvm_hks_find_function(c, "0/0");
    CHECK(f == &c->main.p[0]);
    CHECK(gsvm_hks_find_function(c, "0/1") == NULL);
    CHECK(gsvm_hks_find_function(c, "1") == NULL);
    CHECK(gsvm_hks_find_function(c, "main.0") == f);
    CHECK(gsvm_hks_find_function(c, "main") == &c->main);
    CHECK(gsvm_hks_find_function(c, "0/x") == NULL);
    char *dot = NULL;
    size_t dlen = 0;
    gsvm_error err;
    CHECK(gsvm_hks_cfg_dot(c, f, "0/0", &dot, &dlen, &err) == GSVM_OK);
    CHECK(dot && strstr(dot, "b0 -> b13 [label=\"jump\"]") != NULL);
    CHECK(dot && strstr(dot, "b13 -> b4 [label=\"jump\"]") != NULL);
    CHECK(dot && strstr(dot, "b4 -> b10 [label=\"skip\"]") != NULL);
    CHECK(dot && strstr(dot, "b14 -> exit") != NULL);
    free(dot);
    gsvm_hks_chunk_free(c);
    free(bytes);

    const char *others[] = {"ghosts.hksl", "bo3.hksl"};
    const gsvm_hks_profile profiles[] = {GSVM_HKS_PROFILE_GHOSTS, GSVM_HKS_PROFILE_BO3};
    for (int i = 0; i < 2; i++) {
        c = asm_file(others[i], &bytes, &len);
        CHECK(c != NULL);
        if (!c)
            continue;
        CHECK_INT(c->profile, profiles[i]);
        /* detected from the bytes alone */
        gsvm_hks_chunk *l = NULL;
        CHECK(gsvm_hks_chunk_load(bytes, len, NULL, others[i], &l, &err) == GSVM_OK);
        CHECK(l && l->profile == profiles[i]);
        gsvm_hks_chunk_free(l);
        check_roundtrip(others[i], bytes, len, NULL);
        CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, NULL, NULL, &r, NULL) == GSVM_OK);
        CHECK_INT(r.violations, 0);
        if (i == 0) { /* the three format-13 debug blocks */
            CHECK_INT(c->format, 13);
            CHECK_INT(c->main.debug.flag, 2);
            CHECK_INT(c->main.debug.nlines, 6);
            CHECK_INT(c->main.debug.nlocals, 1);
            CHECK_INT(c->main.np, 2);
            CHECK_INT(c->main.p[0].debug.flag, 1);
            CHECK(c->main.p[0].debug.hash == 0x8d2f11e3u);
            CHECK_INT(c->main.p[1].debug.flag, 40);
            CHECK_INT(c->main.p[1].debug.linedefined, 4);
            CHECK_STR(c->main.p[1].debug.name.data, "f");
            /* flag 1 is followed by the 4 bytes of the hash (little endian) */
            bool found = false;
            for (size_t at = 0; at + 4 <= len && !found; at++)
                found = memcmp(bytes + at, "\xe3\x11\x2f\x8d", 4) == 0;
            CHECK(found);
        } else { /* float64, big endian, Halo-style structures */
            CHECK_INT(c->size_number, 8);
            CHECK_INT(c->struct_layout, GSVM_HKS_STRUCTS_HALO);
            CHECK_INT(c->structs[1].nbases, 1);
            double six;
            memcpy(&six, &c->main.k[0].bits, 8);
            CHECK(six == 6.0);
            CHECK(len > 14 && bytes[6] == 0 && bytes[12] == 0x0b);
        }
        gsvm_hks_chunk_free(c);
        free(bytes);
    }
}

static int count_violations;
static void on_violation(void *ctx, const char *path, uint64_t pc, const char *message)
{
    (void)ctx;
    (void)message;
    if (strcmp(path, "0") == 0 && pc < 13)
        count_violations++;
}

static void test_verify_broken(void)
{
    gsvm_hks_chunk *c = asm_file("broken.hksl", NULL, NULL);
    CHECK(c != NULL);
    if (!c)
        return;
    gsvm_hks_verify_result r;
    count_violations = 0;
    CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, on_violation, NULL, &r, NULL) == GSVM_OK);
    CHECK_INT(r.violations, 10);
    CHECK_INT(count_violations, 10);
    gsvm_hks_chunk_free(c);
}

#define HEADER \
    ".header version=0x51 format=14 endian=little int=4 size_t=8 instruction=4 number=4 " \
    "integral=0 flags=0x01 referenced=0\n.types standard\n"

static void test_listing_errors(void)
{
    struct { const char *text; long line, col; const char *says; } bad[] = {
        {".function 0\n", 1, 1, "expected .header first"},
        {HEADER ".function 0\n.code\n\tFROB 1 2\n.end\n", 5, 2, "unknown opcode 'FROB'"},
        {HEADER ".function 0\n.code\n\tMOVE 1 256\n.end\n", 5, 9, "does not fit"},
        {HEADER ".function 0\n.code\n\tLOADK 1 -1 7\n.end\n", 5, 13, "too many operands"},
        {HEADER ".function 0\n.constants\n\tstring \"abc\n.end\n", 5, 9, "unterminated string"},
        {HEADER ".function 0\n.constants\n\tnumber x1\n.end\n", 5, 9, "expected a number"},
        {HEADER ".function 0\n.code\n\tJMP 99999999\n.end\n", 5, 6, "out of range"},
        {HEADER ".function 0\n.code\n", 5, 1, "lack .end"},
        {HEADER ".function 0\n.maxstack -1\n.end\n", 4, 11, "must not be negative"},
        {HEADER ".function 0\n.maxstack 4294967296\n.end\n", 4, 11, "out of range"},
        {HEADER ".function 0\n.code\n\tLEFT_SHIFT 0 0 0\n.end\n", 5, 2, "not in the base table"},
        {HEADER ".function 0\n.end\n.function 0\n.end\n", 5, 1, "a second main function"},
        {HEADER ".function 0\n.frob\n.end\n", 4, 1, "unknown directive"},
        {HEADER ".function 0\n.end\n.structs 1 plain\n.endstructs\n", 5, 1, "build flags lack"},
        {HEADER ".function 0\n.debug 1\n.hash 7\n.end\n", 6, 5, ".hash needs .debug 1 in format 13"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gsvm_error err;
        gsvm_hks_chunk *c = asm_text(bad[i].text, &err);
        CHECK(c == NULL);
        gsvm_hks_chunk_free(c);
        if (err.line != bad[i].line || err.column != bad[i].col ||
            !strstr(err.message, bad[i].says)) {
            fprintf(stderr, "listing %zu: got %ld:%ld %s\n", i, err.line, err.column,
                    err.message);
            test_failed++;
        } else {
            test_passed++;
        }
    }
    /* a minimal listing works, with the luac conventions for operands */
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(HEADER ".function 0\n.maxstack 2\n.code\n"
                                        "\tLOADK 0 -2\t; constant 1\n"
                                        "\tADD 1 0 -1\t; RK: constant 0\n"
                                        "\tJMP -3\n"
                                        "\tRETURN 0 1\n"
                                        ".constants\n\tnumber 0.1\n\tnumber bits:7fc00001\n.end\n",
                                 &err);
    CHECK(c != NULL);
    if (c) {
        CHECK(c->main.code[0] == (25u << 25 | 1u << 8));
        CHECK(c->main.code[1] == (40u << 25 | 0u << 17 | 256u << 8 | 1u));
        CHECK_INT(GSVM_HKS_SBX(c->main.code[2]), -3);
        CHECK(c->main.k[0].bits == 0x3dcccccd); /* 0.1f */
        CHECK(c->main.k[1].bits == 0x7fc00001); /* a NaN kept bit for bit */
        char *text;
        size_t tlen;
        CHECK(gsvm_hks_list(c, &text, &tlen, &err) == GSVM_OK);
        CHECK(strstr(text, "number\t0.1\n") != NULL);
        CHECK(strstr(text, "number\tbits:7fc00001\n") != NULL);
        CHECK(strstr(text, "JMP           \t-3\t; to 0") != NULL);
        free(text);
        gsvm_hks_chunk_free(c);
    }
}

/* The assembler reads canonical code lines on a fast path and everything
 * else with general helpers: other spellings of the same instruction must
 * give the same word, and lines the fast path passes on must still be read
 * (or rejected with the general path's message). */
static void test_code_spellings(void)
{
    static const struct { const char *a, *b; } same[] = {
        {"\t0\t[1]\tLOADK         \t0 -1\t; \"x\"", "LOADK 0x0 -1"},
        {"LOADK 0 -1", "  7  [-]   LOADK\t\t0\t-1   "},
        {"JMP -3", "JMP 0 -3"},
        {"JMP 65536", "\t3\t[9]\tJMP 0x0 65536"},
        {"ADD 1 0 -1", "ADD 0x1 0 -0x1"},
        {"ADD 1 0 -256", "ADD 1 0 511"},
        {"MOVE 1 2", "MOVE 1 2 0"},
        {"RETURN 0 1", "RETURN 0 0x1"},
        {"CLOSURE 0 0", "\t.word 0x84000000"},
        {"GETUPVAL 1 0", "0[5]GETUPVAL 1 00"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        uint32_t w[2] = {0, 0};
        for (int j = 0; j < 2; j++) {
            char text[512];
            snprintf(text, sizeof text,
                     HEADER ".function 0\n.maxstack 2\n.code\n%s\n.constants\n\tnil\n.end\n",
                     j ? same[i].b : same[i].a);
            gsvm_error err;
            gsvm_hks_chunk *c = asm_text(text, &err);
            CHECK(c != NULL && c->main.ncode == 1);
            if (c && c->main.ncode == 1)
                w[j] = c->main.code[0];
            else
                fprintf(stderr, "spelling %zu.%d: %s\n", i, j, err.message);
            gsvm_hks_chunk_free(c);
        }
        if (w[0] != w[1])
            fprintf(stderr, "spelling %zu: 0x%08x != 0x%08x\n", i, w[0], w[1]);
        CHECK(w[0] == w[1] && w[0] != 0);
    }
    static const struct { const char *line; long col; const char *says; } bad[] = {
        {"\t0\t[1]\tMOVE          \t0 256", 25, "does not fit"},
        {"\t0\t[1]\tADD           \t0 0 -257", 27, "out of range -1..-256"},
        {"\t0\t[1]\tMOVE          \t-1 0", 23, "must not be negative"},
        {"\t0\t[1]\tJMP           \t-65536", 23, "out of range"},
        {"\t0\t[1]\tLOADK         \t0", 24, "needs 2 operands"},
        {"\t0\t[1]\tMOVE          \t0 1 2 3", 29, "too many operands"},
        {"\t0\t[1]\tMOVE          \t0 1x", 26, "expected an operand"},
        {"\t0\t[1]\tMOVE          \t0 99999999999999999999", 25, "too large"},
        {"\t0\t[1\tMOVE 0 1", 15, "expected ']'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, HEADER ".function 0\n.code\n%s\n.end\n", bad[i].line);
        gsvm_error err;
        gsvm_hks_chunk *c = asm_text(text, &err);
        CHECK(c == NULL);
        gsvm_hks_chunk_free(c);
        if (err.line != 5 || err.column != bad[i].col || !strstr(err.message, bad[i].says)) {
            fprintf(stderr, "bad line %zu: got %ld:%ld %s\n", i, err.line, err.column, err.message);
            test_failed++;
        } else {
            test_passed++;
        }
    }
}

/* .lines is read on a fast path for plain decimals: other spellings go on
 * through the general reader, from the number where the fast path stopped. */
static void test_lines_spellings(void)
{
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(HEADER ".function 0\n.debug 1\n.linedefined 0 0\n.source null\n"
                                        ".name null\n.lines 1 22 0x3 4294967295  5\t6\n"
                                        ".lines 999999999 7\n.end\n",
                                 &err);
    CHECK(c != NULL);
    if (c) {
        static const uint32_t want[] = {1, 22, 3, 4294967295u, 5, 6, 999999999, 7};
        CHECK_INT(c->main.debug.nlines, 8);
        for (int i = 0; i < 8 && (uint64_t)i < c->main.debug.nlines; i++)
            CHECK(c->main.debug.lines[i] == want[i]);
        gsvm_hks_chunk_free(c);
    }
    static const struct { const char *line; long col; const char *says; } bad[] = {
        {".lines 1 4294967296", 10, "out of range"},
        {".lines 1 2x", 11, "expected line number"},
        {".lines 1 -2", 10, "must not be negative"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 HEADER ".function 0\n.debug 1\n%s\n.end\n", bad[i].line);
        c = asm_text(text, &err);
        CHECK(c == NULL);
        gsvm_hks_chunk_free(c);
        if (err.line != 5 || err.column != bad[i].col || !strstr(err.message, bad[i].says)) {
            fprintf(stderr, "bad .lines %zu: got %ld:%ld %s\n", i, err.line, err.column,
                    err.message);
            test_failed++;
        } else {
            test_passed++;
        }
    }
}

/* The assembler finds a line's comment in one pass unless a quote comes
 * first: a ';' inside a string is not a comment, one after it is. */
static void test_comments(void)
{
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(HEADER ".function 0 ; path\n.code\n\tLOADK 0 -1;x\"y\n"
                                        ".constants\n\tstring \"a;b\\\";\"\t; \"c\";d\n"
                                        "\tstring \"e\";\n.end ;last line, no newline",
                                 &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "comments: %s\n", err.message);
        return;
    }
    CHECK_INT(c->main.ncode, 1);
    CHECK_INT(c->main.nk, 2);
    if (c->main.nk == 2) {
        CHECK(c->main.k[0].s.size == 6 && memcmp(c->main.k[0].s.data, "a;b\";", 6) == 0);
        CHECK(c->main.k[1].s.size == 2 && memcmp(c->main.k[1].s.data, "e", 2) == 0);
    }
    gsvm_hks_chunk_free(c);
}

/* Lists a chunk whose one string constant holds `raw` (len bytes and a
 * NUL) and assembles the listing: true if the same bytes come back. */
static bool string_reads_back(const char *raw, int len)
{
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(HEADER ".function 0\n.constants\n\tstring \"x\"\n.end\n", &err);
    if (!c)
        return false;
    free(c->main.k[0].s.data);
    c->main.k[0].s.data = malloc((size_t)len + 1);
    memcpy(c->main.k[0].s.data, raw, (size_t)len + 1);
    c->main.k[0].s.size = (uint64_t)len + 1;
    char *text = NULL;
    size_t tlen = 0;
    gsvm_hks_chunk *back = NULL;
    bool ok = gsvm_hks_list(c, &text, &tlen, &err) == GSVM_OK &&
              gsvm_hks_asm(text, tlen, "t", &back, &err) == GSVM_OK &&
              back->main.k[0].s.size == (uint64_t)len + 1 &&
              memcmp(back->main.k[0].s.data, raw, (size_t)len + 1) == 0;
    free(text);
    gsvm_hks_chunk_free(back);
    gsvm_hks_chunk_free(c);
    return ok;
}

/* Strings are escaped 8 bytes at a time where they are plain (and a plain
 * tail is finished with one overlapping 8-byte copy): an escape at any
 * position, in strings around those sizes, must still read back exactly. */
static void test_string_escapes(void)
{
    static const char special[] = {'"', '\\', '\n', '\t', '\r', 0x01, 0x1f, 0x7f, (char)0x80, (char)0xff};
    static const int lens[] = {1, 7, 8, 9, 15, 16, 17, 20, 23};
    int ok = 0, total = 0;
    for (size_t s = 0; s < sizeof special; s++) {
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            for (int at = 0; at < lens[li]; at++) {
                char raw[24];
                memset(raw, 'a', sizeof raw);
                raw[at] = special[s];
                raw[lens[li]] = 0;
                total++;
                if (string_reads_back(raw, lens[li]))
                    ok++;
                else
                    fprintf(stderr, "escape of byte 0x%02x at %d of %d did not read back\n",
                            (unsigned char)special[s], at, lens[li]);
            }
        }
    }
    CHECK_INT(ok, total);
    CHECK_INT(total, 10 * (1 + 7 + 8 + 9 + 15 + 16 + 17 + 20 + 23));
}

static void test_depth(void)
{
    /* 130 nested functions: the loader refuses past 128 levels below main */
    gsvm_buf t;
    gsvm_buf_init(&t);
    gsvm_buf_puts(&t, HEADER);
    for (int i = 0; i < 129; i++)
        gsvm_buf_puts(&t, ".function 0\n");
    for (int i = 0; i < 129; i++)
        gsvm_buf_puts(&t, ".end\n");
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(gsvm_buf_cstr(&t), &err);
    CHECK(c != NULL);
    if (c) {
        /* add one more level by hand and dump it */
        gsvm_hks_proto *deep = &c->main;
        while (deep->np)
            deep = &deep->p[0];
        deep->p = calloc(1, sizeof *deep->p);
        deep->np = 1;
        uint8_t *bytes;
        size_t len;
        CHECK(gsvm_hks_chunk_dump(c, &bytes, &len, &err) == GSVM_OK);
        gsvm_hks_chunk *l = NULL;
        CHECK(gsvm_hks_chunk_load(bytes, len, NULL, "deep", &l, &err) == GSVM_ERR_INPUT);
        CHECK(strstr(err.message, "too deep") != NULL);
        free(bytes);
        gsvm_hks_chunk_free(c);
    }
    gsvm_buf_puts(&t, "");
    gsvm_buf t2;
    gsvm_buf_init(&t2);
    gsvm_buf_puts(&t2, HEADER);
    for (int i = 0; i < 130; i++)
        gsvm_buf_puts(&t2, ".function 0\n");
    c = asm_text(gsvm_buf_cstr(&t2), &err);
    CHECK(c == NULL);
    CHECK(strstr(err.message, "nested deeper") != NULL);
    gsvm_buf_free(&t);
    gsvm_buf_free(&t2);
}

static void test_scri(void)
{
    static const uint8_t body[] = "\x1bLuaQ\x0e";
    uint8_t *out;
    size_t len;
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK(gsvm_hks_scri_pack(0, body, 6, &out, &len, &err) == GSVM_OK);
    CHECK_INT(len, 13 + 6);
    CHECK(memcmp(out, "SCRI\1\0\0\0\0\6\0\0\0", 13) == 0);
    gsvm_hks_scri s;
    CHECK(gsvm_hks_scri_unpack(out, len, "x", &s, &err) == GSVM_OK);
    CHECK_INT(s.flag, 0);
    CHECK_INT(s.body_len, 6);
    CHECK(memcmp(s.body, body, 6) == 0);
    CHECK(gsvm_hks_scri_unpack(out, len - 1, "x", &s, &err) == GSVM_ERR_INPUT);
    CHECK_INT(err.offset, 13);
    out[8] = 2;
    CHECK(gsvm_hks_scri_unpack(out, len, "x", &s, &err) == GSVM_ERR_INPUT);
    CHECK_INT(err.offset, 8);
    out[8] = 0;
    out[13] = 'X'; /* flag 0 but not bytecode */
    CHECK(gsvm_hks_scri_unpack(out, len, "x", &s, &err) == GSVM_ERR_INPUT);
    out[0] = 'Z';
    CHECK(gsvm_hks_scri_unpack(out, len, "x", &s, &err) == GSVM_ERR_INPUT);
    CHECK_INT(err.offset, 0);
    free(out);
    CHECK(gsvm_hks_scri_pack(1, (const uint8_t *)"print(1)", 8, &out, &len, &err) == GSVM_OK);
    CHECK(gsvm_hks_scri_unpack(out, len, "x", &s, &err) == GSVM_OK);
    CHECK_INT(s.flag, 1);
    CHECK_INT(s.trailing, 0);
    free(out);
}

/* Issue 10's fixes, on chunks written here (the hksc golden set checks them
 * on real compiler output in test_hks_hksc). */
static gsvm_hks_chunk *reload(const gsvm_hks_chunk *c, uint8_t **bytes, size_t *len)
{
    gsvm_error err;
    gsvm_hks_chunk *back = NULL;
    if (gsvm_hks_chunk_dump(c, bytes, len, &err) != GSVM_OK)
        return NULL;
    if (gsvm_hks_chunk_load(*bytes, *len, NULL, "t.luac", &back, &err) != GSVM_OK) {
        char msg[1024];
        gsvm_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
    }
    return back;
}

static uint64_t violations_of(const char *text)
{
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(text, &err);
    CHECK(c != NULL);
    if (!c)
        return UINT64_MAX;
    gsvm_hks_verify_result r;
    CHECK(gsvm_hks_verify(c, GSVM_HKS_HYP_NONE, NULL, NULL, &r, NULL) == GSVM_OK);
    gsvm_hks_chunk_free(c);
    return r.violations;
}

#define HEADER14(flags, extra) \
    ".header version=0x51 format=14 endian=little int=4 size_t=8 instruction=4 number=4 " \
    "integral=0 flags=" flags " referenced=0" extra "\n.types standard\n"

static void test_hash_form14(void)
{
    /* hksc's t7 writes debug flag 1 in format 14 as a hash alone */
    static const char text[] = HEADER14("0x00", " debug=hash")
        ".function 0\n.maxstack 2\n.code\n\tCLOSURE 0 0\n\tRETURN 0 1\n.debug 1\n.hash 0xa5978414\n"
        ".function 0/0\n.maxstack 2\n.code\n\tRETURN 0 1\n.debug 1\n.hash 0x0000005d\n.end\n.end\n";
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(text, &err);
    CHECK(c != NULL);
    if (!c)
        return;
    uint8_t *bytes = NULL;
    size_t len = 0;
    gsvm_hks_chunk *back = reload(c, &bytes, &len);
    CHECK(back != NULL);
    if (back) {
        CHECK(back->debug_hash);
        CHECK_INT(back->main.debug.hash, 0xa5978414u);
        CHECK_INT(back->main.p[0].debug.hash, 0x5du);
        uint8_t *again = NULL;
        size_t alen = 0;
        CHECK(gsvm_hks_chunk_dump(back, &again, &alen, &err) == GSVM_OK);
        CHECK(alen == len && memcmp(again, bytes, len) == 0);
        free(again);
        char *list = NULL;
        size_t llen = 0;
        CHECK(gsvm_hks_list(back, &list, &llen, &err) == GSVM_OK);
        CHECK(list && strstr(list, " debug=hash\n") != NULL);
        free(list);
    }
    gsvm_hks_chunk_free(back);
    gsvm_hks_chunk_free(c);
    free(bytes);
    /* the full form still reads first: flag 1 with arrays is the full block */
    static const char full[] = HEADER14("0x00", "")
        ".function 0\n.maxstack 2\n.code\n\tRETURN 0 1\n.debug 1\n.linedefined 0 0\n"
        ".source \"@x.lua\"\n.name \"(main chunk)\"\n.lines 1\n.end\n";
    c = asm_text(full, &err);
    CHECK(c != NULL);
    back = c ? reload(c, &bytes, &len) : NULL;
    CHECK(back && !back->debug_hash && back->main.debug.nlines == 1);
    gsvm_hks_chunk_free(back);
    gsvm_hks_chunk_free(c);
    free(bytes);
    /* a hash without debug=hash in format 14, and debug=hash in format 13 */
    CHECK(asm_text(HEADER14("0x00", "") ".function 0\n.debug 1\n.hash 7\n.end\n", &err) == NULL);
    CHECK(asm_text(".header version=0x51 format=13 endian=little int=4 size_t=8 instruction=4 "
                   "number=4 integral=0 flags=0x00 referenced=0 debug=hash\n.types standard\n"
                   ".function 0\n.end\n", &err) == NULL);
}

static void test_slot_data_words(void)
{
    /* GETSLOT owns no DATA word, GETSLOTMT / SELFSLOTMT C + 1, SETSLOTMT
     * (B & 15) + 1 plus the structure id when B >> 4 is TSTRUCT (12) */
    static const char good[] = HEADER14("0x03", "")
        ".function 0\n.maxstack 4\n.code\n"
        "\tGETSLOT 0 1 4\n"
        "\tGETSLOTMT 0 1 1\n\tDATA 0 4\n\tDATA 5 0\n"
        "\tSELFSLOTMT 2 1 0\n\tDATA 0 4\n"
        "\tSETSLOTMT 1 49 0\n\tDATA 0 4\n\tDATA 5 0\n"
        "\tSETSLOTMT 1 192 0\n\tDATA 0 2\n\tDATA 0 4\n"
        "\tNEWSTRUCT 3 0 0\n\tDATA 0 1\n"
        "\tSETSLOT 3 4 0\n\tDATA 0 3\n"
        "\tRETURN 0 1\n.end\n.structs 1 plain\n.endstructs\n";
    CHECK_INT(violations_of(good), 0);
    /* one DATA word short: the GETSLOTMT chain then owns the SELFSLOTMT */
    static const char short_chain[] = HEADER14("0x03", "")
        ".function 0\n.maxstack 4\n.code\n"
        "\tGETSLOTMT 0 1 1\n\tDATA 0 4\n"
        "\tSELFSLOTMT 2 1 0\n\tDATA 0 4\n"
        "\tRETURN 0 1\n.end\n.structs 1 plain\n.endstructs\n";
    CHECK(violations_of(short_chain) > 0);
    /* a GETSLOT followed by DATA: that word is owned by nobody */
    static const char extra[] = HEADER14("0x03", "")
        ".function 0\n.maxstack 4\n.code\n\tGETSLOT 0 1 4\n\tDATA 0 4\n\tRETURN 0 1\n.end\n"
        ".structs 1 plain\n.endstructs\n";
    CHECK_INT(violations_of(extra), 1);
}

static void test_ghosts_delete14(void)
{
    /* hdelete of a local, a global, an upvalue and t.a / t[k] (C = kind) */
    static const char text[] = HEADER14("0x03", "") ".profile ghosts\n"
        ".function 0\n.maxstack 3\n.code\n"
        "\tNEWTABLE 0 0 1\n\tLOADK 1 -2\n"
        "\tDELETE 1 0 0\n\tDELETE_BK 0 -1 1\n\tDELETE_BK 0 -2 3\n\tDELETE 0 1 3\n"
        "\tCLOSURE 2 0\n\tDATA 1 1\n\tRETURN 0 1\n"
        ".constants\n\tstring \"G\"\n\tstring \"a\"\n"
        ".function 0/0\n.upvalues 1\n.maxstack 2\n.code\n\tDELETE 0 0 2\n\tRETURN 0 1\n.end\n"
        ".end\n.structs 1 plain\n.endstructs\n";
    CHECK_INT(violations_of(text), 0);
    gsvm_error err;
    gsvm_hks_chunk *c = asm_text(text, &err);
    CHECK(c != NULL);
    if (c) {
        uint8_t *bytes = NULL;
        size_t len = 0;
        gsvm_hks_chunk *back = reload(c, &bytes, &len);
        /* format 14 does not say Ghosts: the DELETE opcodes do */
        CHECK(back && back->profile == GSVM_HKS_PROFILE_GHOSTS);
        gsvm_hks_chunk_free(back);
        free(bytes);
        gsvm_hks_chunk_free(c);
    }
    /* a kind past 3, an upvalue past the count, a global by register */
    CHECK_INT(violations_of(HEADER14("0x03", "") ".profile ghosts\n"
                            ".function 0\n.maxstack 3\n.code\n\tDELETE 0 0 5\n\tDELETE 0 2 2\n"
                            "\tDELETE 0 0 1\n\tRETURN 0 1\n.end\n.structs 1 plain\n.endstructs\n"),
              3);
}

int main(void)
{
    test_isa();
    test_fields();
    test_own_chunks();
    test_verify_broken();
    test_listing_errors();
    test_code_spellings();
    test_lines_spellings();
    test_comments();
    test_string_escapes();
    test_depth();
    test_scri();
    test_hash_form14();
    test_slot_data_words();
    test_ghosts_delete14();
    TEST_MAIN_END();
}
