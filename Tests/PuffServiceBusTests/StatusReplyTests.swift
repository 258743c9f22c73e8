// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore
import PuffTesting
import Testing

@testable import PuffServiceBus

/// `Status` as puffd writes it: exactly the records the wire contract declares, which puffctl
/// reads with the same keys.
struct StatusReplyTests {
    @Test func theStatusReplyCarriesExactlyTheContractsKeys() async throws {
        let logger = Logger(label: "status", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = try await SecretService(
            store: MemoryRecordStore(), mode: .ephemeral, prompter: DismissingPrompter(logger: logger),
            promptTimeout: .seconds(30), now: { 1 }, logger: logger, events: { _ in })
        let reply = await service.vaultStatus.controlReply(prompter: "none")
        #expect(reply.count == 2)
        let vault = try #require(reply.first?.variantDictionary)
        #expect(Set(vault.keys) == Set(ControlContract.Key.vaultStatus))
        guard case .array(_, let entries)? = reply.last else {
            Issue.record("the collections are not an array")
            return
        }
        #expect(entries.count == 1)  // login; the session collection is not listed
        let policyKeys: Set = [
            ControlContract.Key.policy, ControlContract.Key.minimumLength, ControlContract.Key.policyText,
        ]
        let sharedKeys = Set(ControlContract.Key.sharedStatus)
        for entry in entries {
            let keys = Set(try #require(entry.variantDictionary).keys)
            #expect(keys.union(policyKeys).union(sharedKeys) == Set(ControlContract.Key.collectionStatus))
            #expect(keys.isDisjoint(with: sharedKeys), "login is this vault's alone")
        }
    }

    @Test func aFleetCollectionsRecordNamesItsSharedStoreAndHowItAnswered() async throws {
        let logger = Logger(label: "status", factory: { _ in SwiftLogNoOpLogHandler() })
        let log = MemoryFleetLog()
        let service = try await SecretService(
            store: FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: log),
            mode: .persistent(kdf: .interactive), prompter: DismissingPrompter(logger: logger),
            promptTimeout: .seconds(30), now: { 1_700_000_000 }, logger: logger, events: { _ in })
        try await service.initialize(passcode: SecureBytes(unwipedCopyOf: Array("vault passcode".utf8)))
        try await service.shareCollection(.login, as: "team")
        func record() async throws -> [String: DBusValue] {
            let reply = await service.vaultStatus.controlReply(prompter: "none")
            guard case .array(_, let entries)? = reply.last else { throw StatusReplyShape.notAnArray }
            return try #require(entries.first?.variantDictionary)
        }
        let untried = try await record()
        #expect(untried[ControlContract.Key.store]?.string == "memory", "the shared store's kind, not the vault's")
        #expect(untried[ControlContract.Key.sharedName]?.string == "team")
        #expect(untried[ControlContract.Key.online] == nil, "not tried yet")
        #expect(Self.number(untried[ControlContract.Key.reachedAt]) == 0)

        await log.setReachable(false)
        #expect(await service.pullAllShared() == false)
        let offline = try await record()
        #expect(offline[ControlContract.Key.online]?.bool == false)
        #expect(Self.number(offline[ControlContract.Key.checkedAt]) == 1_700_000_000)
        #expect(
            offline[ControlContract.Key.offlineReason]?.string
                == "memory-fleet cannot be reached (a test made it unreachable)")

        await log.setReachable(true)
        #expect(await service.pullAllShared())
        let online = try await record()
        #expect(online[ControlContract.Key.online]?.bool == true)
        #expect(Self.number(online[ControlContract.Key.reachedAt]) == 1_700_000_000)
        #expect(online[ControlContract.Key.offlineReason]?.string == "")
        #expect(Set(online.keys).isSuperset(of: ControlContract.Key.sharedStatus))
    }

    enum StatusReplyShape: Error { case notAnArray }

    /// The number of a `t` value.
    static func number(_ value: DBusValue?) -> UInt64? {
        if case .uint64(let number)? = value { number } else { nil }
    }

    @Test func aPolicyIsWrittenWithTheContractsKeys() {
        #expect(
            Set(PasscodePolicy.digits6.statusEntries.keys) == [
                ControlContract.Key.policy, ControlContract.Key.minimumLength, ControlContract.Key.policyText,
            ])
    }

    @Test func theServicesPolicyAndSearchNamesAreTheContracts() {
        #expect(PasscodePolicy.names == PasscodePolicyName.allCases.map(\.rawValue))
        let modes = LockedSearch.allCases.map(\.description)
        #expect(
            modes + [LockedSearchName.tpm2.rawValue]
                == [
                    LockedSearchName.always, .afterUnlock, .never, .tpm2,
                ].map(\.rawValue))
        for name in LockedSearchName.allCases { #expect(LockedSearch.named(name.rawValue) != nil, "\(name)") }
    }
}
