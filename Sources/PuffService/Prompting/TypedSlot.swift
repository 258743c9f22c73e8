// SPDX-License-Identifier: Apache-2.0

/// What a typed answer to an unlock question opens (docs/design/unlock-slots.md §3), so that a
/// prompter names it: a person asked for "the passcode" of a collection that only a recovery code
/// still opens would type the wrong thing.
public enum TypedSlot: Sendable, Equatable {
    /// The collection's passcode (a passcode slot, or the one passcode of a legacy collection).
    case passcode
    /// A recovery code, `XXXX-XXXX-…` (the collection's only typed slots are recovery slots).
    case recoveryCode
    /// The passcode, or a recovery code instead: puffd tries a text that reads as a code on the
    /// recovery slots first.
    case passcodeOrRecoveryCode
    /// The login password (a login slot: pam_puff's, asked here when nothing else is typed).
    case loginPassword
    /// The passcode that goes with the security key of the `fido2+passcode` slot `slotLabel`:
    /// typed first, the touch follows.
    case securityKeyPasscode(slotLabel: String)

    /// What to type, in words: "passcode", "recovery code", "passcode or recovery code", "login
    /// password", "passcode for the security key “yubikey”" (`slotLabel` as it is: a prompter
    /// escapes it as it escapes every text from a header or a client).
    public var noun: String {
        switch self {
        case .passcode: "passcode"
        case .recoveryCode: "recovery code"
        case .passcodeOrRecoveryCode: "passcode or recovery code"
        case .loginPassword: "login password"
        case .securityKeyPasscode(let slotLabel): "passcode for the security key “\(slotLabel)”"
        }
    }

    /// Whether the collection's passcode policy describes the answer ("6 digits"): a recovery code
    /// or a login password has none.
    public var followsPolicy: Bool {
        switch self {
        case .passcode, .passcodeOrRecoveryCode, .securityKeyPasscode: true
        case .recoveryCode, .loginPassword: false
        }
    }

    /// The word the agent protocol uses (dbus/io.puff.Agent1.xml, `slot` and `instead`).
    public var agentWord: String {
        switch self {
        case .passcode: "passcode"
        case .recoveryCode: "recovery"
        case .passcodeOrRecoveryCode: "passcode-or-recovery"
        case .loginPassword: "login"
        case .securityKeyPasscode: "fido2+passcode"
        }
    }
}
