// SPDX-License-Identifier: Apache-2.0
import PuffClient
import PuffDBus
import PuffProtocol
import Testing

/// puffctl's names for what it sends and its reading of what it receives are the wire
/// contract's (PuffProtocol), which puffd writes with too.
struct ContractNamesTests {
    @Test func theArgumentsPolicyAndSearchNamesAreTheContracts() {
        #expect(PolicyName.allCases.map(\.rawValue) == PasscodePolicyName.allCases.map(\.rawValue))
        #expect(LockedSearchMode.allCases.map(\.rawValue) == LockedSearchName.allCases.map(\.rawValue))
    }

    @Test func aStatusReplyWithEveryContractKeyFillsEveryField() throws {
        typealias Key = ControlContract.Key
        let vault: [(String, DBusValue)] = [
            (Key.initialized, .boolean(true)), (Key.store, .string("file")), (Key.dataDirectory, .string("/d")),
            (Key.version, .string("9")), (Key.prompter, .string("agent")), (Key.problems, .strings(["p"])),
        ]
        let collection: [(String, DBusValue)] = [
            (Key.id, .string("work")), (Key.label, .string("Work")), (Key.locked, .boolean(false)),
            (Key.items, .uint32(3)), (Key.isPrivate, .boolean(true)), (Key.hidden, .boolean(true)),
            (Key.isDefault, .boolean(true)), (Key.damaged, .string("bad")), (Key.store, .string("file")),
            (Key.lockedSearch, .string("never")), (Key.indexKey, .string("tpm2")),
            (Key.searchWaitsForUnlock, .boolean(true)), (Key.policy, .string("digits6")),
            (Key.minimumLength, .uint32(6)), (Key.policyText, .string("6 digits")),
            (Key.sharedName, .string("team")), (Key.online, .boolean(false)), (Key.checkedAt, .uint64(5)),
            (Key.reachedAt, .uint64(4)), (Key.offlineReason, .string("gone")),
        ]
        #expect(vault.map(\.0) == Key.vaultStatus)
        #expect(Set(collection.map(\.0)) == Set(Key.collectionStatus))
        let status = try VaultStatus(reply: [
            Replies.dictionary(vault), .array(element: "a{sv}", [Replies.dictionary(collection)]),
        ])
        #expect(status.isInitialized && status.store == "file" && status.dataDirectory == "/d")
        #expect(status.version == "9" && status.prompter == "agent" && status.problems == ["p"])
        var expected = CollectionStatus(
            id: "work", label: "Work", isLocked: false, itemCount: 3, isPrivate: true, isHidden: true, isDefault: true,
            damage: "bad", store: "file", policy: "digits6", minimumLength: 6, policyText: "6 digits")
        expected.lockedSearch = "never"
        expected.indexKey = "tpm2"
        expected.searchWaitsForUnlock = true
        expected.shared = SharedStatus(name: "team", online: false, checkedAt: 5, reachedAt: 4, reason: "gone")
        #expect(status.collections == [expected])
    }
}
