// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
public import PuffStore

/// What a re-key (`puffctl passwd`) may keep beyond the passcode or login slot it sets and the
/// tpm2 slots it seals again (docs/design/unlock-slots.md §3 "Re-key"): a new master key must be wrapped
/// for every slot, which takes that slot's credential.
public struct RekeyOptions: Sendable {
    /// Drop the slots whose credential is not at hand; without it the re-key is refused and
    /// lists them (``ServiceError/wouldDropSlots(_:)``).
    public var dropSlots: Bool
    /// The login password: keeps the login slots it opens (but the one that proved the re-key,
    /// which takes the new secret).
    public var loginPassword: SecureBytes?
    /// A recovery code: keeps the recovery slot it opens (the slot that proved the re-key is kept
    /// anyway).
    public var recoveryCode: SecureBytes?
    /// Ask the present security key (a touch each) to keep the fido2 slots it holds.
    public var securityKey: Bool
    /// The security key's PIN, for slots enrolled with one.
    public var pin: SecureBytes?
    /// The security key's device (nil: the configured one, or the first found).
    public var device: String?
    /// The passcode of fido2+passcode slots, to keep them with the key.
    public var fido2Passcode: SecureBytes?

    public init(
        dropSlots: Bool = false, loginPassword: SecureBytes? = nil, recoveryCode: SecureBytes? = nil,
        securityKey: Bool = false, pin: SecureBytes? = nil, device: String? = nil, fido2Passcode: SecureBytes? = nil
    ) {
        self.dropSlots = dropSlots
        self.loginPassword = loginPassword
        self.recoveryCode = recoveryCode
        self.securityKey = securityKey
        self.pin = pin
        self.device = device
        self.fido2Passcode = fido2Passcode
    }
}

/// The slots of a re-keyed header: each with its new parameters and the key to wrap the new
/// master under, and the slots left out.
struct RekeyPlan {
    var slots: [(slot: KeySlot, kek: SecureBytes)] = []
    var dropped: [SlotInfo] = []
    var nextSlotID: KeySlot.ID = 1
}

