// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// An open transfer session.
struct Session: Sendable {
    enum Transport: Sendable {
        case plain
        /// The AES key agreed by DH; dropped (and wiped) when the session goes.
        case dh(key: SecureBytes)
    }

    let owner: ClientID
    let transport: Transport
    /// When the session last carried a secret (or opened), on the service's use counter; the
    /// least recently used one of a client goes first when the client needs room.
    var lastUse: UInt64
}

/// A prompt handed out by `Unlock`, `CreateCollection` or `ChangeWithPrompt` that has not
/// completed yet.
struct PendingPrompt: Sendable {
    /// A locked collection and the reference that led to it.
    struct Target: Sendable {
        let collection: CollectionID
        let reference: ObjectReference
    }

    /// What approving the prompt does.
    enum Action: Sendable {
        /// Unlock these collections.
        case unlock([Target])
        /// Create a collection under a new passcode (the vault's first one when it has none yet).
        case create(label: String, alias: String?)
        /// Change this collection's passcode.
        case changePasscode(CollectionID)
        /// Delete this collection, once the person confirms.
        case delete(CollectionID)

        /// The typed empty result `Completed(true, …)` carries (secret-service.md §6.11).
        var dismissedResult: PromptResult {
            switch self {
            case .unlock: .objects([])
            case .create: .collection(nil)
            case .changePasscode, .delete: .none
            }
        }
    }

    let owner: ClientID
    let action: Action
    /// Runs the prompter; set by `startPrompt`.
    var work: Task<Void, Never>?
    /// Dismisses the prompt when the timeout expires.
    var timer: Task<Void, Never>?
}
