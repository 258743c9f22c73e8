// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// A new slot's parameters and key, made before the header is written.
struct SlotEnrolment {
    var parameters: KeySlot.Parameters
    var kek: SecureBytes
    /// A recovery slot's code, formatted for the person (shown once).
    var recoveryCode: SecureBytes?
}

extension SecretService {
    /// The relying party of every vault slot's FIDO2 credential.
    static let relyingParty = "io.puff.vault"

    /// Runs one slot change of collection `id` (design §2 "Crash safety"): `check` on the header
    /// as it is, the proof (any slot's credential; a failure is audited as refused), the unlock of
    /// a locked collection, `prepare` (hardware, key derivations) before the write turn, then
    /// under it `change` on the header as it is then, whose result replaces the header file
    /// (old or new, both valid, after a crash). The change is audited as `action`, done or failed.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/invalidArgument(_:)`` for a hidden
    ///   collection (its one passcode slot never changes: another slot would open it without its
    ///   passcode) or the `session` collection, and what the steps throw.
    func slotChange<Prepared>(
        _ action: AuditAction, of id: CollectionID, label: String, proof: SlotCredential, caller: Caller,
        check: (VaultHeader) throws(ServiceError) -> Void,
        prepare: (VaultHeader, OpenedSlot) async throws(ServiceError) -> Prepared,
        change: (VaultHeader, OpenedSlot, Prepared) throws(ServiceError) -> VaultHeader
    ) async throws(ServiceError) {
        let entry = ItemID(collection: id, number: 0)
        let vault = try state(of: id)
        guard let header = vault.header, vault.space != nil else {
            throw .invalidArgument("the session collection has no slots")
        }
        let opened: OpenedSlot
        let prepared: Prepared
        do throws(ServiceError) {
            guard !vault.isHidden else {
                throw .invalidArgument("a hidden collection opens with its one passcode: its slots do not change")
            }
            try check(header)
            let since = vault.lockCount  // a Lock while the proof is derived wins
            opened = try await openedSlot(of: id, with: proof)
            if vault.isLocked { try await open(vault, master: opened.master, since: since) }
            prepared = try await prepare(header, opened)
        } catch {
            audit(action, of: entry, label: label, caller: caller, result: Self.auditResult(of: error))
            throw error
        }
        await beginWrite()
        defer { endWrite() }
        guard collectionStates[id] === vault, !vault.isLocked, vault.header != nil else { throw .noSuchObject }
        // Another machine's slot change comes first: the change is made to the newest header,
        // which must still hold the slot that proved it (a removed slot proves nothing).
        let taken = await takeSharedHeader(of: vault)
        guard let current = vault.header else { throw .noSuchObject }
        // A passcode change meanwhile re-keyed it: the proof's master is the old key.
        guard current.space == header.space else { throw .wrongPasscode(nil) }
        guard !taken || current.slots.contains(where: { $0.id == opened.slot }) else { throw .wrongPasscode(nil) }
        try await audited(action, of: entry, label: label, caller: caller) { () throws(ServiceError) in
            try await writeHeader(try change(current, opened, prepared), of: vault)
        }
        logger.notice(
            "A collection's slots changed",
            metadata: [
                "collection.id": "\(id)", "change": "\(action)", "slot": "\(label)",
                "client.name": "\(caller.client.rawValue)",
            ])
    }

