// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting

/// A headless X server (`Xvfb`) for one test, with `xclip` to read and set its clipboard, and a
/// look at the clipboard clearers `puffctl copy` starts on it.
final class XServer: @unchecked Sendable {
    // @unchecked: `process` and `display` are set once in init and only read afterwards.
    private let process: Process
    /// The `DISPLAY` value of this server, such as `:3`.
    let display: String

    static let xvfb = "/usr/bin/Xvfb"
    static let xclip = "/usr/bin/xclip"

    /// Whether clipboard tests can run. With `PUFF_REQUIRE_BUS=1` (CI) they must: a missing
    /// `Xvfb` or `xclip` then fails them instead of skipping (the Makefile installs both).
    static var isAvailable: Bool { TestBus.canRun(needing: [xvfb, xclip]) }

    /// Starts Xvfb on a free display and waits until it names it (`-displayfd` writes the number
    /// once the server accepts connections).
    init() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.xvfb)
        process.arguments = ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "320x200x24"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let number = TestBus.firstLine(of: output).trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, Int(number) != nil else {
            kill(process.processIdentifier, SIGKILL)
            throw XServerError.noDisplay
        }
        display = ":" + number
    }

    deinit {
        // The xclip servers holding this display's clipboard exit when their display goes.
        kill(process.processIdentifier, SIGKILL)
    }

    /// `environment` with this server's `DISPLAY` and no Wayland, so `copy` picks xclip.
    func environment(_ environment: [String: String]) -> [String: String] {
        environment.merging(["DISPLAY": display]) { $1 }.filter { $0.key != "WAYLAND_DISPLAY" }
    }

    /// What the clipboard holds as text (`xclip -o`); nil when nothing owns it.
    func clipboard() async throws -> Data? {
        let read = try await ChildProcess.run(
            Self.xclip, ["-selection", "clipboard", "-o"], environment: ["DISPLAY": display])
        return read.status == 0 ? read.bytes : nil
    }

    /// Puts `text` on the clipboard, as another program would.
    ///
    /// Through bash, which first closes every descriptor above standard error: the xclip server
    /// that stays behind would otherwise hold the one Foundation watches to see xclip exit.
    func setClipboard(_ text: String) async throws -> Bool {
        let closeAll =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done"#
        let set = try await ChildProcess.run(
            "/bin/bash", ["-c", closeAll + "; exec \(Self.xclip) -selection clipboard"],
            environment: ["DISPLAY": display], input: Data(text.utf8))
        return set.status == 0
    }

    /// The clipboard clearers (`puffctl clear-clipboard`) running for this display, found by
    /// their command line and `DISPLAY`; zombies count as exited.
    func clearers() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                command.range(of: Data("clear-clipboard".utf8)) != nil,
                let environment = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")),
                environment.split(separator: 0).contains(Data("DISPLAY=\(display)".utf8))
            else { return false }
            return !Self.isZombie(pid)
        }
    }

    private static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // The state follows the parenthesised command name, which may itself hold spaces.
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[close...].dropFirst(2).first == "Z"
    }
}

/// Why an X server could not start.
enum XServerError: Error {
    case noDisplay
}