extension SecretService {
    /// Works out, before the write turn, how each slot of `header` is kept in the re-key: the
    /// passcode or login slot whose typed secret proved it (else the first passcode slot; a new
    /// one when there is none) gets `new` under a fresh salt (a hidden collection keeps the
    /// catalog's), so the secret typed as the current one opens nothing afterwards; tpm2 slots
    /// get a fresh key sealed again; other login slots, recovery and fido2 slots only with their
    /// credential (`options`, or the proof itself for a recovery code); the rest are dropped,
    /// which `options.dropSlots` must allow.
    ///
    /// - Throws: ``ServiceError/wouldDropSlots(_:)``; ``ServiceError/hardware(_:)`` when the
    ///   security key offered refuses (a wrong PIN, no touch); ``ServiceError/failed(_:)``.
    func rekeyPlan(
        _ header: VaultHeader, new: SecureBytes, opened: OpenedSlot?, proof: SlotCredential?, options: RekeyOptions,
        hidden: Bool
    ) async throws(ServiceError) -> RekeyPlan {
        // What the person typed to prove the change opens the slot that opened: it is at hand.
        let provedText: SecureBytes?
        switch proof {
        case .typed(let text)?, .login(let text)?: provedText = text
        case .hardware?, nil: provedText = nil
        }
        let provedSlot = opened?.slot
        // The typed secret that proved the change is the one being replaced: a login slot it
        // opened moves to `new` too (the login password that missed a change, docs/pam.md), or
        // the old password would keep opening the collection. A recovery code sets the passcode.
        let provedTyped = header.slots.first { slot in
            slot.id == provedSlot && provedText != nil && (slot.kind == .passcode || slot.kind == .login)
        }
        let target = provedTyped?.id ?? header.slots.first { $0.kind == .passcode }?.id
        // A hidden collection stays under the catalog's hidden salt, which its passcode is tried with.
        let hiddenTyped = hidden ? header.slots.first { $0.id == target }?.parameters.typed : nil
        let typed = hiddenTyped ?? KeySlot.Typed(kdf: mode.kdf, salt: PasscodeKDF.newSalt())
        var plan = RekeyPlan(nextSlotID: header.nextSlotID)
        // Refused before any key derivation, seal or touch when a slot is sure to go unasked.
        let unreachable = header.slots.filter { slot in
            switch slot.kind {
            case .passcode: slot.id != target
            case .login: slot.id != target && options.loginPassword == nil
            case .recovery: (slot.id != provedSlot || provedText == nil) && options.recoveryCode == nil
            case .tpm2: tpm == nil
            case .transit: transit == nil
            case .fido2: !options.securityKey || securityKeys == nil
            case .fido2Passcode: !options.securityKey || securityKeys == nil || options.fido2Passcode == nil
            }
        }
        if !unreachable.isEmpty, !options.dropSlots { throw .wouldDropSlots(unreachable.map(SlotInfo.init)) }
        let newKey = try await typedKey(new, typed)
        if target == nil {
            // No passcode slot yet (a tpm2 and recovery collection): the new passcode adds one.
            let slot = KeySlot(id: plan.nextSlotID, label: "passcode", parameters: .passcode(typed), wrappedMaster: [])
            plan.nextSlotID += 1
            plan.slots.append((slot, SlotKeys.kek(from: newKey, kind: KeySlot.Kind.passcode.rawValue)))
        }
        for slot in header.slots {
            var kept = slot
            let kek: SecureBytes?
            switch slot.parameters {
            case .passcode:
                kept.parameters = .passcode(typed)
                kek = slot.id == target ? SlotKeys.kek(from: newKey, kind: slot.kind.rawValue) : nil
            case .login(let old):
                kept.parameters = .login(typed)
                kek =
                    slot.id == target
                    ? SlotKeys.kek(from: newKey, kind: slot.kind.rawValue)
                    : try await rekeyedLogin(slot, header, old, password: options.loginPassword, typed: typed)
            case .recovery:
                let salt = PasscodeKDF.newSalt()
                kept.parameters = .recovery(salt: salt)
                kek = rekeyedRecovery(
                    slot, header, code: (slot.id == provedSlot ? provedText : nil) ?? options.recoveryCode, salt: salt)
            case .tpm2(let sealed):
                let fresh = await resealed(sealed, kind: slot.kind)
                kept.parameters = fresh?.0 ?? slot.parameters
                kek = fresh?.1
            case .transit(let wrapped):
                let fresh = await resealed(wrapped, kind: slot.kind)
                kept.parameters = fresh?.0 ?? slot.parameters
                kek = fresh?.1
            case .fido2(let key):
                guard options.securityKey else {
                    kek = nil
                    break
                }
                let fresh = KeySlot.FIDO2(
                    relyingParty: key.relyingParty, credentialID: key.credentialID, salt: SecureRandom.bytes(32),
                    flags: key.flags)
                kept.parameters = .fido2(fresh)
                kek = try await askedKEK(fresh, options).map { SlotKeys.kek(from: $0, kind: slot.kind.rawValue) }
            case .fido2Passcode(let key, _):
                guard options.securityKey, let passcode = options.fido2Passcode else {
                    kek = nil
                    break
                }
                let fresh = KeySlot.FIDO2(
                    relyingParty: key.relyingParty, credentialID: key.credentialID, salt: SecureRandom.bytes(32),
                    flags: key.flags)
                kept.parameters = .fido2Passcode(fresh, typed)
                guard let output = try await askedKEK(fresh, options) else {
                    kek = nil
                    break
                }
                let mixed = SlotKeys.fido2PasscodeKey(
                    hmacSecret: output, passcodeKey: try await typedKey(passcode, typed))
                kek = SlotKeys.kek(from: mixed, kind: slot.kind.rawValue)
            }
            if let kek {
                plan.slots.append((kept, kek))
            } else {
                plan.dropped.append(SlotInfo(slot))
            }
        }
        if !plan.dropped.isEmpty, !options.dropSlots { throw .wouldDropSlots(plan.dropped) }
        return plan
    }

