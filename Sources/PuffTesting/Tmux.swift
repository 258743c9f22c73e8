// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// tmux (Makefile APT_PACKAGES), a real terminal for tests to read.
public enum Tmux {
    public static let path = "/usr/bin/tmux"
    public static let isInstalled = FileManager.default.isExecutableFile(atPath: path)
    /// Whether suites that draw on a tmux pane run here (``TestBus/canRun(needing:)``).
    public static var canRun: Bool { TestBus.canRun(needing: [path]) }
    /// Runs its arguments with no descriptor but 0-2, no signal blocked and the ending signals at
    /// their defaults: the tmux server that `new-session` leaves behind would otherwise keep the
    /// descriptor Foundation's `Process` waits on to see its child end (`ChildProcess.run` would
    /// wait as long as the server lives), and inherit the test runner's blocked signals (it and
    /// its panes would then outlive `kill-server`).
    public static let withoutInheritedDescriptors = """
        import signal, subprocess, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for number in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        sys.exit(subprocess.call(sys.argv[1:], close_fds=True))
        """
    /// Debian's Python, which runs ``withoutInheritedDescriptors``.
    static let python = "/usr/bin/python3"
}

/// One tmux session on a private server: a terminal a program draws on (a tty or curses
/// pinentry opened on ``tty()``), read as a person sees it and typed into.
public struct TmuxPane: Sendable {
    /// How long a text may take to show: a hang guard, not a speed target.
    public static let wait = HangGuard.step

    let socket: String
    let session = "pane"

    /// Starts a server whose one pane runs `command` (by default one that never reads the
    /// terminal, so every key typed goes to the program that opened it).
    public static func start(running command: String = "exec sleep 100000", columns: Int = 100, rows: Int = 24)
        async throws -> TmuxPane
    {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tmux-\(UUID().uuidString)")
            .path
        let pane = TmuxPane(socket: socket)
        let started = try await ChildProcess.run(
            Tmux.python,
            [
                "-c", Tmux.withoutInheritedDescriptors, Tmux.path, "-S", socket, "-f", "/dev/null", "new-session", "-d",
                "-s", pane.session, "-x", "\(columns)", "-y", "\(rows)", "/bin/sh", "-c", command,
            ],
            environment: [:])
        guard started.status == 0 else { throw TmuxError.failed("new-session: \(started.output)") }
        return pane
    }

    /// Runs a tmux command on this server.
    @discardableResult
    public func tmux(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(Tmux.path, ["-S", socket, "-f", "/dev/null"] + arguments, environment: [:])
    }

    /// The pane's terminal, such as `/dev/pts/3`.
    public func tty() async throws -> String {
        let shown = try await tmux(["display-message", "-p", "-t", session, "#{pane_tty}"])
        let path = shown.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard shown.status == 0, path.hasPrefix("/dev/") else { throw TmuxError.failed("pane_tty: \(shown.output)") }
        return path
    }

    /// The pane's text as a person sees it now.
    public func lines() async throws -> [String] {
        try await tmux(["capture-pane", "-p", "-t", session]).output.split(separator: "\n").map(String.init)
    }

    /// The pane's text joined into one string, each line's trailing blanks dropped.
    public func screen() async throws -> String {
        try await lines().map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// Reads the pane until `wanted` holds for its text and returns it; throws
    /// ``TmuxError/notSeen(_:)`` naming `what`, with the text last seen, once ``wait`` passed.
    @discardableResult
    public func waitFor(_ what: String, _ wanted: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + Self.wait
        var text = ""
        while ContinuousClock.now < deadline {
            text = try await screen()
            if wanted(text) { return text }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TmuxError.notSeen("\(what) not seen in \(Self.wait); the pane:\n\(text)")
    }

    /// Types `keys` (tmux key names: `Enter`, `Tab`, `C-c`; other words are typed as they are).
    public func send(_ keys: String...) async throws {
        try await tmux(["send-keys", "-t", session] + keys)
    }

    /// Ends the server and its pane.
    public func stop() async {
        _ = try? await tmux(["kill-server"])
        try? FileManager.default.removeItem(atPath: socket)
    }
}

/// Why a ``TmuxPane`` step failed.
public enum TmuxError: Error, CustomStringConvertible {
    case failed(String)
    case notSeen(String)

    public var description: String {
        switch self {
        case .failed(let text), .notSeen(let text): text
        }
    }
}
