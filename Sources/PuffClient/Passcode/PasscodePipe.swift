// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto
public import PuffDBus
import PuffSystem
import SystemPackage

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
            do throws(Errno) {
                try FileDescriptor(rawValue: ends.write.rawValue).writeFully(bytes)
                return nil
            } catch {
                return error.rawValue
            }
        }
        if let failure { throw .passcodeIOFailed(errno: failure) }
        return ends.read
    }
}
