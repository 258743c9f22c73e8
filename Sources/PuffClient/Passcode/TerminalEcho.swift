// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The terminal state a signal handler puts back; written only while no handler is installed.
nonisolated(unsafe) private var savedFD: Int32 = -1
nonisolated(unsafe) private var savedState = termios()

/// Turns terminal echo off around a passcode read and back on afterwards, on every way out:
/// a normal return, a thrown error, and the signals that end a process from the keyboard or
/// from outside (`SIGINT`, `SIGQUIT`, `SIGTERM`, `SIGHUP`).
enum TerminalEcho {
    private static let endingSignals: [Int32] = [SIGINT, SIGQUIT, SIGTERM, SIGHUP]

    /// Runs `body` with echo (and the echoed newline) off on the terminal `fd`.
    static func withEchoOff<R>(_ fd: Int32, _ body: () throws(ClientError) -> R) throws(ClientError) -> R {
        var original = termios()
        // Not a terminal after all: nothing to hide, nothing to restore.
        guard tcgetattr(fd, &original) == 0 else { return try body() }
        savedState = original
        savedFD = fd
        var previous = installHandlers()
        var quiet = original
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &original)
            // The Enter key was not echoed; move the cursor past the prompt ourselves.
            _ = write(fd, "\n", 1)
            restoreHandlers(&previous)
            savedFD = -1
        }
        return try body()
    }

    private static func installHandlers() -> [sigaction] {
        var previous: [sigaction] = []
        for signal in endingSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreAndReraise
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous.append(old)
        }
        // A stopped process would come back with echo off but nobody restoring it on the way
        // (readpassphrase(3) re-arms it instead); not stopping while a passcode is typed is simpler.
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        var old = sigaction()
        sigaction(SIGTSTP, &ignore, &old)
        previous.append(old)
        return previous
    }

    private static func restoreHandlers(_ previous: inout [sigaction]) {
        for (signal, index) in zip(endingSignals + [SIGTSTP], previous.indices) {
            sigaction(signal, &previous[index], nil)
        }
    }
}

/// Puts the terminal back, then lets the signal do what it would have done; only
/// async-signal-safe calls (`tcsetattr`, `write`, `signal`, `raise`).
private func restoreAndReraise(_ signal: Int32) {
    if savedFD >= 0 {
        tcsetattr(savedFD, TCSANOW, &savedState)
        _ = write(savedFD, "\n", 1)
    }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
