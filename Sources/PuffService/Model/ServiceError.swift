// SPDX-License-Identifier: Apache-2.0

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
    /// An argument has the wrong shape; the message says which.
    case invalidArgument(String)
    /// `Prompt` was called a second time on the same prompt.
    case alreadyExists
    /// The request goes over one of the ``ServiceLimits``; the message names the limit.
    case limitExceeded(String)
    /// The passcode does not open the collection.
    case wrongPasscode
    /// The vault has no passcode yet: `puffctl init` sets one.
    case notInitialized
    /// `init` on a vault that already has its login collection.
    case alreadyInitialized
    /// A new passcode does not meet the collection's policy. Carries the policy, never the
    /// passcode.
    case passcodePolicy(PasscodePolicy)
    /// The collection's files failed to open; the message names file and offset.
    case damaged(String)
    /// Anything else, for example a failed write; details are logged.
    case failed(String)
}

extension ServiceError: CustomStringConvertible {
    /// A short developer-facing description.
    public var description: String {
        switch self {
        case .noSuchObject: "no such object"
        case .isLocked: "the object is locked"
        case .noSession: "no such session"
        case .accessDenied: "access denied"
        case .unsupportedAlgorithm: "unsupported transfer algorithm"
        case .invalidArgument(let why): "invalid argument: \(why)"
        case .alreadyExists: "the prompt was already started"
        case .limitExceeded(let why): "limit exceeded: \(why)"
        case .wrongPasscode: "wrong passcode"
        case .notInitialized: "no passcode set: run puffctl init"
        case .alreadyInitialized: "the vault already has a passcode"
        case .passcodePolicy(let policy): "the passcode must be \(policy.requirement) (policy \(policy.name))"
        case .damaged(let why): "damaged: \(why)"
        case .failed(let why): "failed: \(why)"
        }
    }
}
