// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus
import PuffTesting

/// Descriptor plumbing for the `h` tests.
///
/// Pairs are Unix stream sockets made with `SOCK_CLOEXEC`, not pipes: Glibc's module does not
/// import `pipe2`, and a `pipe()` end could leak into a `dbus-daemon` another test spawns before
/// `FD_CLOEXEC` is set, which would keep its end open and hang a reader waiting for end of file.
/// Both read and write like a pipe's ends.
enum Descriptors {
    /// Why a descriptor call failed in a test.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A connected pair of stream sockets, both close-on-exec.
    static func pair() throws -> (UnixFD, UnixFD) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw Failure(description: "socketpair: \(errno)") }
        return (UnixFD(taking: ends[0]), UnixFD(taking: ends[1]))
    }

    /// The read end of a channel that holds exactly `payload` followed by end of file: the write
    /// end is shut down (not merely released, so end of file does not hang on `UnixFD`'s own
    /// `deinit`, which a test checks separately).
    static func readEnd(holding payload: [UInt8]) throws -> UnixFD {
        let (reader, writer) = try pair()
        var offset = 0
        while offset < payload.count {
            let written = payload[offset...].withUnsafeBytes { write(writer.rawValue, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write: \(errno)") }
            offset += written
        }
        guard shutdown(writer.rawValue, Int32(SHUT_WR)) == 0 else { throw Failure(description: "shutdown: \(errno)") }
        return reader
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

    /// Whether every descriptor for `peer`'s other end is closed, asked without blocking: a
    /// stream socket reads end of file exactly then, whatever number the closed descriptors had.
    static func otherEndIsClosed(_ peer: UnixFD) -> Bool {
        var byte: UInt8 = 0
        return recv(peer.rawValue, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    /// Whether the other end closes within ``HangGuard/step``. Another test's process spawn,
    /// between its fork and its exec, briefly holds a copy of every descriptor (close-on-exec ones
    /// too), for as long as a busy machine makes it.
    static func otherEndCloses(_ peer: UnixFD) -> Bool {
        var poller = pollfd(fd: peer.rawValue, events: Int16(POLLIN), revents: 0)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: HangGuard.step)
        while clock.now < deadline {
            if otherEndIsClosed(peer) { return true }
            _ = poll(&poller, 1, 10)
        }
        return otherEndIsClosed(peer)
    }
}
