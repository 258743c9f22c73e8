// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffTesting
import Testing

/// `[items] unique_internet`: one internet password per server, user, protocol and port in a
/// collection, a second store replacing the first (issue 16, item 2). ReplaceRuleTests covers the
/// default rule with real clients.
@Suite struct UniqueInternetTests {
    static let unique = ItemRules(uniqueInternet: true)

    /// git's attributes (NetworkPassword in git 2.39) for `https://alice@github.com[:port]/path`.
    static func git(path: String, user: String = "alice", port: String? = nil) -> Attributes {
        var attributes: Attributes = [
            "xdg:schema": InternetMapper.networkPasswordSchema, "protocol": "https", "server": "github.com",
            "user": user, "object": path,
        ]
        attributes["port"] = port
        return attributes
    }

    @Test func withTheRuleOnTheSameKeyReplacesTheFirstItemKeepingItsPathAndCreated() async throws {
        let fixture = try await Fixture(itemRules: Self.unique)
        let created = fixture.time.now()
        let first = try await fixture.store(Self.git(path: "a/one.git"), secret: "first", label: "one")
        fixture.time.advance(by: 60)
        _ = fixture.recorder.drain()
        let second = try await fixture.store(Self.git(path: "b/two.git"), secret: "second", label: "two")
        #expect(second == first)
        #expect(await fixture.service.itemIDs(in: .login) == [first])
        let info = try await fixture.service.itemInfo(first)
        #expect(info.attributes == Self.git(path: "b/two.git"))
        #expect(info.label == "two" && info.created == created && info.modified == created + 60)
        let replaced = try await fixture.read(first) == "second"
        #expect(replaced, "the item holds the second secret")
        let events = fixture.recorder.drain()
        #expect(events.count == 1)
        guard case .itemChanged(let id, _)? = events.first else {
            Issue.record("expected one itemChanged, got \(events.count) events")
            return
        }
        #expect(id == first)
        // The index follows the new attributes: the old path finds nothing, the new one the item.
        #expect(try await fixture.service.searchItems(["object": "a/one.git"]).unlocked.isEmpty)
        #expect(try await fixture.service.searchItems(["object": "b/two.git"]).unlocked == [first])
    }

    @Test func withTheRuleOnADifferentUserOrPortIsASecondItem() async throws {
        let fixture = try await Fixture(itemRules: Self.unique)
        let first = try await fixture.store(Self.git(path: "x"))
        let otherUser = try await fixture.store(Self.git(path: "x", user: "bob"))
        let otherPort = try await fixture.store(Self.git(path: "x", port: "8443"))
        #expect(Set([first, otherUser, otherPort]).count == 3)
        #expect(try await fixture.store(Self.git(path: "y", port: "8443")) == otherPort)
        #expect(await fixture.service.itemIDs(in: .login).count == 3)
    }

    @Test func withTheRuleOnReplaceFalseReplacesTooAndGenericItemsKeepTheDefaultRule() async throws {
        let fixture = try await Fixture(itemRules: Self.unique)
        let first = try await fixture.store(Self.git(path: "x"))
        #expect(try await fixture.store(Self.git(path: "y"), replace: false) == first)
        let generic = try await fixture.store(["service": "svc", "username": "u"])
        let superset = try await fixture.store(["service": "svc", "username": "u", "extra": "1"])
        #expect(generic != superset)
        #expect(await fixture.service.itemIDs(in: .login).count == 3)
    }

    @Test func withTheRuleOffTheSameKeyIsASecondItemAndOnlyTheIdenticalSetReplaces() async throws {
        let fixture = try await Fixture()
        let first = try await fixture.store(Self.git(path: "a/one.git"), secret: "first")
        let second = try await fixture.store(Self.git(path: "b/two.git"), secret: "second")
        #expect(first != second)
        #expect(try await fixture.store(Self.git(path: "b/two.git"), secret: "third") == second)
        #expect(await fixture.service.itemIDs(in: .login) == [first, second])
        let kept = try await fixture.read(first) == "first"
        #expect(kept, "the first item keeps its secret")
    }

    @Test func theRuleIsPerCollection() async throws {
        let fixture = try await Fixture(itemRules: Self.unique)
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let inLogin = try await fixture.store(Self.git(path: "x"))
        let inWork = try await fixture.store(Self.git(path: "y"), in: work)
        #expect(inLogin.collection == .login && inWork.collection == work)
        #expect(await fixture.service.itemIDs(in: .login) == [inLogin])
    }

    @Test func aReplacementUnderTheRuleSurvivesARestartAsOneItemWithTheNewAttributes() async throws {
        let fixture = try await Fixture(mode: .persistent(kdf: .interactive), itemRules: Self.unique)
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        let first = try await fixture.store(Self.git(path: "a"))
        #expect(try await fixture.store(Self.git(path: "b")) == first)
        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.searchItems(["object": "a"]).locked.isEmpty)
        try await restarted.unlock(.login, "correct horse")
        #expect(await restarted.service.itemIDs(in: .login) == [first])
        #expect(try await restarted.service.itemInfo(first).attributes == Self.git(path: "b"))
    }
}
