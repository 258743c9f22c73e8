// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffCrypto
import PuffSystem
import SystemPackage

/// Hands a passcode read from `--unlock-fd` to the puffd that holds the vault, over its login
/// socket, when this puffd found the vault held and exits (``VaultHolderWait``): the PAM module
/// started this one with the login password, and the password must not be lost because another
/// puffd (the bus activated one for a client) got there first. It is a login request like the
/// PAM module's (docs/pam.md); the holder believes it to be the PAM module's only from root.
enum LoginForward {
    /// Sends `passcode` as a login request to the socket in `folder`; the reply byte, or nil when
    /// nothing listens there or it did not answer within the login socket's read time.
    static func send(_ passcode: SecureBytes, toSocketIn folder: String) -> UInt8? {
        let path = folder + "/" + LoginSocket.fileName
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return nil }
        func prefix(_ count: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) } }
        let header = LoginRequest.magic + [UInt8(ascii: "L")] + prefix(passcode.count)
        let sent =
            header.withUnsafeBytes { writeAll(fd, $0) }
            && passcode.withUnsafeBytes { writeAll(fd, $0) }
            && prefix(0).withUnsafeBytes { writeAll(fd, $0) }
        guard sent else { return nil }
        // The holder may derive a key with Argon2id first: as long as the PAM module waits.
        guard (try? SystemCalls.wait(for: Int16(POLLIN), on: fd, timeout: 30_000)) == true else { return nil }
        var reply: UInt8 = 0
        let count = withUnsafeMutableBytes(of: &reply) { try? FileDescriptor(rawValue: fd).readSome(into: $0) }
        return count == 1 ? reply : nil
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? FileDescriptor(rawValue: fd).sendFully(bytes)) != nil
    }
}
