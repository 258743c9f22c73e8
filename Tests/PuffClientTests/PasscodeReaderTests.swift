// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffClient
import PuffCrypto
import Testing

/// Reading one passcode line from a descriptor into locked memory.
struct PasscodeReaderTests {
    private func read(_ text: String) throws -> SecureBytes {
        let fd = try Descriptors.readEnd(holding: text)
        defer { close(fd) }
        return try PasscodeReader.readLine(from: fd)
    }

    @Test func theTrailingNewlineIsStrippedAndNothingElse() throws {
        #expect(try read("correct horse\n").unprotectedArray() == Array("correct horse".utf8))
        #expect(try read(" spaced \r\n").unprotectedArray() == Array(" spaced \r".utf8))
    }

    @Test func aLastLineWithoutANewlineIsReadWhole() throws {
        #expect(try read("no newline").unprotectedArray() == Array("no newline".utf8))
    }

    @Test func consecutiveReadsTakeOneLineEach() throws {
        let fd = try Descriptors.readEnd(holding: "old one\nnew one\n")
        defer { close(fd) }
        #expect(try PasscodeReader.readLine(from: fd).unprotectedArray() == Array("old one".utf8))
        #expect(try PasscodeReader.readLine(from: fd).unprotectedArray() == Array("new one".utf8))
    }

    @Test func onlyOneNewlineIsConsumedSoABlankSecondLineIsEmpty() throws {
        let fd = try Descriptors.readEnd(holding: "first\n\nthird\n")
        defer { close(fd) }
        #expect(try PasscodeReader.readLine(from: fd).unprotectedArray() == Array("first".utf8))
        #expect(throws: ClientError.emptyPasscode) { try PasscodeReader.readLine(from: fd) }
    }

    @Test(arguments: ["", "\n"])
    func emptyInputIsRefused(_ input: String) throws {
        #expect(throws: ClientError.emptyPasscode) { try read(input) }
    }

    @Test func aPasscodeOfExactlyTheLimitIsAccepted() throws {
        let limit = PasscodeReader.maximumLength
        #expect(limit == 1024)
        #expect(try read(String(repeating: "x", count: limit) + "\n").count == limit)
        #expect(try read(String(repeating: "y", count: limit)).count == limit)
    }

    @Test func aPasscodeOneByteOverTheLimitIsRefused() throws {
        #expect(throws: ClientError.passcodeTooLong) {
            try read(String(repeating: "x", count: PasscodeReader.maximumLength + 1) + "\n")
        }
    }

    @Test func aClosedDescriptorIsAnErrorNotAnEmptyPasscode() throws {
        #expect(throws: ClientError.passcodeIOFailed(errno: EBADF)) { try PasscodeReader.readLine(from: -1) }
    }

    @Test func everyByteValueButNewlineSurvives() throws {
        let bytes = (0...255).map(UInt8.init).filter { $0 != UInt8(ascii: "\n") }
        let fd = try Descriptors.readEnd(holding: bytes + [UInt8(ascii: "\n")])
        defer { close(fd) }
        #expect(try PasscodeReader.readLine(from: fd).unprotectedArray() == bytes)
    }
}
