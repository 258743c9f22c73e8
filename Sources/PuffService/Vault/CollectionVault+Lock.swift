// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension CollectionVault {
    /// Applies `event` to ``state`` and performs the actions that are the vault's own.
    ///
    /// - Returns: The actions left for the service (keeping or forgetting the master key, the
    ///   auto-lock clock, trimming memory, announcing), in order.
    /// - Throws: ``CollectionRefusal`` when the state does not take `event`; nothing changed.
    @discardableResult
    func send(_ event: CollectionEvent) throws(CollectionRefusal) -> [CollectionAction] {
        perform(try applied(event))
    }

    /// ``send(_:)`` for an event every state takes: a lock, a use, damage, a repair, a pull.
    @discardableResult
    private func take(_ event: CollectionEvent) -> [CollectionAction] {
        do {
            return try send(event)
        } catch {
            preconditionFailure("a lock, a use, damage, a repair and a pull are taken in every state (CollectionTests)")
        }
    }

    /// Performs the vault's own `actions` in order and returns the service's.
    @discardableResult
    func perform(_ actions: [CollectionAction]) -> [CollectionAction] {
        var left: [CollectionAction] = []
        for action in actions {
            switch action {
            case .publishKey: publishKey()
            case .unpublishKey:
                publishKey()
                afterUnpublishing?()
            case .stopAutoLock(let timer): timer.cancel()
            case .forgetItems:
                table = ItemTable()
                settings = [:]
            case .forgetLabels: forgetLabels()
            case .dropIndex: dropIndex()
            case .startAutoLock, .keepKey, .forgetKey, .trimMemory, .announce: left.append(action)
            }
        }
        return left
    }

    /// Locks: the key leaves the bus thread's reach (``ReadView``), then the keys are wiped and
    /// the auto-lock timer stopped. The collection also forgets what it shows of its items, so
    /// that clients see the same after `Lock` as after a restart (Part A item 11): a private one
    /// everything, another one all but item numbers and the blind index (which a `never`
    /// collection drops too).
    ///
    /// - Parameter forGood: The collection goes (deleted, or its files replaced): not announced.
    /// - Returns: What the service does next (``perform(_:)``).
    @discardableResult
    func lock(forGood: Bool = false) -> [CollectionAction] {
        headerKey = nil
        let retention: LockRetention =
            isPrivate
            ? .nothing
            : .records(
                keepsIndex: lockedSearch != .never,
                complete: !isOpen || table.allSatisfy { !$0.record.isNone })
        // The keys a lock drops live until its actions ran: the bus thread loses the key first.
        return withExtendedLifetime(state) {
            take(forGood ? .closed(retention) : .lockRequested(retention))
        }
    }

    /// Starts the auto-lock clocks of an open collection (cancelling an earlier timer); false,
    /// changing nothing, when it is locked.
    @discardableResult
    func startAutoLock(_ activity: UnlockActivity) -> Bool {
        (try? send(.autoLockStarted(activity))) != nil
    }

    /// Notes a use at `time`: auto-lock's idle clock starts again.
    func noteUse(at time: Duration) { take(.used(at: time)) }

    /// Notes that the auto-lock timer is ending on its own, so the lock it makes cancels nothing.
    func noteTimerEnded() { take(.autoLockTimerEnded) }

    /// Names damage found in the journal or a record: the collection takes no writes.
    func noteDamage(_ findings: [String]) { take(.damageFound(findings)) }

    /// Notes that `puffctl repair` rewrote the journal: the collection takes writes again.
    func noteRepaired() { take(.repaired) }

    /// Notes records another machine appended (a pull): a locked collection's next unlock reads
    /// the journal, and an unlock reading it now reads it again (``pulls``).
    func noteAppendedElsewhere() {
        pulls += 1
        take(.appendedElsewhere)
    }

    /// Keeps only what a collection read from its journal without a key shows: item numbers (with
    /// blank labels, no attributes, times 0) and their records, the blind index, and its id as its
    /// label.
    private func forgetLabels() {
        var blank = ItemTable()
        for number in table.numbers {
            var item = StoredItem(
                collection: id.rawValue, number: number, label: "", attributes: [:], type: "", contentType: "",
                sealedSecret: [], created: 0, modified: 0)
            item.record = table[number]?.record ?? .none
            item.isOpened = false
            blank[number] = item
        }
        table = blank
        openedItems.removeAll()
        settings = [:]
        fields = CollectionFields(
            id: id.rawValue, label: id.rawValue, created: 0, modified: 0, nextItemNumber: fields.nextItemNumber,
            aliases: [])
    }
}
