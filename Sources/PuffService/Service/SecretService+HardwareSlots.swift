// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// The tpm2 and transit slots, then (unless `tpmOnly`) the fido2 and fido2+passcode slots whose credential
    /// the present security key holds (probed without a touch). The TPM and the key refuse wrong
    /// attempts on their own: no wrong-passcode delay applies, except to a fido2+passcode slot's
    /// passcode (callers count that).
    ///
    /// - Throws: ``ServiceError/noMatchingSlot(_:)`` when no slot takes hardware;
    ///   ``ServiceError/hardware(_:)`` with the most telling refusal (a PIN or touch refusal over
    ///   "not this key" over "no key"); ``ServiceError/wrongPasscode(_:)`` when a fido2+passcode
    ///   slot's key answered but the passcode did not open it.
    func openHardware(
        _ header: VaultHeader, _ slots: [KeySlot], pin: SecureBytes?, passcode: SecureBytes?, device: String?,
        tpmOnly: Bool
    ) async throws(ServiceError) -> OpenedSlot {
        let usable = slots.filter {
            $0.kind == .tpm2 || $0.kind == .transit || (!tpmOnly && ($0.kind == .fido2 || $0.kind == .fido2Passcode))
        }
        guard !usable.isEmpty else {
            throw .noMatchingSlot(
                tpmOnly
                    ? "the collection has no tpm2 or transit slot"
                    : "the collection has no tpm2, transit or fido2 slot (puffctl slot list)"
            )
        }
        var refusals: [HardwareError] = []
        var wrongPasscode = false
        for slot in usable {
            do throws(SlotRefusal) {
                let kek = try await hardwareKEK(for: slot, pin: pin, passcode: passcode, device: device)
                guard let master = try? header.unwrapMaster(slot, kek: kek) else {
                    if slot.kind == .fido2Passcode {
                        wrongPasscode = true
                        continue
                    }
                    // The device answered with a key that does not open the wrap.
                    throw .hardware(Self.wrongAnswer(slot.kind))
                }
                return OpenedSlot(master: master, slot: slot.id, typedKey: nil)
            } catch {
                switch error {
                case .hardware(let refusal):
                    logger.info(
                        "A slot did not open", metadata: ["slot.kind": "\(slot.kind)", "reason": "\(refusal)"])
                    refusals.append(refusal)
                case .service(let failure): throw failure
                }
            }
        }
        if wrongPasscode { throw .wrongPasscode(nil) }
        throw .hardware(Self.mostTelling(refusals) ?? .noCredential)
    }

    /// Why a hardware slot gave no key: the device's refusal, or a service failure to pass on.
    enum SlotRefusal: Error {
        case hardware(HardwareError)
        case service(ServiceError)
    }

    /// A tpm2 or fido2 slot's key, from the TPM or the security key.
    private func hardwareKEK(
        for slot: KeySlot, pin: SecureBytes?, passcode: SecureBytes?, device: String?
    ) async throws(SlotRefusal) -> SecureBytes {
        switch slot.parameters {
        case .tpm2(let sealed):
            guard let tpm else { throw .hardware(.unavailable("puffd was started without a TPM")) }
            do throws(HardwareError) {
                let secret = try await tpm.unseal(sealed.blob, pcrMask: sealed.pcrMask, device: device)
                return SlotKeys.kek(from: secret, kind: slot.kind.rawValue)
            } catch {
                throw .hardware(error)
            }
        case .fido2(let key):
            let output = try await hmacSecret(key, pin: pin, device: device)
            return SlotKeys.kek(from: output, kind: slot.kind.rawValue)
        case .fido2Passcode(let key, let typed):
            guard let passcode else { throw .hardware(.failed("this slot needs its passcode beside the key")) }
            let output = try await hmacSecret(key, pin: pin, device: device)
            let typedKey: SecureBytes
            do {
                typedKey = try await self.typedKey(passcode, typed)
            } catch {
                throw .service(error)
            }
            let mixed = SlotKeys.fido2PasscodeKey(hmacSecret: output, passcodeKey: typedKey)
            return SlotKeys.kek(from: mixed, kind: slot.kind.rawValue)
        case .transit(let wrapped):
            guard let transit else {
                throw .hardware(.transit("puffd has no OpenBao ([store.openbao] is not set)"))
            }
            do throws(HardwareError) {
                let secret = try await transit.unseal(wrapped.ciphertext, key: wrapped.key)
                return SlotKeys.kek(from: secret, kind: slot.kind.rawValue)
            } catch {
                throw .hardware(error)
            }
        case .passcode, .recovery, .login:
            throw .hardware(.failed("not a hardware slot"))
        }
    }

    /// Why a device's answer that does not open the slot's wrap refused it.
    private static func wrongAnswer(_ kind: KeySlot.Kind) -> HardwareError {
        switch kind {
        case .tpm2: .otherTPM
        case .transit: .transit("OpenBao's answer does not open the slot (the transit key was replaced?)")
        default: .failed("the key's answer does not open the slot")
        }
    }

    /// The `hmac-secret` output of a fido2 slot, asked only of a key that holds its credential.
    private func hmacSecret(_ key: KeySlot.FIDO2, pin: SecureBytes?, device: String?) async throws(SlotRefusal)
        -> SecureBytes
    {
        guard let securityKeys else {
            throw .hardware(.unavailable("puffd was started without security key support"))
        }
        if key.flags.contains(.pin), pin == nil { throw .hardware(.pinRequired) }
        let request = SecurityKeyRequest(
            relyingParty: key.relyingParty, presence: key.flags.contains(.presence),
            verification: key.flags.contains(.verification), pin: key.flags.contains(.pin) ? pin : nil,
            device: device)
        do throws(HardwareError) {
            let probe = SecurityKeyRequest(relyingParty: key.relyingParty, presence: false, device: device)
            guard try await securityKeys.holds(credentialID: key.credentialID, probe) else {
                throw HardwareError.noCredential
            }
            return try await securityKeys.hmacSecret(credentialID: key.credentialID, salt: key.salt, request)
        } catch {
            throw .hardware(error)
        }
    }

    /// The refusal that tells the person most: what they can act on (a PIN, a touch) first, then
    /// a TPM's, then "not this key", then "no device".
    static func mostTelling(_ refusals: [HardwareError]) -> HardwareError? {
        func rank(_ error: HardwareError) -> Int {
            switch error {
            case .pinRequired, .pinInvalid, .pinBlocked, .denied, .cancelled: 0
            case .pcrChanged, .otherTPM, .failed, .transit: 1
            case .noCredential: 2
            case .unavailable: 3
            }
        }
        return refusals.min { rank($0) < rank($1) }
    }
}
