// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Output for people and scripts: results on standard output, failures on standard error.
enum Console {
    /// Prints `text` and a newline on standard output.
    static func out(_ text: String) {
        print(text)
    }

    /// Writes `line` and a newline to standard error, unbuffered, so it is not lost to `exit`.
    static func error(_ line: String) {
        var text = line + "\n"
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
}
