// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffCrypto
import Testing

@testable import PuffClient

/// Secrets for `add` and `edit`: all of standard input, one trailing newline dropped; or typed
/// twice on a terminal.
struct SecretInputTests {
    private func read(_ bytes: [UInt8]) throws -> [UInt8] {
        let fd = try Descriptors.readEnd(holding: bytes)
        defer { close(fd) }
        return try SecretInput.readAll(from: fd).unprotectedArray()
    }

    @Test func oneTrailingNewlineIsDroppedAndEverythingElseKept() throws {
        #expect(try read(Array("hunter2\n".utf8)) == Array("hunter2".utf8))
        #expect(try read(Array("hunter2".utf8)) == Array("hunter2".utf8))
        #expect(try read(Array("ends in one\n\n".utf8)) == Array("ends in one\n".utf8))
        #expect(try read(Array("two\nlines\r\n".utf8)) == Array("two\nlines\r".utf8))
    }

    @Test func everyByteValueSurvives() throws {
        let all = (0...255).map(UInt8.init)
        #expect(try read(all) == all)
    }

    @Test(arguments: [[], [0x0a]] as [[UInt8]])
    func anEmptySecretIsRefused(_ input: [UInt8]) {
        #expect(throws: ClientError.usage("the secret is empty: nothing was read from standard input")) {
            try read(input)
        }
    }

    @Test func aSecretOfPuffdsLimitIsReadAndOneByteMoreIsRefused() throws {
        let limit = SecretInput.maximumLength
        #expect(limit == 1_048_576)
        for (size, accepted) in [(limit, true), (limit + 1, false)] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("puff-secret-\(UUID().uuidString)")
            try Data(repeating: 0x61, count: size).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            if accepted {
                #expect(try SecretInput.readAll(from: fd).count == limit)
            } else {
                #expect(throws: ClientError.usage("the secret is longer than \(limit) bytes")) {
                    try SecretInput.readAll(from: fd)
                }
            }
        }
    }

    /// Answers prompts from a script, as the person at the terminal would.
    private final class Typist: PasscodeChannel {
        var isInteractive: Bool { true }
        private var answers: [String]
        private(set) var prompts: [String] = []
        private(set) var told: [String] = []

        init(_ answers: [String]) {
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

    @Test func aTypedSecretIsAskedTwiceAndAgainOnAMismatch() throws {
        let typist = Typist(["one", "two", "s3cret", "s3cret"])
        let secret = try SecretInput.typed(for: "'GitHub'", from: typist)
        #expect(secret.unprotectedArray() == Array("s3cret".utf8))
        #expect(typist.prompts == ["Secret for 'GitHub':", "Repeat it:", "Secret for 'GitHub':", "Repeat it:"])
        #expect(typist.told == ["The two differ; try again."])
    }

    @Test func threeMismatchesChangeNothing() {
        let typist = Typist(["a", "b", "c", "d", "e", "f"])
        #expect(throws: ClientError.usage("the two secrets differed three times; nothing was changed")) {
            try SecretInput.typed(for: "'x'", from: typist)
        }
    }

    @Test func anEmptyTypedSecretIsRefused() {
        #expect(throws: ClientError.usage("the secret is empty; nothing was changed")) {
            try SecretInput.typed(for: "'x'", from: Typist([]))
        }
    }
}
