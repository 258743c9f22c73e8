// SPDX-License-Identifier: Apache-2.0
import Logging
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
        for entry in entries {
            let keys = Set(try #require(entry.variantDictionary).keys)
            #expect(keys.union(policyKeys) == Set(ControlContract.Key.collectionStatus))
        }
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
