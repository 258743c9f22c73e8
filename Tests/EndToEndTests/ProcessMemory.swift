// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Reads another process's memory through `/proc/<pid>/mem`, to check what it still holds.
///
/// `puffd` sets `PR_SET_DUMPABLE` to 0, so only root (or `CAP_SYS_PTRACE`) can read it.
struct ProcessMemory {
    let pid: Int32

    /// Whether this process may read another's memory despite `PR_SET_DUMPABLE`.
    static var isReadable: Bool { getuid() == 0 }

    /// One readable mapping: its address range and what `/proc/<pid>/maps` calls it.
    struct Region {
        var start: UInt64
        var end: UInt64
        var name: String
    }

    /// The readable mappings, without the kernel's `[vvar]`/`[vsyscall]` pages.
    func regions() throws -> [Region] {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        return maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[1].hasPrefix("r") else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16)
            else { return nil }
            let name = fields.count > 5 ? fields[5...].joined(separator: " ") : "[anonymous]"
            guard name != "[vvar]", name != "[vsyscall]", name != "[vvar_vclock]" else { return nil }
            return Region(start: start, end: end, name: name)
        }
    }

    /// Where each needle occurs: the needle's name and the region's name, never the bytes around it.
    func find(_ needles: [String: [UInt8]]) throws -> [String] {
        let fd = open("/proc/\(pid)/mem", O_RDONLY)
        guard fd >= 0 else { throw ProcessMemoryError.cannotOpen(errno) }
        defer { close(fd) }
        var found: [String] = []
        let chunk = 1 << 20
        let overlap = needles.values.map(\.count).max() ?? 0
        var buffer = [UInt8](repeating: 0, count: chunk + overlap)
        for region in try regions() {
            var address = region.start
            while address < region.end {
                let want = Int(min(UInt64(chunk + overlap), region.end - address))
                let got = buffer.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress, want, off_t(Int64(bitPattern: address)))
                }
                guard got > 0 else { break }  // unreadable (guard pages): go to the next region
                for (name, needle) in needles where Self.contains(buffer[..<got], needle) {
                    found.append("\(name) in \(region.name)")
                }
                address += UInt64(chunk)
            }
        }
        return found
    }

    /// Whether `needle` occurs in `hay` (memchr for its first byte, then a compare).
    static func contains(_ hay: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, hay.count >= needle.count else { return false }
        return hay.withUnsafeBytes { raw in
            needle.withUnsafeBytes { pattern in
                var offset = 0
                let last = raw.count - pattern.count
                while offset <= last {
                    guard let at = memchr(raw.baseAddress! + offset, Int32(first), last - offset + 1) else {
                        return false
                    }
                    let start = raw.baseAddress!.distance(to: UnsafeRawPointer(at))
                    if memcmp(raw.baseAddress! + start, pattern.baseAddress!, pattern.count) == 0 { return true }
                    offset = start + 1
                }
                return false
            }
        }
    }
}

enum ProcessMemoryError: Error {
    case cannotOpen(Int32)
}
