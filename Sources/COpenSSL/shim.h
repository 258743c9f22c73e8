// Only libcrypto: for the spec's dh-ietf1024-sha256-aes128-cbc-pkcs7 transport and for reading and
// writing other stores' file formats (AES-CBC, PBKDF2, SHA-2, MD5, HMAC); never for the vault.
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/crypto.h>
