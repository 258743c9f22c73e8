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
            controlMethod("ListSlots", in: [.init("collection", "s")], out: [.init("slots", "aa{sv}")]) { call in
                let slots = try await service.slots(of: CollectionID(try call.argument(0, \.string)))
                return [.array(element: "a{sv}", slots.map(\.controlEntry))]
            },
            controlMethod(
                "AddSlot",
                in: [
                    .init("collection", "s"), .init("type", "s"), .init("options", "a{sv}"), .init("proof", "h"),
                    .init("secret", "h"),
                ],
                out: [.init("slot", "q")]
            ) { call in
                let collection = CollectionID(try call.argument(0, \.string))
                let kind = try SlotTypeName.kind(try call.argument(1, \.string))
                let options = try call.argument(2, \.variantDictionary)
                guard call.arguments.count > 4, let secret = call.arguments[4].unixFD else {
                    throw ServiceError.invalidArgument("secret must be a pipe's file descriptor (h)")
                }
                var slotOptions = try await SlotOptionNames.options(options, kind: kind)
                switch kind {
                case .passcode, .login: slotOptions.newPasscode = try await SlotPipe.read(secret)
                case .fido2Passcode: slotOptions.withPasscode = try await SlotPipe.read(secret)
                // Checked before the slot is made: a code that cannot be handed over is no use.
                case .recovery: try ExportPipe.check(secret)
                case .tpm2, .fido2: break
                }
                let proof = SlotCredential.typed(try await call.passcode(3))
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
                "RemoveSlot",
                in: [.init("collection", "s"), .init("slot", "q"), .init("options", "a{sv}"), .init("proof", "h")]
            ) { call in
                try await service.removeSlot(
                    try call.argument(1, \.uint16), from: CollectionID(try call.argument(0, \.string)),
                    proof: .typed(try await call.passcode(3)), caller: call.caller)
                return []
            },
            controlMethod(
                "RelabelSlot",
                in: [.init("collection", "s"), .init("slot", "q"), .init("label", "s"), .init("proof", "h")]
            ) { call in
                try await service.relabelSlot(
                    try call.argument(1, \.uint16), of: CollectionID(try call.argument(0, \.string)),
                    label: try call.argument(2, \.string),
                    proof: .typed(try await call.passcode(3)), caller: call.caller)
                return []
            },
            controlMethod(
                "UnlockWith", in: [.init("collection", "s"), .init("options", "a{sv}")],
                out: [.init("unlocked", "s")]
            ) { call in
                let name = try call.argument(0, \.string)
                let options = try call.argument(1, \.variantDictionary)
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
                "Rekey",
                in: [
                    .init("collection", "s"), .init("proof", "h"), .init("new_passcode", "h"),
                    .init("options", "a{sv}"),
                ]
            ) { call in
                let id = CollectionID(try call.argument(0, \.string))
                let proof = SlotCredential.typed(try await call.passcode(1))
                let new = try await call.passcode(2)
                let options = try await SlotOptionNames.rekey(try call.argument(3, \.variantDictionary))
                try await service.changePasscode(
                    of: id, proof: proof, new: new, options: options,
                    progress: context.progress(of: "Rekey", for: call))
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
        if let fido2Flags {
            fields[ControlKey.userPresence] = .boolean(fido2Flags.contains(.presence))
            fields[ControlKey.userVerification] = .boolean(fido2Flags.contains(.verification))
            fields[ControlKey.pin] = .boolean(fido2Flags.contains(.pin))
        }
        return .variantDictionary(fields)
    }
}
