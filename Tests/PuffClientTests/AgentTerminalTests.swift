// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffDBus
import PuffTesting
import Testing

@testable import PuffClient

/// `puffctl agent`'s side of the security-key questions (issue 26), on a real terminal (a tmux
/// pane): what it shows, and what it writes into puffd's answer pipe for the keys typed.
@Suite(.serialized, .enabled(if: Tmux.canRun), .timeLimit(.minutes(HangGuard.testMinutes)))
struct AgentTerminalTests {
    /// Asks `question` on a fresh pane; `type` reads the pane and types. Returns whether the agent
    /// answered, what it wrote into the pipe, and the pane once it had.
    static func ask(
        _ question: [String: DBusValue], type: @Sendable (TmuxPane) async throws -> Void
    ) async throws -> (answered: Bool, written: String, screen: String) {
        let pane = try await TmuxPane.start()
        do {
            let terminal = try AgentTerminal(path: try await pane.tty())
            let pipe = try UnixFD.pipe()
            let writer = pipe.write
            let asking = Task.detached { AgentService.ask(question, into: writer, on: terminal) }
            try await type(pane)
            let answered = await asking.value
            let screen = try await pane.screen()
            let written = Self.readAll(pipe.read.rawValue)
            await pane.stop()
            return (answered, written, screen)
        } catch {
            await pane.stop()
            throw error
        }
    }

    /// What the pipe holds (test answers only: never a real secret).
    static func readAll(_ fd: Int32) -> String {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func touch(instead: String) -> [String: DBusValue] {
        [
            "purpose": .string("touch-security-key"), "collection": .string("work"), "label": .string("Work"),
            "application": .string("/usr/bin/secret-tool"), "slot_label": .string("yubikey"),
            "instead": .string(instead),
        ]
    }

    @Test func typingTAtTheTouchQuestionAsksToTypeThePasscodeInstead() async throws {
        let (answered, written, screen) = try await Self.ask(Self.touch(instead: "passcode")) { pane in
            try await pane.waitFor("the touch question") { $0.contains("[c]ancel") }
            try await pane.send("t", "Enter")
        }
        #expect(answered)
        #expect(written == "type")
        #expect(screen.contains("Touch the security key “yubikey” now."), "\(screen)")
        #expect(screen.contains("[t]ype the passcode instead, or [c]ancel (Enter: cancel):"), "\(screen)")
    }

    @Test func enterAtTheTouchQuestionCancels() async throws {
        let (answered, written, _) = try await Self.ask(Self.touch(instead: "passcode")) { pane in
            try await pane.waitFor("the touch question") { $0.contains("[c]ancel") }
            try await pane.send("Enter")
        }
        #expect(!answered)
        #expect(written == "")
    }

    @Test func thePINIsReadWithoutEchoAndWrittenIntoThePipe() async throws {
        let question: [String: DBusValue] = [
            "purpose": .string("security-key-pin"), "collection": .string("work"), "label": .string("Work"),
            "slot_label": .string("yubikey"), "retries": .int32(5),
        ]
        let (answered, written, screen) = try await Self.ask(question) { pane in
            try await pane.waitFor("the PIN question") { $0.contains("PIN of the security key") }
            try await pane.send("4711", "Enter")
        }
        #expect(answered)
        #expect(written == "4711")
        #expect(screen.contains("PIN of the security key “yubikey” (5 tries left before the key blocks it):"))
        #expect(!screen.contains("4711"), "no echo: \(screen)")
    }
}
