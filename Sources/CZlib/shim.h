// Only for other stores' file formats (KDBX's gzip payload); never for the vault.
#include <zlib.h>

/// inflateInit2 and deflateInit2 are macros, which Swift cannot call.
static inline int puff_inflate_init2(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

static inline int puff_deflate_init2(z_streamp stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
