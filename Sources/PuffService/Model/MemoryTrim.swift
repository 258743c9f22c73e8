// SPDX-License-Identifier: Apache-2.0

/// Gives the C heap's free memory back to the system (design core-reshaped §5): after a load,
/// an unlock that read a whole journal, a compaction or a batch of 1,000 items or more, each of
/// which frees many small blocks at once that glibc would otherwise keep (measured at 100,000
/// items: 190.6 → 113.2 MiB by gdb, docs/benchmarks.md).
package enum MemoryTrim {
    /// The items a batch must hold for a trim after it.
    package static let batch = 1_000

    package static func trim() {
        _ = glibcMallocTrim(0)
    }
}

/// glibc's `malloc_trim` (malloc.h), which Swift's Glibc module does not export.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
