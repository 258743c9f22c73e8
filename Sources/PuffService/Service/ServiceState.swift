// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// A collection as the service holds it: the persisted records plus the lock state.
struct CollectionState: Sendable {
    var record: StoredCollection
    var items: [UInt64: StoredItem]
    /// Item numbers in creation order (numbers only grow, so this is also ascending).
    var order: [UInt64]
    var isLocked = false

    init(record: StoredCollection, items: [UInt64: StoredItem]) {
        self.items = items
        self.order = items.keys.sorted()
        var record = record
        // Never hand out a number a stored item already has, even if the counter was not saved.
        record.nextItemNumber = max(record.nextItemNumber, (order.last ?? 0) + 1, 1)
        self.record = record
    }
}

/// An open transfer session.
struct Session: Sendable {
    enum Transport: Sendable {
        case plain
        /// The AES key agreed by DH; dropped (and wiped) when the session goes.
        case dh(key: SecureBytes)
    }

    let owner: ClientID
    let transport: Transport
}

/// A prompt handed out by `Unlock` that has not completed yet.
struct PendingPrompt: Sendable {
    /// A locked collection and the caller's spelling that led to it.
    struct Target: Sendable {
        let collection: CollectionID
        let spelling: String
    }

    let owner: ClientID
    let targets: [Target]
    /// Runs the prompter; set by `startPrompt`.
    var work: Task<Void, Never>?
    /// Dismisses the prompt when the timeout expires.
    var timer: Task<Void, Never>?
}
