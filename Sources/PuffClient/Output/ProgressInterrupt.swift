// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Whether a bar is on the terminal, for the signal handler; set only while no handler runs.
nonisolated(unsafe) private var barShown = false

/// Erases the progress bar when puffctl is ended by a signal (`SIGINT` from Ctrl-C, `SIGTERM`,
/// `SIGHUP`, `SIGQUIT`) while it is shown, so the shell's prompt does not land after it.
enum ProgressInterrupt {
    private static let endingSignals: [Int32] = [SIGINT, SIGQUIT, SIGTERM, SIGHUP]

    /// Installs the handlers while a bar is shown on standard error.
    static func arm() {
        barShown = true
        for signal in endingSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = eraseAndReraise
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    /// Puts the default handlers back once the bar is gone.
    static func disarm() {
        barShown = false
        for signal in endingSignals { Glibc.signal(signal, SIG_DFL) }
    }
}

/// Erases the bar's line, then lets the signal do what it would have done; only
/// async-signal-safe calls (`write`, `signal`, `raise`).
private func eraseAndReraise(_ signal: Int32) {
    if barShown {
        // "\r\e[K", ProgressReporter.clearLine.
        let erase: [UInt8] = [0x0D, 0x1B, 0x5B, 0x4B]
        _ = erase.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
