// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// Why a ``SecretService`` call failed; the bus layer maps each case to one D-Bus error name
/// (architecture.md §2.5).
///
/// - Important: Messages are for developers. They may name attributes or count things but never
///   contain secret bytes, passcodes or attribute values.
public enum ServiceError: Error, Equatable, Sendable {
    /// The collection, item, alias target or prompt does not exist.
    case noSuchObject
    /// The object's collection is locked.
    case isLocked
    /// The session does not exist or belongs to another client.
    case noSession
    /// The caller does not own the session or prompt.
    case accessDenied
    /// `OpenSession` named an algorithm Puff does not implement.
    case unsupportedAlgorithm
    /// `OpenSession("plain")` while plain sessions are turned off (`[sessions] allow_plain`).
    case plainSessionsTurnedOff
    /// An argument has the wrong shape; the message says which.
    case invalidArgument(String)
    /// `Prompt` was called a second time on the same prompt.
    case alreadyExists
    /// The request goes over one of the ``ServiceLimits``; the message names the limit.
    case limitExceeded(String)
    /// The passcode does not open the collection; with when the next try is accepted (nil
    /// before the attempt was counted).
    case wrongPasscode(PasscodeRetry?)
    /// The vault has no passcode yet: `puffctl init` sets one.
    case notInitialized
    /// `init` on a vault that already has its login collection.
    case alreadyInitialized
    /// A new passcode does not meet the collection's policy. Carries the policy, never the
    /// passcode.
    case passcodePolicy(PasscodePolicy)
    /// The collection's files failed to open; the message names file and offset.
    case damaged(String)
    /// The access gate kept a secret back: for this reason, or (nil) because nobody answered
    /// the question (no prompter reached a person, or it timed out).
    case readRefused(AccessRefusal?)
    /// A change that weakens protection got no consent: no passcode was given and nobody could
    /// be asked, or the person said no; the message says which and what to do.
    case notConfirmed(String)
    /// The file system refused to save the change (full, over quota, read-only, not writable);
    /// nothing changed. Carries the vault folder, whose path is the user's own.
    case vaultUnwritable(WriteRefusal, folder: String)
    /// A TPM or a security key did not give a slot's key (docs/design/unlock-slots.md §4).
    case hardware(HardwareError)
    /// The collection has no slot of that number.
    case slotNotFound(KeySlot.ID)
    /// The collection has no slot the credential given can open (no tpm2 or fido2 slot for a
    /// no-typing unlock, or the slot asked for takes another credential); the message says which.
    case noMatchingSlot(String)
    /// Removing the slot would leave the collection with none: nothing could open it again.
    case lastSlot
    /// A re-key would drop these slots, whose credential is not at hand; nothing changed. Give
    /// their credentials, or allow dropping them.
    case wouldDropSlots([SlotInfo])
    /// A fleet collection's shared store (docs/design/fleet.md) could not be reached: nothing was
    /// written; reads go on from the local copy. Carries the collection's id and why (the store's
    /// address and its answer, never a token).
    case offline(collection: String, reason: String)
    /// Another machine appended to the fleet collection first, so this write would not follow
    /// what the collection now holds; nothing was written. The service pulls and makes the write
    /// again (a few times) before a caller sees it.
    case conflict(collection: String)
    /// Anything else, for example a failed write; details are logged.
    case failed(String)
}

extension ServiceError {
    /// Whether the write is made again by the service (a ``conflict(collection:)``), so it is
    /// not audited as failed yet.
    var isRetried: Bool {
        if case .conflict = self { return true }
        return false
    }
}

extension ServiceError: CustomStringConvertible {
    /// Why a read was refused, with what the person can do about it.
    static func refusal(_ reason: AccessRefusal?) -> String {
        switch reason {
        case .deniedByRule?: "reading this item was denied to this executable (puffctl access revoke undoes it)"
        case .unknownExecutable?: "no rule allows this executable to read this item (puffctl access allow adds one)"
        case .declined?: "the person declined to release this secret"
        case .changedMeanwhile?: "the item changed while the person was asked"
        case .portalKey?:
            "a sandboxed app may not read or change an app's portal key (it gets its own through the portal)"
        case nil: "nobody confirmed the read: no prompter reached a person, or the question timed out"
        }
    }

    /// Why a plain session was refused, and what works instead.
    static let plainSessionsReason =
        "plain sessions are turned off ([sessions] allow_plain = false in puffd.toml): "
        + "open a session with \(SecretService.dhAlgorithm)"

