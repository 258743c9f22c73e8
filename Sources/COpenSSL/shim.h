// Only libcrypto, and only for the spec's dh-ietf1024-sha256-aes128-cbc-pkcs7 transport.
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/crypto.h>
