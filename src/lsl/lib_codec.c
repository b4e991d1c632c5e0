/* Native encoding functions: Base64, XOR ciphers, digests (through
 * libcrypto, src/base/hash.h) and llGenerateKey. */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "lsl/lib.h"

static const char *sdata(const lsl_value *v) { return lsl_str_data(v); }
static size_t slen(const lsl_value *v) { return lsl_str_len(v); }

gsvm_status lsl_lib_llStringToBase64(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_base64_encode(&b, (const uint8_t *)sdata(&a[0]), slen(&a[0]));
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llBase64ToString(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Second Life first screens the decoded bytes: control characters other
     * than tab, newline, 0x0F and 0x1F become '?', a NUL at the very end is
     * dropped (elsewhere it becomes '?'), and each malformed UTF-8 sequence
     * becomes ONE '?' (lead byte plus the continuation bytes that follow it,
     * as far as the lead allows); what survives goes through the normal
     * byte-to-string conversion (lsl_utf8_sanitize). */
    gsvm_buf raw, mid, out;
    gsvm_buf_init(&raw);
    gsvm_buf_init(&mid);
    gsvm_buf_init(&out);
    lsl_base64_decode(&raw, sdata(&a[0]), slen(&a[0]));
    const uint8_t *p = raw.data;
    size_t n = raw.len, i = 0;
#define CONT(k) (i + (k) < n && p[i + (k)] >= 0x80 && p[i + (k)] <= 0xBF)
    while (i < n) {
        uint8_t c = p[i];
        if (c == 0 && i == n - 1)
            break;
        size_t good = 0;
        if (c == 0x09 || c == 0x0A || c == 0x0F || (c >= 0x1F && c <= 0x7F) || c >= 0xFE)
            good = 1;
        else if (c >= 0xC2 && c <= 0xDF && CONT(1))
            good = 2;
        else if (((c == 0xE0 && i + 1 < n && p[i + 1] >= 0xA0 && p[i + 1] <= 0xBF) ||
                  (c >= 0xE1 && c <= 0xEF && CONT(1))) && CONT(2))
            good = 3;
        else if (((c == 0xF0 && i + 1 < n && p[i + 1] >= 0x90 && p[i + 1] <= 0xBF) ||
                  (c >= 0xF1 && c <= 0xF7 && CONT(1))) && CONT(2) && CONT(3))
            good = 4;
        else if (((c == 0xF8 && i + 1 < n && p[i + 1] >= 0x88 && p[i + 1] <= 0xBF) ||
                  (c >= 0xF9 && c <= 0xFB && CONT(1))) && CONT(2) && CONT(3) && CONT(4))
            good = 5;
        else if (((c == 0xFC && i + 1 < n && p[i + 1] >= 0x84 && p[i + 1] <= 0xBF) || (c == 0xFD && CONT(1))) &&
                 CONT(2) && CONT(3) && CONT(4) && CONT(5))
            good = 6;
        if (good) {
            gsvm_buf_append(&mid, p + i, good);
            i += good;
            continue;
        }
        size_t most = c >= 0xC0 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF7 ? 3
                    : c >= 0xF8 && c <= 0xFB ? 4 : c >= 0xFC && c <= 0xFD ? 5 : 0;
        size_t k = 1;
        while (k <= most && CONT(k))
            k++;
        gsvm_buf_putc(&mid, '?');
        i += k;
    }
#undef CONT
    lsl_utf8_sanitize(&out, mid.data, mid.len);
    gsvm_buf_free(&raw);
    gsvm_buf_free(&mid);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &out, ret);
}

