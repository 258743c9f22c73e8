// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import PuffStore
import PuffSystem
import PuffTesting
import Testing

/// An index snapshot of an item with both settings kinds: listed once per record, kind 4 first
/// (so a puffd from before kind 5 keeps the kind 5 record, fails to open it in place and reports
/// the damage: docs/vault-format.md "Versioning"), and opened again in place with both.
extension IndexSnapshotTests {
    @Test func aSnapshotListsAnItemsKindFourRecordBeforeItsKindFiveOneAndUnlocksWithBoth() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = AppID(rawValue: "org.example.App")!
        do {
            let (service, _) = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            let item = try await store("a", "1", in: service)
            // Kind 5 written first, kind 4 after it.
            try await service.setAppAccess(false, for: app, of: item)
            try await service.setProtected(true, of: item)
            await service.saveIndexSnapshots()
        }
        let snapshot = try #require(IndexSnapshot(decoding: [UInt8](try Data(contentsOf: try file(".index")))))
        #expect(snapshot.settings == [1, 1])
        #expect(snapshot.located.settingsRecords.map(\.first) == [4, 5])

        let (service, store) = try await service()
        #expect(store.wholeReplays == 0)
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(
            try await service.accessEntries([ItemID(collection: .login, number: 1)]).first?.settings
                == ItemSettings(isProtected: true, appRules: [.init(app: app, allows: false)]))
    }
}
