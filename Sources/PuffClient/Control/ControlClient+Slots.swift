// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffSystem
import SystemPackage

/// One unlock slot as `ListSlots` describes it: nothing secret.
public struct SlotSummary: Sendable, Equatable {
    public var id: UInt16
    /// `passcode`, `recovery`, `login`, `tpm2`, `fido2`, `fido2+passcode` or `transit`.
    public var type: String
    public var label: String
    /// tpm2: bit i binds sha256 PCR i.
    public var pcrs: UInt32?
    /// fido2 types: a touch, the key's own verification, the key's PIN.
    public var presence: Bool?
    public var verification: Bool?
    public var pin: Bool?
    /// transit: the OpenBao transit key's name.
    public var transitKey: String?

    init(_ fields: [String: DBusValue]) throws(ClientError) {
        let reply = ReplyFields(fields, member: "ListSlots")
        guard case .uint16(let id)? = fields[ControlKey.id] else { throw .unexpectedReply(member: "ListSlots") }
        self.id = id
        type = try reply.string(ControlKey.type) ?? ""
        label = try reply.string(ControlKey.label) ?? ""
        pcrs = try reply.uint32(ControlKey.pcrs)
        presence = try reply.bool(ControlKey.userPresence)
        verification = try reply.bool(ControlKey.userVerification)
        pin = try reply.bool(ControlKey.pin)
        transitKey = try reply.string(ControlKey.transitKey)
    }
}

/// What `AddSlot` is asked for beyond the type (dbus/io.puff.Control1.xml): nil leaves an option
/// to puffd's default.
public struct SlotRequest: Sendable {
    public var label: String?
    public var pcrs: UInt32?
    public var presence: Bool?
    public var verification: Bool?
    /// The security key's PIN, for a slot that needs it at every unlock.
    public var pin: SecureBytes?
    public var tpm2Device: String?
    public var fido2Device: String?
    /// passcode and fido2+passcode: the new slot's passcode.
    public var newPasscode: SecureBytes?

    public init() {}

    var options: DBusValue {
        get throws(ClientError) {
            var entries: [DBusValue.DictEntry] = []
            func add(_ name: String, _ value: DBusValue?) {
                if let value { entries.append(.init(.string(name), .variant(value))) }
            }
            add(ControlKey.label, label.map(DBusValue.string))
            add(ControlKey.pcrs, pcrs.map(DBusValue.uint32))
            add(ControlKey.userPresence, presence.map(DBusValue.boolean))
            add(ControlKey.userVerification, verification.map(DBusValue.boolean))
            add(ControlKey.tpm2Device, tpm2Device.map(DBusValue.string))
            add(ControlKey.fido2Device, fido2Device.map(DBusValue.string))
            if let pin { add(ControlKey.pin, .unixFD(try PasscodePipe.readEnd(carrying: pin))) }
            return .dictionary(key: "s", value: "v", entries)
        }
    }
}

extension ControlClient {
    /// `ListSlots`: the collection's unlock slots.
    public func listSlots(of collection: String) async throws(ClientError) -> [SlotSummary] {
        let reply = try await call(.listSlots, [.string(collection)], collection: collection)
        guard case .array(_, let entries) = reply[0] else { throw .unexpectedReply(member: "ListSlots") }
        var slots: [SlotSummary] = []
        for entry in entries {
            guard let fields = entry.variantDictionary else { throw .unexpectedReply(member: "ListSlots") }
            slots.append(try SlotSummary(fields))
        }
        return slots
    }

    /// `AddSlot`: a new slot of `type`, proved by `proof` (a passcode or recovery code of the
    /// collection). For a recovery slot, puffd writes the new code into a pipe this process made:
    /// it is returned here once, and was never in a message.
    ///
    /// - Returns: The new slot's id, and a recovery slot's code (`XXXX-…`, without the newline).
    public func addSlot(
        to collection: String, type: String, _ request: SlotRequest, proof: SecureBytes
    ) async throws(ClientError) -> (id: UInt16, recoveryCode: SecureBytes?) {
        let proofPipe = try PasscodePipe.readEnd(carrying: proof)
        var codeEnds: (read: UnixFD, write: UnixFD)?
        let secret: UnixFD
        if type == "recovery" {
            do {
                codeEnds = try UnixFD.pipe()
            } catch {
                throw .passcodeIOFailed(errno: error.errno)
            }
            secret = codeEnds!.write
        } else {
            // passcode and fido2+passcode take the new passcode; the others read nothing.
            secret = try PasscodePipe.readEnd(carrying: request.newPasscode ?? SecureBytes.empty)
        }
        let reply = try await call(
            .addSlot, [.string(collection), .string(type), try request.options, .unixFD(proofPipe), .unixFD(secret)],
            collection: collection, timeout: Self.hardwareCallTimeout)
        guard case .uint16(let id)? = reply.first else { throw .unexpectedReply(member: "AddSlot") }
        guard let codeEnds else { return (id, nil) }
        // puffd wrote the code before it answered: it is in the pipe already.
        return (id, try Self.readCode(from: codeEnds.read))
    }

