// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// Slotted headers (version 3) for the harness: a fixed KEK per slot type, fixed parameters, all
/// wrapping ``FuzzKeys/master`` and sealed with its MAC, so a seed's slots open and its MAC
/// verifies on every run.
extension FuzzKeys {
    /// The fixed KEK of a slot of `kind`: `SlotKeys.kek` over a per-type fixed key, as an unlock
    /// derives it from what the credential gave.
    static func kek(_ kind: KeySlot.Kind) -> SecureBytes {
        SlotKeys.kek(
            from: SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x60 | kind.rawValue, count: 32)), kind: kind.rawValue)
    }

    static let typed = KeySlot.Typed(kdf: .interactive, salt: [UInt8](repeating: 7, count: PasscodeKDF.saltBytes))
    static let fido = KeySlot.FIDO2(
        relyingParty: "io.puff.vault", credentialID: (0..<64).map { UInt8($0) },
        salt: [UInt8](repeating: 0x5A, count: KeySlot.fido2SaltBytes), flags: [.presence, .pin])
    static let tpm = KeySlot.TPM2(pcrMask: 1 << 7, blob: (0..<216).map { UInt8(truncatingIfNeeded: $0 * 7) })
    static let transit = KeySlot.Transit(
        key: "puff", ciphertext: "vault:v1:" + String(repeating: "QUJD", count: 20))

    /// Sample parameters of each type.
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

    /// A version 3 header of `flags` with one slot of each of `kinds`; locked search `always`
    /// with the index key in the clear (`.clear`) or TPM-sealed and wrapped (`.tpm2`), or
    /// after-unlock (`.none`; `never` when private).
    static func slottedHeader(
        _ kinds: [KeySlot.Kind], flags: VaultHeader.Flags = [], storage: VaultHeader.IndexStorage = .clear
    ) -> VaultHeader {
        let isPrivate = flags.contains(.private)
        var header = VaultHeader(
            flags: flags, policyKind: 0, policyMinimumLength: 1, space: space,
            collectionID: flags.contains(.hidden) ? nil : collection.rawValue,
            lockedSearch: isPrivate ? .never : storage == .none ? .afterUnlock : .always,
            indexKey: storage == .clear && !isPrivate ? indexKey : nil)
        do {
            if storage == .tpm2, !isPrivate {
                header.indexSeal = KeySlot.TPM2(pcrMask: 0, blob: [UInt8](repeating: 0x3C, count: 200))
                header.indexWrap = try header.wrapIndexKey(SecureBytes(unwipedCopyOf: indexKey), master: master)
            }
            for kind in kinds {
                try header.addSlot(label: "fuzz \(kind)", parameters: parameters(kind), master: master, kek: kek(kind))
            }
        } catch {
            fatalError("PuffFuzzVault: the fixed slotted header cannot be made")
        }
        return header
    }
}
