// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue 27 item 9: system calls interrupted by a signal are retried in one place, PuffSystem
/// (over swift-system), and children are started by swift-subprocess, not by hand.
@Suite struct SystemCallsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// Files that still start children with `posix_spawn`, and why Subprocess does not do there.
    static let spawners = [
        // The clipboard clearer must outlive puffctl: Subprocess waits for every child it starts.
        "PuffClient/Clipboard/ToolProcess.swift",
        // swtpm's daemon keeps the descriptors it is given: its output goes to files, and every other
        // descriptor of the test process is closed at the spawn (closefrom), which Subprocess cannot say.
        "PuffTesting/SoftwareTPM.swift",
    ]

    static func swiftFiles() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        return try enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map {
            ($0, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8))
        }
    }

    @Test func noFileButPuffSystemRetriesAnInterruptedCall() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 300)
        let offenders = files.filter { !$0.path.hasPrefix("PuffSystem/") && $0.text.contains("EINTR") }.map(\.path)
        #expect(offenders == [])
    }

    @Test func childrenAreStartedBySubprocessButWhereItCannot() throws {
        let spawning = try Self.swiftFiles().filter { $0.text.contains("posix_spawn(") }.map(\.path).sorted()
        #expect(spawning == Self.spawners)
    }
}
