// SPDX-License-Identifier: Apache-2.0
import CSodium
import Glibc

/// Keys kept in the kernel's user keyring (`add_key`/`keyctl`, type `user`), so that they outlive
/// the process that put them there, for at most `timeout` seconds.
///
/// Permissions: the possessor may do everything; other processes of the same user may view,
/// search and read (a new puffd, started by systemd or D-Bus activation, need not share the old
/// one's session keyring). That is the trade: while such a key lives, any process of the user
/// can read it, where puffd's own memory is closed to them (it is not dumpable).
public struct KernelKeyring: Sendable {
    /// How long a kept key lives, in seconds.
    public let timeout: UInt32

    // linux/keyctl.h's permission bits (not exported to Swift: they are macros of casts).
    private static let possessorAll: UInt32 = 0x3f00_0000
    private static let userViewReadSearch: UInt32 = 0x0001_0000 | 0x0002_0000 | 0x0008_0000

    public init(timeout: UInt32) {
        self.timeout = timeout
    }

    /// Keeps `key` under `name`, replacing a key of that name. False when the kernel refused.
    @discardableResult
    public func keep(_ key: SecureBytes, as name: String) -> Bool {
        let id = key.withUnsafeBytes { puff_add_user_key(name, $0.baseAddress, $0.count) }
        guard id >= 0 else { return false }
        let serial = UInt(bitPattern: id)
        guard puff_keyctl(KEYCTL_SETPERM, serial, UInt(Self.possessorAll | Self.userViewReadSearch), 0, 0) == 0,
            puff_keyctl(KEYCTL_SET_TIMEOUT, serial, UInt(timeout), 0, 0) == 0
        else {
            remove(name)
            return false
        }
        return true
    }

    /// The key kept under `name`, if it is still there, at most `maximumLength` bytes.
    public func key(named name: String, maximumLength: Int = 64) -> SecureBytes? {
        let id = puff_search_user_key(name)
        guard id >= 0 else { return nil }
        var length = 0
        let buffer = SecureBytes(count: maximumLength) { (out: UnsafeMutableRawBufferPointer) -> Void in
            let read = puff_keyctl(
                KEYCTL_READ, UInt(bitPattern: id), UInt(bitPattern: out.baseAddress), UInt(out.count), 0)
            length = read > 0 && read <= out.count ? read : 0
        }
        guard length > 0 else { return nil }
        return buffer.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    /// Revokes the key kept under `name` (its payload becomes unreadable at once) and unlinks it.
    public func remove(_ name: String) {
        let id = puff_search_user_key(name)
        guard id >= 0 else { return }
        let serial = UInt(bitPattern: id)
        _ = puff_keyctl(KEYCTL_REVOKE, serial, 0, 0, 0)
        _ = puff_keyctl(KEYCTL_UNLINK, serial, UInt(bitPattern: Int(KEY_SPEC_USER_KEYRING)), 0, 0)
    }
}