    /// A login slot's new key: `password` must open it under the old header (so a mistyped one
    /// is not written as the slot's password), then derives under the new salt. Nil without one.
    private func rekeyedLogin(
        _ slot: KeySlot, _ header: VaultHeader, _ old: KeySlot.Typed, password: SecureBytes?, typed: KeySlot.Typed
    ) async throws(ServiceError) -> SecureBytes? {
        guard let password else { return nil }
        let oldKey = try await typedKey(password, old)
        guard (try? header.unwrapMaster(slot, kek: Self.kek(for: slot, typedKey: oldKey, in: header))) != nil else {
            throw .wrongPasscode(nil)
        }
        return SlotKeys.kek(from: try await typedKey(password, typed), kind: slot.kind.rawValue)
    }

    /// A recovery slot's new key under `salt`, when `code` is its code; nil otherwise.
    private func rekeyedRecovery(_ slot: KeySlot, _ header: VaultHeader, code text: SecureBytes?, salt: [UInt8])
        -> SecureBytes?
    {
        guard let text, let code = RecoveryCode.parse(text), case .recovery(let oldSalt) = slot.parameters else {
            return nil
        }
        let oldKEK = SlotKeys.kek(from: SlotKeys.recoveryKey(code: code, salt: oldSalt), kind: slot.kind.rawValue)
        guard (try? header.unwrapMaster(slot, kek: oldKEK)) != nil else { return nil }
        return SlotKeys.kek(from: SlotKeys.recoveryKey(code: code, salt: salt), kind: slot.kind.rawValue)
    }

    /// A tpm2 slot with a fresh key sealed under the same PCRs, and that key's KEK; nil when the
    /// TPM is not at hand (the slot is then dropped, or the re-key refused).
    private func resealed(_ sealed: KeySlot.TPM2, kind: KeySlot.Kind) async -> (KeySlot.Parameters, SecureBytes)? {
        guard let tpm else { return nil }
        let secret = SecureRandom.secureBytes(32)
        do {
            let blob = try await tpm.seal(secret, pcrMask: sealed.pcrMask, device: nil)
            return (
                .tpm2(KeySlot.TPM2(pcrMask: sealed.pcrMask, template: sealed.template, blob: blob)),
                SlotKeys.kek(from: secret, kind: kind.rawValue)
            )
        } catch {
            logger.notice("The TPM could not seal a re-keyed tpm2 slot", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// A transit slot with a fresh key encrypted by the same transit key, and that key's KEK; nil
    /// when OpenBao does not encrypt it (the slot is then dropped, or the re-key refused).
    private func resealed(_ wrapped: KeySlot.Transit, kind: KeySlot.Kind) async -> (KeySlot.Parameters, SecureBytes)? {
        guard let transit else { return nil }
        let secret = SecureRandom.secureBytes(32)
        do {
            let ciphertext = try await transit.seal(secret, key: wrapped.key)
            return (
                .transit(KeySlot.Transit(key: wrapped.key, ciphertext: ciphertext)),
                SlotKeys.kek(from: secret, kind: kind.rawValue)
            )
        } catch {
            logger.notice("OpenBao could not wrap a re-keyed transit slot", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// The present key's `hmac-secret` output for a fido2 slot's new salt; nil when the key does
    /// not hold the slot's credential (another key's slot).
    private func askedKEK(_ key: KeySlot.FIDO2, _ options: RekeyOptions) async throws(ServiceError) -> SecureBytes? {
        guard let securityKeys else { return nil }
        let request = SecurityKeyRequest(
            relyingParty: key.relyingParty, presence: key.flags.contains(.presence),
            verification: key.flags.contains(.verification), pin: key.flags.contains(.pin) ? options.pin : nil,
            device: options.device)
        do throws(HardwareError) {
            let probe = SecurityKeyRequest(relyingParty: key.relyingParty, presence: false, device: options.device)
            guard try await securityKeys.holds(credentialID: key.credentialID, probe) else { return nil }
            return try await securityKeys.hmacSecret(credentialID: key.credentialID, salt: key.salt, request)
        } catch {
            throw .hardware(error)
        }
    }
}
