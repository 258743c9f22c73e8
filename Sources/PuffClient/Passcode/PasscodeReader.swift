// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto
import PuffSystem
import SystemPackage

/// Reads one passcode line from a file descriptor straight into locked memory.
///
/// No `String` or `[UInt8]` ever holds the bytes: they are read one at a time into a
/// ``SecureBytes`` scratch buffer and copied from there into a ``SecureBytes`` of the right size;
/// both are wiped when released.
public enum PasscodeReader {
    /// The longest passcode accepted, in bytes; puffd reads at most this much from a pipe.
    public static let maximumLength = 1024

    /// Reads up to the first newline or end of file; the newline itself is dropped.
    ///
    /// Reading stops at the newline, so a second call on the same descriptor reads the next line
    /// (`passwd --stdin` takes the old and the new passcode that way).
    ///
    /// - Throws: ``ClientError/emptyPasscode`` for an empty line or immediate end of file,
    ///   ``ClientError/passcodeTooLong`` past ``maximumLength`` bytes, and
    ///   ``ClientError/passcodeIOFailed(errno:)`` when `read` fails.
    public static func readLine(from fd: Int32) throws(ClientError) -> SecureBytes {
        var length = 0
        // One byte more than the limit, so that a line of exactly `maximumLength` bytes still has
        // room for its newline.
        let scratch = try SecureBytes(count: maximumLength + 1) { buffer throws(ClientError) in
            length = try fill(buffer, from: fd)
        }
        guard length > 0 else { throw .emptyPasscode }
        return scratch.withUnsafeBytes { bytes in
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
    }

    /// Reads byte by byte (a larger read would swallow the next line) and returns the line's length.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from fd: Int32) throws(ClientError) -> Int {
        var count = 0
        while true {
            let result: Int
            do throws(Errno) {
                result = try FileDescriptor(rawValue: fd).readSome(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<count + 1]))
            } catch {
                throw .passcodeIOFailed(errno: error.rawValue)
            }
            if result == 0 || buffer[count] == UInt8(ascii: "\n") { return count }
            count += 1
            if count > maximumLength { throw .passcodeTooLong }
        }
    }
}
