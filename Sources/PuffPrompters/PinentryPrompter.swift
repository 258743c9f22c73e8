// SPDX-License-Identifier: Apache-2.0
import Glibc
public import Logging
public import PuffService
import Subprocess
import SystemPackage

/// Asks through the user's pinentry (`pinentry-gnome3`, `-gtk2`, `-qt`, `-curses`, `-tty`, or
/// Debian's `pinentry` alternative), speaking Assuan to it over its standard input and output.
///
/// Each question runs one pinentry process with the daemon's environment (`DISPLAY`,
/// `WAYLAND_DISPLAY`, ...); the PIN is read byte by byte into locked memory. A cancelled prompt
/// (Dismiss, timeout, the client leaving) ends the process.
public struct PinentryPrompter: Prompter {
    /// `"pinentry"`.
    public static let kind = "pinentry"
    /// Debian's `pinentry` alternative.
    public static let defaultProgram = "/usr/bin/pinentry"

    /// The terminal type sent with a terminal when the daemon has no `TERM`: a daemon started by
    /// systemd or D-Bus activation has none, and curses cannot draw without one; every terminal
    /// emulator understands a VT100.
    public static let fallbackTerminalType = "vt100"

    /// The pinentry executable.
    public let program: String
    /// The terminal a curses or tty pinentry should use (`OPTION ttyname`), if any.
    public let terminal: String?
    private let environment: [String: String]
    private let logger: Logger

    /// A prompter running `program`, reachable when it exists and a display (or `terminal`) is set.
    public init(
        program: String = defaultProgram, terminal: String? = nil,
        environment: [String: String], logger: Logger
    ) {
        self.program = program
        self.terminal = terminal
        self.environment = environment
        self.logger = logger
    }

    /// Reachable when the program exists and something can show it: a display or a terminal.
    public func canReachPerson() async -> Bool {
        guard access(program, X_OK) == 0 else { return false }
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        return display || terminal != nil
    }

    /// Runs one pinentry dialogue for `request`.
    public func prompt(_ request: PromptRequest) async throws -> PromptReply {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw AssuanError.closed }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0])
            close(toChild[1])
            throw AssuanError.closed
        }
        // No other child may inherit these; swift-subprocess moves the child's two onto 0 and 1.
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let channel = AssuanChannel(reading: fromChild[0], writing: toChild[1])
        let program = self.program
        let childInput = FileDescriptor(rawValue: toChild[0])
        let childOutput = FileDescriptor(rawValue: fromChild[1])
        return try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: PromptReply?.self) { group in
                group.addTask {
                    defer { channel.cancel() }  // the process is gone: no answer will come
                    _ = try await Subprocess.run(
                        .path(FilePath(program)), environment: .custom(Self.environmentKeys(environment)),
                        input: .fileDescriptor(childInput, closeAfterSpawningProcess: true),
                        output: .fileDescriptor(childOutput, closeAfterSpawningProcess: true), error: .discarded)
                    return nil
                }
                group.addTask { [logger] in
                    try await BlockingWork.run { () throws(AssuanError) -> PromptReply in
                        do throws(AssuanError) {
                            return try PinentryDialogue(
                                channel: channel, terminal: terminal,
                                terminalType: environment["TERM"].flatMap { $0.isEmpty ? nil : $0 }
                                    ?? Self.fallbackTerminalType
                            ).ask(request)
                        } catch .closed {
                            // Its goodbye went to a closed pipe: EPIPE, since puffd ignores SIGPIPE.
                            logger.notice("pinentry ended without answering", metadata: ["program": "\(program)"])
                            throw .closed
                        }
                    }
                }
                var reply: PromptReply = .dismissed
                for try await answer in group {
                    if let answer { reply = answer }
                }
                return reply
            }
        } onCancel: {
            channel.cancel()
        }
    }

    /// The daemon's environment as swift-subprocess takes it.
    private static func environmentKeys(_ environment: [String: String]) -> [Environment.Key: String] {
        Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), $0.value) })
    }
}
