// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffHardware
import PuffService
import PuffTesting
import Synchronization
import Testing

/// The security key a call names (Control1's `fido2_device`, chosen by any client of the user's bus,
/// and `[unlock] fido2_device`): only `unix:` and an absolute path, or a hidraw device, reach
/// libfido2 (``SecurityKeyDevice/accepts(device:)``). Each test names a device a hostile same-user
/// client could, and checks that puffd neither opens nor connects to it.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyDeviceNameTests {
    static let refused = HardwareError.unavailable(SecurityKeyDevice.refusedDeviceText)

    func request(_ device: String) -> SecurityKeyRequest {
        SecurityKeyRequest(relyingParty: SecurityKeyDeviceTests.relyingParty, device: device)
    }

    /// Enrols on `device`; the error, nil when a credential came back.
    func enrolment(on device: String) async -> HardwareError? {
        do {
            _ = try await SecurityKeyDevice().enrol(request(device))
            return nil
        } catch {
            return error
        }
    }

    @Test func libfido2sOwnDeviceNamesAreRefusedBeforeLibfido2SeesThem() async throws {
        // Debian's libfido2 1.12 has a Linux NFC transport ("nfc:" paths power a reader up over
        // netlink); pcsc:// and winhello are its other schemes.
        for name in ["nfc:/sys/class/nfc/nfc0", "pcsc://slot0", "winhello", "hidraw3", "/dev/tty"] {
            #expect(await enrolment(on: name) == Self.refused, "\(name)")
            let secret = await #expect(throws: HardwareError.self) {
                // The instance's device (`[unlock] fido2_device`, `--fido2-device`) goes by the same rule.
                _ = try await SecurityKeyDevice(device: name).hmacSecret(
                    credentialID: [7], salt: SecurityKeyDeviceTests.salt,
                    SecurityKeyRequest(relyingParty: SecurityKeyDeviceTests.relyingParty))
            }
            #expect(secret == Self.refused, "\(name)")
        }
    }

    @Test func aSocketNamedRelativeWithDotDotOrWithANulByteIsRefusedThoughAnAuthenticatorListensThere()
        async throws
    {
        // The authenticator below the working directory, so a relative name reaches it.
        let here = FileManager.default.currentDirectoryPath
        let folder = URL(fileURLWithPath: here).appendingPathComponent("puff-fido2-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        #expect(await enrolment(on: key.device) == nil, "the authenticator answers at its absolute name")
        let relative = String(key.socket.dropFirst(here.count + 1))
        let parent = folder.deletingLastPathComponent().path
        let names = [
            "unix:" + relative, "unix:./" + relative,
            "unix:\(folder.path)/../\(folder.lastPathComponent)/key.sock",
            "unix:\(key.socket)\u{0}/elsewhere", "unix:\(parent)//\(folder.lastPathComponent)/key.sock",
        ]
        for name in names {
            #expect(await enrolment(on: name) == Self.refused, "\(name)")
            let holds = await #expect(throws: HardwareError.self) {
                _ = try await SecurityKeyDevice().holds(credentialID: [7], request(name))
            }
            #expect(holds == Self.refused, "a probe says it was refused, not that nothing is there: \(name)")
        }
    }

    @Test func aFileInTheVaultFolderNamedAsTheDeviceIsNeverOpened() async throws {
        let scratch = try SecurityKeyBench()
        defer { scratch.close() }
        let catalog = scratch.folder.appendingPathComponent("catalog")
        #expect(FileManager.default.createFile(atPath: catalog.path, contents: Data("planted".utf8)))
        // libfido2 opens a device path with open(O_RDWR) (no O_NOCTTY, no O_NONBLOCK): inotify sees it.
        let watch = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        let inOpen: UInt32 = 0x20
        try #require(inotify_add_watch(watch, catalog.path, inOpen) >= 0)
        #expect(await enrolment(on: catalog.path) == Self.refused)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let events = read(watch, &buffer, buffer.count)
        #expect(events < 0 && errno == EAGAIN, "puffd opened the planted file (\(events) bytes of events)")
        #expect(try Data(contentsOf: catalog) == Data("planted".utf8))
    }

    @Test func aSocketThatNeverAcceptsDoesNotHoldTheCallForever() async throws {
        let scratch = try SecurityKeyBench()
        defer { scratch.close() }
        let path = scratch.path("full.sock")
        // A listener with a backlog of 0 and one connection queued: the next connect waits until
        // one is accepted, and nobody accepts. A hostile client names it as the device.
        let listener = try Self.seqpacketSocket()
        var listening = true
        defer { if listening { close(listener) } }
        try Self.withAddress(path) { address, length in try #require(bind(listener, address, length) == 0) }
        try #require(listen(listener, 0) == 0)
        let queued = try Self.seqpacketSocket()
        defer { close(queued) }
        try Self.withAddress(path) { address, length in try #require(connect(queued, address, length) == 0) }

        let done = Done()
        let call = Task {
            let error = await enrolment(on: "unix:" + path)
            done.value.store(true, ordering: .sequentiallyConsistent)
            return error
        }
        // Named limit, generous: refused at once, the call takes milliseconds.
        let answered = await poll(limit: Self.connectLimit) { done.value.load(ordering: .sequentiallyConsistent) }
        // Closing the listener ends a connect still waiting (shutdown does not), so the test ends.
        if !answered {
            close(listener)
            listening = false
        }
        let error = await call.value
        #expect(answered, "the call still waited to connect after \(Self.connectLimit)")
        guard case .unavailable(let text)? = error else {
            Issue.record("expected .unavailable, got \(String(describing: error))")
            return
        }
        #expect(text.contains(path), "\(text)")
    }

    final class Done: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// How long a call naming a socket that never accepts may take before the test calls it stuck.
    static let connectLimit = Duration.seconds(60)

    static func seqpacketSocket() throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0)
        try #require(fd >= 0)
        return fd
    }

    /// Runs `body` with a `sockaddr_un` for `path`.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) throws -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { target in
            target.copyBytes(from: bytes)
            target[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { rebound in
                try body(rebound, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
