// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import Testing

@testable import PuffDaemon

/// docs/configuration.md describes every key the reader takes, and its example is a file
/// `puffd` accepts.
struct ConfigurationDocumentationTests {
    /// The text of docs/configuration.md, found from this source file's place in the repository.
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent("docs/configuration.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    @Test func everyKeyAndTableHasARowOrHeadingInTheDocument() {
        for section in ConfigurationKeys.sections {
            #expect(Self.document.contains("### `[\(section)]`"), "[\(section)] has no heading")
        }
        for key in ConfigurationKeys.all {
            #expect(Self.document.contains("\n| `\(key.name)` |"), "\(key.dotted) has no row")
        }
    }

    @Test func theDocumentsExampleIsAValidConfiguration() throws {
        let blocks = Self.document.components(separatedBy: "```toml\n").dropFirst()
        let example = try #require(blocks.last?.components(separatedBy: "```").first)
        let read = try ConfigurationFile.parse(example, file: "docs/configuration.md")
        #expect(read.prompterOrder == ["agent", "pinentry", "none"])
        #expect(read.pinentryTTY == "/dev/pts/3")
        #expect(read.effectiveAutoLock.maximum == nil && read.limits.secretBytes == 65_536)
        #expect(!read.allowPlainSessions)
    }
}