    /// `RemoveSlot`: removes slot `id`, proved by `proof`.
    public func removeSlot(_ id: UInt16, from collection: String, proof: SecureBytes) async throws(ClientError) {
        let proofPipe = try PasscodePipe.readEnd(carrying: proof)
        _ = try await call(
            .removeSlot,
            [.string(collection), .uint16(id), .dictionary(key: "s", value: "v", []), .unixFD(proofPipe)],
            collection: collection, timeout: Self.passcodeCallTimeout)
    }

    /// `RelabelSlot`: renames slot `id`, proved by `proof`.
    public func relabelSlot(_ id: UInt16, of collection: String, to label: String, proof: SecureBytes)
        async throws(ClientError)
    {
        let proofPipe = try PasscodePipe.readEnd(carrying: proof)
        _ = try await call(
            .relabelSlot, [.string(collection), .uint16(id), .string(label), .unixFD(proofPipe)],
            collection: collection, timeout: Self.passcodeCallTimeout)
    }

    /// `UnlockWith` and a recovery code (as typed; puffd checks it is one).
    public func unlock(_ collection: String, recoveryCode: SecureBytes) async throws(ClientError) -> String {
        let pipe = try PasscodePipe.readEnd(carrying: recoveryCode)
        let options = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(ControlKey.recovery), .variant(.unixFD(pipe)))])
        let reply = try await call(
            .unlockWith, [.string(collection), options], collection: collection,
            timeout: Self.passcodeCallTimeout)
        guard let id = reply.first?.string else { throw .unexpectedReply(member: "UnlockWith") }
        return id
    }

    /// `UnlockWith` with nothing typed, on slot `slot` alone: a tpm2 slot (puffd's TPM), or a
    /// fido2 slot whose credential the present key holds (puffd's key; a touch is waited for up
    /// to ``hardwareCallTimeout``).
    public func unlock(_ collection: String, untypedSlot slot: UInt16) async throws(ClientError) -> String {
        let options = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(ControlKey.slot), .variant(.uint16(slot)))])
        let reply = try await call(
            .unlockWith, [.string(collection), options], collection: collection,
            timeout: Self.hardwareCallTimeout)
        guard let id = reply.first?.string else { throw .unexpectedReply(member: "UnlockWith") }
        return id
    }

    /// `Rekey`: a new key for the collection and `new` for its passcode slot, proved by `proof`
    /// (a passcode or recovery code). Slots whose credential is not at hand make puffd refuse
    /// (``ClientError/slotRefused(_:)``, listing them) unless `dropSlots`.
    public func rekey(
        _ collection: String, proof: SecureBytes, new: SecureBytes, dropSlots: Bool = false,
        progress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws(ClientError) {
        let proofPipe = try PasscodePipe.readEnd(carrying: proof)
        let newPipe = try PasscodePipe.readEnd(carrying: new)
        var options: [DBusValue.DictEntry] = []
        if dropSlots { options.append(.init(.string(ControlKey.dropSlots), .variant(.boolean(true)))) }
        _ = try await observingProgress(.rekey, progress) { () async throws(ClientError) in
            try await call(
                .rekey,
                [
                    .string(collection), .unixFD(proofPipe), .unixFD(newPipe),
                    .dictionary(key: "s", value: "v", options),
                ], collection: collection, timeout: Self.hardwareCallTimeout)
        }
    }

    /// How long calls that may wait for a touch on a security key wait.
    public static let hardwareCallTimeout: Duration = .seconds(180)

    /// The code line puffd wrote, without its newline, read without waiting (it is there or not).
    private static func readCode(from end: UnixFD) throws(ClientError) -> SecureBytes {
        let fd = end.rawValue
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .passcodeIOFailed(errno: errno) }
        var length = 0
        let buffer = SecureBytes(count: 64) { (out: UnsafeMutableRawBufferPointer) -> Void in
            // Non-blocking: what is not there yet (EAGAIN) is not coming.
            while length < out.count {
                let rest = UnsafeMutableRawBufferPointer(rebasing: out[length...])
                guard let count = try? FileDescriptor(rawValue: fd).readSome(into: rest), count > 0 else { break }
                length += count
            }
        }
        let code = buffer.withUnsafeBytes { bytes -> SecureBytes in
            let line = bytes[..<length]
            let end = line.firstIndex(of: UInt8(ascii: "\n")) ?? length
            return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[..<end]))
        }
        guard RecoveryCode.parse(code) != nil else {
            throw .failed(name: "AddSlot", message: "the recovery code did not arrive through its pipe")
        }
        return code
    }
}
