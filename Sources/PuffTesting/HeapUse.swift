// SPDX-License-Identifier: Apache-2.0
import CSodium
import Foundation

/// Bytes the C heap has handed out and not had back now (glibc `mallinfo2().uordblks`): a test of
/// a memory budget reads it before and after building what it measures, holding it alive.
public func heapBytesInUse() -> Int {
    Int(puff_heap_in_use())
}

/// The process's resident anonymous memory now (`RssAnon` of `/proc/self/status`), in bytes: what
/// the heap holds of the system, freed blocks glibc kept included, which ``heapBytesInUse()`` does
/// not count.
public func residentAnonymousBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
        let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return 0 }
    return kib << 10
}