    /// What a refused vault write tells the person: what happened, where, and what fixes it.
    static func unwritable(_ reason: WriteRefusal, folder: String) -> String {
        switch reason {
        case .noSpace: "no space left on device for the vault at \(folder): free space, then retry"
        case .quotaExceeded:
            "disk quota exceeded for the vault at \(folder): free space or have the quota raised, then retry"
        case .readOnly:
            "the vault at \(folder) is on a read-only file system: remount it read-write, or move the vault "
                + "(puffd --data-dir DIR, or data_dir in puffd.toml) and restart puffd"
        case .notPermitted:
            "the vault folder \(folder) is not writable by this user: give it back (chown, chmod u+rwx), then retry"
        }
    }

    /// A short developer-facing description.
    public var description: String {
        switch self {
        case .noSuchObject: "no such object"
        case .isLocked: "the object is locked"
        case .noSession: "no such session"
        case .accessDenied: "access denied"
        case .unsupportedAlgorithm: "unsupported transfer algorithm"
        case .plainSessionsTurnedOff: Self.plainSessionsReason
        case .invalidArgument(let why): "invalid argument: \(why)"
        case .alreadyExists: "the prompt was already started"
        case .limitExceeded(let why): "limit exceeded: \(why)"
        case .wrongPasscode(let retry?): "wrong passcode; the next try is accepted in \(retry.shownDelay)"
        case .wrongPasscode(nil): "wrong passcode"
        case .notInitialized: "no passcode set: run puffctl init"
        case .alreadyInitialized: "the vault already has a passcode"
        case .passcodePolicy(let policy): "the passcode must be \(policy.requirement) (policy \(policy.name))"
        case .damaged(let why): "damaged: \(why)"
        case .readRefused(let reason): "access denied: " + Self.refusal(reason)
        case .notConfirmed(let why): "not confirmed: \(why)"
        case .vaultUnwritable(let reason, let folder): Self.unwritable(reason, folder: folder)
        case .hardware(let error): Self.hardware(error)
        case .slotNotFound(let id): "the collection has no slot \(id) (puffctl slot list shows its slots)"
        case .noMatchingSlot(let why): why
        case .lastSlot: "the collection's last slot cannot be removed: add another first (puffctl slot add)"
        case .wouldDropSlots(let slots):
            "re-keying would drop the slots \(slots.map(\.described).joined(separator: ", ")), whose credential "
                + "is not at hand: give it, or allow dropping them (puffctl passwd --drop-slots)"
        case .offline(let collection, let reason):
            "collection \(collection) is offline: its shared store cannot be reached (\(reason)); nothing was "
                + "saved, reads still work, and it catches up once the store answers"
        case .conflict(let collection):
            "collection \(collection) was changed on another machine meanwhile; nothing was saved: try again"
        case .failed(let why): "failed: \(why)"
        }
    }

    /// What a TPM or security key refusal tells the person.
    static func hardware(_ error: HardwareError) -> String {
        switch error {
        case .unavailable(let device): "no TPM or security key answered: \(device)"
        case .otherTPM: "the slot was sealed by another TPM, or this TPM was reset: use another slot"
        case .pcrChanged: "the TPM's PCRs changed since the slot was made (another boot path): use another slot"
        case .noCredential: "the security key present is not the one this slot was made with"
        case .pinRequired: "the security key's PIN is needed (--pin-fd)"
        case .pinInvalid(let retries?): "wrong security key PIN; \(retries) tries left before the key blocks it"
        case .pinInvalid(nil): "wrong security key PIN"
        case .pinBlocked: "the security key's PIN is blocked after too many wrong ones"
        case .denied: "the security key was not touched, or the person refused on it"
        case .cancelled: "the wait for the security key was cancelled"
        case .failed(let why): "the TPM or security key failed: \(why)"
        }
    }
}

/// What a wrong passcode leaves: how many came in a row for the collection, and how long until
/// the next try is accepted (issue 24 item 22: the delay is announced, not waited in silence).
public struct PasscodeRetry: Sendable, Equatable {
    /// How many wrong passcodes in a row this one makes.
    public var attempt: Int
    /// From the reply until puffd tries the next passcode for the collection.
    public var delay: Duration

    public init(attempt: Int, delay: Duration) {
        self.attempt = attempt
        self.delay = delay
    }

    /// The delay for a person: `0.5 s`, `2 s`.
    public var shownDelay: String {
        let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
        let tenths = (milliseconds + 99) / 100
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}
