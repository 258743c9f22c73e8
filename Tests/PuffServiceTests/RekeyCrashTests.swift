// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A re-key stopped at every durable step, as a crash would stop it, then the vault opened again
/// (docs/vault-format.md, "Re-keying"): each time exactly one collection is there, whole, under
/// exactly one of the two passcodes, with its audit log, and nothing of the other is left.
@Suite struct RekeyCrashTests {
    static let secrets = ["alpha": "first secret", "beta": "second secret"]

    /// What the re-keyed collection is: `login` with its one passcode slot, a hidden one, or
    /// `login` with three slots (passcode, tpm2, recovery), all kept by the re-key (issue 26).
    enum Target: CaseIterable, Sendable {
        case visible, hidden, threeSlots
    }

    /// A service over the vault in `folder`, keeping audit logs there as puffd does.
    static func service(_ store: FileRecordStore, _ folder: String, tpm: FakeTPM? = nil) async throws -> SecretService {
        try await SecretService(
            store: store, mode: .persistent(kdf: .interactive), prompter: ScriptedPrompter([]),
            promptTimeout: .seconds(30), tpm: tpm, audit: try FileAuditStore(folder: folder), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }

    /// Which of `passcodes` unwraps each header in `folder` (none, or the passcode), by space.
    static func passcodes(
        _ passcodes: [String], openingHeadersIn store: FileRecordStore
    ) async throws -> [SpaceID: String?] {
        var found: [SpaceID: String?] = [:]
        for space in try await store.spaces() {
            let header = try VaultHeader(decoding: try await store.header(of: space))
            found[space] = passcodes.first { HeaderKeys.open(header, passcode: $0) != nil }
        }
        return found
    }

    @Test(arguments: Target.allCases)
    func aCrashAtAnyStepLeavesEitherTheOldCollectionOrTheNewOneWhole(target kind: Target) async throws {
        let hidden = kind == .hidden
        let tpm = FakeTPM()
        var outcomes: [String] = []
        for step in 1...20 {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "puff-rekey-\(UUID().uuidString)"
            )
            .path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var items: [String: ItemID] = [:]
            let target: CollectionID
            let crashed: Bool
            var recovery: SecureBytes?
            do {
                let store = try FileRecordStore(folder: folder)
                let service = try await Self.service(store, folder, tpm: tpm)
                try await service.initialize(passcode: Fixture.passcode(hidden ? "login pass" : "old pass"))
                target =
                    hidden
                    ? try await service.createCollection(
                        label: "Stash", passcode: Fixture.passcode("old pass"), isPrivate: true, isHidden: true)
                    : .login
                let session = try await service.openSession(
                    algorithm: "plain", input: .string(""), client: Fixture.alice
                ).session
                for (name, secret) in Self.secrets.sorted(by: { $0.key < $1.key }) {
                    items[name] = try await service.createItem(
                        in: target, label: name, attributes: ["name": name], type: "",
                        secret: Fixture.plain(Array(secret.utf8), session: session), replace: true,
                        client: Fixture.alice)
                }
                var options = RekeyOptions()
                if kind == .threeSlots {
                    let caller = Caller(Fixture.alice)
                    _ = try await service.addSlot(
                        to: target, kind: .tpm2, options: SlotOptions(), proof: .typed(Fixture.passcode("old pass")),
                        caller: caller)
                    recovery = try await service.addSlot(
                        to: target, kind: .recovery, options: SlotOptions(),
                        proof: .typed(Fixture.passcode("old pass")),
                        caller: caller
                    ).recoveryCode
                    options.recoveryCode = recovery
                }
                await service.flushAudit()
                await store.crash(afterSteps: step)
                _ = try? await service.changePasscode(
                    of: target, proof: .typed(Fixture.passcode("old pass")), new: Fixture.passcode("new pass"),
                    options: options)
                crashed = await store.hasCrashed
            }

            let store = try await FileRecordStore.reopening(folder: folder)
            let service = try await Self.service(store, folder, tpm: tpm)
            let opening = try await Self.passcodes(["old pass", "new pass", "login pass"], openingHeadersIn: store)
            let copies = opening.filter { $0.value != "login pass" }
            #expect(copies.count == 1, "step \(step): exactly one copy of the collection, not \(copies.count)")
            #expect(opening.values.allSatisfy { $0 != nil }, "step \(step): every header opens")
            guard copies.count == 1, let passcode = copies.first?.value ?? nil else { continue }
            #expect(crashed || passcode == "new pass", "step \(step): a change that ran through took effect")
            outcomes.append(passcode)

            let status = await service.vaultStatus
            #expect(status.problems.isEmpty, "step \(step): \(status.problems)")
            #expect(status.collections.allSatisfy { $0.damage.isEmpty }, "step \(step)")
            #expect(status.collections.filter { $0.id == CollectionID.login.rawValue }.count == 1, "step \(step)")
            if let recovery {
                // Each of the three slots opens the one copy left, old or new.
                #expect(await service.unlockWithoutPerson() == [target], "step \(step): the tpm2 slot opens it")
                try await service.lock([target])
                #expect(try await service.unlock(target, with: .typed(recovery)) == target, "step \(step): recovery")
                try await service.lock([target])
                let header = try VaultHeader(decoding: try await store.header(of: try #require(copies.first?.key)))
                #expect(header.slots.map(\.kind) == [.passcode, .tpm2, .recovery], "step \(step): every slot kept")
            }
            #expect(try await service.unlock(hidden ? nil : .login, passcode: Fixture.passcode(passcode)) == target)
            let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
                .session
            for (name, item) in items {
                let read = try await service.secret(of: item, session: session, caller: Caller(Fixture.alice))
                let intact = read.value.unprotectedArray() == Array((Self.secrets[name] ?? "").utf8)
                #expect(intact, "step \(step): \(name) intact")
            }
            let audit = try await service.auditEntries(collection: target)
            #expect(audit.problems.isEmpty, "step \(step): \(audit.problems)")
            #expect(audit.entries.filter { $0.action == .create }.count == 2, "step \(step): the log came along")

            // Nothing of the other copy is left: every space-named file belongs to a header.
            let spaces = Set(opening.keys.map(\.hex))
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            let strays = names.filter { name in
                guard let dot = name.firstIndex(of: "."), name[..<dot].count == 32 else { return false }
                return !spaces.contains(String(name[..<dot])) || name.hasSuffix(".replaces") || name.hasSuffix(".tmp")
            }
            #expect(strays.isEmpty, "step \(step): \(strays)")
            if !crashed { break }
        }
        #expect(outcomes.contains("old pass") && outcomes.contains("new pass"), "\(outcomes)")
        #expect(outcomes.last == "new pass")
        #expect(outcomes.count >= 5, "every step was tried: \(outcomes)")
    }
}