gsvm_status lsl_lib_llIntegerToBase64(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The four bytes big-endian: llIntegerToBase64(1) == "AAAAAQ==". */
    uint32_t u = (uint32_t)a[0].u.i;
    uint8_t bytes[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_base64_encode(&b, bytes, 4);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llBase64ToInteger(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The first four decoded bytes, big-endian; more than 8 characters give
     * 0 (as SL).  With fewer than 3 decoded bytes SL returns unpredictable
     * low bytes; gsvm counts the missing bytes as zero. */
    if (slen(&a[0]) > 8)
        return lsl_ret_int(ret, 0);
    gsvm_buf raw;
    gsvm_buf_init(&raw);
    lsl_base64_decode(&raw, sdata(&a[0]), slen(&a[0]));
    uint32_t u = 0;
    for (size_t i = 0; i < 4; i++)
        u = (u << 8) | (i < raw.len ? raw.data[i] : 0);
    gsvm_buf_free(&raw);
    return lsl_ret_int(ret, (int32_t)u);
}

/* Decodes both, XORs the first with the second repeated (restarting at
 * the key's first zero byte when `stop_at_zero`), encodes.  An empty key
 * returns the first argument untouched. */
static gsvm_status xor_decoded(lsl_call_ctx *ctx, const lsl_value *a, bool stop_at_zero, lsl_value *ret)
{
    if (slen(&a[1]) == 0) {
        *ret = a[0];
        ret->type = LSL_TYPE_STRING;
        lsl_value_retain(ret);
        return GSVM_OK;
    }
    gsvm_buf x, k, out;
    gsvm_buf_init(&x);
    gsvm_buf_init(&k);
    gsvm_buf_init(&out);
    lsl_base64_decode(&x, sdata(&a[0]), slen(&a[0]));
    lsl_base64_decode(&k, sdata(&a[1]), slen(&a[1]));
    size_t kl = k.len;
    if (stop_at_zero)
        for (size_t i = 1; i < k.len; i++)
            if (k.data[i] == 0) {
                kl = i;
                break;
            }
    /* a key decoding to nothing acts as a zero byte: the data comes back
     * unchanged (re-encoded) */
    if (kl)
        for (size_t i = 0; i < x.len; i++)
            x.data[i] ^= k.data[i % kl];
    lsl_base64_encode(&out, x.data, x.len);
    gsvm_buf_free(&x);
    gsvm_buf_free(&k);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &out, ret);
}

gsvm_status lsl_lib_llXorBase64(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return xor_decoded(ctx, a, false, ret);
}

gsvm_status lsl_lib_llXorBase64StringsCorrect(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* As llXorBase64, but the key pattern restarts at its first zero byte
     * after the first (SL's SCR-35 behaviour). */
    return xor_decoded(ctx, a, true, ret);
}

static int b64_index(char c)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

gsvm_status lsl_lib_llXorBase64Strings(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The deprecated original, bug for bug: it XORs the 6-bit values of the
     * Base64 DIGITS, cycling the key's digits; a non-Base64 character in the
     * data becomes '='; a non-Base64 key character is replaced by the
     * key's first digit (itself '+' if the key starts with '=', '/' if with
     * anything else invalid) and restarts the key cycle at position 1. */
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *s = sdata(&a[0]), *k = sdata(&a[1]);
    size_t sl = slen(&a[0]), kl = slen(&a[1]);
    if (kl == 0) {
        *ret = a[0];
        ret->type = LSL_TYPE_STRING;
        lsl_value_retain(ret);
        return GSVM_OK;
    }
    int base = b64_index(k[0]);
    if (base < 0)
        base = k[0] == '=' ? 62 : 63;
    gsvm_buf b;
    gsvm_buf_init(&b);
    size_t i = 0;
    for (size_t j = 0; j < sl; j++) {
        int v1 = b64_index(s[j]);
        int v2 = i == 0 ? base : b64_index(k[i]);
        i++;
        if (i >= kl)
            i = 0;
        if (v1 < 0) {
            gsvm_buf_putc(&b, '=');
        } else {
            if (v2 < 0) {
                v2 = base;
                i = 1 % kl;
            }
            gsvm_buf_putc(&b, alphabet[(v1 ^ v2) & 63]);
        }
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

static gsvm_status hex_digest(lsl_call_ctx *ctx, const char *algo, const void *data, size_t len,
                              lsl_value *ret)
{
    uint8_t d[64];
    char hex[129];
    size_t n = gsvm_digest(algo, data, len, d, sizeof d);
    if (!n)
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "%s digest failed", algo);
    gsvm_hex(d, n, hex);
    return lsl_ret_str(ctx, LSL_TYPE_STRING, hex, 2 * n, ret);
}

gsvm_status lsl_lib_llMD5String(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* MD5 of src + ":" + (string)nonce. */
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, sdata(&a[0]), slen(&a[0]));
    gsvm_buf_printf(&b, ":%d", (int)a[1].u.i);
    gsvm_status st = b.oom ? gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory")
                           : hex_digest(ctx, "md5", b.data, b.len, ret);
    gsvm_buf_free(&b);
    return st;
}

gsvm_status lsl_lib_llSHA1String(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return hex_digest(ctx, "sha1", sdata(&a[0]), slen(&a[0]), ret);
}

gsvm_status lsl_lib_llSHA256String(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return hex_digest(ctx, "sha256", sdata(&a[0]), slen(&a[0]), ret);
}

gsvm_status lsl_lib_llComputeHash(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Lower-case hex digest of message with "md5", "md5_sha1" (the two
     * concatenated, libcrypto's MD5-SHA1), "sha1", "sha224", "sha256",
     * "sha384" or "sha512"; any other name returns "" (SL reports an error
     * on DEBUG_CHANNEL and continues). */
    static const char *const names[][2] = {{"md5", "md5"}, {"md5_sha1", "md5-sha1"}, {"sha1", "sha1"},
                                           {"sha224", "sha224"}, {"sha256", "sha256"}, {"sha384", "sha384"},
                                           {"sha512", "sha512"}};
    const char *algo = sdata(&a[1]);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i][0]) == slen(&a[1]) && strcmp(algo, names[i][0]) == 0)
            return hex_digest(ctx, names[i][1], sdata(&a[0]), slen(&a[0]), ret);
    *ret = lsl_empty(LSL_TYPE_STRING);
    return GSVM_OK;
}

