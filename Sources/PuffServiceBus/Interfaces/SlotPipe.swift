// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffConcurrency
import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore
import PuffSystem
import SystemPackage

/// The pipes of the slot methods (dbus/io.puff.Control1.xml): passcodes, PINs and recovery codes
/// read as ``PasscodePipe`` reads a passcode, and a new recovery code written into the caller's pipe.
enum SlotPipe {
    /// The secret behind the pipe `descriptor`, read off the cooperative pool and without a call slot.
    static func read(_ descriptor: UnixFD) async throws(ServiceError) -> SecureBytes {
        try await CallSlot.released { () async throws(ServiceError) in
            try await BlockingWork.run { () throws(ServiceError) in try PasscodePipe.read(descriptor) }
        }
    }

    /// The secret behind an optional `h` option called `name`; nil when the option is absent.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` when it is not a descriptor, or the pipe's errors.
    static func read(_ value: DBusValue?, name: String) async throws(ServiceError) -> SecureBytes? {
        guard let value else { return nil }
        guard let descriptor = value.unixFD else { throw .invalidArgument("\(name) must be a pipe's descriptor (h)") }
        return try await read(descriptor)
    }

    /// Writes a new recovery code (``RecoveryCode/format(_:)``'s text) and a newline into the
    /// write end the caller gave, then puts /dev/null in place of puffd's copy so the caller
    /// sees the end. 40 bytes fit any pipe's buffer: the write does not wait for the reader.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` when the pipe takes less than the whole code; the
    ///   slot then exists but nobody has its code, which the message says.
    static func write(_ code: SecureBytes, to descriptor: UnixFD, slot: KeySlot.ID) throws(ServiceError) {
        let fd = descriptor.rawValue
        defer {
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            if null >= 0 {
                _ = dup2(null, fd)
                close(null)
            }
        }
        let flags = fcntl(fd, F_GETFL)
        let line = SecureBytes(count: code.count + 1) { (out: UnsafeMutableRawBufferPointer) -> Void in
            code.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            out[code.count] = UInt8(ascii: "\n")
        }
        var written = 0
        if flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 {
            // Non-blocking: a pipe too full to take the line (EAGAIN) leaves it short.
            written = line.withUnsafeBytes { bytes -> Int in
                (try? FileDescriptor(rawValue: fd).writeFully(bytes)) != nil ? bytes.count : 0
            }
        }
        guard written == line.count else {
            throw .failed(
                "slot \(slot) was added but its recovery code could not be handed over: remove it "
                    + "(puffctl slot remove) and add another")
        }
    }
}

/// The `options` of `AddSlot` and `Rekey` (dbus/io.puff.Control1.xml) as ``SlotOptions`` and
/// ``RekeyOptions``.
enum SlotOptionNames {
    /// Reads label, pcrs, up, uv, pin, tpm2_device and fido2_device; the PIN from its pipe.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for an option of the wrong type, or one that
    ///   does not fit `kind` (pcrs but for tpm2; up, uv, pin but for fido2 types).
    static func options(_ options: [String: DBusValue], kind: KeySlot.Kind) async throws(ServiceError) -> SlotOptions {
        let known: Set<String> = [
            ControlKey.label, ControlKey.pcrs, ControlKey.userPresence, ControlKey.userVerification, ControlKey.pin,
            ControlKey.tpm2Device, ControlKey.fido2Device,
        ]
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidArgument("AddSlot takes no option \(unknown)")
        }
        let isFIDO2 = kind == .fido2 || kind == .fido2Passcode
        for name in [ControlKey.userPresence, ControlKey.userVerification, ControlKey.pin, ControlKey.fido2Device]
        where options[name] != nil && !isFIDO2 {
            throw .invalidArgument("\(name) is for fido2 slots")
        }
        for name in [ControlKey.pcrs, ControlKey.tpm2Device] where options[name] != nil && kind != .tpm2 {
            throw .invalidArgument("\(name) is for tpm2 slots")
        }
        var result = SlotOptions()
        result.label = try string(options[ControlKey.label], name: ControlKey.label)
        if let pcrs = options[ControlKey.pcrs] {
            guard let mask = pcrs.uint32 else { throw .invalidArgument("pcrs must be u") }
            result.pcrMask = mask
        }
        result.presence = try flag(options[ControlKey.userPresence], name: ControlKey.userPresence) ?? true
        result.verification = try flag(options[ControlKey.userVerification], name: ControlKey.userVerification) ?? false
        result.pin = try await SlotPipe.read(options[ControlKey.pin], name: ControlKey.pin)
        let fido2Device = try string(options[ControlKey.fido2Device], name: ControlKey.fido2Device)
        let tpm2Device = try string(options[ControlKey.tpm2Device], name: ControlKey.tpm2Device)
        result.device = fido2Device ?? tpm2Device
        return result
    }

    /// The `options` of `Rekey`: drop_slots, security_key (b); recovery, login, pin,
    /// fido2_passcode (h); fido2_device (s).
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for an unknown option or one of the wrong type.
    static func rekey(_ options: [String: DBusValue]) async throws(ServiceError) -> RekeyOptions {
        let known: Set<String> = [
            ControlKey.dropSlots, ControlKey.securityKey, ControlKey.recovery, ControlKey.login, ControlKey.pin,
            ControlKey.fido2Passcode, ControlKey.fido2Device,
        ]
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidArgument("Rekey takes no option \(unknown)")
        }
        return RekeyOptions(
            dropSlots: try flag(options[ControlKey.dropSlots], name: ControlKey.dropSlots) ?? false,
            loginPassword: try await SlotPipe.read(options[ControlKey.login], name: ControlKey.login),
            recoveryCode: try await SlotPipe.read(options[ControlKey.recovery], name: ControlKey.recovery),
            securityKey: try flag(options[ControlKey.securityKey], name: ControlKey.securityKey) ?? false,
            pin: try await SlotPipe.read(options[ControlKey.pin], name: ControlKey.pin),
            device: try string(options[ControlKey.fido2Device], name: ControlKey.fido2Device),
            fido2Passcode: try await SlotPipe.read(options[ControlKey.fido2Passcode], name: ControlKey.fido2Passcode))
    }

    /// The text of an optional `s` option.
    static func string(_ value: DBusValue?, name: String) throws(ServiceError) -> String? {
        guard let value else { return nil }
        guard let text = value.string else { throw .invalidArgument("\(name) must be s") }
        return text
    }

    /// The value of an optional `b` option.
    static func flag(_ value: DBusValue?, name: String) throws(ServiceError) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.bool else { throw .invalidArgument("\(name) must be b") }
        return flag
    }
}
