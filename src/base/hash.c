#include "base/hash.h"

#include <openssl/evp.h>
#include <string.h>

size_t gsvm_digest(const char *name, const void *data, size_t len, uint8_t *out, size_t out_size)
{
    const EVP_MD *md = EVP_get_digestbyname(name);
    if (!md || (size_t)EVP_MD_get_size(md) > out_size)
        return 0;
    unsigned int n = 0;
    if (!EVP_Digest(data, len, out, &n, md, NULL))
        return 0;
    return n;
}

bool gsvm_sha256(const void *data, size_t len, uint8_t out[GSVM_SHA256_SIZE])
{
    return gsvm_digest("sha256", data, len, out, GSVM_SHA256_SIZE) == GSVM_SHA256_SIZE;
}

void gsvm_hex(const uint8_t *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = 0;
}

void gsvm_uuid_from_digest(const uint8_t digest[16], char out[37])
{
    uint8_t d[16];
    memcpy(d, digest, 16);
    d[6] = (uint8_t)((d[6] & 0x0F) | 0x40);
    d[8] = (uint8_t)((d[8] & 0x3F) | 0x80);
    char hex[33];
    gsvm_hex(d, 16, hex);
    static const int groups[5] = {8, 4, 4, 4, 12};
    char *o = out;
    const char *h = hex;
    for (int g = 0; g < 5; g++) {
        if (g)
            *o++ = '-';
        memcpy(o, h, (size_t)groups[g]);
        o += groups[g];
        h += groups[g];
    }
    *o = 0;
}
