// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffSystem
import SystemPackage

/// Hands an app's portal key to the descriptor the app chose (`RetrieveSecret`'s `h fd`): the
/// write end of its pipe, which xdg-desktop-portal passes on (F4). The key goes from locked memory
/// straight into the pipe, in one `write` of at most `PIPE_BUF` bytes, so all or nothing arrives.
enum PortalPipe {
    /// The most one write hands over whole (`PIPE_BUF`).
    static let atomicLimit = 4096

    /// Why the key did not go.
    enum Failure: Error, Equatable, Sendable {
        /// Not a pipe: a regular file would put the key on a disk, a socket or tty elsewhere.
        case notAPipe
        /// The pipe is full: the app filled it, and puffd waits for nobody.
        case full
        /// The reader is gone (`EPIPE`), or another write error.
        case notWritten(errno: Int32)
        /// The key is empty or longer than one atomic write.
        case badLength
    }

    /// Writes `key` to `descriptor` without blocking, then closes puffd's copy of it.
    ///
    /// - Throws: ``Failure``; nothing or the whole key reached the pipe either way.
    static func write(_ key: SecureBytes, to descriptor: UnixFD) throws(Failure) {
        defer { ExportPipe.closeWrites(descriptor) }
        let fd = descriptor.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { throw .notAPipe }
        guard key.count > 0, key.count <= atomicLimit else { throw .badLength }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .notWritten(errno: errno) }
        // One write; swift-system retries it when a signal interrupts it. SIGPIPE is ignored by
        // puffd (and by libdbus in any process using it), so a gone reader is EPIPE.
        let outcome: Result<Int, Errno> = key.withUnsafeBytes { bytes in
            Result { () throws(Errno) -> Int in try FileDescriptor(rawValue: fd).writeSome(bytes) }
        }
        switch outcome {
        case .success(let written) where written == key.count: return
        case .success: throw .notWritten(errno: EIO)
        case .failure(let error):
            throw error == .resourceTemporarilyUnavailable ? .full : .notWritten(errno: error.rawValue)
        }
    }
}