    /// Replaces the collection's header file and its copy in memory.
    func writeHeader(_ header: VaultHeader, of vault: CollectionVault) async throws(ServiceError) {
        guard let space = vault.space else { throw .noSuchObject }
        do {
            try await store.replaceHeader(header.encoded(), of: space)
        } catch {
            logger.error("Writing a header failed", metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
            if case .staleGeneration = error as? StoreError, let name = store.sharedName(of: space) {
                throw .failed(
                    "the unlock slots of collection \(vault.id) (shared as \(name)) were changed on another machine "
                        + "meanwhile, or its header in the shared store is not one this machine takes: nothing was "
                        + "saved; try again once this machine has taken it (puffd's log says when one is refused)")
            }
            throw storeFailure(error, in: vault, "the collection's header could not be saved")
        }
        vault.header = header
    }

    /// Makes a new slot's parameters and key: typed slots under the salt and cost the collection's
    /// typed slots share (`shared`; a fresh salt when there are none), a recovery code, a key
    /// sealed by the TPM or wrapped by OpenBao's transit key, or a FIDO2 credential (enrolled, then asked once for its output).
    func enrol(_ kind: KeySlot.Kind, _ options: SlotOptions, shared: KeySlot.Typed?) async throws(ServiceError)
        -> SlotEnrolment
    {
        let typed = shared ?? KeySlot.Typed(kdf: mode.kdf, salt: PasscodeKDF.newSalt())
        switch kind {
        case .passcode, .login:
            guard let passcode = options.newPasscode else {
                throw .invalidArgument("a \(kind) slot needs its passcode")
            }
            let key = try await typedKey(passcode, typed)
            let parameters: KeySlot.Parameters = kind == .login ? .login(typed) : .passcode(typed)
            return SlotEnrolment(parameters: parameters, kek: SlotKeys.kek(from: key, kind: kind.rawValue))
        case .recovery:
            let code = RecoveryCode.generate()
            let salt = PasscodeKDF.newSalt()
            return SlotEnrolment(
                parameters: .recovery(salt: salt),
                kek: SlotKeys.kek(from: SlotKeys.recoveryKey(code: code, salt: salt), kind: kind.rawValue),
                recoveryCode: RecoveryCode.format(code))
        case .tpm2:
            guard let tpm else { throw .hardware(.unavailable("puffd was started without a TPM")) }
            let secret = SecureRandom.secureBytes(32)
            do throws(HardwareError) {
                let blob = try await tpm.seal(secret, pcrMask: options.pcrMask, device: options.device)
                return SlotEnrolment(
                    parameters: .tpm2(KeySlot.TPM2(pcrMask: options.pcrMask, blob: blob)),
                    kek: SlotKeys.kek(from: secret, kind: kind.rawValue))
            } catch {
                throw .hardware(error)
            }
        case .transit:
            return try await enrolTransit()
        case .fido2, .fido2Passcode:
            let (key, output) = try await enrolSecurityKey(options)
            guard kind == .fido2Passcode else {
                return SlotEnrolment(parameters: .fido2(key), kek: SlotKeys.kek(from: output, kind: kind.rawValue))
            }
            guard let passcode = options.withPasscode else {
                throw .invalidArgument("a fido2+passcode slot needs its passcode")
            }
            let mixed = SlotKeys.fido2PasscodeKey(hmacSecret: output, passcodeKey: try await typedKey(passcode, typed))
            return SlotEnrolment(
                parameters: .fido2Passcode(key, typed), kek: SlotKeys.kek(from: mixed, kind: kind.rawValue))
        }
    }

    /// A fresh 32-byte key encrypted by the configured transit key (OpenBao sees it in the request
    /// body only; the header keeps its ciphertext).
    private func enrolTransit() async throws(ServiceError) -> SlotEnrolment {
        guard let transit else {
            throw .invalidArgument("puffd has no OpenBao: set [store.openbao] address and transit_key")
        }
        guard let key = transit.keyName else {
            throw .invalidArgument("no transit key is configured: set transit_key in [store.openbao]")
        }
        let secret = SecureRandom.secureBytes(32)
        do throws(HardwareError) {
            let ciphertext = try await transit.seal(secret, key: key)
            return SlotEnrolment(
                parameters: .transit(KeySlot.Transit(key: key, ciphertext: ciphertext)),
                kek: SlotKeys.kek(from: secret, kind: KeySlot.Kind.transit.rawValue))
        } catch {
            throw .hardware(error)
        }
    }

    /// Enrols a non-resident credential on the security key and asks it once for the
    /// `hmac-secret` output under a fresh salt, with the presence and verification every unlock
    /// of the slot will ask (the output differs without them).
    private func enrolSecurityKey(_ options: SlotOptions) async throws(ServiceError) -> (KeySlot.FIDO2, SecureBytes) {
        guard let securityKeys else {
            throw .hardware(.unavailable("puffd was started without security key support"))
        }
        var flags: KeySlot.FIDO2.Flags = []
        if options.presence { flags.insert(.presence) }
        if options.verification { flags.insert(.verification) }
        if options.pin != nil { flags.insert(.pin) }
        let request = SecurityKeyRequest(
            relyingParty: Self.relyingParty, presence: options.presence, verification: options.verification,
            pin: options.pin, device: options.device)
        do throws(HardwareError) {
            let credential = try await securityKeys.enrol(request)
            let key = KeySlot.FIDO2(
                relyingParty: Self.relyingParty, credentialID: credential, salt: SecureRandom.bytes(32), flags: flags)
            let output = try await securityKeys.hmacSecret(credentialID: credential, salt: key.salt, request)
            return (key, output)
        } catch {
            throw .hardware(error)
        }
    }
}
