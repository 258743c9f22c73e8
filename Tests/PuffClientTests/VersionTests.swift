// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import PuffVersion
import Testing

@testable import PuffClient

/// `--version` comes from ``PuffVersion``, which must be the Debian packages' version.
struct VersionTests {
    @Test func theVersionConstantIsTheDebianChangelogsTopVersion() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let changelog = try String(
            contentsOf: root.appendingPathComponent("packaging/debian/changelog"), encoding: .utf8)
        // The first line: `puff (0.2) unstable; urgency=medium`.
        let first = try #require(changelog.split(separator: "\n").first)
        let open = try #require(first.firstIndex(of: "("))
        let close = try #require(first.firstIndex(of: ")"))
        #expect(String(first[first.index(after: open)..<close]) == PuffVersion.current)
    }

    @Test func puffctlPrintsTheVersion() async {
        #expect(Puffctl.configuration.version == PuffVersion.current)
    }
}
