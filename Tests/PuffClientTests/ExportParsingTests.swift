// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffFormats
import Testing

@testable import PuffClient

/// `puffctl export`'s command line: the formats it offers are exactly those Puff can write, and
/// no password is ever an argument.
struct ExportParsingTests {
    @Test func theFormatsOfferedAreExactlyThoseWithAWriter() {
        let offered = Set(ExportFormat.allCases.map(\.foreign))
        let writable = Set(ForeignFormats.writers.map { $0.format })
        #expect(offered == writable)
    }

    @Test func aFormatPuffOnlyReadsIsRefused() {
        let parsed = Result { try Puffctl.parseAsRoot(["export", "--collection", "login", "--format", "pass", "out"]) }
        guard case .failure(let error) = parsed else {
            Issue.record("--format pass was accepted")
            return
        }
        #expect(Puffctl.message(for: error).contains("pass"), "\(Puffctl.message(for: error))")
    }

    @Test func theCollectionAndTheFormatAreRequiredAndThePasswordComesFromADescriptor() throws {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["export", "--format", "kdbx", "out"]) }
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["export", "--collection", "login", "out"]) }
        let command = try #require(
            try Puffctl.parseAsRoot([
                "export", "--collection", "work", "--format", "gnome-keyring", "out.keyring", "--target-passcode-fd",
                "3", "--force",
            ]) as? ExportCommand)
        #expect(command.collection == "work")
        #expect(command.format == .gnomeKeyring)
        #expect(command.targetPasscodeDescriptor == 3)
        #expect(command.force)
        #expect(throws: (any Error).self) {
            try Puffctl.parseAsRoot([
                "export", "--collection", "w", "--format", "kdbx", "o", "--target-passcode-fd", "-1",
            ])
        }
    }
}
