// The five BoringSSL calls StrataEncryption makes to open and seal a chunk or frame in place
// with one key schedule per file (Sources/StrataEncryption/InPlaceAESGCMFileCipher.swift).
//
// Declarations only, no definitions: the functions are those of the BoringSSL that
// swift-crypto compiles into its `CCryptoBoringSSL` target on every platform but Apple's,
// where each symbol carries the prefix `CCryptoBoringSSL_`. swift-crypto does not export that
// target as a product, so its headers are not ours to import; StrataEncryption links the
// library anyway, through the `Crypto` product, and these names resolve against it at link
// time. The types are left incomplete (only pointers to them cross), so no struct layout is
// assumed. The signatures are those of BoringSSL's `include/openssl/aead.h`, identical in
// swift-crypto 3.12.3 and 4.5.2.
//
// If swift-crypto ever renames, drops or stops linking these symbols, the build fails at its
// link with an undefined `CCryptoBoringSSL_EVP_...` symbol: never silently.
#ifndef STRATA_AEAD_H
#define STRATA_AEAD_H

#include <stddef.h>
#include <stdint.h>

struct evp_aead_st;
struct evp_aead_ctx_st;

/// AES-256 in Galois/Counter Mode: 32-byte key, 12-byte nonce, 16-byte tag.
const struct evp_aead_st *CCryptoBoringSSL_EVP_aead_aes_256_gcm(void);

/// A context holding `key`'s schedule; `tag_len` 0 is the AEAD's default. NULL on failure.
struct evp_aead_ctx_st *CCryptoBoringSSL_EVP_AEAD_CTX_new(const struct evp_aead_st *aead, const uint8_t *key,
                                                          size_t key_len, size_t tag_len);

/// Frees a context from `CCryptoBoringSSL_EVP_AEAD_CTX_new` (and wipes its key schedule).
void CCryptoBoringSSL_EVP_AEAD_CTX_free(struct evp_aead_ctx_st *ctx);

/// Encrypts `in_len` bytes at `in` and writes the ciphertext then the tag to `out`
/// (`*out_len` bytes, at most `max_out_len`), authenticating `ad` too. 1 on success.
/// `out` may equal `in` but not otherwise overlap it; safe to call from several threads on
/// one context.
int CCryptoBoringSSL_EVP_AEAD_CTX_seal(const struct evp_aead_ctx_st *ctx, uint8_t *out, size_t *out_len,
                                       size_t max_out_len, const uint8_t *nonce, size_t nonce_len,
                                       const uint8_t *in, size_t in_len, const uint8_t *ad, size_t ad_len);

/// Authenticates the ciphertext then tag at `in` (`in_len` bytes) and `ad`, and decrypts into
/// `out` (`*out_len` bytes, at most `max_out_len`). 1 on success; 0, with `out` zeroed, when
/// it does not authenticate. `out` may equal `in` but not otherwise overlap it; safe to call
/// from several threads on one context.
int CCryptoBoringSSL_EVP_AEAD_CTX_open(const struct evp_aead_ctx_st *ctx, uint8_t *out, size_t *out_len,
                                       size_t max_out_len, const uint8_t *nonce, size_t nonce_len,
                                       const uint8_t *in, size_t in_len, const uint8_t *ad, size_t ad_len);

#endif
