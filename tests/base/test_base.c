/* Base code: byte reader/writer in both byte orders, buffers, errors, hashing, JSON Lines. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/decimal.h"
#include "base/file.h"
#include "base/hash.h"
#include "base/jsonl.h"
#include "base/reader.h"
#include "test.h"

static void test_round_trip_both_endians(void)
{
    for (int be = 0; be < 2; be++) {
        gsvm_buf b;
        gsvm_buf_init(&b);
        gsvm_buf_u8(&b, 0xAB);
        gsvm_buf_u16(&b, 0x1234, be);
        gsvm_buf_u32(&b, 0xDEADBEEF, be);
        gsvm_buf_u64(&b, 0x0102030405060708ull, be);
        gsvm_buf_f32(&b, 1.5f, be);
        gsvm_buf_f64(&b, -2.25, be);
        CHECK_INT(b.len, 1 + 2 + 4 + 8 + 4 + 8);
        CHECK_INT(b.data[1], be ? 0x12 : 0x34);

        gsvm_error err;
        gsvm_error_clear(&err);
        gsvm_reader r;
        gsvm_reader_init(&r, b.data, b.len, "t.bin", &err);
        r.big_endian = be;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
        float f;
        double d;
        CHECK(gsvm_read_u8(&r, &u8, "u8") && u8 == 0xAB);
        CHECK(gsvm_read_u16(&r, &u16, "u16") && u16 == 0x1234);
        CHECK(gsvm_read_u32(&r, &u32, "u32") && u32 == 0xDEADBEEF);
        CHECK(gsvm_read_u64(&r, &u64, "u64") && u64 == 0x0102030405060708ull);
        CHECK(gsvm_read_f32(&r, &f, "f32") && f == 1.5f);
        CHECK(gsvm_read_f64(&r, &d, "f64") && d == -2.25);
        CHECK_INT(gsvm_reader_left(&r), 0);
        /* Reading past the end fails, names the offset and the field, and sticks. */
        CHECK(!gsvm_read_u8(&r, &u8, "trailer"));
        CHECK(r.failed);
        CHECK_INT(err.offset, 27);
        CHECK(strstr(err.message, "trailer") != NULL);
        gsvm_reader_seek(&r, 0, "rewind");
        CHECK(!gsvm_read_u8(&r, &u8, "after failure"));
        gsvm_buf_free(&b);
    }
}

static void test_reader_rejects_huge_lengths(void)
{
    uint8_t bytes[4] = {1, 2, 3, 4};
    gsvm_reader r;
    gsvm_reader_init(&r, bytes, sizeof bytes, NULL, NULL);
    const uint8_t *p;
    CHECK(!gsvm_read_bytes(&r, SIZE_MAX, &p, "blob"));
    gsvm_reader_init(&r, bytes, sizeof bytes, NULL, NULL);
    CHECK(!gsvm_reader_skip(&r, 5, "pad"));
    gsvm_reader_init(&r, bytes, sizeof bytes, NULL, NULL);
    CHECK(!gsvm_reader_seek(&r, 5, "seek"));
}

static void test_error_format(void)
{
    gsvm_error err;
    char out[600];
    gsvm_error_at_line(&err, GSVM_ERR_INPUT, "a.lsl", 3, 7, "expected '%s'", ";");
    gsvm_error_format(&err, out, sizeof out);
    CHECK_STR(out, "a.lsl:3:7: error: expected ';'");
    gsvm_error_at_offset(&err, GSVM_ERR_INPUT, "x.luac", 12, "bad");
    gsvm_error_format(&err, out, sizeof out);
    CHECK_STR(out, "x.luac: byte 12: error: bad");
    CHECK_INT(gsvm_error_set(&err, GSVM_ERR_FAULT, NULL, "boom"), GSVM_ERR_FAULT);
    gsvm_error_format(&err, out, sizeof out);
    CHECK_STR(out, "<input>: error: boom");
}

static void test_buf_printf(void)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        gsvm_buf_printf(&b, "%d,", i);
    CHECK(strncmp(gsvm_buf_cstr(&b), "0,1,2,", 6) == 0);
    CHECK(strstr(gsvm_buf_cstr(&b), ",999,") != NULL);
    gsvm_buf_free(&b);
}

/* The decimal writers against printf, at every digit count's edges and on
 * a spread of values. */
