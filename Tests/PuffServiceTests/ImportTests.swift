// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffFormats
import PuffService
import PuffStore
import PuffTesting
import Testing

/// `puffctl import`'s service side (docs/migration.md): one durable batch, the source's times,
/// and a second import of the same source changing nothing.
@Suite struct ImportTests {
    static let caller = Caller(Fixture.alice)

    static func item(
        _ label: String, _ secret: String, attributes: [String: String] = [:], created: UInt64? = nil,
        modified: UInt64? = nil
    ) -> PortableItem {
        PortableItem(
            label: label, attributes: attributes, secret: SecureBytes(unwipedCopyOf: Array(secret.utf8)),
            created: created, modified: modified)
    }

    static let source = [
        item(
            "Mail für Jürgen", "hunter2", attributes: ["service": "mail", "empty": ""], created: 1_000, modified: 2_000),
        item("bank", "1234", attributes: ["service": "bank"], created: 3_000),
        item("no times", "x", attributes: ["k": "v"]),
    ]

    func kinds(_ outcomes: [ImportOutcome]) -> [ImportOutcome.Kind] { outcomes.map(\.kind) }

    @Test func aBatchIsOneJournalAppendAndItemsKeepTheSourcesTimesAndSecrets() async throws {
        let fixture = try await Fixture.persistent()
        let appendsBefore = await fixture.storage.appendCount

        let outcomes = try await fixture.service.importItems(
            Self.source, into: .login, dryRun: false, caller: Self.caller)

        #expect(kinds(outcomes) == [.added, .added, .added])
        #expect(await fixture.storage.appendCount == appendsBefore + 1)
        let ids = outcomes.compactMap(\.item)
        let mail = try await fixture.service.itemInfo(ids[0])
        #expect(mail.label == "Mail für Jürgen")
        #expect(mail.attributes == ["service": "mail", "empty": ""])
        #expect((mail.created, mail.modified) == (1_000, 2_000))
        let bank = try await fixture.service.itemInfo(ids[1])
        #expect((bank.created, bank.modified) == (3_000, 3_000))
        let plain = try await fixture.service.itemInfo(ids[2])
        #expect((plain.created, plain.modified) == (1_700_000_000, 1_700_000_000))
        #expect(try await fixture.read(ids[0]) == "hunter2")

        let restarted = try await fixture.restarted()
        _ = try await restarted.unlock(.login, "correct horse")
        #expect(try await restarted.read(ids[1]) == "1234")
        #expect(try await restarted.service.itemInfo(ids[0]).created == 1_000)
    }

    @Test func importingTheSameSourceTwiceChangesNothingTheSecondTime() async throws {
        let fixture = try await Fixture.persistent()
        let first = try await fixture.service.importItems(Self.source, into: .login, dryRun: false, caller: Self.caller)
        let appendsBefore = await fixture.storage.appendCount

        let second = try await fixture.service.importItems(
            Self.source, into: .login, dryRun: false, caller: Self.caller)

        #expect(kinds(second) == [.unchanged, .unchanged, .unchanged])
        #expect(second.map(\.item) == first.map(\.item))
        #expect(await fixture.storage.appendCount == appendsBefore)
        #expect(await fixture.service.itemIDs(in: .login).count == 3)
    }

    /// gnome-keyring serves an item stored without a schema with the generic `xdg:schema` once it
    /// has reloaded its file, and without one before: the two are the same item, another schema
    /// is not.
    @Test func theGenericSchemaGnomeKeyringAddsAfterAReloadIsTheSameItemAnotherSchemaIsNot() async throws {
        let fixture = try await Fixture.persistent()
        let before = [Self.item("every byte", "x", attributes: ["kind": "bytes"])]
        let first = try await fixture.service.importItems(before, into: .login, dryRun: false, caller: Self.caller)
        let appendsBefore = await fixture.storage.appendCount

        let reloaded = [
            Self.item("every byte", "x", attributes: ["kind": "bytes", "xdg:schema": "org.freedesktop.Secret.Generic"])
        ]
        let second = try await fixture.service.importItems(reloaded, into: .login, dryRun: false, caller: Self.caller)
        let custom = [Self.item("every byte", "x", attributes: ["kind": "bytes", "xdg:schema": "org.example.Custom"])]
        let third = try await fixture.service.importItems(custom, into: .login, dryRun: false, caller: Self.caller)

        #expect(kinds(second) == [.unchanged])
        #expect(second.map(\.item) == first.map(\.item))
        #expect(kinds(third) == [.added])
        #expect(await fixture.storage.appendCount == appendsBefore + 1)
        #expect(await fixture.service.itemIDs(in: .login).count == 2)
    }

