// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffService

/// A collection's state as a value (issue 27 item 1, design core-reshaped §2): events in, actions
/// out, with no service, no store and no bus.
@Suite struct CollectionTests {
    static let keys = CollectionKeys(records: SecretSealer(), audit: SecretSealer())
    static let keeps = LockRetention.records(keepsIndex: true, complete: true)
    /// An auto-lock timer that does nothing: the state only hands it back to be cancelled.
    static let timer = Task<Void, Never> {}
    static let clocks = UnlockActivity(token: 1, unlockedAt: .seconds(10), lastUse: .seconds(10), timer: timer)

    /// A collection scanned at start and opened by one unlock.
    static func opened(_ read: UnlockRead = .inPlace) throws -> CollectionState {
        var state = CollectionState(scannedWith: [])
        _ = try state.apply(.unlockStarted(since: 0))
        _ = try state.apply(.keyUnwrapped(keys, read: read, since: 0))
        _ = try state.apply(.autoLockStarted(clocks))
        return state
    }

    @Test func anUnlockOpensInPlaceAndAsksToPublishKeepTimeAndAnnounce() throws {
        var state = CollectionState(scannedWith: [])
        #expect(!state.isOpen && state.records == .unchecked)
        #expect(try state.apply(.unlockStarted(since: 0)) == [])
        guard case .opening(attempts: 1) = state.lock else {
            Issue.record("an unlock under way is opening, was \(state.lock)")
            return
        }
        #expect(!state.isOpen)
        let actions = try state.apply(.keyUnwrapped(Self.keys, read: .inPlace, since: 0))
        #expect(actions == [.publishKey, .keepKey, .startAutoLock, .announce(locked: false)])
        #expect(state.isOpen && state.records == .checked && state.writes == .writable)
    }

    @Test func anUnlockThatReadTheJournalTrimsMemoryAndTakesTheDamageItFound() throws {
        var state = CollectionState(scannedWith: ["journal: record 3 is not the one the head names"])
        _ = try state.apply(.unlockStarted(since: 0))
        let actions = try state.apply(
            .keyUnwrapped(Self.keys, read: .journal(damage: ["journal: cut at 120"]), since: 0))
        #expect(actions == [.publishKey, .trimMemory, .keepKey, .startAutoLock, .announce(locked: false)])
        #expect(state.damage == ["journal: cut at 120"], "the whole read replaces what the scan guessed")
        let clean = try Self.opened(.journal(damage: []))
        #expect(clean.writes == .writable)
    }

    @Test func aDamagedCollectionStaysOpenAndReadableUntilRepairedAndLocksAsAnyOther() throws {
        var state = try Self.opened()
        #expect(try state.apply(.damageFound(["item 4's record does not authenticate"])) == [])
        #expect(try state.apply(.damageFound(["item 4's record does not authenticate", "cut"])) == [])
        #expect(state.isOpen, "damage stops writes, not reads")
        #expect(state.keys != nil)
        #expect(state.writes == .damaged(["item 4's record does not authenticate", "cut"]))
        #expect(try state.apply(.repaired) == [])
        #expect(state.writes == .writable && state.isOpen)
        _ = try state.apply(.damageFound(["again"]))
        _ = try state.apply(.lockRequested(Self.keeps))
        #expect(!state.isOpen && state.damage == ["again"], "a lock does not repair")
        #expect(try state.apply(.damageFound([])) == [] && state.damage == ["again"])
    }

