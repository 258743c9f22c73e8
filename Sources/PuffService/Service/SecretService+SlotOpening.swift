// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// What opening one of a header's slots gave.
struct OpenedSlot {
    var master: MasterKey
    /// The slot that opened.
    var slot: KeySlot.ID
    /// The typed credential's Argon2id output under that slot's salt, when a passcode or login
    /// slot opened: what a legacy header's slot is re-wrapped under when it becomes version 3.
    var typedKey: SecureBytes?
}

extension SecretService {
    /// Opens one of `header`'s slots with `credential` (only slot `only`, when given), in the order
    /// of docs/design/unlock-slots.md §3: recovery slots first for a text that parses as a recovery
    /// code, then one Argon2id run per group of typed slots sharing a salt; for no typing, tpm2
    /// slots, then fido2 slots whose credential the present key holds. The master that opens is
    /// checked against the header MAC.
    ///
    /// - Throws: ``ServiceError/wrongPasscode(_:)`` (not counted; callers run typed attempts in
    ///   ``passcodeAttempt(_:_:)``), ``ServiceError/hardware(_:)``, ``ServiceError/slotNotFound(_:)``,
    ///   ``ServiceError/noMatchingSlot(_:)``, ``ServiceError/damaged(_:)`` when a slot opens but
    ///   the header does not authenticate under its master.
    func openSlot(
        of header: VaultHeader, with credential: SlotCredential, only: KeySlot.ID? = nil, tpmOnly: Bool = false
    ) async throws(ServiceError) -> OpenedSlot {
        let slots = header.slots.filter { only == nil || $0.id == only }
        if let only, slots.isEmpty { throw .slotNotFound(only) }
        let opened: OpenedSlot
        switch credential {
        case .typed(let text):
            opened = try await openTyped(header, slots, text, order: [.passcode, .login])
        case .login(let password):
            opened = try await openTyped(header, slots, password, order: [.login, .passcode], recovery: false)
        case .hardware(let pin, let passcode, let device):
            opened = try await openHardware(
                header, slots, pin: pin, passcode: passcode, device: device, tpmOnly: tpmOnly)
        }
        do {
            try header.verifyMAC(with: opened.master)
        } catch {
            logger.error("A collection's header does not authenticate", metadata: ["error": "\(error)"])
            throw .damaged("the collection's header does not authenticate: it was altered or damaged (\(error))")
        }
        return opened
    }

    /// Recovery slots (when `text` parses as a code), then the typed slots of the kinds in
    /// `order`, one key derivation per salt.
    private func openTyped(
        _ header: VaultHeader, _ slots: [KeySlot], _ text: SecureBytes, order: [KeySlot.Kind], recovery: Bool = true
    ) async throws(ServiceError) -> OpenedSlot {
        let recoverySlots = recovery ? slots.filter { $0.kind == .recovery } : []
        let typedSlots = order.flatMap { kind in slots.filter { $0.kind == kind } }
        guard !recoverySlots.isEmpty || !typedSlots.isEmpty else {
            throw .noMatchingSlot("no slot of this collection opens with a typed passcode (puffctl slot list)")
        }
        if !recoverySlots.isEmpty, let code = RecoveryCode.parse(text) {
            for slot in recoverySlots {
                guard case .recovery(let salt) = slot.parameters else { continue }
                let kek = SlotKeys.kek(from: SlotKeys.recoveryKey(code: code, salt: salt), kind: slot.kind.rawValue)
                if let master = try? header.unwrapMaster(slot, kek: kek) {
                    return OpenedSlot(master: master, slot: slot.id, typedKey: nil)
                }
            }
        }
        // One Argon2id run for every typed slot that shares a salt and cost (design §3).
        var groups: [(KeySlot.Typed, [KeySlot])] = []
        for slot in typedSlots {
            guard let typed = slot.parameters.typed else { continue }
            if let index = groups.firstIndex(where: { $0.0 == typed }) {
                groups[index].1.append(slot)
            } else {
                groups.append((typed, [slot]))
            }
        }
        for (typed, members) in groups {
            let key = try await typedKey(text, typed)
            for slot in members {
                if let master = try? header.unwrapMaster(slot, kek: Self.kek(for: slot, typedKey: key, in: header)) {
                    return OpenedSlot(master: master, slot: slot.id, typedKey: key)
                }
            }
        }
        throw .wrongPasscode(nil)
    }

    /// A slot's key from its typed credential's Argon2id output: a legacy header's one slot takes
    /// it as it is (as before slots), a version 3 slot its type's separation of it.
    static func kek(for slot: KeySlot, typedKey: SecureBytes, in header: VaultHeader) -> SecureBytes {
        header.isLegacy ? typedKey : SlotKeys.kek(from: typedKey, kind: slot.kind.rawValue)
    }

    /// Sets ``beforeKeyDerivation`` (tests).
    package func runBeforeKeyDerivation(_ hold: (@Sendable () -> Void)?) { beforeKeyDerivation = hold }

    /// The key `text` derives under `typed`'s salt and cost, off the actor and off the cooperative
    /// pool (``keyDerivationQueue``).
    func typedKey(_ text: SecureBytes, _ typed: KeySlot.Typed) async throws(ServiceError) -> SecureBytes {
        keyDerivations += 1
        let hold = beforeKeyDerivation
        do {
            return try await BlockingWork.run(on: keyDerivationQueue) { () throws(CryptoError) in
                hold?()
                return try PasscodeKDF.key(for: text, salt: typed.salt, parameters: typed.kdf)
            }
        } catch {
            logger.error("Deriving a passcode key failed", metadata: ["error": "\(error)"])
            throw .failed("the passcode could not be processed")
        }
    }
}
