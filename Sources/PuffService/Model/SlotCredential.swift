// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffStore

/// What a person brings to open a collection through one of its slots (docs/design/unlock-slots.md
/// §3 "Unlock order"). Nothing here is logged or put in an error.
public enum SlotCredential: Sendable {
    /// A typed passcode, or a recovery code: a text that parses as a recovery code tries the
    /// recovery slots first (no key derivation), then, like any text, the typed slots (one Argon2id
    /// run per salt they share).
    case typed(SecureBytes)
    /// pam_puff's login password: the login slots, then the passcode slots (a collection made
    /// before login slots, whose passcode is the login password).
    case login(SecureBytes)
    /// No typing: the tpm2 slots, then the fido2 slots whose credential the present security key
    /// holds. `pin` is the key's PIN for slots enrolled with one; `passcode` opens
    /// fido2+passcode slots; `device` names the security key (nil: the configured one or the
    /// first found).
    case hardware(pin: SecureBytes?, passcode: SecureBytes?, device: String?)
}

/// What ``SecretService/addSlot(to:kind:options:proof:caller:)`` needs beyond the slot type.
public struct SlotOptions: Sendable {
    /// What to call the slot (1–64 bytes of UTF-8, no control characters); nil: the type's name.
    public var label: String?
    /// tpm2: the sha256 PCRs to bind to (bit i = PCR i; 0: none).
    public var pcrMask: UInt32
    /// fido2+passcode: the passcode typed beside the touch; it must meet the collection's policy.
    public var withPasscode: SecureBytes?
    /// fido2: whether a touch is needed (default yes).
    public var presence: Bool
    /// fido2: whether the key must verify the person itself.
    public var verification: Bool
    /// fido2: the key's PIN, when the slot is to need it at every unlock.
    public var pin: SecureBytes?
    /// fido2: the security key to enrol (`unix:PATH` or a libfido2 path); tpm2: the TCTI.
    public var device: String?
    /// passcode and login slots: the new slot's passcode; it must meet the collection's policy.
    public var newPasscode: SecureBytes?

    public init(
        label: String? = nil, pcrMask: UInt32 = 0, withPasscode: SecureBytes? = nil, presence: Bool = true,
        verification: Bool = false, pin: SecureBytes? = nil, device: String? = nil, newPasscode: SecureBytes? = nil
    ) {
        self.label = label
        self.pcrMask = pcrMask
        self.withPasscode = withPasscode
        self.presence = presence
        self.verification = verification
        self.pin = pin
        self.device = device
        self.newPasscode = newPasscode
    }
}

/// One slot as `puffctl slot list` shows it: nothing secret, nothing that opens anything.
public struct SlotInfo: Sendable, Equatable {
    public var id: KeySlot.ID
    public var kind: KeySlot.Kind
    public var label: String
    /// tpm2: the PCRs it is bound to; nil for the other types.
    public var pcrMask: UInt32?
    /// fido2 and fido2+passcode: what an assertion asks of the key; nil for the other types.
    public var fido2Flags: KeySlot.FIDO2.Flags?
    /// transit: the OpenBao transit key's name; nil for the other types.
    public var transitKey: String?

    public init(
        id: KeySlot.ID, kind: KeySlot.Kind, label: String, pcrMask: UInt32? = nil,
        fido2Flags: KeySlot.FIDO2.Flags? = nil, transitKey: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.label = label
        self.pcrMask = pcrMask
        self.fido2Flags = fido2Flags
        self.transitKey = transitKey
    }

    /// The slot's public description.
    public init(_ slot: KeySlot) {
        var pcrMask: UInt32?
        var flags: KeySlot.FIDO2.Flags?
        var transitKey: String?
        switch slot.parameters {
        case .tpm2(let tpm): pcrMask = tpm.pcrMask
        case .fido2(let key), .fido2Passcode(let key, _): flags = key.flags
        case .transit(let wrapped): transitKey = wrapped.key
        case .passcode, .recovery, .login: break
        }
        self.init(
            id: slot.id, kind: slot.kind, label: slot.label, pcrMask: pcrMask, fido2Flags: flags,
            transitKey: transitKey)
    }

    /// How audit entries and logs name it: `fido2 “yubikey”`.
    public var described: String { "\(kind) “\(label)”" }
}