static void check_decimal(uint64_t v)
{
    char want[32], got[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)v);
    *gsvm_decimal_u64(got, v) = 0;
    CHECK(strcmp(got, want) == 0);
    if (v <= UINT32_MAX) {
        *gsvm_decimal_u32(got, (uint32_t)v) = 0;
        CHECK(strcmp(got, want) == 0);
    }
}

static void test_decimal(void)
{
    uint64_t p = 1;
    for (int d = 0; d < 20; d++, p *= 10) {
        check_decimal(p);
        check_decimal(p - 1);
        check_decimal(p + 1);
        check_decimal(p * 9 + (p - 1)); /* 99..9 */
    }
    check_decimal(UINT32_MAX);
    check_decimal((uint64_t)UINT32_MAX + 1);
    check_decimal(UINT64_MAX);
    check_decimal(1000000000ull * 1000000000ull); /* nine zeros padded */
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 10000; i++) { /* xorshift: values of every size */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_decimal(x >> (i % 64));
    }
}

/* Writing to a path that is not a regular file (a FIFO here; /dev/null in
 * real use) writes into it: the atomic temporary-file-and-rename used for
 * regular files would replace the node with a regular file. */
static void test_file_write_into_fifo(void)
{
    char dir[] = "/tmp/gsvm_test_XXXXXX", fifo[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    int back[2];
    CHECK(pipe(back) == 0);
    pid_t pid = fork();
    if (pid == 0) { /* the reader: hands what it read back through the pipe */
        char buf[16];
        int fd = open(fifo, O_RDONLY);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
        if (n > 0 && write(back[1], buf, (size_t)n) != n)
            _exit(1);
        _exit(0);
    }
    close(back[1]);
    gsvm_error err;
    gsvm_error_clear(&err);
    CHECK(gsvm_file_write(fifo, "hello", 5, &err) == GSVM_OK);
    struct stat sb;
    CHECK(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode));
    /* a reader nobody wrote to would wait forever: give it 2 s */
    int status, waited = 0;
    while (waitpid(pid, &status, WNOHANG) == 0 && waited++ < 200) {
        struct timespec ms10 = {0, 10000000};
        nanosleep(&ms10, NULL);
    }
    if (waited > 200) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    char got[16] = {0};
    CHECK(read(back[0], got, sizeof got - 1) == 5 && strcmp(got, "hello") == 0);
    close(back[0]);
    unlink(fifo);
    rmdir(dir);
}

static void test_hash(void)
{
    uint8_t d[32];
    char hex[65];
    CHECK(gsvm_sha256("abc", 3, d));
    gsvm_hex(d, 32, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    uint8_t m[64];
    CHECK_INT(gsvm_digest("md5", "", 0, m, sizeof m), 16);
    gsvm_hex(m, 16, hex);
    CHECK_STR(hex, "d41d8cd98f00b204e9800998ecf8427e");
    CHECK_INT(gsvm_digest("no-such-digest", "", 0, m, sizeof m), 0);
}

static void test_jsonl(void)
{
    const char *text = "{\"event\":\"touch_start\",\"args\":[1]}\n\n  {\"advance_ms\":5}\r\n";
    json_t *all = NULL;
    gsvm_error err;
    CHECK_INT(gsvm_jsonl_parse(text, strlen(text), "ev.jsonl", &all, &err), GSVM_OK);
    CHECK_INT(json_array_size(all), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(all, 0), "event")), "touch_start");
    json_decref(all);

    long *lines = NULL;
    CHECK_INT(gsvm_jsonl_parse_lines(text, strlen(text), "ev.jsonl", &all, &lines, &err), GSVM_OK);
    CHECK(lines != NULL && lines[0] == 1 && lines[1] == 3);
    free(lines);
    json_decref(all);

    const char *bad = "{\"event\":1}\n[1,2]\n";
    CHECK_INT(gsvm_jsonl_parse(bad, strlen(bad), "ev.jsonl", &all, &err), GSVM_ERR_INPUT);
    CHECK_INT(err.line, 2);
    const char *broken = "{\"a\":\n";
    CHECK_INT(gsvm_jsonl_parse(broken, strlen(broken), "ev.jsonl", &all, &err), GSVM_ERR_INPUT);
    CHECK_INT(err.line, 1);
}

int main(void)
{
    test_round_trip_both_endians();
    test_reader_rejects_huge_lengths();
    test_error_format();
    test_buf_printf();
    test_decimal();
    test_file_write_into_fifo();
    test_hash();
    test_jsonl();
    TEST_MAIN_END();
}
