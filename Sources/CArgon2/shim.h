// Only for KDBX 4's Argon2d and Argon2id key derivation (libsodium has no Argon2d); never for the vault.
#include <argon2.h>
