// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The keys an unlocked collection holds (design core-reshaped §2).
struct CollectionKeys {
    /// Opens and seals its records.
    let records: SecretSealer
    /// Seals its audit log; nil for the in-memory `session` collection, which keeps none.
    let audit: SecretSealer?
}

/// A collection's lock, writes and trust in the records it holds, as a value changed only by
/// ``apply(_:)``: an event in, the actions it asks for out (design core-reshaped §2). It knows
/// nothing of the service, the store or the bus; ``CollectionVault`` holds one and performs the
/// actions.
struct CollectionState {
    enum Lock {
        case locked
        /// Locked, with `attempts` unlocks under way (a journal read): the first to unwrap the key
        /// opens it. A `Lock` meanwhile stops each of them (``lockCount``).
        case opening(attempts: Int)
        /// Unlocked, with the clocks auto-lock reads once it started them.
        case open(CollectionKeys, activity: UnlockActivity?)
    }

    /// Orthogonal to ``Lock``: a damaged collection may be open, and reads what authenticates.
    enum Writes: Equatable {
        case writable
        /// What reading the journal found wrong (file, offset, why), never empty: no append until
        /// `puffctl repair` (an append would move the head past the evidence).
        case damaged([String])
    }

    /// Whether an unlock may trust the records in memory instead of reading the journal.
    enum Records: Equatable {
        /// As a scan read them: the first unlock checks them against the head sealed under the
        /// record key.
        case unchecked
        /// Checked against the sealed head since they were read (or written since).
        case checked
        /// Not all the journal's (a private collection forgot its items at `Lock`, an item has no
        /// record, the collection moved to a new space): the next unlock reads the journal.
        case incomplete
    }

    private(set) var lock: Lock
    private(set) var writes: Writes
    private(set) var records: Records
    /// The `Lock`s it took. An unlock carries the count it began under (before its key
    /// derivation), and one that a `Lock` came after is refused: a Lock wins over an unlock under
    /// way, whose keys are then never published (a person who locks expects everything locked).
    private(set) var lockCount = 0

    /// A collection known only from its journal, locked.
    init(scannedWith damage: [String]) {
        lock = .locked
        writes = Writes(damage)
        records = .unchecked
    }

    /// A collection read whole with its key (created, or the `session` collection).
    init(openedWith keys: CollectionKeys, damage: [String]) {
        lock = .open(keys, activity: nil)
        writes = Writes(damage)
        records = .checked
    }

    var keys: CollectionKeys? {
        guard case .open(let keys, _) = lock else { return nil }
        return keys
    }

    /// Since when it is unlocked and used, for auto-lock; nil while locked.
    var activity: UnlockActivity? {
        guard case .open(_, let activity) = lock else { return nil }
        return activity
    }

    var isOpen: Bool { keys != nil }

    /// What reading the journal found wrong; empty while writable.
    var damage: [String] {
        guard case .damaged(let findings) = writes else { return [] }
        return findings
    }
}

extension CollectionState.Writes {
    init(_ damage: [String]) {
        self = damage.isEmpty ? .writable : .damaged(damage)
    }
}

/// What happens to a collection (``CollectionState/apply(_:)``).
enum CollectionEvent {
    /// An unlock that began (its key derivation) at ``CollectionState/lockCount`` `since` reads
    /// the collection.
    case unlockStarted(since: Int)
    /// That unlock unwrapped the keys and installed what it read.
    case keyUnwrapped(CollectionKeys, read: UnlockRead, since: Int)
    /// The unlock under way ended without opening the collection.
    case unlockFailed
    /// A `Lock` (a client's, auto-lock's, `puffctl lock`'s), keeping what `retention` says.
    case lockRequested(LockRetention)
    /// The collection goes for good (deleted, or its files are replaced): locked, not announced.
    case closed(LockRetention)
    /// The auto-lock clocks of this unlock started (or started again), with their timer.
    case autoLockStarted(UnlockActivity)
    /// A secret was read or written at `time`: the idle time starts again.
    case used(at: Duration)
    /// The auto-lock timer is ending on its own (it locks the collection next).
    case autoLockTimerEnded
    /// A record that does not open, or damage a compaction found.
    case damageFound([String])
    /// `puffctl repair` rewrote the journal with every record that authenticates.
    case repaired
    /// An open collection moved to its re-keyed space, read whole under the new keys.
    case rekeyed(CollectionKeys, damage: [String])
    /// A locked collection moved to its re-keyed space; the records in memory are the new
    /// journal's unless `keptOld` (the next unlock then reads it).
    case rescanned(damage: [String], keptOld: Bool)
    /// Records another machine appended to a shared collection came in (docs/design/fleet.md
    /// §0). Taken in every state: an open collection authenticated them; a locked one read only
    /// their clear prefixes, so its next unlock reads the journal and authenticates them.
    case appendedElsewhere
}

/// How an unlock read the collection.
enum UnlockRead: Equatable {
    /// From the records in memory, checked against the sealed head: no journal read.
    case inPlace
    /// The journal read whole, with what it found wrong.
    case journal(damage: [String])
}

/// What a lock keeps of a collection's items in memory (Part A item 11: clients see the same
/// after `Lock` as after a restart).
enum LockRetention: Equatable {
    /// Nothing: a private collection.
    case nothing
    /// Item numbers and their records, not what the records show; the blind index unless
    /// `keepsIndex` is false (`never`). `complete` says every item has a record.
    case records(keepsIndex: Bool, complete: Bool)
}

