// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import PuffText
import SystemPackage

/// Output for people and scripts: results on standard output, failures on standard error.
enum Console {
    /// Prints `text` and a newline on standard output, any control character but the newline
    /// escaped (``TerminalText``): fields were escaped where they were put in, this is the net.
    static func out(_ text: String) {
        print(TerminalText.escapedKeepingLines(text))
    }

    /// Writes `line` and a newline to standard error, unbuffered, so it is not lost to `exit`;
    /// control characters but the newline are escaped, as by ``out(_:)``.
    static func error(_ line: String) {
        var text = TerminalText.escapedKeepingLines(line) + "\n"
        // Nowhere is left to tell of a failed write to standard error.
        text.withUTF8 { bytes in _ = try? FileDescriptor.standardError.writeFully(UnsafeRawBufferPointer(bytes)) }
    }

    /// Writes `secret` to standard output exactly, from secure memory and past Swift's buffered
    /// `print`; a newline follows only when asked for.
    ///
    /// - Throws: ``ClientError/outputFailed(errno:)`` when the write fails (a closed pipe with
    ///   SIGPIPE ignored, a full disk).
    static func out(secret: SecureBytes, newline: Bool) throws(ClientError) {
        try secret.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(ClientError) -> Void in
            try writeAll(bytes, to: STDOUT_FILENO)
        }
        if newline {
            try withUnsafeBytes(of: UInt8(ascii: "\n")) { (bytes: UnsafeRawBufferPointer) throws(ClientError) -> Void in
                try writeAll(bytes, to: STDOUT_FILENO)
            }
        }
    }

    /// Reads exactly `count` bytes of standard input into secure memory.
    ///
    /// - Throws: ``ClientError/usage(_:)`` when the input ends first.
    static func readInput(count: Int) throws(ClientError) -> SecureBytes {
        var read = 0
        let bytes = SecureBytes(count: count) { (buffer: UnsafeMutableRawBufferPointer) -> Void in
            // A read error ends the input where it is; the count below tells the person.
            read = (try? FileDescriptor.standardInput.readFully(into: buffer)) ?? 0
        }
        guard read == count else { throw .usage("standard input ended after \(read) of \(count) bytes") }
        return bytes
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(ClientError) {
        do throws(Errno) {
            try FileDescriptor(rawValue: fd).writeFully(bytes)
        } catch {
            throw .outputFailed(errno: error.rawValue)
        }
    }
}
