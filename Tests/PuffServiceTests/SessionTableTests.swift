// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffService

struct SessionTableTests {
    private let alice = ClientID(":1.1")
    private let bob = ClientID(":1.2")

    private func limits(perClient: Int, total: Int) -> ServiceLimits {
        var limits = ServiceLimits()
        limits.sessionsPerClient = perClient
        limits.sessions = total
        return limits
    }

    @Test func aClientAtItsLimitLosesItsLeastRecentlyUsedSessionNotItsNewest() throws {
        var table = SessionTable()
        let limits = limits(perClient: 2, total: 10)
        let first = table.open(.plain, for: alice)
        let second = table.open(.plain, for: alice)
        _ = try table.use(first, client: alice)  // `second` is now the least recently used
        let closed = try table.makeRoom(for: alice, limits: limits)
        #expect(closed == second)
        #expect(table.contains(first))
        #expect(!table.contains(second))
        #expect(throws: ServiceError.noSession) { try table.use(second, client: alice) }
    }

    @Test func anotherClientsSessionsAreNeverClosedToMakeRoom() throws {
        var table = SessionTable()
        let limits = limits(perClient: 1, total: 10)
        let bobs = table.open(.plain, for: bob)
        let alices = table.open(.plain, for: alice)
        #expect(try table.makeRoom(for: alice, limits: limits) == alices)
        #expect(table.contains(bobs))
    }

    @Test func theServiceWideLimitRefusesInsteadOfClosingSomeoneElsesSession() throws {
        var table = SessionTable()
        let limits = limits(perClient: 5, total: 2)
        _ = table.open(.plain, for: bob)
        _ = table.open(.plain, for: bob)
        #expect(throws: ServiceError.limitExceeded("at most 2 sessions may be open at once")) {
            try table.makeRoom(for: alice, limits: limits)
        }
        #expect(table.count == 2)
    }

    @Test func aSessionOfAnotherClientCannotBeUsedAndIsDeniedOnClose() throws {
        var table = SessionTable()
        let id = table.open(.plain, for: alice)
        #expect(throws: ServiceError.noSession) { try table.use(id, client: bob) }
        #expect(throws: ServiceError.accessDenied) { try table.close(id, client: bob) }
        try table.close(id, client: alice)
        #expect(throws: ServiceError.noSession) { try table.close(id, client: alice) }
    }

    @Test func aClientThatLeftHasNoSessionsAndItsCountStartsAgainFromZero() throws {
        var table = SessionTable()
        let limits = limits(perClient: 1, total: 10)
        _ = table.open(.plain, for: alice)
        let bobs = table.open(.plain, for: bob)
        table.forget(alice)
        #expect(table.count == 1)
        #expect(table.contains(bobs))
        // Had the count stayed at 1, this would close a session instead of finding room.
        _ = table.open(.plain, for: alice)
        table.forget(alice)
        #expect(try table.makeRoom(for: alice, limits: limits) == nil)
    }

    @Test func sessionIdentifiersAreNeverReused() throws {
        var table = SessionTable()
        let first = table.open(.plain, for: alice)
        try table.close(first, client: alice)
        #expect(table.open(.plain, for: alice) != first)
    }
}

struct PromptBookTests {
    private let alice = ClientID(":1.1")
    private let bob = ClientID(":1.2")

    private func limits(perClient: Int, total: Int) -> ServiceLimits {
        var limits = ServiceLimits()
        limits.promptsPerClient = perClient
        limits.prompts = total
        return limits
    }

    @Test func aClientAtItsLimitIsRefusedWhileOthersStillGetPrompts() throws {
        var book = PromptBook()
        let limits = limits(perClient: 1, total: 10)
        _ = try book.add(.delete(CollectionID("a")), owner: alice, limits: limits)
        #expect(throws: ServiceError.limitExceeded("a connection may have at most 1 prompts waiting")) {
            try book.add(.delete(CollectionID("b")), owner: alice, limits: limits)
        }
        _ = try book.add(.delete(CollectionID("b")), owner: bob, limits: limits)
        #expect(book.count == 2)
    }

    @Test func theServiceWideLimitRefusesEveryone() throws {
        var book = PromptBook()
        let limits = limits(perClient: 5, total: 1)
        _ = try book.add(.delete(CollectionID("a")), owner: bob, limits: limits)
        #expect(throws: ServiceError.limitExceeded("at most 1 prompts may wait at once")) {
            try book.add(.delete(CollectionID("a")), owner: alice, limits: limits)
        }
    }

    @Test func aPromptIsRemovedOnceAndItsOwnersCountFallsWithIt() throws {
        var book = PromptBook()
        let limits = limits(perClient: 1, total: 10)
        let id = try book.add(.delete(CollectionID("a")), owner: alice, limits: limits)
        #expect(book.remove(id)?.owner == alice)
        #expect(book.remove(id) == nil)
        // Room again for alice: the count fell with the removal.
        _ = try book.add(.delete(CollectionID("a")), owner: alice, limits: limits)
    }

    @Test func aClientThatLeftLeavesNoPromptsAndAnUpdateDoesNotBringOneBack() throws {
        var book = PromptBook()
        let limits = limits(perClient: 2, total: 10)
        let alices = try book.add(.delete(CollectionID("a")), owner: alice, limits: limits)
        let bobs = try book.add(.delete(CollectionID("b")), owner: bob, limits: limits)
        let gone = book.forget(alice)
        #expect(gone.map(\.id) == [alices])
        #expect(book[alices] == nil)
        #expect(book[bobs] != nil)
        book.update(alices, PendingPrompt(owner: alice, action: .delete(CollectionID("a"))))
        #expect(book[alices] == nil)
    }
}
