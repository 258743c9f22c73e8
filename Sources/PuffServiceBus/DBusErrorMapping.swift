// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffDBus
public import PuffService
import Synchronization

/// The only place that knows which D-Bus error name each domain error becomes
/// (architecture.md §2.5; gnome-keyring's `gkd-secret-error.c` plays the same role).
public final class DBusErrorMapping: Sendable {
    private let logger: Logger
    private let references = Atomic<UInt64>(0)

    /// Creates a mapping that logs unexpected errors to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Maps `error` to a D-Bus error. Unknown errors become `Failed` with a reference number
    /// whose details go only to the log.
    public func map(_ error: any Error) -> DBusError {
        switch error {
        case let error as DBusError:
            return error
        case let error as ServiceError:
            return Self.map(error)
        case is ControlDenied:
            return DBusError(.accessDenied, "only puffd's own user may use io.puff.Control1")
        default:
            let reference = references.add(1, ordering: .relaxed).newValue
            logger.error(
                "internal error", metadata: ["error.ref": "\(reference)", "error": "\(String(describing: error))"])
            return DBusError(.failed, "internal error (ref \(reference))")
        }
    }

    /// `NoSuchObject` for a path below the service where nothing lives; on a vault with no
    /// passcode yet the reason and the command that fixes it (issue 24 item 22), as libsecret
    /// prints the message (`secret-tool store` on a new vault).
    public static func missingObject(vaultInitialized: Bool) -> DBusError {
        vaultInitialized
            ? DBusError(.noSuchObject, "no such object")
            : DBusError(.noSuchObject, "no such object: the vault has no passcode yet; run `puffctl init` to set it")
    }

    /// The D-Bus form of each service error; the switch is exhaustive so a new case breaks the build here.
    public static func map(_ error: ServiceError) -> DBusError {
        switch error {
        case .noSuchObject: DBusError(.noSuchObject, "no such object")
        case .isLocked: DBusError(.isLocked, "the object is locked")
        case .noSession: DBusError(.noSession, "no such session")
        case .accessDenied: DBusError(.accessDenied, "the object belongs to another connection")
        case .unsupportedAlgorithm: DBusError(.notSupported, "unsupported transfer algorithm")
        case .plainSessionsTurnedOff: DBusError(.notSupported, error.description)
        case .invalidArgument(let why): DBusError(.invalidArgs, why)
        case .alreadyExists: DBusError(.alreadyExists, "the prompt was already started")
        case .limitExceeded(let why): DBusError(.limitsExceeded, why)
        case .wrongPasscode: DBusError(.wrongPasscode, error.description)
        case .notInitialized: DBusError(.notInitialized, "no passcode set: run puffctl init")
        case .alreadyInitialized: DBusError(.alreadyInitialized, "the vault already has a passcode")
        case .passcodePolicy(let policy):
            DBusError(.passcodePolicy, "the passcode must be \(policy.requirement) (policy \(policy.name))")
        case .damaged(let why): DBusError(.damaged, why)
        // The name libsecret, secretstorage and keyring already report as a refusal.
        case .readRefused: DBusError(.accessDenied, error.description)
        case .notConfirmed(let why): DBusError(.notConfirmed, why)
        case .vaultUnwritable: DBusError(.failed, error.description)
        case .hardware(.pinRequired), .hardware(.pinInvalid), .hardware(.pinBlocked):
            DBusError(.securityKeyPIN, error.description)
        case .hardware(.cancelled), .hardware(.denied): DBusError(.notConfirmed, error.description)
        case .hardware: DBusError(.hardware, error.description)
        case .slotNotFound, .noMatchingSlot: DBusError(.noSuchSlot, error.description)
        case .lastSlot: DBusError(.lastSlot, error.description)
        case .wouldDropSlots: DBusError(.wouldDropSlots, error.description)
        case .offline: DBusError(.offline, error.description)
        case .conflict: DBusError(.failed, error.description)
        case .failed(let why): DBusError(.failed, why)
        }
    }
}
