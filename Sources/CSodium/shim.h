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
