// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The security key a client names (Control1's `fido2_device`, here through `puffctl
/// --fido2-device`) through the built `puffd`: a name other than `/dev/hidrawN` or `unix:` and an
/// absolute path is refused before anything is opened (docs/configuration.md `fido2_device`), so a
/// client cannot make puffd open a file planted in the vault folder or reach a socket by a
/// relative name, and the person is told why.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyDeviceFlowTests {
    static let refusal = "not a security key puffd uses"

    @Test func aDeviceNamedByTheClientIsRefusedUnlessItIsAHidrawNodeOrAnAbsoluteSocket() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let vault = try await SecurityKeyVault(keys, device: key)
        let added = try await vault.enrol(label: "yubikey")
        #expect(added.status == 0, "\(added.output)")
        // A file planted in the vault folder, watched for any open.
        let planted = keys.path("vault/planted")
        #expect(FileManager.default.createFile(atPath: planted, contents: Data("planted".utf8)))
        let watch = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        let inOpen: UInt32 = 0x20
        try #require(inotify_add_watch(watch, planted, inOpen) >= 0)
        // The authenticator named without its leading slash: relative, whatever puffd's working
        // directory is (it reaches the key where that is /, as under systemd).
        let relative = "unix:" + String(key.socket.drop { $0 == "/" })

        let enrolled = try await vault.puffctl(
            ["slot", "add", "login", "fido2", "--stdin", "--fido2-device", planted],
            input: SecurityKeyVault.passcode + "\n")
        #expect(enrolled.status != 0 && enrolled.output.contains(Self.refusal), "\(enrolled.output)")
        try await vault.lockAll()
        for name in [planted, relative, "pcsc://slot0", "nfc:/sys/class/nfc/nfc0"] {
            let opened = try await vault.puffctl(["unlock", "login", "--fido2-device", name])
            #expect(opened.status != 0 && opened.output.contains(Self.refusal), "\(name): \(opened.output)")
        }
        #expect(try await vault.isLocked() == true)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let events = read(watch, &buffer, buffer.count)
        #expect(events < 0 && errno == EAGAIN, "puffd opened the planted file (\(events) bytes of events)")
        // The key itself, named as configured, still opens it.
        let touched = try await vault.puffctl(["unlock", "login", "--fido2-device", key.device])
        #expect(touched.status == 0, "\(touched.output)")
    }
}
