// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Asks the person at the keyboard. Chosen by configuration (architecture.md Part A §4).
public protocol Prompter: Sendable {
    /// Name used in configuration, for example `"none"`.
    static var kind: String { get }

    /// Returns when the person answers.
    ///
    /// `Prompt.Dismiss`, the caller leaving the bus, a timeout and daemon shutdown arrive as task
    /// cancellation; return or throw promptly. Any thrown error counts as a dismissal.
    func prompt(_ request: PromptRequest) async throws -> PromptReply

    /// Whether this prompter could reach a person right now (an agent is registered, a display is
    /// set); a ``PrompterChain`` asks the first that can.
    func canReachPerson() async -> Bool
}

extension Prompter {
    /// Reachable unless the prompter says otherwise.
    public func canReachPerson() async -> Bool { true }
}

/// One question for a ``Prompter``.
public struct PromptRequest: Sendable, Equatable {
    /// What the person is asked to approve.
    public enum Purpose: Sendable, Equatable {
        /// Unlock one collection with something typed: `slot` says what (its passcode, a recovery
        /// code, ...).
        case unlock(collection: CollectionID, label: String, slot: TypedSlot = .passcode)
        /// Unlock one collection by touching the security key of its fido2 slot `slotLabel`: shown
        /// while puffd waits for the touch, and ended by puffd when the key answers. Answered with
        /// ``PromptReply/typeInstead`` to type `instead` (nil: the collection has nothing typed);
        /// a dismissal cancels the wait; ``PromptReply/confirmed`` leaves puffd waiting for the
        /// key with no question shown.
        case touchSecurityKey(collection: CollectionID, label: String, slotLabel: String, instead: TypedSlot?)
        /// The PIN of the security key of the fido2 slot `slotLabel`, answered like a passcode;
        /// `retries`: the tries left before the key blocks its PIN, when the key says.
        case securityKeyPIN(collection: CollectionID, label: String, slotLabel: String, retries: Int?)
        /// Create a collection: a new passcode, asked twice.
        case create(label: String)
        /// Change a collection's passcode, first step: its current passcode.
        case currentPasscode(collection: CollectionID, label: String)
        /// Change a collection's passcode, second step: the new one, asked twice.
        case newPasscode(collection: CollectionID, label: String)
        /// The login password changed without puffd (root ran `passwd`): the previous one, which
        /// still opens the collection, so that it can take the new one.
        case previousLoginPassword(collection: CollectionID, label: String)
        /// A protected item's secret is asked for: release it this once? Answered with
        /// ``PromptReply/confirmed`` (or ``AccessChoice/once``); anything else refuses.
        case confirmRead(item: ItemID, label: String)
        /// An executable with no rule for the item asks to read it (`[access] mode = "ask"`):
        /// answered with an ``AccessChoice``; a dismissal refuses this read and persists nothing.
        case allowRead(item: ItemID, label: String)
        /// A change that weakens the protection of `collection` (lifting an item's protection,
        /// allowing an executable, forgetting a denial, replacing the agent): may it be done?
        /// `change` says what, for the person ("lift the protection of the item “mail”").
        /// Answered like ``confirmRead(item:label:)``: only an explicit yes agrees.
        case confirmChange(collection: CollectionID, label: String, change: String)
        /// A client asks to delete a collection holding `items` items (`label` is `""` while it is
        /// locked): answered with ``PromptReply/confirmed``; anything else keeps it.
        case deleteCollection(collection: CollectionID, label: String, items: Int)

        /// Whether the answer is a new passcode, which a prompter asks twice (pinentry's
        /// `SETREPEAT`) and answers once, after both matched.
        public var asksNewPasscode: Bool {
            switch self {
            case .create, .newPasscode: true
            case .unlock, .touchSecurityKey, .securityKeyPIN, .currentPasscode, .previousLoginPassword,
                .confirmRead, .allowRead, .confirmChange, .deleteCollection:
                false
            }
        }

        /// Whether the question is about reading an item, answered without a passcode.
        public var isAboutReading: Bool {
            switch self {
            case .confirmRead, .allowRead: true
            case .unlock, .touchSecurityKey, .securityKeyPIN, .create, .currentPasscode, .newPasscode,
                .previousLoginPassword, .confirmChange, .deleteCollection:
                false
            }
        }

        /// Whether the question is answered by a choice, not a passcode: a read, a change that
        /// weakens protection, deleting a collection, or touching a security key.
        public var isConfirmation: Bool {
            switch self {
            case .confirmRead, .allowRead, .confirmChange, .deleteCollection, .touchSecurityKey: true
            case .unlock, .securityKeyPIN, .create, .currentPasscode, .newPasscode, .previousLoginPassword: false
            }
        }

        /// The collection's name for the person: its label, else its id; for a question about
        /// reading an item, the item's label (else its collection and number).
        public var collectionName: String {
            switch self {
            case .create(let label): label
            case .confirmRead(let item, let label), .allowRead(let item, let label):
                label.isEmpty ? "\(item.collection.rawValue)/\(item.number)" : label
            case .unlock(let collection, let label, _), .touchSecurityKey(let collection, let label, _, _),
                .securityKeyPIN(let collection, let label, _, _), .currentPasscode(let collection, let label),
                .newPasscode(let collection, let label), .previousLoginPassword(let collection, let label),
                .confirmChange(let collection, let label, _), .deleteCollection(let collection, let label, _):
                label.isEmpty ? collection.rawValue : label
            }
        }
    }

    /// What the person is asked to approve.
    public var purpose: Purpose
    /// The client whose call led to the prompt.
    public var caller: ClientID
    /// The window id the client passed to `Prompt.Prompt` (often `""`).
    public var windowID: String
    /// Who asks, for the person: the caller's executable, or its bus name when unknown.
    public var application: String
    /// Why the question is asked again (a wrong passcode), or nil the first time.
    public var error: String?
    /// What the passcode asked for looks like, so a prompter can say "6 digits"
    /// (``PasscodePolicy/requirement``); nil when no passcode is asked for (nor a recovery code,
    /// a login password or a PIN).
    public var policy: PasscodePolicy?
    /// Whether answering sets the vault's first passcode (a collection created on a vault with
    /// none: it becomes `login`), so that a prompter that cannot ask names `puffctl init`.
    public var setsFirstPasscode = false

    /// Creates a request.
    public init(
        purpose: Purpose, caller: ClientID, windowID: String, application: String? = nil, error: String? = nil,
        policy: PasscodePolicy? = nil
    ) {
        self.purpose = purpose
        self.caller = caller
        self.windowID = windowID
        self.application = application ?? caller.rawValue
        self.error = error
        self.policy = policy
    }
}

/// A ``Prompter``'s answer.
public enum PromptReply: Sendable {
    /// The person approved without a passcode.
    case confirmed
    /// The person typed a passcode (a new one: typed twice, the same both times).
    case passcode(SecureBytes)
    /// The person declined.
    case dismissed
    /// The person chose to type something instead of touching a security key
    /// (``PromptRequest/Purpose/touchSecurityKey(collection:label:slotLabel:instead:)``).
    case typeInstead
    /// The person answered a question about reading an item (``PromptRequest/Purpose/allowRead(item:label:)``).
    case access(AccessChoice)
}

/// An answer to "allow this executable to read this item?".
public enum AccessChoice: String, Sendable, Equatable, CaseIterable {
    /// Allow this read only; nothing is remembered.
    case once
    /// Allow this read and every later one by the same executable (persisted, sealed).
    case always
    /// Refuse this read and every later one by the same executable (persisted, sealed).
    case deny
}