    @Test func aLockUnpublishesTheKeyBeforeAnythingElseAndForgetsWhatTheKeyShowed() throws {
        var state = try Self.opened()
        let actions = try state.apply(.lockRequested(Self.keeps))
        #expect(
            actions == [.unpublishKey, .stopAutoLock(Self.timer), .forgetLabels, .forgetKey, .announce(locked: true)])
        #expect(state.keys == nil && state.records == .checked)
        guard case .locked = state.lock else {
            Issue.record("a lock of an open collection locks it, was \(state.lock)")
            return
        }
    }

    @Test func whatALockForgetsFollowsTheRetentionTheHeaderGives() throws {
        var never = try Self.opened()
        #expect(
            try never.apply(.lockRequested(.records(keepsIndex: false, complete: true)))
                == [
                    .unpublishKey, .stopAutoLock(Self.timer), .forgetLabels, .dropIndex, .forgetKey,
                    .announce(locked: true),
                ])
        var unrecorded = try Self.opened()
        _ = try unrecorded.apply(.lockRequested(.records(keepsIndex: true, complete: false)))
        #expect(unrecorded.records == .incomplete, "an item without a record sends the next unlock to the journal")
        var privately = try Self.opened()
        #expect(
            try privately.apply(.closed(.nothing))
                == [.unpublishKey, .stopAutoLock(Self.timer), .forgetItems, .dropIndex, .forgetKey])
        #expect(privately.records == .incomplete)
    }

    @Test func aLockOfALockedCollectionTouchesNoKeyButStillForgetsAndAnnounces() throws {
        var state = CollectionState(scannedWith: [])
        #expect(try state.apply(.lockRequested(Self.keeps)) == [.forgetKey, .announce(locked: true)])
        #expect(
            try state.apply(.lockRequested(.nothing)) == [
                .forgetItems, .dropIndex, .forgetKey, .announce(locked: true),
            ])
        #expect(state.records == .incomplete)
    }

    @Test func twoUnlocksUnderWayCountApartAndTheLastFailureLeavesItLocked() throws {
        var state = CollectionState(scannedWith: [])
        _ = try state.apply(.unlockStarted(since: 0))
        _ = try state.apply(.unlockStarted(since: 0))
        #expect(try state.apply(.unlockFailed) == [])
        guard case .opening(attempts: 1) = state.lock else {
            Issue.record("one attempt is still under way, was \(state.lock)")
            return
        }
        _ = try state.apply(.keyUnwrapped(Self.keys, read: .inPlace, since: 0))
        #expect(state.isOpen)
        var failed = CollectionState(scannedWith: [])
        _ = try failed.apply(.unlockStarted(since: 0))
        _ = try failed.apply(.unlockFailed)
        guard case .locked = failed.lock else {
            Issue.record("the only attempt failed: locked, was \(failed.lock)")
            return
        }
    }

    @Test func aLockDuringAnUnlockWinsItsKeysAreRefusedAndAnUnlockBegunAfterTheLockOpens() throws {
        var state = CollectionState(scannedWith: [])
        let before = state.lockCount
        _ = try state.apply(.unlockStarted(since: before))
        _ = try state.apply(.lockRequested(Self.keeps))
        let after = state.lockCount
        #expect(after == before + 1)
        _ = try state.apply(.unlockStarted(since: after))
        #expect(throws: CollectionRefusal.lockedMeanwhile) {
            try state.apply(.keyUnwrapped(Self.keys, read: .inPlace, since: before))
        }
        #expect(!state.isOpen && state.keys == nil, "the late keys are not taken")
        #expect(try state.apply(.unlockFailed) == [], "the refused unlock ends as a failure")
        guard case .opening(attempts: 1) = state.lock else {
            Issue.record("the unlock begun after the Lock is still under way, was \(state.lock)")
            return
        }
        let actions = try state.apply(.keyUnwrapped(Self.keys, read: .inPlace, since: after))
        #expect(actions == [.publishKey, .keepKey, .startAutoLock, .announce(locked: false)])
        #expect(state.isOpen)
        // One still deriving its key when the Lock came does not start reading the journal.
        var deriving = CollectionState(scannedWith: [])
        let ticket = deriving.lockCount
        _ = try deriving.apply(.lockRequested(.nothing))
        #expect(throws: CollectionRefusal.lockedMeanwhile) { try deriving.apply(.unlockStarted(since: ticket)) }
        guard case .locked = deriving.lock else {
            Issue.record("a refused start changes nothing, was \(deriving.lock)")
            return
        }
    }

    @Test func illegalEventsAreRefusedByNameAndChangeNothing() throws {
        var open = try Self.opened()
        #expect(throws: CollectionRefusal.alreadyOpen) { try open.apply(.unlockStarted(since: 0)) }
        #expect(throws: CollectionRefusal.alreadyOpen) {
            try open.apply(.keyUnwrapped(Self.keys, read: .inPlace, since: 0))
        }
        #expect(throws: CollectionRefusal.noUnlockUnderWay) { try open.apply(.unlockFailed) }
        #expect(throws: CollectionRefusal.notLocked) { try open.apply(.rescanned(damage: [], keptOld: false)) }
        #expect(open.isOpen && open.records == .checked)
        var locked = CollectionState(scannedWith: ["cut"])
        #expect(throws: CollectionRefusal.noUnlockUnderWay) {
            try locked.apply(.keyUnwrapped(Self.keys, read: .journal(damage: []), since: 0))
        }
        #expect(throws: CollectionRefusal.noUnlockUnderWay) { try locked.apply(.unlockFailed) }
        #expect(throws: CollectionRefusal.notOpen) { try locked.apply(.rekeyed(Self.keys, damage: [])) }
        #expect(!locked.isOpen && locked.damage == ["cut"] && locked.records == .unchecked)
    }

    @Test func aRekeyInstallsTheNewKeysAndRepublishesAndAMoveWhileLockedSaysWhatToRead() throws {
        var open = try Self.opened()
        let newKeys = CollectionKeys(records: SecretSealer(), audit: nil)
        #expect(try open.apply(.rekeyed(newKeys, damage: [])) == [.publishKey])
        #expect(open.keys?.audit == nil, "the new keys, not the old ones")
        var locked = CollectionState(scannedWith: [])
        _ = try locked.apply(.lockRequested(Self.keeps))
        #expect(try locked.apply(.rescanned(damage: ["d"], keptOld: true)) == [])
        #expect(locked.records == .incomplete && locked.damage == ["d"])
        #expect(try locked.apply(.rescanned(damage: [], keptOld: false)) == [])
        #expect(locked.records == .unchecked && locked.writes == .writable)
    }

    @Test func aCollectionCreatedOpenIsCheckedAndLocksLikeAnyOther() throws {
        var state = CollectionState(openedWith: Self.keys, damage: [])
        #expect(state.isOpen && state.records == .checked && state.activity == nil)
        #expect(try state.apply(.closed(Self.keeps)) == [.unpublishKey, .forgetLabels, .forgetKey])
        #expect(!state.isOpen)
    }

    @Test func autoLockClocksLiveOnlyWhileOpenAndARestartOrALockCancelsTheirTimer() throws {
        var state = try Self.opened()
        #expect(try state.apply(.used(at: .seconds(25))) == [])
        #expect(state.activity?.lastUse == .seconds(25) && state.activity?.unlockedAt == .seconds(10))
        let later = Task<Void, Never> {}
        let again = UnlockActivity(token: 2, unlockedAt: .seconds(30), lastUse: .seconds(30), timer: later)
        #expect(try state.apply(.autoLockStarted(again)) == [.stopAutoLock(Self.timer)])
        #expect(try state.apply(.autoLockTimerEnded) == [])
        #expect(state.activity?.token == 2 && state.activity?.timer == nil)
        #expect(
            try state.apply(.lockRequested(Self.keeps)) == [
                .unpublishKey, .forgetLabels, .forgetKey, .announce(locked: true),
            ])
        #expect(state.activity == nil)
        #expect(throws: CollectionRefusal.notOpen) { try state.apply(.autoLockStarted(Self.clocks)) }
        #expect(try state.apply(.used(at: .seconds(40))) == [] && state.activity == nil)
    }
}
