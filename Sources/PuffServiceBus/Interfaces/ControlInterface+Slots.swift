// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore

/// `io.puff.Control1`'s unlock slot methods (dbus/io.puff.Control1.xml, docs/unlock-slots.md):
/// `ListSlots`, `AddSlot`, `RemoveSlot`, `RelabelSlot`, `UnlockWith` and `Rekey`. Every passcode, PIN and recovery code
/// crosses in a pipe, never in a message: a new recovery code is written by puffd into the pipe the
/// caller hands over.
extension SecretInterfaces {
    static func slotMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        return [
            controlMethod(.listSlots, in: .string("collection")) { call, name in
                let slots = try await service.slots(of: CollectionID(name))
                return [.array(element: "a{sv}", slots.map(\.controlEntry))]
            },
            controlMethod(
                .addSlot, in: .string("collection"), .string("type"), .variantDictionary("options"), .unixFD("proof"),
                .unixFD("secret")
            ) { call, name, type, options, proofPipe, secret in
                let collection = CollectionID(name)
                let kind = try SlotTypeName.kind(type)
                var slotOptions = try await SlotOptionNames.options(options, kind: kind)
                switch kind {
                case .passcode, .login: slotOptions.newPasscode = try await SlotPipe.read(secret)
                case .fido2Passcode: slotOptions.withPasscode = try await SlotPipe.read(secret)
                // Checked before the slot is made: a code that cannot be handed over is no use.
                case .recovery: try ExportPipe.check(secret)
                case .tpm2, .fido2, .transit: break
                }
                let proof = SlotCredential.typed(try await call.passcode(from: proofPipe))
                let add: @Sendable () async throws -> (id: KeySlot.ID, recoveryCode: SecureBytes?) = {
                    [slotOptions] in
                    try await service.addSlot(
                        to: collection, kind: kind, options: slotOptions, proof: proof, caller: call.caller)
                }
                // As in UnlockWith: an enrolment's wait for a touch ends when its caller goes
                // (Ctrl-C on puffctl), so the key is not held until its own time limit.
                let added =
                    if kind == .fido2 || kind == .fido2Passcode, let departures = context.departures {
                        try await departures.whileCallerStays(call.context.sender, add)
                    } else {
                        try await add()
                    }
                if let code = added.recoveryCode {
                    try SlotPipe.write(code, to: secret, slot: added.id)
                }
                return [.uint16(added.id)]
            },
            controlMethod(
                .removeSlot, in: .string("collection"), .uint16("slot"), .variantDictionary("options"), .unixFD("proof")
            ) { call, name, slot, _, proof in
                try await service.removeSlot(
                    slot, from: CollectionID(name), proof: .typed(try await call.passcode(from: proof)),
                    caller: call.caller)
                return []
            },
            controlMethod(
                .relabelSlot, in: .string("collection"), .uint16("slot"), .string("label"), .unixFD("proof")
            ) { call, name, slot, label, proof in
                try await service.relabelSlot(
                    slot, of: CollectionID(name), label: label, proof: .typed(try await call.passcode(from: proof)),
                    caller: call.caller)
                return []
            },
            controlMethod(.unlockWith, in: .string("collection"), .variantDictionary("options")) {
                call, name, options in
                var slot: KeySlot.ID?
                if let entry = options[ControlKey.slot] {
                    guard case .uint16(let id) = entry else { throw ServiceError.invalidArgument("slot must be q") }
                    slot = id
                }
                let credential: SlotCredential
                if let recovery = try await SlotPipe.read(options[ControlKey.recovery], name: ControlKey.recovery) {
                    guard RecoveryCode.parse(recovery) != nil else {
                        throw ServiceError.invalidArgument("recovery does not carry a recovery code")
                    }
                    credential = .typed(recovery)
                } else if let passcode = try await SlotPipe.read(
                    options[ControlKey.passcode], name: ControlKey.passcode)
                {
                    credential = .typed(passcode)
                } else {
                    credential = .hardware(
                        pin: try await SlotPipe.read(options[ControlKey.pin], name: ControlKey.pin),
                        passcode: try await SlotPipe.read(
                            options[ControlKey.fido2Passcode], name: ControlKey.fido2Passcode),
                        device: try SlotOptionNames.string(
                            options[ControlKey.fido2Device], name: ControlKey.fido2Device))
                }
                let collection = name.isEmpty ? nil : CollectionID(name)
                let unlock: @Sendable () async throws -> CollectionID = { [slot] in
                    try await service.unlock(collection, with: credential, slot: slot)
                }
                // A wait for a touch ends when its caller goes (Ctrl-C on puffctl): a touch meant
                // for something else must not open the collection later.
                let id =
                    if case .hardware = credential, let departures = context.departures {
                        try await departures.whileCallerStays(call.context.sender, unlock)
                    } else {
                        try await unlock()
                    }
                return [.string(id.rawValue)]
            },
            controlMethod(
                .rekey, in: .string("collection"), .unixFD("proof"), .unixFD("new_passcode"),
                .variantDictionary("options")
            ) { call, name, proofPipe, newPipe, rekeyOptions in
                let id = CollectionID(name)
                let proof = SlotCredential.typed(try await call.passcode(from: proofPipe))
                let new = try await call.passcode(from: newPipe)
                let options = try await SlotOptionNames.rekey(rekeyOptions)
                try await service.changePasscode(
                    of: id, proof: proof, new: new, options: options,
                    progress: context.progress(of: .rekey, for: call))
                return []
            },
        ]
    }
}

/// The slot type names of `AddSlot` and `ListSlots`: ``KeySlot/Kind``'s descriptions.
enum SlotTypeName {
    /// The type `name` names.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for any other name.
    static func kind(_ name: String) throws(ServiceError) -> KeySlot.Kind {
        guard let kind = KeySlot.Kind.allCases.first(where: { $0.description == name }) else {
            let names = KeySlot.Kind.allCases.map(\.description).joined(separator: ", ")
            throw .invalidArgument("a slot type is one of \(names)")
        }
        return kind
    }
}

extension SlotInfo {
    /// The `a{sv}` `ListSlots` answers with per slot.
    var controlEntry: DBusValue {
        var fields: [String: DBusValue] = [
            ControlKey.id: .uint16(id), ControlKey.type: .string(kind.description), ControlKey.label: .string(label),
        ]
        if let pcrMask { fields[ControlKey.pcrs] = .uint32(pcrMask) }
        if let transitKey { fields[ControlKey.transitKey] = .string(transitKey) }
        if let fido2Flags {
            fields[ControlKey.userPresence] = .boolean(fido2Flags.contains(.presence))
            fields[ControlKey.userVerification] = .boolean(fido2Flags.contains(.verification))
            fields[ControlKey.pin] = .boolean(fido2Flags.contains(.pin))
        }
        return .variantDictionary(fields)
    }
}
