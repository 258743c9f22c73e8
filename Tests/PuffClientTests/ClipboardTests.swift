// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import Testing

@testable import PuffClient

/// Which clipboard tool `copy` picks, and how the clearer recognises its own secret.
struct ClipboardTests {
    /// A folder holding empty executables called `names`, to stand for `PATH`.
    private func path(with names: [String]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names {
            let file = folder.appendingPathComponent(name).path
            _ = FileManager.default.createFile(atPath: file, contents: Data(), attributes: [.posixPermissions: 0o755])
        }
        return folder.path
    }

    private func find(_ environment: [String: String]) -> Result<ClipboardTool, ClientError> {
        Result { () throws(ClientError) in try ClipboardTool.find(environment: environment) }
    }

    @Test func waylandComesFirstThenXclipThenXsel() throws {
        let all = try path(with: ["wl-copy", "wl-paste", "xclip", "xsel"])
        let both = ["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "PATH": all]
        #expect(try find(both).get() == .wlCopy)
        #expect(try find(["DISPLAY": ":0", "PATH": all]).get() == .xclip)
        #expect(try find(["DISPLAY": ":0", "PATH": try path(with: ["xsel"])]).get() == .xsel)
        // wl-copy alone cannot read back, so the check before clearing would be impossible.
        let halfWayland = [
            "WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "PATH": try path(with: ["wl-copy", "xsel"]),
        ]
        #expect(try find(halfWayland).get() == .xsel)
    }

    @Test func noToolExitsWithOneNamingTheToolsAndTheVariables() throws {
        let tools = try path(with: ["xclip"])
        for environment in [
            ["PATH": tools], ["WAYLAND_DISPLAY": "w", "PATH": tools], ["DISPLAY": ":0", "PATH": "/none"],
        ] {
            guard case .failure(let error) = find(environment) else {
                Issue.record("found a tool in \(environment)")
                continue
            }
            #expect(error.exitStatus == .usage)
            for word in ["wl-copy", "xclip", "xsel", "WAYLAND_DISPLAY", "DISPLAY"] {
                #expect(error.message.contains(word), "\(word) in \(error.message)")
            }
        }
    }

    @Test func aMarkRecognisesItsSecretAfterTheRoundTripThroughTheClearersInput() throws {
        let secret = SecureBytes(unwipedCopyOf: Array("correct horse".utf8))
        let mark = try ClipboardMark(encoded: ClipboardMark(of: secret).encoded)
        #expect(mark.length == secret.count)
        #expect(mark.matches(SecureBytes(unwipedCopyOf: Array("correct horse".utf8))))
        #expect(!mark.matches(SecureBytes(unwipedCopyOf: Array("correct horsf".utf8))))
        #expect(!mark.matches(SecureBytes(unwipedCopyOf: Array("correct horse!".utf8))))
        #expect(!mark.matches(.empty))
    }

    @Test func twoMarksOfOneSecretDifferBecauseEachHasItsOwnKey() {
        let secret = SecureBytes(unwipedCopyOf: Array("1234".utf8))
        let first = ClipboardMark(of: secret).encoded
        let second = ClipboardMark(of: secret).encoded
        #expect(!first.constantTimeEquals(second))
    }

    @Test func aMarkOfTheWrongSizeIsRefused() {
        #expect(throws: ClientError.usage("the clipboard mark has the wrong size")) {
            try ClipboardMark(encoded: SecureBytes(unwipedCopyOf: [1, 2, 3]))
        }
    }
}
