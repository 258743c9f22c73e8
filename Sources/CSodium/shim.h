#include <sodium.h>
#include <sys/prctl.h>

/// prctl(PR_SET_DUMPABLE, 0): prctl is variadic, which Swift cannot call.
static inline int puff_forbid_dumps(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/// Zeroes 64 KiB of the calling thread's stack below the caller's frame, where a finished key
/// derivation or record opening may have left copies (libsodium 1.0.18 has no sodium_stackzero).
__attribute__((noinline)) static void puff_wipe_stack(void) {
    volatile unsigned char scratch[65536];
    sodium_memzero((void *) scratch, sizeof scratch);
}

#include <linux/keyctl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// add_key(2) into the user keyring (syscall is variadic, which Swift cannot call).
static inline long puff_add_user_key(const char *description, const void *payload, size_t length) {
    return syscall(SYS_add_key, "user", description, payload, length, KEY_SPEC_USER_KEYRING);
}

/// keyctl(2) with up to four arguments.
static inline long puff_keyctl(int operation, unsigned long a2, unsigned long a3, unsigned long a4,
                               unsigned long a5) {
    return syscall(SYS_keyctl, operation, a2, a3, a4, a5);
}

/// keyctl(KEYCTL_SEARCH) for a "user" key in the user keyring.
static inline long puff_search_user_key(const char *description) {
    return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", description, 0);
}

#include <malloc.h>

/// Bytes the C heap has handed out and not had back (mallinfo2's uordblks, and hblkhd for blocks
/// it mapped on their own): what tests of a memory budget measure around building a structure.
static inline size_t puff_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
