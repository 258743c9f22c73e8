// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

/// Transit slots end to end (docs/fleet.md, "Transit slots"; issue 29): two built puffd share a
/// fleet collection through a real `bao server -dev`, one proving itself with a token file, the
/// other with an AppRole. `puffctl slot add team transit` on the first; the second attaches it,
/// and each, restarted with no prompter and no passcode, finds it open and serves it to the real
/// `secret-tool`. Once the second machine's policy no longer allows `transit/decrypt`, it starts
/// with the collection locked and says why, while the first still opens it and the passcode
/// still opens it on the second.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && BaoServer.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct TransitFlowTests {
    static let key = "puff-team"
    static let passcode = "team pass"
    /// The fleet paths and the transit key: what a machine with a transit slot needs.
    static let withTransit = [FleetFlowTests.policy, encrypt, decrypt].joined(separator: "\n")
    /// The same machine revoked: the fleet paths still, no transit decrypt.
    static let revoked = [FleetFlowTests.policy, encrypt].joined(separator: "\n")
    static let encrypt = #"path "transit/encrypt/puff-team" { capabilities = ["update"] }"#
    static let decrypt = #"path "transit/decrypt/puff-team" { capabilities = ["update"] }"#

    /// One machine: its folder and configuration; its puffd is started and restarted on them.
    final class Machine: @unchecked Sendable {
        let folder: TestFolder
        let config: URL
        private(set) var puffd: TestDaemon

        /// `credentials` are the lines of `[store.openbao]` that name the machine's token or AppRole.
        init(_ name: String, bao: BaoServer, credentials: [String: SecureBytes]) async throws {
            folder = try TestFolder("transit-\(name)")
            var lines: [String] = []
            for (setting, secret) in credentials.sorted(by: { $0.key < $1.key }) {
                let path = folder.appending(setting).path
                let written = secret.withUnsafeBytes { bytes in
                    FileManager.default.createFile(
                        atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
                }
                guard written else { throw CocoaError(.fileWriteUnknown) }
                lines.append("\(setting) = \"\(path)\"")
            }
            config = folder.appending("puffd.toml")
            try """
            [vault]
            data_dir = "\(folder.appending("vault").path)"
            kdf = "interactive"
            [store.openbao]
            address = "\(bao.address)"
            transit_key = "\(TransitFlowTests.key)"
            poll_interval = 1
            \(lines.joined(separator: "\n"))

            """.write(to: config, atomically: true, encoding: .utf8)
            puffd = try await Self.start(config)
        }

        /// puffd on the machine's configuration; nobody answers a prompt (`--prompter none`), so
        /// a collection is open only if puffd opened it itself.
        private static func start(_ config: URL) async throws -> TestDaemon {
            try await TestDaemon(arguments: ["--config", config.path, "--vault", "file", "--prompter", "none"])
        }

        /// Stops puffd and starts it again on the same vault (a reboot, as far as puffd knows).
        func restart() async throws {
            #expect(await puffd.terminate() == 0, "\(puffd.log.suffix(1500))")
            puffd = try await Self.start(config)
        }

        func puffctl(_ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                FleetFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
        }

        func lookup() async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                "/usr/bin/secret-tool", ["lookup", "fleet", "transit"], environment: puffd.clientEnvironment)
        }

        /// Whether puffd reports `collection` locked (`puffctl status --json`).
        func isLocked(_ collection: String) async throws -> Bool {
            let status = try await puffctl(["status", "--json"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
            let collections = try #require(json["collections"] as? [[String: Any]], "\(status.output)")
            let entry = try #require(collections.first { $0["id"] as? String == collection }, "\(status.output)")
            return try #require(entry["locked"] as? Bool)
        }
    }

    @Test func aTransitSlotOpensTheFleetCollectionAtStartWithNoPersonUntilTheMachinesPolicyIsRevoked() async throws {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: Self.key)
        let first = try await Machine(
            "a", bao: bao,
            credentials: ["token_file": try await bao.token(policies: [try await bao.policy("a", Self.withTransit)])])
        let role = try await bao.appRole("b", policies: [try await bao.policy("b", Self.withTransit)])
        let second = try await Machine(
            "b", bao: bao, credentials: ["approle_role_id_file": role.roleID, "approle_secret_id_file": role.secretID])

        // The first machine makes the collection, stores an item and adds the transit slot.
        let initialized = try await first.puffctl(["init", "--stdin"], input: "machine pass\n")
        #expect(initialized.status == 0, "\(initialized.output)")
        let created = try await first.puffctl(
            ["collection", "create", "team", "--store", "openbao", "--stdin"], input: Self.passcode + "\n")
        #expect(created.status == 0, "\(created.output)")
        let id = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let stored = try await ChildProcess.run(
            "/usr/bin/secret-tool",
            ["store", "--label=transit", "--collection=/org/freedesktop/secrets/collection/\(id)", "fleet", "transit"],
            environment: first.puffd.clientEnvironment, input: Data("fleet secret".utf8))
        #expect(stored.status == 0, "\(stored.output)")
        let added = try await first.puffctl(["slot", "add", id, "transit", "--stdin"], input: Self.passcode + "\n")
        #expect(added.status == 0, "\(added.output)\n\(first.puffd.log.suffix(1500))")
        let slots = try await first.puffctl(["slot", "list", id])
        #expect(slots.output.contains("transit") && slots.output.contains(Self.key), "\(slots.output)")
        let audit = try await first.puffctl(["audit", "--json", "--collection", id])
        let entries = try SlotFlowTests.auditEntries(audit.output)
        #expect(entries.contains(["action": "slot-add", "result": "allowed"]), "\(audit.output)")

        // The second attaches it (its header, transit slot included, comes from OpenBao) and is
        // restarted: no person, no passcode, and the collection is open.
        let attached = try await second.puffctl(["collection", "attach", "team", "--store", "openbao"])
        #expect(attached.status == 0, "\(attached.output)")
        for machine in [first, second] {
            try await machine.restart()
            #expect(try await !machine.isLocked(id), "\(machine.puffd.log.suffix(2000))")
            let read = try await machine.lookup()
            #expect(read.status == 0 && read.output == "fleet secret", "\(read.output)")
            #expect(
                await poll(limit: HangGuard.step) { machine.puffd.log.contains("slot at start: \(id)") },
                "\(machine.puffd.log.suffix(1500))")
        }

        // OpenBao's operator revokes the second machine: its policy keeps the fleet paths only.
        try await bao.policy("b", Self.revoked)
        try await second.restart()
        #expect(try await second.isLocked(id), "\(second.puffd.log.suffix(2000))")
        #expect(try await second.lookup().output != "fleet secret")
        #expect(
            await poll(limit: HangGuard.step) {
                second.puffd.log.contains(
                    "OpenBao at \(bao.address) refused to decrypt with transit key '\(Self.key)' (permission denied")
            },
            "the log says why: \(second.puffd.log.suffix(2000))")
        // The first machine's policy is its own: it still opens with no person, at start, on a
        // client's unlock (secret-tool's lookup of a locked item) and on a plain `puffctl unlock`.
        try await first.restart()
        #expect(try await !first.isLocked(id), "\(first.puffd.log.suffix(2000))")
        #expect(try await first.puffctl(["lock", id]).status == 0)
        let relocked = try await first.lookup()
        #expect(relocked.status == 0 && relocked.output == "fleet secret", "\(relocked.output)")
        #expect(try await first.puffctl(["lock", id]).status == 0)
        #expect(try await first.isLocked(id))
        let plain = try await first.puffctl(["unlock", id])
        #expect(plain.status == 0, "\(plain.output)")
        #expect(try await !first.isLocked(id))
        // The passcode still opens it on the revoked machine.
        let unlocked = try await second.puffctl(["unlock", id, "--stdin"], input: Self.passcode + "\n")
        #expect(unlocked.status == 0, "\(unlocked.output)")
        let read = try await second.lookup()
        #expect(read.status == 0 && read.output == "fleet secret", "\(read.output)")
        for machine in [first, second] { #expect(!machine.puffd.log.contains(Self.passcode)) }
    }
}
