// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The audit log as the service keeps it: one entry per secret read and item change, with the
/// caller, sealed per collection, readable only while the collection is unlocked.
struct AuditTests {
    static let tool = Caller(Fixture.alice, executable: "/usr/bin/secret-tool", pid: 4242)
    static let secret = "hunter2-audit-secret"

    /// What `puffctl audit` would list as (action, result, label).
    private func summary(_ report: AuditReport) -> [String] {
        report.entries.map { "\($0.action) \($0.result) \($0.label)" }
    }

    @Test func everyReadAndItemChangeIsOneEntryWithTheCaller() async throws {
        let fixture = try await Fixture.persistent()
        let service = fixture.service
        let session = try await fixture.plainSession()
        let secret = Fixture.plain(Array(Self.secret.utf8), session: session)
        let id = try await service.createItem(
            in: .login, label: "GitHub", attributes: ["host": "github.com"], type: "", secret: secret,
            replace: true, client: Fixture.alice, caller: Self.tool)
        _ = try await service.secret(of: id, session: session, caller: Self.tool)
        _ = try await service.secrets(for: [id], session: session, caller: Self.tool)
        try await service.setSecret(secret, of: id, client: Fixture.alice, caller: Self.tool)
        try await service.setAttributes(["host": "github.com", "user": "alice"], of: id, caller: Self.tool)
        try await service.setLabel("GitHub (alice)", of: id, caller: Self.tool)
        try await service.setType("org.example.Password", of: id, caller: Self.tool)
        _ = try await service.createItem(
            in: .login, label: "GitHub again", attributes: ["host": "github.com", "user": "alice"], type: "",
            secret: secret, replace: true, client: Fixture.alice, caller: Self.tool)
        try await service.deleteItem(id, caller: Self.tool)

        let report = try await service.auditEntries()
        #expect(
            summary(report) == [
                "create allowed GitHub", "read allowed GitHub", "read allowed GitHub",
                "change-secret allowed GitHub", "change-attributes allowed GitHub",
                "change-label allowed GitHub (alice)", "change-type allowed GitHub (alice)",
                "replace allowed GitHub again", "delete allowed GitHub again",
            ])
        for entry in report.entries {
            #expect(entry.collection == .login)
            #expect(entry.item == id.number)
            #expect(entry.executable == "/usr/bin/secret-tool")
            #expect(entry.client == Fixture.alice.rawValue)
            #expect(entry.pid == 4242)
            #expect(entry.time == 1_700_000_000)
        }
        #expect(report.locked.isEmpty)
        #expect(report.problems.isEmpty)
    }

    @Test func oneGetSecretsCallWritesTheEntriesOfAllItsReadsTogether() async throws {
        let fixture = try await Fixture.persistent()
        var ids: [ItemID] = []
        for number in 1...5 { ids.append(try await fixture.store(["n": "\(number)"], label: "item \(number)")) }
        let session = try await fixture.plainSession()
        let before = fixture.audit.writeCount
        let read = try await fixture.service.secrets(for: ids, session: session, caller: Self.tool)
        #expect(read.count == 5)
        #expect(fixture.audit.writeCount == before + 1)
        let reads = try await fixture.service.auditEntries().entries.filter { $0.action == .read }
        #expect(reads.map(\.label) == (1...5).map { "item \($0)" })
    }

    @Test func anAccessGateRecordsRefusedAndDismissedReadsOfKnownItemsOnly() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], label: "Protected")
        await fixture.service.recordRead(id, caller: Self.tool, result: .refused)
        await fixture.service.recordRead(id, caller: Self.tool, result: .dismissed)
        await fixture.service.recordRead(ItemID(collection: .login, number: 99), caller: Self.tool, result: .refused)
        let report = try await fixture.service.auditEntries()
        #expect(
            summary(report) == ["create allowed Protected", "read refused Protected", "read dismissed Protected"])
        // The fixture's own store call has no executable: the bus name stands in.
        #expect(report.entries.map(\.executable) == [nil, "/usr/bin/secret-tool", "/usr/bin/secret-tool"])
    }

    @Test func aChangeThatCannotBeSavedIsRecordedAsFailed() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], label: "Item")
        await fixture.storage.failNextWrite()
        #expect(
            await serviceError { () throws(ServiceError) in try await fixture.service.setLabel("New", of: id) } != nil)
        #expect(
            summary(try await fixture.service.auditEntries()) == ["create allowed Item", "change-label failed New"])
    }

    @Test func aLockedCollectionsLogIsNamedUnreadableAndReadsAgainAfterUnlock() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work passcode")
        try await fixture.store(["a": "1"], label: "In login")
        try await fixture.store(["b": "2"], label: "In work", in: work)
        try await fixture.service.lock([work])

        let locked = try await fixture.service.auditEntries()
        #expect(locked.locked == [work])
        #expect(summary(locked) == ["create allowed In login"])

        try await fixture.unlock(work, "work passcode")
        let unlocked = try await fixture.service.auditEntries(collection: work)
        #expect(summary(unlocked) == ["create allowed In work"])
        #expect(unlocked.locked.isEmpty)
    }

    @Test func entriesOutliveARestartAndNewOnesFollowThemInOrder() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], label: "Kept")
        #expect(try await fixture.holds(id, "s3cret"))

        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.auditEntries().locked == [.login])
        try await restarted.unlock(.login, "correct horse")
        #expect(try await restarted.holds(id, "s3cret"))
        let report = try await restarted.service.auditEntries()
        #expect(summary(report) == ["create allowed Kept", "read allowed Kept", "read allowed Kept"])
        #expect(report.problems.isEmpty)
    }

    @Test func theSessionCollectionIsNotAudited() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], in: .session)
        #expect(try await fixture.holds(id, "s3cret"))
        #expect(try await fixture.service.auditEntries().entries.isEmpty)
        #expect(fixture.audit.spaces.count == 0)
    }

    @Test func theLogHoldsNeitherTheSecretNorTheLabelInTheClear() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], secret: Self.secret, label: "Visible label")
        #expect(try await fixture.holds(id, Self.secret))
        let space = try await fixture.space(of: .login)
        let bytes = fixture.audit.entries(of: space).records.flatMap { $0 }
        #expect(!bytes.isEmpty)
        let containsSecret = bytes.contains(subsequence: Array(Self.secret.utf8))
        #expect(containsSecret == false)
        #expect(bytes.contains(subsequence: Array("Visible label".utf8)) == false)
    }

    @Test func reorderedEntriesAreReportedNotShownInTheirNewPlace() async throws {
        let fixture = try await Fixture.persistent()
        for label in ["one", "two", "three"] { try await fixture.store(["l": label], label: label) }
        let space = try await fixture.space(of: .login)
        let records = fixture.audit.entries(of: space).records
        fixture.audit.setEntries([records[0], records[2], records[1]], of: space)
        let report = try await fixture.service.auditEntries()
        #expect(summary(report) == ["create allowed one", "create allowed three"])
        #expect(report.problems.map(\.reason) == ["1 entries are out of order; 1 entries are missing"])
    }

    @Test func aLogMovedToAnotherCollectionOpensNothing() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work passcode")
        try await fixture.store(["a": "1"], label: "In login")
        let login = try await fixture.space(of: .login)
        fixture.audit.setEntries(fixture.audit.entries(of: login).records, of: try await fixture.space(of: work))
        let report = try await fixture.service.auditEntries(collection: work)
        #expect(report.entries.isEmpty)
        #expect(report.problems.map(\.reason) == ["1 entries do not open under this collection's key"])
    }

    @Test func rotationKeepsTheNewestEntriesWithoutReportingAGap() async throws {
        let fixture = try await Fixture.persistent(audit: MemoryAuditStore(limit: 2000))
        let id = try await fixture.store(["a": "1"], label: "Busy")
        for _ in 0..<100 { _ = try await fixture.read(id) }
        let report = try await fixture.service.auditEntries()
        #expect(report.entries.count > 5)
        #expect(report.entries.count < 40)
        #expect(report.entries.allSatisfy { $0.action == .read })
        #expect(report.problems.isEmpty)
    }

    @Test func deletingACollectionKeepsItsLogWithItAndRecordsTheDeletion() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work passcode")
        try await fixture.store(["a": "1"], in: work)
        let space = try await fixture.space(of: work)
        let before = try fixture.audit.entries(of: space).records.count
        _ = try await fixture.service.deleteCollection(work, passcode: nil, caller: .daemon)
        #expect(try fixture.audit.entries(of: space).records.count == before + 1, "the deletion is one more entry")
    }

    @Test func entriesSinceATimeLeaveOlderOnesOut() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.store(["a": "1"], label: "Old")
        fixture.time.advance(by: 1000)
        try await fixture.store(["b": "2"], label: "New")
        #expect(summary(try await fixture.service.auditEntries(since: 1_700_000_500)) == ["create allowed New"])
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
