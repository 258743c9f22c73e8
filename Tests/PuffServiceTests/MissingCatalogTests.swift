// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A vault whose `catalog` was deleted (issue 24 item 19): the collections are found from their
/// headers, as for a damaged catalog, so `init` is neither asked for nor able to make a second
/// `login`.
@Suite struct MissingCatalogTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-nocatalog-\(UUID().uuidString)")
        .path

    func service(logs: InMemoryLogHandler = .init()) async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: folder), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: logs), events: { _ in })
    }

    @Test func everyCollectionIsFoundFromItsHeaderAndInitIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let other: CollectionID
        let stash: CollectionID
        do {
            let first = try await service()
            try await first.initialize(passcode: Fixture.passcode("one pass"))
            other = try await first.createCollection(
                label: "Other", passcode: Fixture.passcode("two pass"), isPrivate: false, isHidden: false)
            stash = try await first.createCollection(
                label: "Stash", passcode: Fixture.passcode("hidden pass"), isPrivate: true, isHidden: true)
        }
        #expect(unlink("\(folder)/catalog") == 0)

        let logs = InMemoryLogHandler()
        let service = try await service(logs: logs)
        try #require(await service.isInitialized, "found from the headers, not a vault to init")
        let status = await service.vaultStatus
        #expect(Set(status.collections.map(\.id)) == [CollectionID.login.rawValue, other.rawValue])
        #expect(status.collections.allSatisfy { $0.damage.isEmpty }, "\(status.collections.map(\.damage))")
        #expect(status.problems.isEmpty, "\(status.problems)")
        #expect(await service.readAlias("default") == .login)
        #expect(logs.lines.contains { $0.contains("catalog is missing") }, "\(logs.lines)")
        await #expect(throws: ServiceError.alreadyInitialized) {
            try await service.initialize(passcode: Fixture.passcode("another pass"))
        }
        #expect(try await service.unlock(.login, passcode: Fixture.passcode("one pass")) == .login)
        #expect(try await service.unlock(nil, passcode: Fixture.passcode("hidden pass")) == stash, "hidden still opens")
    }
}
