// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffDBus
import PuffProtocol

/// What `UnlockWith` is given to open a collection with a security key (a fido2 or fido2+passcode
/// slot): each secret crosses in a pipe of its own, the device by name.
public struct SecurityKeyUnlock: Sendable {
    /// The key's PIN, for a slot enrolled with one.
    public var pin: SecureBytes?
    /// The passcode of a fido2+passcode slot.
    public var passcode: SecureBytes?
    /// A device path or `unix:PATH`; nil: puffd's (`[unlock] fido2_device`) or the first key found.
    public var device: String?

    public init(pin: SecureBytes? = nil, passcode: SecureBytes? = nil, device: String? = nil) {
        self.pin = pin
        self.passcode = passcode
        self.device = device
    }
}

extension ControlClient {
    /// `UnlockWith` and a security key: puffd tries the fido2 slots whose credential the key
    /// present holds, waiting for a touch (up to ``hardwareCallTimeout``).
    public func unlock(_ collection: String, securityKey: SecurityKeyUnlock) async throws(ClientError) -> String {
        var entries: [DBusValue.DictEntry] = []
        if let pin = securityKey.pin {
            entries.append(.init(.string(ControlKey.pin), .variant(.unixFD(try PasscodePipe.readEnd(carrying: pin)))))
        }
        if let passcode = securityKey.passcode {
            let pipe = try PasscodePipe.readEnd(carrying: passcode)
            entries.append(.init(.string(ControlKey.fido2Passcode), .variant(.unixFD(pipe))))
        }
        if let device = securityKey.device {
            entries.append(.init(.string(ControlKey.fido2Device), .variant(.string(device))))
        }
        let reply = try await call(
            .unlockWith, [.string(collection), .dictionary(key: "s", value: "v", entries)], collection: collection,
            timeout: Self.hardwareCallTimeout)
        guard let id = reply.first?.string else { throw .unexpectedReply(member: "UnlockWith") }
        return id
    }
}
