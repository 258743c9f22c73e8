// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// Slotted headers for the format tests: one slot of each type, fixed parameters, and a fixed KEK
/// per type standing in for what each credential yields (the header does not care how it was made).
enum SlotSamples {
    static let space = SpaceID(bytes: Array(0x10..<0x20))!
    static let typed = KeySlot.Typed(kdf: .interactive, salt: [UInt8](repeating: 7, count: PasscodeKDF.saltBytes))
    static let fido = KeySlot.FIDO2(
        relyingParty: "io.puff.vault", credentialID: [UInt8](repeating: 0xC1, count: 64),
        salt: [UInt8](repeating: 0x5A, count: KeySlot.fido2SaltBytes), flags: [.presence, .pin])
    static let tpm = KeySlot.TPM2(pcrMask: 1 << 7, blob: (0..<220).map { UInt8(truncatingIfNeeded: $0) })
    static let transit = KeySlot.Transit(
        key: "puff-team", ciphertext: "vault:v1:" + String(repeating: "c2xvdA", count: 12))

    static func parameters(_ kind: KeySlot.Kind) -> KeySlot.Parameters {
        switch kind {
        case .passcode: .passcode(typed)
        case .recovery: .recovery(salt: [UInt8](repeating: 0x2E, count: PasscodeKDF.saltBytes))
        case .login: .login(typed)
        case .tpm2: .tpm2(tpm)
        case .fido2: .fido2(fido)
        case .fido2Passcode: .fido2Passcode(fido, typed)
        case .transit: .transit(transit)
        }
    }

    /// The KEK of a slot of `kind`: `SlotKeys.kek` over a fixed credential key.
    static func kek(_ kind: KeySlot.Kind) -> SecureBytes {
        SlotKeys.kek(
            from: SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x40 | kind.rawValue, count: 32)), kind: kind.rawValue)
    }

    /// A visible version 3 collection "login" with one slot of each of `kinds`, in order, sealed.
    static func header(
        _ kinds: [KeySlot.Kind] = KeySlot.Kind.allCases, master: MasterKey, storage: VaultHeader.IndexStorage = .clear,
        flags: VaultHeader.Flags = [], collectionID: String? = "login"
    ) throws -> VaultHeader {
        var header = VaultHeader(
            flags: flags, policyKind: 1, policyMinimumLength: 8, space: space, collectionID: collectionID,
            lockedSearch: storage == .none ? .afterUnlock : .always,
            indexKey: storage == .clear ? [UInt8](repeating: 0x1D, count: 32) : nil)
        if flags.contains(.private) { header.lockedSearch = .never }
        if storage == .tpm2 {
            header.indexSeal = KeySlot.TPM2(pcrMask: 0, blob: [UInt8](repeating: 0x3C, count: 200))
            header.indexWrap = try header.wrapIndexKey(indexKey, master: master)
        }
        for kind in kinds {
            try header.addSlot(label: "my \(kind)", parameters: parameters(kind), master: master, kek: kek(kind))
        }
        return header
    }

    /// The index key a storage 2 sample wraps.
    static let indexKey = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x1E, count: 32))

    /// Whether every slot of `header` opens to `master` under its type's KEK.
    static func everySlotOpens(_ header: VaultHeader, to master: MasterKey) -> Bool {
        header.slots.allSatisfy { slot in
            (try? header.unwrapMaster(slot, kek: kek(slot.kind)))?.isSame(as: master) == true
        }
    }

    /// Where and why decoding `bytes` as a header was refused as malformed; nil, recorded as an
    /// issue, when it was read or refused with another error.
    static func malformed(_ bytes: [UInt8]) -> (offset: UInt64, what: String)? {
        let error = #expect(throws: VaultFormatError.self) { try VaultHeader(decoding: bytes) }
        guard case .malformed(let offset, let what) = error else {
            Issue.record("expected a malformed header, got \(String(describing: error))")
            return nil
        }
        return (offset, what)
    }
}
