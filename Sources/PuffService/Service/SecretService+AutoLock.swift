// SPDX-License-Identifier: Apache-2.0
import Logging

/// How long an unlocked collection has been open and unused, for ``AutoLockSettings``.
struct UnlockActivity {
    /// Tells this unlock's timer from one of an earlier unlock that has not noticed yet.
    let token: UInt64
    /// When the collection was unlocked, on the service's ``Timeline``.
    let unlockedAt: Duration
    /// When one of its secrets was last read or written.
    var lastUse: Duration
    /// Sleeps until the next deadline; cancelled when the collection locks.
    var timer: Task<Void, Never>?
}

extension SecretService {
    /// Locks every unlocked collection without a prompt, as a client's `Lock` does (the same
    /// events, keys wiped, hidden collections gone), and logs why. Collections already locked
    /// announce nothing, but take the Lock too: an unlock under way (deriving its key, reading the
    /// journal) is refused when it ends.
    ///
    /// Takes the write turn, so a change already under way lands before the lock.
    ///
    /// - Returns: The collections it locked.
    @discardableResult
    public func lockAll(reason: LockReason) async -> [CollectionID] {
        await beginWrite()
        defer { endWrite() }
        let unlocked = collectionOrder.filter { $0 != .session && collectionStates[$0]?.isLocked == false }
        for id in unlocked { lockNow(id) }
        stopHiddenUnlocks()
        for id in collectionOrder where id != .session && !unlocked.contains(id) {
            guard let vault = collectionStates[id] else { continue }
            finishLocking(vault, vault.lock().filter { $0 == .forgetKey })  // a key kept at start
        }
        logger.notice("Locked every collection", metadata: ["reason": "\(reason)", "collections": "\(unlocked.count)"])
        return unlocked
    }

    /// Starts the clocks of a collection that has just been unlocked (or created unlocked), and
    /// its timer when a limit is on. The in-memory `session` collection never locks.
    func startAutoLock(_ vault: CollectionVault) {
        guard vault.space != nil, !vault.isLocked else { return }
        nextAutoLockToken += 1
        let now = timeline.now
        var activity = UnlockActivity(token: nextAutoLockToken, unlockedAt: now, lastUse: now)
        if let first = autoLock.deadline(unlockedAt: now, lastUse: now) {
            let id = vault.id
            let token = activity.token
            let timeline = self.timeline
            activity.timer = Task { [weak self] in
                var deadline: Duration? = first.time
                while let next = deadline {
                    // Cancellation means the collection locked some other way.
                    guard (try? await timeline.sleep(until: next)) != nil, let service = self else { return }
                    deadline = await service.autoLockIfDue(id, token: token)
                }
            }
        }
        // Open (checked above), so it takes the clocks and cancels an earlier timer.
        vault.startAutoLock(activity)
    }

    /// Notes that a secret of the collection was read or written: its idle time starts again.
    func noteUse(_ vault: CollectionVault) {
        vault.noteUse(at: timeline.now)
    }

    /// How many unlocked collections have an auto-lock timer (tests check that 0 turns limits off).
    package var autoLockTimers: Int {
        collectionStates.values.count { $0.activity?.timer != nil }
    }

    /// Locks the collection when its deadline has passed; otherwise returns the deadline to sleep
    /// until (a use moved it). Nil once there is nothing left to wait for.
    private func autoLockIfDue(_ id: CollectionID, token: UInt64) async -> Duration? {
        flushFastReads()  // reads on the bus thread count as uses
        guard let due = dueDeadline(id, token: token) else { return nil }
        guard due.time <= timeline.now else { return due.time }
        await beginWrite()
        defer { endWrite() }
        // Waiting for the write turn gave a change under way the time to land: it may have used
        // the collection (a new deadline), or a client may have locked it meanwhile.
        guard let due = dueDeadline(id, token: token) else { return nil }
        guard due.time <= timeline.now, let vault = collectionStates[id] else { return due.time }
        logger.info(
            "Collection locked",
            metadata: ["collection.id": "\(vault.isHidden ? "(hidden)" : id.rawValue)", "reason": "\(due.reason)"])
        vault.noteTimerEnded()  // this task is ending; cancelling itself would be pointless
        lockNow(id)
        return nil
    }

    /// The deadline of the unlock that `token` timed, while that unlock lasts.
    private func dueDeadline(_ id: CollectionID, token: UInt64) -> (time: Duration, reason: LockReason)? {
        guard let vault = collectionStates[id], !vault.isLocked, let activity = vault.activity,
            activity.token == token
        else { return nil }
        return autoLock.deadline(unlockedAt: activity.unlockedAt, lastUse: activity.lastUse)
    }
}
