// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffText

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
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
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
            while read < count {
                let got = Glibc.read(STDIN_FILENO, buffer.baseAddress! + read, count - read)
                if got < 0, errno == EINTR { continue }
                if got <= 0 { break }
                read += got
            }
        }
        guard read == count else { throw .usage("standard input ended after \(read) of \(count) bytes") }
        return bytes
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .outputFailed(errno: errno)
            }
            offset += written
        }
    }
}
