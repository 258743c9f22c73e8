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
        let ends: (read: UnixFD, write: UnixFD)
        do {
            ends = try UnixFD.pipe()
        } catch {
            throw .passcodeIOFailed(errno: error.errno)
        }
        let failure = passcode.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = write(ends.write.rawValue, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
        if let failure { throw .passcodeIOFailed(errno: failure) }
        return ends.read
    }
}
