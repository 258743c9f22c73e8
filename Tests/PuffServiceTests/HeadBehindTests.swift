// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import PuffStore
import Testing

/// A head is flushed once appends pause, not after each write (docs/vault-format.md, Framing;
/// design core-reshaped §13): a power cut right after a reply can leave on disk a head behind the
/// item just acknowledged, with the group being written then torn after it. That item is still
/// there after the restart, the torn group is cut, and nothing reads as damage.
@Suite struct HeadBehindTests {
    let vault = JournalVault("head-behind", client: ":1.43")

    @Test func anItemAcknowledgedBeforeItsHeadWasFlushedOutlivesAPowerCutThatTearsTheNextGroup() async throws {
        defer { vault.remove() }
        let service = try await vault.initialized(at: vault.pristine)
        try await vault.store("a", "first", in: service)
        // What the disk holds if the head was last flushed here: the head naming `a`.
        let flushed = try Data(contentsOf: try vault.loginFile(".head", at: vault.pristine))
        let b = try await vault.store("b", "second", in: service)
        let c = try await vault.store("c", "third", in: service)

        // The power cut: the head as flushed after `a`; `b`'s group durable (acknowledged); `c`'s
        // group, being written, lost its first block (zeros over the start of its frame).
        var (bytes, records) = try vault.copyToTrial()
        try flushed.write(to: try vault.loginFile(".head", at: vault.trial))
        let torn = Int(try #require(records.last).offset)
        bytes.replaceSubrange(torn..<torn + 40, with: [UInt8](repeating: 0, count: 40))
        try Data(bytes).write(to: try vault.loginFile(".journal", at: vault.trial))
        records.removeLast()

        let restarted = try await vault.service(at: vault.trial)
        #expect(await vault.damage(in: restarted) == "", "a head behind the journal is not damage")
        try await vault.unlock(restarted)
        #expect(await vault.damage(in: restarted) == "")
        #expect(try await vault.read(b, in: restarted) == "second", "acknowledged before the power cut")
        await #expect(throws: ServiceError.noSuchObject) { _ = try await vault.read(c, in: restarted) }
        let journal = try vault.loginFile(".journal", at: vault.trial)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: vault.trial.path).contains(
                journal.lastPathComponent + ".cut-\(torn)"),
            "the torn group is kept beside the journal")
        #expect(
            try JournalFraming.parse([UInt8](Data(contentsOf: journal)), file: "journal").records.count
                == records.count, "the journal ends where `b`'s group ended")
    }
}