gsvm_status lsl_lib_llHMAC(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Base64 of HMAC(private_key, msg) (RFC 2104) with "md5", "sha1",
     * "sha224", "sha256", "sha384" or "sha512"; the digests come from
     * libcrypto.  Any other algorithm name returns "" (SL reports an error
     * on DEBUG_CHANNEL and continues). */
    static const struct { const char *name; size_t block; } algos[] = {
        {"md5", 64}, {"sha1", 64}, {"sha224", 64}, {"sha256", 64}, {"sha384", 128}, {"sha512", 128}};
    const char *algo = sdata(&a[2]);
    size_t block = 0;
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++)
        if (strcmp(algo, algos[i].name) == 0 && slen(&a[2]) == strlen(algos[i].name))
            block = algos[i].block;
    if (!block) {
        *ret = lsl_empty(LSL_TYPE_STRING);
        return GSVM_OK;
    }
    uint8_t key[128] = {0}, inner[64], outer[64];
    size_t kl = slen(&a[0]);
    if (kl > block) {
        if (!gsvm_digest(algo, sdata(&a[0]), kl, key, sizeof key))
            return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "%s digest failed", algo);
    } else {
        memcpy(key, sdata(&a[0]), kl);
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    for (size_t i = 0; i < block; i++)
        gsvm_buf_putc(&b, key[i] ^ 0x36);
    gsvm_buf_append(&b, sdata(&a[1]), slen(&a[1]));
    size_t n = b.oom ? 0 : gsvm_digest(algo, b.data, b.len, inner, sizeof inner);
    b.len = 0;
    for (size_t i = 0; i < block; i++)
        gsvm_buf_putc(&b, key[i] ^ 0x5c);
    gsvm_buf_append(&b, inner, n);
    size_t m = n && !b.oom ? gsvm_digest(algo, b.data, b.len, outer, sizeof outer) : 0;
    gsvm_buf_free(&b);
    if (!m)
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "%s HMAC failed", algo);
    gsvm_buf out;
    gsvm_buf_init(&out);
    lsl_base64_encode(&out, outer, m);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &out, ret);
}

gsvm_status lsl_lib_llGenerateKey(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* A version-4-shaped UUID from SHA-256(key_seed, key_seq): unique per
     * script and call, reproducible across runs and snapshots. */
    if (!ctx->state)
        return gsvm_error_set(ctx->err, GSVM_ERR_USAGE, NULL, "llGenerateKey needs a library state");
    uint8_t in[16], d[GSVM_SHA256_SIZE];
    for (int i = 0; i < 8; i++) {
        in[i] = (uint8_t)(ctx->state->key_seed >> (8 * i));
        in[8 + i] = (uint8_t)(ctx->state->key_seq >> (8 * i));
    }
    if (!gsvm_sha256(in, sizeof in, d))
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "sha256 failed");
    ctx->state->key_seq++;
    char uuid[37];
    gsvm_uuid_from_digest(d, uuid);
    return lsl_ret_str(ctx, LSL_TYPE_KEY, uuid, 36, ret);
}
