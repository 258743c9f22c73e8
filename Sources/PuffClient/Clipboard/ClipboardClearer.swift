// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Starts the process that clears the clipboard later: puffctl itself, run as the hidden
/// `clear-clipboard` command with the ``ClipboardMark`` on its standard input.
///
/// A separate process rather than a fork: a Swift process has threads, and after `fork` only
/// async-signal-safe calls are allowed. The clearer starts its own session (`setsid`), so closing
/// the terminal does not end it, and holds none of the caller's streams, so `$(puffctl copy X)`
/// in a script returns at once.
enum ClipboardClearer {
    /// Starts a clearer for `mark` on `tool`, `seconds` from now.
    static func start(tool: ClipboardTool, mark: ClipboardMark, after seconds: UInt32) throws(ClientError) {
        try ToolProcess.start(
            [executable(), "clear-clipboard", "--tool", tool.rawValue, "--after", String(seconds)], input: mark.encoded)
    }

    /// This program's own path, so the clearer is the same build of puffctl.
    private static func executable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/proc/self/exe" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
