#include <sodium.h>
#include <sys/prctl.h>

/// prctl(PR_SET_DUMPABLE, 0): prctl is variadic, which Swift cannot call.
static inline int puff_forbid_dumps(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
