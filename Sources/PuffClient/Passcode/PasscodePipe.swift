// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto
public import PuffDBus

/// Hands a passcode to puffd as the read end of a pipe, the only way `io.puff.Control1` takes one.
public enum PasscodePipe {
    /// A pipe's read end that yields exactly `passcode`'s bytes and then end of file.
    ///
    /// The bytes are written before the call is sent: a passcode is at most
    /// ``PasscodeReader/maximumLength`` bytes, far below the pipe's buffer, so the write cannot
    /// block on a reader that has not started yet.
    ///
    /// - Throws: ``ClientError/passcodeIOFailed(errno:)`` when the pipe cannot be made or filled.
    public static func readEnd(carrying passcode: SecureBytes) throws(ClientError) -> UnixFD {
        precondition(passcode.count <= PasscodeReader.maximumLength, "a passcode longer than the reader allows")
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .passcodeIOFailed(errno: errno) }
        let readEnd = UnixFD(taking: ends[0])
        defer { close(ends[1]) }
        // Glibc's module leaves pipe2 out; puffctl starts no processes, so the window is harmless.
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let failure = passcode.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = write(ends[1], bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
        if let failure { throw .passcodeIOFailed(errno: failure) }
        return readEnd
    }
}
