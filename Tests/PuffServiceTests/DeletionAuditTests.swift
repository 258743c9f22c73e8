// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

@testable import PuffService

/// A deleted collection is named in the audit logs of the collections still open: its own log
/// goes aside with it, and a locked one's cannot take an entry at all (its key is gone).
struct DeletionAuditTests {
    @Test func aLockedCollectionDeletedThroughAConfirmedPromptIsNamedInTheOpenCollectionsLog() async throws {
        let fixture = try await Fixture(script: [.reply(.confirmed)], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        try await fixture.store(["a": "1"])
        let work = try await fixture.makeCollection("Work", passcode: "work passcode")
        try await fixture.service.lock([.login])
        let mallory = ClientID(":1.66")
        let prompt = try #require(try await fixture.service.deleteCollection(.login, caller: Caller(mallory)))
        try await fixture.service.startPrompt(prompt, windowID: "", client: mallory)
        #expect(await poll(limit: HangGuard.step) { await !fixture.service.collections.contains(.login) })

        let entries = try await fixture.service.auditEntries(collection: work).entries
        let deletions = entries.filter { $0.action == .deleteCollection }
        #expect(deletions.map(\.label) == ["collection login"])
        #expect(deletions.map(\.result) == [.allowed])
        #expect(deletions.map(\.client) == [mallory.rawValue])
    }
}
