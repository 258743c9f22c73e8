// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffClient

/// Asking for new passcodes twice on a terminal, and once anywhere else.
struct PasscodePromptTests {
    /// Answers prompts from a script and records what it was asked and told.
    private final class ScriptedChannel: PasscodeChannel {
        let isInteractive: Bool
        private var answers: [String]
        private(set) var prompts: [String] = []
        private(set) var told: [String] = []

        init(interactive: Bool, answers: [String]) {
            isInteractive = interactive
            self.answers = answers
        }

        func readPasscode(prompt: String) throws(ClientError) -> SecureBytes {
            prompts.append(prompt)
            guard !answers.isEmpty else { throw .emptyPasscode }
            return SecureBytes(unwipedCopyOf: Array(answers.removeFirst().utf8))
        }

        func tell(_ line: String) {
            told.append(line)
        }
    }

    @Test func onATerminalANewPasscodeIsTypedTwice() throws {
        let channel = ScriptedChannel(interactive: true, answers: ["hunter2", "hunter2"])
        let passcode = try PasscodePrompt.new(from: channel, for: "login")
        #expect(passcode.unprotectedArray() == Array("hunter2".utf8))
        #expect(channel.prompts == ["Enter new passcode for login:", "Repeat it:"])
        #expect(channel.told.isEmpty)
    }

    @Test func theNewPasscodePromptSaysWhatThePolicyNeeds() throws {
        let channel = ScriptedChannel(interactive: true, answers: ["123456", "123456"])
        _ = try PasscodePrompt.new(from: channel, for: "phone", requirement: "6 digits")
        #expect(channel.prompts == ["Enter new passcode for phone (6 digits):", "Repeat it:"])
    }

    @Test func aMismatchAsksAgain() throws {
        let channel = ScriptedChannel(interactive: true, answers: ["one", "two", "three", "three"])
        let passcode = try PasscodePrompt.new(from: channel, for: "work")
        #expect(passcode.unprotectedArray() == Array("three".utf8))
        #expect(channel.prompts.count == 4)
        #expect(channel.told == ["Passcodes do not match; try again."])
    }

    @Test func threeMismatchesGiveUp() throws {
        let channel = ScriptedChannel(interactive: true, answers: ["a", "b", "c", "d", "e", "f", "g", "g"])
        #expect(throws: ClientError.passcodesDiffer) { try PasscodePrompt.new(from: channel, for: "login") }
        #expect(channel.prompts.count == 6)
        #expect(channel.told.count == 2)
    }

    @Test func fromADescriptorANewPasscodeIsOneLine() throws {
        let channel = ScriptedChannel(interactive: false, answers: ["only once", "never read"])
        let passcode = try PasscodePrompt.new(from: channel, for: "login")
        #expect(passcode.unprotectedArray() == Array("only once".utf8))
        #expect(channel.prompts.count == 1)
    }

    @Test func aPasscodeFromStandardInputIsReadFromDescriptorZero() throws {
        let channel = try #require(try PasscodeSource.standardInput.open() as? DescriptorChannel)
        #expect(channel.fd == 0)
        #expect(!channel.isInteractive)
    }

    @Test func aDescriptorThatIsNotOpenIsAUsageError() throws {
        #expect(throws: ClientError.usage("descriptor 987654 is not open")) {
            try PasscodeSource.descriptor(987_654).open()
        }
        #expect(ClientError.usage("").exitStatus == .usage)
    }
}

/// What happens when nobody can be asked.
struct MissingTerminalTests {
    @Test func withoutATerminalTheErrorNamesStdinAndExitsWithOne() throws {
        #expect(throws: ClientError.noPasscodeSource) { try TerminalChannel(path: "/nonexistent/tty") }
        #expect(ClientError.noPasscodeSource.exitStatus.rawValue == 1)
        #expect(ClientError.noPasscodeSource.message.contains("--stdin"))
    }
}
