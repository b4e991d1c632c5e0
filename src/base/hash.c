#include "base/hash.h"

#include <openssl/evp.h>

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
