// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A fleet collection's header changed on one machine reaches the other (docs/design/fleet.md
/// §5): a passcode changed (`passwd`, which changes the passcode slot and not the key), a slot
/// added or removed. The other takes it at its pull when unlocked, at its unlock when locked,
/// and only when it authenticates under the collection's key: a planted header, or an older one
/// put back, is refused with a logged reason and the collection goes on as before.
@Suite struct SharedHeaderTests {
    static let team = SharedPair.team
    static let newPasscode = "battery staple horse"
    static let caller = SlotUnlockTests.caller

    /// `passwd team` on `a`.
    func passwd(_ pair: SharedPair) async throws {
        try await pair.a.service.changePasscode(
            of: Self.team, old: Fixture.passcode(SharedPair.passcode), new: Fixture.passcode(Self.newPasscode))
    }

    /// Adds a passcode slot opened by `passcode` to `team` on `fixture`.
    func addSpare(_ fixture: Fixture, _ passcode: String = "spare passcode") async throws -> KeySlot.ID {
        try await fixture.service.addSlot(
            to: Self.team, kind: .passcode,
            options: SlotOptions(label: "spare", newPasscode: Fixture.passcode(passcode)),
            proof: SlotUnlockTests.proof(SharedPair.passcode), caller: Self.caller
        ).id
    }

    @Test func passwdOnOneMachineKeepsTheKeyAndTheOtherOpensWithTheNewPasscodeAndNotTheOld() async throws {
        let pair = try await SharedPair.make(lockedOnB: true)
        let item = try await pair.a.share(["n": "1"], "kept")
        let before = try await pair.b.storage.header(of: pair.space)
        try await passwd(pair)
        #expect(try await pair.a.space(of: Self.team) == pair.space, "not re-keyed: the same space and key")
        #expect(try await pair.a.holds(item, "kept"))
        let onA = try await pair.a.storage.header(of: pair.space)
        #expect(await pair.log.storedHeader(of: "team")?.bytes == onA, "the new header is in the shared store")

        try await pair.b.service.pullShared(Self.team)
        #expect(try await pair.b.storage.header(of: pair.space) == before, "locked: nothing to check it by yet")
        try await pair.b.unlock(Self.team, Self.newPasscode)
        #expect(try await pair.b.storage.header(of: pair.space) == onA, "taken once the new passcode opened it")
        #expect(try await pair.b.holds(item, "kept"))

        try await pair.b.service.lock([Self.team])
        let old = await pair.b.failure(after: .zero) { () throws(ServiceError) in
            try await pair.b.unlock(Self.team, SharedPair.passcode)
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
    }

    @Test func theOldPasscodeTriedFirstTakesTheNewHeaderAndIsRefusedByIt() async throws {
        let pair = try await SharedPair.make(lockedOnB: true)
        try await passwd(pair)
        let old = await pair.b.failure(after: .zero) { () throws(ServiceError) in
            try await pair.b.unlock(Self.team, SharedPair.passcode)
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await pair.b.storage.header(of: pair.space) == pair.a.storage.header(of: pair.space))
        let new = await pair.b.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await pair.b.unlock(Self.team, Self.newPasscode)
        }
        #expect(new == nil)
    }

    @Test func aSlotAddedAndRemovedOnOneMachineIsTakenByTheOthersPullWhileUnlocked() async throws {
        let pair = try await SharedPair.make()
        let spare = try await addSpare(pair.a)
        try await pair.b.service.pullShared(Self.team)
        #expect(try await pair.b.service.slots(of: Self.team).map(\.id) == [1, spare])

        try await pair.a.service.removeSlot(
            spare, from: Self.team, proof: SlotUnlockTests.proof(SharedPair.passcode), caller: Self.caller)
        try await pair.b.service.pullShared(Self.team)
        #expect(try await pair.b.service.slots(of: Self.team).map(\.id) == [1])
        #expect(try await pair.b.storage.header(of: pair.space) == pair.a.storage.header(of: pair.space))
        try await pair.b.service.lock([Self.team])
        let removed = await pair.b.failure(after: .zero) { () throws(ServiceError) in
            try await pair.b.unlock(Self.team, "spare passcode")
        }
        #expect(removed == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
    }

    @Test func slotsAddedOnBothMachinesAtOnceAreBothKept() async throws {
        let pair = try await SharedPair.make()
        let onA = try await addSpare(pair.a, "spare of a")
        // b has not pulled: its change takes a's header first, then adds to it.
        let onB = try await addSpare(pair.b, "spare of b")
        #expect(onB == onA + 1)
        try await pair.a.service.pullShared(Self.team)
        for fixture in [pair.a, pair.b] {
            #expect(try await fixture.service.slots(of: Self.team).map(\.id) == [1, onA, onB])
        }
    }

    @Test func aHeaderPlantedWithoutTheKeyIsRefusedLoggedAndTheCollectionGoesOn() async throws {
        let pair = try await SharedPair.make()
        let before = try await pair.b.storage.header(of: pair.space)
        var forged = try VaultHeader(decoding: before)
        forged.slots[0].label = "planted"
        await pair.log.plant(header: forged.encoded(), of: "team")

        try await pair.b.service.pullShared(Self.team)
        #expect(try await pair.b.storage.header(of: pair.space) == before)
        #expect(try await pair.b.service.slots(of: Self.team).map(\.label) == ["passcode"])
        #expect(
            pair.b.logs.lines.contains {
                $0.contains("header in the shared store was refused") && $0.contains("does not authenticate")
            })
        let item = try await pair.b.share(["n": "1"], "still written")
        try await pair.a.service.pullShared(Self.team)
        #expect(try await pair.a.holds(item, "still written"))
        try await pair.b.service.lock([Self.team])
        try await pair.b.unlock(Self.team, SharedPair.passcode)
        #expect(try await pair.b.storage.header(of: pair.space) == before)
    }

    @Test func anOlderHeaderPutBackIsRefusedAndItsRemovedSlotOpensNothing() async throws {
        let pair = try await SharedPair.make()
        let spare = try await addSpare(pair.a)
        let withSpare = try await pair.a.storage.header(of: pair.space)
        try await pair.a.service.removeSlot(
            spare, from: Self.team, proof: SlotUnlockTests.proof(SharedPair.passcode), caller: Self.caller)
        try await pair.b.service.pullShared(Self.team)
        let current = try await pair.b.storage.header(of: pair.space)
        try await pair.b.service.lock([Self.team])
        await pair.log.plant(header: withSpare, of: "team")

        // Its spare slot opens it, under the collection's own key: only the slot ids tell.
        let error = await pair.b.failure(after: .zero) { () throws(ServiceError) in
            try await pair.b.unlock(Self.team, "spare passcode")
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await pair.b.storage.header(of: pair.space) == current)
        #expect(pair.b.logs.lines.contains { $0.contains("was refused") && $0.contains("an older header put back") })
        let opened = await pair.b.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await pair.b.unlock(Self.team, SharedPair.passcode)
        }
        #expect(opened == nil)
    }
}
