/* Content hashing through libcrypto (OpenSSL), for content-addressed caches,
 * program identities and the digests scripts ask for. */
#ifndef GSVM_BASE_HASH_H
#define GSVM_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GSVM_SHA256_SIZE 32

/* Digest names as libcrypto knows them: "sha256", "sha1", "md5", ... Returns
 * the digest length, or 0 when the name is unknown or hashing failed. */
size_t gsvm_digest(const char *name, const void *data, size_t len, uint8_t *out, size_t out_size);
bool gsvm_sha256(const void *data, size_t len, uint8_t out[GSVM_SHA256_SIZE]);
/* Lower-case hex of `len` bytes into `out` (2*len+1 bytes). */
void gsvm_hex(const uint8_t *bytes, size_t len, char *out);
/* A UUID in version-4 layout ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx",
 * NUL-terminated) from the first 16 bytes of a digest: stable keys derived
 * from content (llGenerateKey, a region's prim keys). */
void gsvm_uuid_from_digest(const uint8_t digest[16], char out[37]);

#endif
