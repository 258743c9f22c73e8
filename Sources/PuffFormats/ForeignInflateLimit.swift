// SPDX-License-Identifier: Apache-2.0

/// How far a compressed part of a foreign file (a KDBX payload, a KDBX 3.1 pooled attachment) may
/// inflate (docs/migration.md, "Sizes"). Deflate grows data up to about 1000 times, so a fixed
/// limit alone lets a file of one megabyte make the importer allocate and fill a gigabyte. A part
/// may inflate to ``ratio`` times its compressed size, and always to ``floor``, never beyond
/// ``cap``. Real databases compress their XML 3 to 10 times (protected values and icons are
/// random-looking), so the ratio leaves room; a part beyond it is refused as damage.
enum ForeignInflateLimit {
    /// How many times its compressed size a part may grow.
    static let ratio = 100
    /// What any part may inflate to, however small (1 MiB).
    static let floor = 1 << 20
    /// What no part inflates beyond (1 GiB).
    static let cap = 1 << 30

    /// The most bytes a part of `compressed` bytes may inflate to.
    static func bytes(forCompressed compressed: Int) -> Int {
        let (scaled, overflow) = compressed.multipliedReportingOverflow(by: ratio)
        return overflow ? cap : min(cap, max(floor, scaled))
    }
}
