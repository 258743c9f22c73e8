// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffOpenBao
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Transit slots (issue 29, docs/fleet.md "Transit slots") against a real `bao server -dev`: a
/// machine whose token may decrypt with the transit key opens the collection with no person;
/// one whose policy lost `transit/decrypt/<key>`, or that cannot reach OpenBao, is refused with
/// the reason and the collection stays locked, while its passcode still opens it.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct TransitSlotTests {
    static let caller = Caller(Fixture.alice, executable: "/usr/bin/puffctl")
    static let passcode = "mail passcode"
    static let key = "puff-team"
    static let both = #"""
        path "transit/encrypt/puff-team" { capabilities = ["update"] }
        path "transit/decrypt/puff-team" { capabilities = ["update"] }
        """#
    static let encryptOnly = #"path "transit/encrypt/puff-team" { capabilities = ["update"] }"#

    /// A server with the transit key and a machine token under policy `machine`, allowed both.
    static func server() async throws -> (BaoServer, OpenBaoTransit) {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: key)
        let name = try await bao.policy("machine", both)
        let client = try bao.client(token: try await bao.token(policies: [name]))
        return (bao, OpenBaoTransit(client: client, keyName: key))
    }

    /// A persistent vault with `Mail` holding one item and a transit slot, locked.
    static func mail(_ transit: OpenBaoTransit) async throws -> (Fixture, CollectionID, ItemID) {
        let fixture = try await Fixture.persistent(transit: transit)
        let id = try await fixture.makeCollection("Mail", passcode: passcode)
        let item = try await fixture.store(["service": "imap"], secret: "mail secret", in: id)
        _ = try await fixture.service.addSlot(
            to: id, kind: .transit, options: SlotOptions(label: "fleet"), proof: .typed(Fixture.passcode(passcode)),
            caller: caller)
        try await fixture.service.lock([id])
        return (fixture, id, item)
    }

    @Test func aTransitSlotOpensTheCollectionAfterARestartWithNoPerson() async throws {
        let (bao, transit) = try await Self.server()
        let (fixture, id, item) = try await Self.mail(transit)
        #expect(
            try await fixture.service.slots(of: id).last
                == SlotInfo(id: 2, kind: .transit, label: "fleet", transitKey: Self.key))

        let restarted = try await fixture.restarted(transit: transit)
        #expect(try await restarted.service.collectionInfo(id).isLocked)
        #expect(await restarted.service.unlockWithoutPerson() == [id])
        #expect(try await restarted.holds(item, "mail secret"))
        _ = bao
    }

    @Test func aMachineWhosePolicyLostDecryptIsRefusedWithTheReasonWhileThePasscodeStillOpens() async throws {
        let (bao, transit) = try await Self.server()
        let (fixture, id, item) = try await Self.mail(transit)
        try await bao.policy("machine", Self.encryptOnly)

        let restarted = try await fixture.restarted(transit: transit)
        #expect(await restarted.service.unlockWithoutPerson() == [])
        let error = await serviceError { () throws(ServiceError) in
            try await restarted.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        #expect(
            error
                == .hardware(
                    .transit(
                        "OpenBao at \(bao.address) refused to decrypt with transit key 'puff-team' (permission denied: "
                            + "this machine's token lacks transit/decrypt/puff-team)")))
        #expect(try await restarted.service.collectionInfo(id).isLocked)
        try await restarted.unlock(id, Self.passcode)
        #expect(try await restarted.holds(item, "mail secret"))
    }

    @Test func anUnreachableOpenBaoFailsTheSlotNamingTheAddressWhileThePasscodeStillOpens() async throws {
        let (bao, transit) = try await Self.server()
        let (fixture, id, item) = try await Self.mail(transit)
        bao.goOffline()

        let restarted = try await fixture.restarted(transit: transit)
        #expect(await restarted.service.unlockWithoutPerson() == [])
        let error = await serviceError { () throws(ServiceError) in
            try await restarted.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        guard case .hardware(.transit(let reason))? = error else {
            Issue.record("expected a transit refusal, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("OpenBao at \(bao.address) is unreachable: "), "\(reason)")
        #expect(try await restarted.service.collectionInfo(id).isLocked)
        try await restarted.unlock(id, Self.passcode)
        #expect(try await restarted.holds(item, "mail secret"))
    }

    @Test func aThiefWithTheHeaderFindsOnlyOpenBaosCiphertextNotTheKeyItWraps() async throws {
        let (bao, transit) = try await Self.server()
        let (fixture, id, _) = try await Self.mail(transit)
        let space = try await fixture.space(of: id)
        let bytes = try await fixture.storage.header(of: space)
        let header = try VaultHeader(decoding: bytes)
        let slot = try #require(header.slots.first { $0.kind == .transit })
        guard case .transit(let wrapped) = slot.parameters else {
            Issue.record("not a transit slot: \(slot.parameters)")
            return
        }
        #expect(wrapped.key == Self.key && wrapped.ciphertext.hasPrefix("vault:v1:"))
        // What OpenBao alone turns the ciphertext into: the slot's key, found nowhere in the header.
        let secret = try await bao.client().decrypt(wrapped.ciphertext, key: Self.key).unprotectedArray()
        #expect(secret.count == 32)
        #expect(!Self.contains(Array(bytes), secret))
        // …and it is a key-encrypting key: the master key itself never went to OpenBao.
        let kek = SlotKeys.kek(from: SecureBytes(unwipedCopyOf: secret), kind: KeySlot.Kind.transit.rawValue)
        let master = try header.unwrapMaster(slot, kek: kek)
        try header.verifyMAC(with: master)
    }

    @Test func addingATransitSlotWithNoKeyConfiguredNamesTheSetting() async throws {
        let (bao, _) = try await Self.server()
        let transit = OpenBaoTransit(client: try bao.client(), keyName: nil)
        let fixture = try await Fixture.persistent(transit: transit)
        let id = try await fixture.makeCollection("Mail", passcode: Self.passcode)
        let error = await serviceError { () throws(ServiceError) in
            _ = try await fixture.service.addSlot(
                to: id, kind: .transit, options: SlotOptions(), proof: .typed(Fixture.passcode(Self.passcode)),
                caller: Self.caller)
        }
        #expect(error == .invalidArgument("no transit key is configured: set transit_key in [store.openbao]"))
        #expect(try await fixture.service.slots(of: id).map(\.kind) == [.passcode])
    }

    @Test func aClientsUnlockOpensWithoutAQuestionAndAsksThePasscodeOnceDecryptIsRevoked() async throws {
        let (bao, transit) = try await Self.server()
        let fixture = try await Fixture(
            script: [.reply(.passcode(Fixture.passcode(Self.passcode)))], mode: .persistent(kdf: .interactive),
            transit: transit)
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        let id = try await fixture.makeCollection("Mail", passcode: Self.passcode)
        _ = try await fixture.service.addSlot(
            to: id, kind: .transit, options: SlotOptions(), proof: .typed(Fixture.passcode(Self.passcode)),
            caller: Self.caller)
        try await fixture.service.lock([id])
        _ = fixture.recorder.drain()

        _ = try await UnlockPromptSlotTests.startUnlock(id, in: fixture)
        #expect(try await !UnlockPromptSlotTests.completion(of: fixture))
        #expect(try await !UnlockPromptSlotTests.locked(id, fixture))
        #expect(await fixture.prompter.requests.isEmpty)

        try await fixture.service.lock([id])
        try await bao.policy("machine", Self.encryptOnly)
        _ = fixture.recorder.drain()
        _ = try await UnlockPromptSlotTests.startUnlock(id, in: fixture)
        #expect(try await !UnlockPromptSlotTests.completion(of: fixture))
        #expect(await fixture.prompter.requests.map(\.purpose) == [.unlock(collection: id, label: "Mail")])
        #expect(try await !UnlockPromptSlotTests.locked(id, fixture))
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
