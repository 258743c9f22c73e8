// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import PuffTesting
import Testing

@testable import PuffClient

/// `--help` of the built puffctl, of each of its subcommands at any depth (found from
/// `Puffctl.configuration.subcommands`, so a new command is covered without editing this file)
/// and of puffd, byte for byte against `Snapshots/help/*.txt`, at 100 columns.
///
/// After an intended change, regenerate them with `make snapshots` (which sets
/// `PUFF_WRITE_SNAPSHOTS=1` for this suite) and review the diff.
@Suite struct HelpSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots/help")
    static let regenerate = "regenerate with `make snapshots` (PUFF_WRITE_SNAPSHOTS=1) and review the diff"
    static var writing: Bool { ProcessInfo.processInfo.environment["PUFF_WRITE_SNAPSHOTS"] == "1" }

    /// A command line whose help is snapshotted: the executable and the subcommand path.
    struct Command: Sendable, CustomTestStringConvertible {
        var executable: String
        var path: [String]
        /// `puffctl-collection-create.txt`.
        var fileName: String { ([executable] + path).joined(separator: "-") + ".txt" }
        var testDescription: String { ([executable] + path + ["--help"]).joined(separator: " ") }
    }

    /// puffd, puffctl and every subcommand of puffctl, depth first.
    static let commands: [Command] =
        [Command(executable: "puffd", path: [])]
        + paths(of: Puffctl.self).map { Command(executable: "puffctl", path: $0) }

    /// `[]` for `command` itself, then the path of each subcommand under it.
    static func paths(of command: any ParsableCommand.Type) -> [[String]] {
        [[]]
            + command.configuration.subcommands.flatMap { sub in
                paths(of: sub).map { [sub._commandName] + $0 }
            }
    }

    static func binary(_ name: String) -> String {
        URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent().appendingPathComponent(name).path
    }

    @Test(arguments: commands) func theHelpMatchesItsSnapshot(_ command: Command) async throws {
        let result = try await ChildProcess.run(
            Self.binary(command.executable), command.path + ["--help"],
            environment: ["COLUMNS": "100", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(command.testDescription) exited \(result.status): \(result.output)")
        let file = Self.folder.appendingPathComponent(command.fileName)
        if Self.writing {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try result.output.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        guard let snapshot = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("no snapshot \(command.fileName) for `\(command.testDescription)`: \(Self.regenerate)")
            return
        }
        if snapshot != result.output {
            let difference = Self.firstDifference(snapshot, result.output)
            Issue.record(
                "Snapshots/help/\(command.fileName) differs from `\(command.testDescription)` (\(difference)): \(Self.regenerate)"
            )
        }
    }

    @Test func everySnapshotBelongsToACommand() throws {
        let expected = Set(Self.commands.map(\.fileName))
        let present = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            $0.hasSuffix(".txt")
        }
        for stale in present where !expected.contains(stale) {
            if Self.writing {
                try FileManager.default.removeItem(at: Self.folder.appendingPathComponent(stale))
            } else {
                Issue.record("Snapshots/help/\(stale) belongs to no command any more: \(Self.regenerate)")
            }
        }
    }

    /// "line 3: snapshot `…` but now `…`".
    static func firstDifference(_ old: String, _ new: String) -> String {
        let oldLines = old.split(separator: "\n", omittingEmptySubsequences: false)
        let newLines = new.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(oldLines.count, newLines.count) {
            let before = index < oldLines.count ? String(oldLines[index]) : "(end)"
            let after = index < newLines.count ? String(newLines[index]) : "(end)"
            if before != after { return "line \(index + 1): snapshot `\(before)` but now `\(after)`" }
        }
        return "same lines"
    }
}