/// What a state change asks for, in order (``CollectionState/apply(_:)``).
enum CollectionAction: Equatable {
    /// Put the record key where the bus thread reads it (``ReadView``).
    case publishKey
    /// Take the key out of the bus thread's reach, before the keys are wiped.
    case unpublishKey
    /// Start the auto-lock clocks (and timer) of an unlock.
    case startAutoLock
    /// Cancel the auto-lock timer of an unlock that ends, or that started again.
    case stopAutoLock(Task<Void, Never>)
    /// Keep the master key where a restart finds it (the kernel keyring).
    case keepKey
    /// Make that keeper forget it.
    case forgetKey
    /// Forget the items and their settings (a private collection).
    case forgetItems
    /// Forget what the key showed of the items: labels, attributes, times, settings, fields.
    case forgetLabels
    /// Forget the blind index; the next unlock builds it again.
    case dropIndex
    /// Give the memory of a journal read whole back to the system.
    case trimMemory
    /// Tell clients the collection locked or unlocked (a hidden one disappears or appears).
    case announce(locked: Bool)
}

/// Why ``CollectionState/apply(_:)`` refused an event; the state did not change.
enum CollectionRefusal: Error, Equatable {
    /// An unlock, or its keys, for a collection another unlock opened already.
    case alreadyOpen
    /// Keys or a failure of an unlock, with none under way (a lock or another unlock ended it).
    case noUnlockUnderWay
    /// An unlock, or its keys, for a collection that took a `Lock` since the unlock began.
    case lockedMeanwhile
    /// New keys for a collection that is not open.
    case notOpen
    /// A locked collection's move for one that is open.
    case notLocked
}

extension CollectionState {
    /// Moves to the state `event` leads to and returns what that asks for, in order.
    ///
    /// - Throws: ``CollectionRefusal`` for an event the state does not take (the state is then
    ///   unchanged): an unlock of an open collection, or one a `Lock` came after, keys or a failure
    ///   with no unlock under way,
    ///   new keys or auto-lock clocks for a locked collection, a locked collection's move for an
    ///   open one. A lock, a use, damage, a repair and records appended elsewhere are taken in
    ///   every state.
    mutating func apply(_ event: CollectionEvent) throws(CollectionRefusal) -> [CollectionAction] {
        switch event {
        case .unlockStarted(let since):
            guard since == lockCount else { throw .lockedMeanwhile }
            switch lock {
            case .locked: lock = .opening(attempts: 1)
            case .opening(let attempts): lock = .opening(attempts: attempts + 1)
            case .open: throw .alreadyOpen
            }
            return []
        case .keyUnwrapped(let keys, let read, let since):
            switch lock {
            case .open: throw .alreadyOpen
            case .locked: throw .noUnlockUnderWay
            case .opening: break
            }
            // A Lock wins: the keys of an unlock it came after go unused (its failure follows).
            guard since == lockCount else { throw .lockedMeanwhile }
            lock = .open(keys, activity: nil)
            records = .checked
            let opened: [CollectionAction] = [.keepKey, .startAutoLock, .announce(locked: false)]
            guard case .journal(let damage) = read else { return [.publishKey] + opened }
            // Reading the whole journal finds all that is wrong with it, and only that.
            writes = Writes(damage)
            return [.publishKey, .trimMemory] + opened
        case .unlockFailed:
            guard case .opening(let attempts) = lock else { throw .noUnlockUnderWay }
            lock = attempts > 1 ? .opening(attempts: attempts - 1) : .locked
            return []
        case .lockRequested(let retention):
            return locking(retention) + [.forgetKey, .announce(locked: true)]
        case .closed(let retention):
            return locking(retention) + [.forgetKey]
        case .autoLockStarted(let activity):
            guard case .open(let keys, let old) = lock else { throw .notOpen }
            lock = .open(keys, activity: activity)
            return old?.timer.map { [.stopAutoLock($0)] } ?? []
        case .used(let time):
            if case .open(let keys, var activity?) = lock {
                activity.lastUse = time
                lock = .open(keys, activity: activity)
            }
            return []
        case .autoLockTimerEnded:
            if case .open(let keys, var activity?) = lock {
                activity.timer = nil
                lock = .open(keys, activity: activity)
            }
            return []
        case .damageFound(let findings):
            var all = damage
            for finding in findings where !all.contains(finding) { all.append(finding) }
            writes = Writes(all)
            return []
        case .repaired:
            writes = .writable
            return []
        case .rekeyed(let keys, let damage):
            guard case .open(_, let activity) = lock else { throw .notOpen }
            lock = .open(keys, activity: activity)
            writes = Writes(damage)
            records = .checked
            return [.publishKey]
        case .rescanned(let damage, let keptOld):
            guard !isOpen else { throw .notLocked }
            writes = Writes(damage)
            records = keptOld ? .incomplete : .unchecked
            return []
        case .appendedElsewhere:
            if !isOpen { records = .incomplete }
            return []
        }
    }

    /// Locks (an unlock under way will be refused its keys) and says what goes from memory with
    /// the keys.
    private mutating func locking(_ retention: LockRetention) -> [CollectionAction] {
        lockCount += 1
        var actions: [CollectionAction] = []
        if case .open(_, let activity) = lock {
            // The key leaves the bus thread's reach first; the keys are wiped after the actions.
            actions = [.unpublishKey] + (activity?.timer.map { [.stopAutoLock($0)] } ?? [])
            lock = .locked
            if case .records(_, let complete) = retention {
                actions.append(.forgetLabels)
                if !complete { records = .incomplete }
            }
        }
        switch retention {
        case .nothing:
            actions += [.forgetItems, .dropIndex]
            records = .incomplete
        case .records(let keepsIndex, _):
            if !keepsIndex { actions.append(.dropIndex) }
        }
        return actions
    }
}
