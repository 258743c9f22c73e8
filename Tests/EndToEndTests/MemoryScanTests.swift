// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffStore

/// After `Lock`, no secret, passcode or key is readable anywhere in the running `puffd`: its
/// memory is scanned through `/proc/<pid>/mem` (root only, as `puffd` is not dumpable).
@Suite(.serialized, .enabled(if: TestBus.isAvailable && ProcessMemory.isReadable))
struct MemoryScanTests {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-memscan-\(UUID().uuidString)")
        .path

    func run(_ daemon: TestDaemon, _ tool: String, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(tool, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// The keys a passcode opens for the collection whose header is `file`: the passcode key and
    /// the records sub-key, as needles.
    func keyNeedles(header file: String, passcode: String) throws -> [String: [UInt8]] {
        let bytes = try #require(FileManager.default.contents(atPath: file))
        let header = try VaultHeader(
            decoding: try ChecksummedFile.decode([UInt8](bytes), magic: ChecksummedFile.headerMagic, name: file))
        let opened = try #require(HeaderKeys.open(header, passcode: passcode))
        return [
            "the passcode key": opened.typedKey.unprotectedArray(),
            "the slot key": opened.kek.unprotectedArray(),
            "the records key": opened.master.subkey(MasterKey.Purpose.records).unprotectedArray(),
        ]
    }

    @Test func afterLockNoSecretPasscodeOrKeyIsLeftInPuffdsMemory() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
        let passcode = "memscan passcode \(UUID().uuidString)"
        let secrets = (1...3).map { "memscan secret \($0) \(UUID().uuidString)" }
        #expect(try await run(puffd, VaultFlowTests.puffctl, ["init", "--stdin"], input: passcode + "\n").status == 0)
        for (number, secret) in secrets.enumerated() {
            let store = try await run(
                puffd, "/usr/bin/secret-tool", ["store", "--label=scan \(number)", "memscan", "\(number)"],
                input: secret)
            #expect(store.status == 0, "\(store.output)")
            let lookup = try await run(puffd, "/usr/bin/secret-tool", ["lookup", "memscan", "\(number)"])
            #expect(lookup.output == secret, "the secret reads back before the lock")
        }
        // Reading them once more through a plain session, as go-keyring does.
        let plain = try await run(puffd, ClientDriver.python, ["-c", Self.plainReader], input: "")
        #expect(plain.output.hasPrefix("read 3"), "\(plain.output.prefix(200))")
        #expect(try await run(puffd, VaultFlowTests.puffctl, ["lock"]).status == 0)

        let header = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dataDir).first { $0.hasSuffix(".header") })
        var needles = try keyNeedles(header: "\(dataDir)/\(header)", passcode: passcode)
        needles["the passcode"] = Array(passcode.utf8)
        for (number, secret) in secrets.enumerated() { needles["secret \(number)"] = Array(secret.utf8) }
        let found = try ProcessMemory(pid: puffd.processIdentifier).find(needles)
        #expect(found.isEmpty, "left in puffd's memory after Lock: \(found)")
        // The scan can find: the label of a locked item stays visible by design (Part A item 3).
        let labels = try ProcessMemory(pid: puffd.processIdentifier).find(["a label": Array("scan 1".utf8)])
        #expect(!labels.isEmpty, "the scanner found not even a label that is meant to stay")
        _ = await puffd.terminate()
    }

    /// Reads every `memscan` item's secret through a `plain` session (python-secretstorage with
    /// its session forced to plain); prints only a count.
    static let plainReader = """
        import secretstorage, secretstorage.dhcrypto as dh
        from secretstorage.util import open_session
        conn = secretstorage.dbus_init()
        session = dh.Session(); session.encrypted = False
        from jeepney import new_method_call
        from secretstorage.util import DBusAddressWrapper, SS_PREFIX, SS_PATH, BUS_NAME
        service = DBusAddressWrapper(SS_PATH, SS_PREFIX + 'Service', conn)
        _, session.object_path = service.call('OpenSession', 'sv', 'plain', ('s', ''))
        count = 0
        for n in range(3):
            for item in secretstorage.search_items(conn, {'memscan': str(n)}):
                item.session = session
                count += len(item.get_secret()) > 0
        print('read', count)
        """
}
