// CLibcrypto: the system's OpenSSL libcrypto (pkg-config libcrypto), for one thing: RSA-SHA256 signatures of
// deliveries, where OpenSSL's RSA is about twice as fast as BoringSSL's on CPUs with AVX-512 IFMA. Only
// MakestagramFederation uses it, on Linux; keys are still made and read with swift-crypto.
#ifndef MAKESTAGRAM_CLIBCRYPTO_SHIM_H
#define MAKESTAGRAM_CLIBCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/x509.h>

/* Reads a private key from DER (PKCS#1 or PKCS#8); NULL if it is not one. */
static inline EVP_PKEY *mk_private_key(const unsigned char *der, long length) {
    const unsigned char *cursor = der;
    return d2i_AutoPrivateKey(NULL, &cursor, length);
}

static inline void mk_free_key(EVP_PKEY *key) { EVP_PKEY_free(key); }

/* The RSA size of `key` in bytes: how long its signatures are. */
static inline int mk_signature_size(EVP_PKEY *key) { return EVP_PKEY_get_size(key); }

/* Signs `data` with `key`: RSASSA-PKCS1-v1_5 over SHA-256, into `signature` (mk_signature_size bytes). Answers the
 * signature's length, or 0 when signing failed. Safe from several threads at once with one key. */
static inline size_t mk_sign_rsa_sha256(EVP_PKEY *key, const void *data, size_t length, unsigned char *signature,
                                        size_t capacity) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    size_t written = capacity;
    int ok = EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
             && EVP_DigestSign(context, signature, &written, data, length) == 1;
    EVP_MD_CTX_free(context);
    return ok ? written : 0;
}

#endif
