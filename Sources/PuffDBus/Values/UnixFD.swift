// SPDX-License-Identifier: Apache-2.0
import Glibc

/// One open Unix file descriptor, owned: it is closed when the last reference goes away.
///
/// A ``DBusValue/unixFD(_:)`` holds one, so a descriptor received in a message stays open exactly
/// as long as something still holds the decoded value, and one being sent stays open until the
/// message is built (libdbus then keeps a duplicate of its own).
public final class UnixFD: Sendable {
    /// Why a descriptor could not be duplicated or a pipe made.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The `errno` of the failed `fcntl(F_DUPFD_CLOEXEC)` or `pipe`, for example `EBADF` or `EMFILE`.
        public var errno: Int32

        /// Creates an error from an `errno` value.
        public init(errno: Int32) {
            self.errno = errno
        }

        public var description: String { "could not duplicate a file descriptor: errno \(errno)" }
    }

    /// The descriptor's number; valid only while this object is alive.
    public let rawValue: Int32

    /// Takes ownership of `fd`, an open descriptor nothing else will close.
    public init(taking fd: Int32) {
        precondition(fd >= 0, "UnixFD needs an open descriptor, not \(fd)")
        rawValue = fd
    }

    /// A new descriptor for the same open file as `fd`, close-on-exec; `fd` stays the caller's.
    public static func duplicating(_ fd: Int32) throws(UnixFD.Error) -> UnixFD {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw Error(errno: errno) }
        return UnixFD(taking: copy)
    }

    /// A new pipe, both ends close-on-exec, for passing a passcode beside a message.
    public static func pipe() throws(UnixFD.Error) -> (read: UnixFD, write: UnixFD) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw Error(errno: errno) }
        // Glibc's module leaves pipe2 out: the flags follow at once.
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (UnixFD(taking: ends[0]), UnixFD(taking: ends[1]))
    }

    deinit {
        close(rawValue)
    }
}