    @Test func theSameLabelAndAttributesWithAnotherSecretReplaceTheItemKeepingItsCreated() async throws {
        let fixture = try await Fixture.persistent()
        let first = try await fixture.service.importItems(Self.source, into: .login, dryRun: false, caller: Self.caller)
        let changed = [Self.item("bank", "5678", attributes: ["service": "bank"], created: 9_000, modified: 9_500)]

        let outcomes = try await fixture.service.importItems(changed, into: .login, dryRun: false, caller: Self.caller)

        #expect(kinds(outcomes) == [.replaced])
        #expect(outcomes[0].item == first[1].item)
        let id = try #require(first[1].item)
        #expect(try await fixture.read(id) == "5678")
        let info = try await fixture.service.itemInfo(id)
        #expect((info.created, info.modified) == (3_000, 9_500))
        #expect(await fixture.service.itemIDs(in: .login).count == 3)
    }

    @Test func aDryRunReportsThePlanAndChangesNothing() async throws {
        let fixture = try await Fixture.persistent()
        _ = try await fixture.service.importItems([Self.source[1]], into: .login, dryRun: false, caller: Self.caller)
        let appendsBefore = await fixture.storage.appendCount
        let source = Self.source + [Self.item("bank", "other", attributes: ["service": "bank"])]

        let plan = try await fixture.service.importItems(source, into: .login, dryRun: true, caller: Self.caller)

        #expect(kinds(plan) == [.added, .unchanged, .added, .skipped])
        #expect(plan[3].reason == "an earlier item of the source has the same label and attributes")
        #expect(await fixture.storage.appendCount == appendsBefore)
        #expect(await fixture.service.itemIDs(in: .login).count == 1)
    }

    @Test func anItemOverPuffdsLimitsIsSkippedNamingTheLimitAndTheRestImported() async throws {
        var limits = ServiceLimits()
        limits.labelBytes = 8
        let fixture = try await Fixture.persistent(limits: limits)

        let outcomes = try await fixture.service.importItems(
            [Self.item("far too long a label", "s"), Self.item("short", "s")], into: .login, dryRun: false,
            caller: Self.caller)

        #expect(kinds(outcomes) == [.skipped, .added])
        #expect(outcomes[0].reason == "limit exceeded: a label may hold at most 8 bytes")
    }

    @Test func aLockedCollectionTakesNoImport() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.service.lock([.login])

        let error = await serviceError { () async throws(ServiceError) in
            try await fixture.service.importItems(Self.source, into: .login, dryRun: false, caller: Self.caller)
        }
        #expect(error == .isLocked)
    }

    @Test func everyItemAddedOrReplacedHasItsOwnAuditEntry() async throws {
        let fixture = try await Fixture.persistent()
        _ = try await fixture.service.importItems(Self.source, into: .login, dryRun: false, caller: Self.caller)
        _ = try await fixture.service.importItems(
            [Self.item("bank", "new", attributes: ["service": "bank"])], into: .login, dryRun: false,
            caller: Self.caller)

        let entries = try await fixture.service.auditEntries().entries
        #expect(
            entries.filter { $0.action == .create }.map(\.label).sorted() == ["Mail für Jürgen", "bank", "no times"])
        #expect(entries.filter { $0.action == .replace }.map(\.label) == ["bank"])
    }

    @Test func aFailedWriteChangesNothingAndTheImportCanBeRetried() async throws {
        let fixture = try await Fixture.persistent()
        await fixture.storage.failNextWrite(with: .writeFailed("disk full"))

        let error = await serviceError { () async throws(ServiceError) in
            try await fixture.service.importItems(Self.source, into: .login, dryRun: false, caller: Self.caller)
        }
        #expect(error == .failed("the import could not be saved"))
        #expect(await fixture.service.itemIDs(in: .login).isEmpty)
        let retried = try await fixture.service.importItems(
            Self.source, into: .login, dryRun: false, caller: Self.caller)
        #expect(kinds(retried) == [.added, .added, .added])
    }
}
