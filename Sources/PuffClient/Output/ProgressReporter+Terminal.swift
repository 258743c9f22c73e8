// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffSystem
import SystemPackage

extension ProgressReporter {
    /// The reporter of a puffctl command: JSON lines on standard error with `json`, else a bar
    /// when standard error is a terminal, else nothing (a pipe or a file gets no progress).
    /// Standard output keeps only the command's result, so `--json` output stays one document.
    static func forCommand(_ operation: String, json: Bool) -> ProgressReporter {
        let style: Style = json ? .json : (isatty(STDERR_FILENO) == 1 ? .bar : .none)
        let clock = ContinuousClock()
        let start = clock.now
        return ProgressReporter(
            operation: operation, style: style, write: writeToStandardError, columns: terminalColumns,
            now: { start.duration(to: clock.now) })
    }

    /// The width of the terminal on standard error; 80 when it cannot be told.
    @Sendable private static func terminalColumns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Writes `text` as it is (the bar's own escape sequences included), unbuffered.
    @Sendable private static func writeToStandardError(_ text: String) {
        var text = text
        // A progress bar that cannot be drawn is not worth failing the work for.
        text.withUTF8 { bytes in _ = try? FileDescriptor.standardError.writeFully(UnsafeRawBufferPointer(bytes)) }
    }
}
