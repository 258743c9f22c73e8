// SPDX-License-Identifier: Apache-2.0
import PuffStore
import Testing

@testable import PuffService

/// A locked collection shows clients the same after `Lock` as after a restart (issue 24 item 23):
/// item numbers, found through the blind index; no labels, attributes or times.
struct LockedViewTests {
    @Test func aLockedItemShowsTheSameAfterLockAsAfterARestartAndEverythingAgainOnceUnlocked() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["service": "mail", "user": "alice"], secret: "secret", label: "Mail")
        try await fixture.service.lock([.login])
        let afterLock = try await fixture.service.itemInfo(item)
        let collectionAfterLock = try await fixture.service.collectionInfo(.login)
        let found = try await fixture.service.searchItems(["user": "alice"], in: .login)
        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.itemInfo(item) == afterLock)
        #expect(try await restarted.service.collectionInfo(.login) == collectionAfterLock)
        #expect(try await restarted.service.searchItems(["user": "alice"], in: .login) == found)
        #expect(found == [item], "the blind index still finds it")
        #expect(afterLock.label == "" && afterLock.attributes.isEmpty && afterLock.created == 0)

        try await fixture.unlock(.login, "correct horse")
        let opened = try await fixture.service.itemInfo(item)
        #expect(opened.label == "Mail" && opened.attributes == ["service": "mail", "user": "alice"])
        #expect(try await fixture.read(item) == "secret", "the secret opens from the journal read again")
    }
}
