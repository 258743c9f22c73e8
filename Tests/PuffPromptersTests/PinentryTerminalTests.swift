// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PuffCrypto
import PuffService
import PuffTesting
import Testing

@testable import PuffPrompters

/// The security-key questions of issue 26 as the real pinentry-tty and pinentry-curses draw them
/// on a terminal (a tmux pane, read with `capture-pane`), answered by typing into it.
@Suite(.serialized, .enabled(if: Tmux.canRun), .timeLimit(.minutes(HangGuard.testMinutes)))
struct PinentryTerminalTests {
    static let tty = "/usr/bin/pinentry-tty"
    static let curses = "/usr/bin/pinentry-curses"
    static let collection = CollectionID("work")

    static func request(_ purpose: PromptRequest.Purpose) -> PromptRequest {
        PromptRequest(purpose: purpose, caller: ClientID(":1.7"), windowID: "", application: "/usr/bin/secret-tool")
    }

    /// Runs `program` on a fresh pane for `request`; `answer` reads the pane and types; returns the
    /// reply and the pane's text as `answer` last saw it.
    static func ask(
        _ program: String, _ request: PromptRequest, answer: @Sendable (TmuxPane) async throws -> String
    ) async throws -> (PromptReply, String) {
        try #require(
            FileManager.default.isExecutableFile(atPath: program),
            "\(program) is missing: make deps installs it (APT_PACKAGES)")
        let pane = try await TmuxPane.start()
        do {
            let prompter = PinentryPrompter(
                program: program, terminal: try await pane.tty(), environment: ["LANG": "C.UTF-8"],
                logger: Logger(label: "test"))
            let asking = Task { try await prompter.prompt(request) }
            let screen: String
            do {
                screen = try await answer(pane)
            } catch {
                asking.cancel()
                throw error
            }
            let reply = try await asking.value
            await pane.stop()
            return (reply, screen)
        } catch {
            await pane.stop()
            throw error
        }
    }

    @Test(arguments: [tty, curses])
    func theTouchQuestionNamesTheKeyAndItsFirstButtonTypesThePasscodeInstead(_ program: String) async throws {
        let purpose = PromptRequest.Purpose.touchSecurityKey(
            collection: Self.collection, label: "Work", slotLabel: "yubikey", instead: .passcode)
        let (reply, screen) = try await Self.ask(program, Self.request(purpose)) { pane in
            let screen = try await pane.waitFor("the touch question") { $0.contains("Type the passcode instead") }
            // pinentry-tty takes a button's letter; curses has the first button focused.
            try await pane.send(program == Self.tty ? "t" : "Enter")
            return screen
        }
        #expect(reply.isTypeInstead, "\(reply)")
        #expect(screen.contains("/usr/bin/secret-tool wants to unlock the collection “Work”."), "\(screen)")
        #expect(screen.contains("Touch the security key “yubikey” now."), "\(screen)")
        #expect(screen.contains("Cancel"), "\(screen)")
    }

    @Test(arguments: [tty, curses])
    func cancellingTheTouchQuestionDismissesIt(_ program: String) async throws {
        let purpose = PromptRequest.Purpose.touchSecurityKey(
            collection: Self.collection, label: "Work", slotLabel: "yubikey", instead: .recoveryCode)
        let (reply, screen) = try await Self.ask(program, Self.request(purpose)) { pane in
            let screen = try await pane.waitFor("the touch question") { $0.contains("Cancel") }
            if program == Self.tty {
                try await pane.send("c")
            } else {
                try await pane.send("Tab")
                try await pane.send("Enter")
            }
            return screen
        }
        #expect(reply.isDismissed, "\(reply)")
        #expect(screen.contains("Type the recovery code instead"), "\(screen)")
    }

    @Test(arguments: [tty, curses])
    func thePINQuestionNamesTheKeyAndTheTriesLeftAndReturnsThePIN(_ program: String) async throws {
        let purpose = PromptRequest.Purpose.securityKeyPIN(
            collection: Self.collection, label: "Work", slotLabel: "yubikey", retries: 2)
        let (reply, screen) = try await Self.ask(program, Self.request(purpose)) { pane in
            let screen = try await pane.waitFor("the PIN question") { $0.contains("PIN:") }
            try await pane.send("4711")
            try await pane.send("Enter")
            return screen
        }
        #expect(reply.passcodeText == "4711", "\(reply)")
        #expect(
            screen.contains("Enter the PIN of the security key “yubikey” (2 tries left before the key blocks it)."),
            "\(screen)")
    }

    @Test(arguments: [tty, curses])
    func anUnlockByRecoveryCodeAsksForARecoveryCode(_ program: String) async throws {
        let purpose = PromptRequest.Purpose.unlock(collection: Self.collection, label: "Work", slot: .recoveryCode)
        let (reply, screen) = try await Self.ask(program, Self.request(purpose)) { pane in
            let screen = try await pane.waitFor("the recovery question") { $0.contains("Recovery code:") }
            try await pane.send("ABCD-EFGH")
            try await pane.send("Enter")
            return screen
        }
        #expect(reply.passcodeText == "ABCD-EFGH", "\(reply)")
        #expect(screen.contains("Enter one of its recovery codes (XXXX-XXXX-…)."), "\(screen)")
        #expect(!screen.contains("passcode"), "no passcode is asked for: \(screen)")
    }

    /// A label is any text a client stored, and a slot label comes from a header nobody has
    /// authenticated before the unlock: ESC `[2J` would clear the person's terminal under
    /// pinentry-tty and draw whatever follows as if Puff said it.
    @Test(arguments: [tty, curses])
    func aLabelWithControlCharactersIsShownEscaped(_ program: String) async throws {
        let purpose = PromptRequest.Purpose.touchSecurityKey(
            collection: Self.collection, label: "Work\u{1B}[2J\u{9B}31m", slotLabel: "key\u{7}\tone", instead: nil)
        let (reply, screen) = try await Self.ask(program, Self.request(purpose)) { pane in
            let screen = try await pane.waitFor("the touch question") { $0.contains("Touch the security key") }
            try await pane.send(program == Self.tty ? "c" : "Enter")
            return screen
        }
        #expect(reply.isDismissed, "\(reply)")
        #expect(screen.contains("unlock the collection “Work\\u001b[2J\\u009b31m”."), "\(screen)")
        #expect(screen.contains("Touch the security key “key\\u0007\\tone” now."), "\(screen)")
    }
}

extension PromptReply {
    var isTypeInstead: Bool {
        if case .typeInstead = self { true } else { false }
    }

    var isDismissed: Bool {
        if case .dismissed = self { true } else { false }
    }

    /// A typed answer as text (test values only: never a real secret).
    var passcodeText: String? {
        guard case .passcode(let bytes) = self else { return nil }
        return String(decoding: bytes.unprotectedArray(), as: UTF8.self)
    }
}
