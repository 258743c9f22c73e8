// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Descriptor plumbing for the passcode tests.
///
/// Input channels are Unix stream sockets made with `SOCK_CLOEXEC`, not pipes: Glibc's module does
/// not import `pipe2`, and a `pipe()` end could leak into a `dbus-daemon` another test spawns,
/// which would keep it open and hang a reader waiting for end of file. Both read like a pipe.
enum Descriptors {
    /// Why a descriptor call failed in a test.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A descriptor that yields exactly `payload` and then end of file; the caller closes it.
    static func readEnd(holding payload: [UInt8]) throws -> Int32 {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw Failure(description: "socketpair: \(errno)") }
        defer { close(ends[1]) }
        var offset = 0
        while offset < payload.count {
            let written = payload[offset...].withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
            guard written > 0 else {
                close(ends[0])
                throw Failure(description: "write: \(errno)")
            }
            offset += written
        }
        return ends[0]
    }

    /// A descriptor holding `text`'s UTF-8 bytes.
    static func readEnd(holding text: String) throws -> Int32 {
        try readEnd(holding: Array(text.utf8))
    }

    /// Everything `fd` yields up to end of file.
    static func readToEnd(_ fd: Int32) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count >= 0 else { throw Failure(description: "read: \(errno)") }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}
