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
    /* Decoded bytes become text: a NUL ends it (LSL strings hold none) and a
     * byte that is not part of well-formed UTF-8 becomes '?', as SL does. */
    gsvm_buf raw, out;
    gsvm_buf_init(&raw);
    gsvm_buf_init(&out);
    lsl_base64_decode(&raw, sdata(&a[0]), slen(&a[0]));
    const char *s = (const char *)raw.data;
    size_t len = raw.len;
    for (size_t i = 0; i < len;) {
        if (s[i] == 0)
            break;
        size_t next = lsl_utf8_next(s, len, i);
        bool bad = next == i + 1 && (unsigned char)s[i] >= 0x80;
        if (!bad) {
            uint32_t cp = lsl_utf8_decode(s, len, i);
            /* overlong forms, surrogates and values past U+10FFFF are bad too */
            size_t n = next - i;
            bad = (n == 2 && cp < 0x80) || (n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
                  (n == 4 && (cp < 0x10000 || cp > 0x10FFFF));
        }
        if (bad) {
            gsvm_buf_putc(&out, '?');
            i++;
        } else {
            gsvm_buf_append(&out, s + i, next - i);
            i = next;
        }
    }
    gsvm_buf_free(&raw);
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
    /* The first four decoded bytes big-endian; missing bytes count as zero
     * (SL calls the result of fewer than 6 characters unpredictable). */
    gsvm_buf raw;
    gsvm_buf_init(&raw);
    lsl_base64_decode(&raw, sdata(&a[0]), slen(&a[0]) < 8 ? slen(&a[0]) : 8);
    uint32_t u = 0;
    for (size_t i = 0; i < 4; i++)
        u = (u << 8) | (i < raw.len ? raw.data[i] : 0);
    gsvm_buf_free(&raw);
    return lsl_ret_int(ret, (int32_t)u);
}

/* Decodes both, XORs the first with the second repeated, encodes. */
static gsvm_status xor_decoded(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    gsvm_buf x, k, out;
    gsvm_buf_init(&x);
    gsvm_buf_init(&k);
    gsvm_buf_init(&out);
    lsl_base64_decode(&x, sdata(&a[0]), slen(&a[0]));
    lsl_base64_decode(&k, sdata(&a[1]), slen(&a[1]));
    if (k.len)
        for (size_t i = 0; i < x.len; i++)
            x.data[i] ^= k.data[i % k.len];
    lsl_base64_encode(&out, x.data, x.len);
    gsvm_buf_free(&x);
    gsvm_buf_free(&k);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &out, ret);
}

gsvm_status lsl_lib_llXorBase64(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* An empty second argument leaves the data unchanged (SL shouts an
     * error on DEBUG_CHANNEL and returns the first argument re-encoded). */
    return xor_decoded(ctx, a, ret);
}

gsvm_status lsl_lib_llXorBase64StringsCorrect(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return xor_decoded(ctx, a, ret);
}

static int b64_index(char c)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

gsvm_status lsl_lib_llXorBase64Strings(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The deprecated original: XORs the 6-bit values of the Base64 DIGITS
     * (not the decoded bytes), cycling the second string's digits; any
     * other character (padding) is copied.  Kept for old scripts. */
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *s = sdata(&a[0]), *k = sdata(&a[1]);
    size_t sl = slen(&a[0]), kl = slen(&a[1]);
    gsvm_buf b;
    gsvm_buf_init(&b);
    for (size_t i = 0; i < sl; i++) {
        int v = b64_index(s[i]);
        int w = kl ? b64_index(k[i % kl]) : 0;
        if (v < 0)
            gsvm_buf_putc(&b, s[i]);
        else
            gsvm_buf_putc(&b, alphabet[(v ^ (w < 0 ? 0 : w)) & 63]);
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
    d[6] = (uint8_t)((d[6] & 0x0F) | 0x40);
    d[8] = (uint8_t)((d[8] & 0x3F) | 0x80);
    char hex[33], uuid[37];
    gsvm_hex(d, 16, hex);
    memcpy(uuid, hex, 8);
    uuid[8] = '-';
    memcpy(uuid + 9, hex + 8, 4);
    uuid[13] = '-';
    memcpy(uuid + 14, hex + 12, 4);
    uuid[18] = '-';
    memcpy(uuid + 19, hex + 16, 4);
    uuid[23] = '-';
    memcpy(uuid + 24, hex + 20, 12);
    uuid[36] = 0;
    return lsl_ret_str(ctx, LSL_TYPE_KEY, uuid, 36, ret);
}
