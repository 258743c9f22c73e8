// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A flipped byte in the middle of a journal (issue 24 item 20), through the built `puffd`,
/// `puffctl` and `secret-tool`: the records around it stay readable, `status` names the file and
/// offset, writes wait, and `puffctl repair` keeps what authenticates and the old journal aside.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct DamagedJournalFlowTests {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-flip-\(UUID().uuidString)").path

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    func secretTool(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    @Test func aFlippedByteHidesOnlyItsRecordAndRepairKeepsTheRest() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        var puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "damage pass\n").status == 0)
        for name in ["first", "second", "third"] {
            let stored = try await secretTool(
                puffd, ["store", "--label=\(name)", "service", "damage-e2e", "user", name], input: "\(name)-secret")
            #expect(stored.status == 0, "\(stored.output)")
        }
        _ = await puffd.terminate()

        // The journal's records: collection, first, second, third. Flip a byte inside "second".
        let journal = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dataDir).first { $0.hasSuffix(".journal") })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(dataDir)/\(journal)"))
        var offsets: [Int] = []
        var offset = 16
        while offset + 4 <= bytes.count {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
            // Zeros where a frame would start: puffd's zero tail after the records.
            if length == 0 { break }
            offsets.append(offset)
            offset += 20 + length
        }
        #expect(offsets.count == 4, "collection and three items")
        let damaged = offsets[2]
        bytes[damaged + 60] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: "\(dataDir)/\(journal)"))

        puffd = try await daemon()
        let status = try await puffctl(puffd, ["status"])
        #expect(status.output.contains("\(journal) is damaged at offset \(damaged)"), "\(status.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "damage pass\n").status == 0)
        for name in ["first", "third"] {
            let found = try await secretTool(puffd, ["lookup", "service", "damage-e2e", "user", name])
            #expect(found.output == "\(name)-secret", "\(name): \(found.output)")
        }
        let lost = try await secretTool(puffd, ["lookup", "service", "damage-e2e", "user", "second"])
        #expect(lost.output.isEmpty)
        let write = try await secretTool(
            puffd, ["store", "--label=fourth", "service", "damage-e2e", "user", "fourth"], input: "fourth-secret")
        #expect(write.status != 0, "a damaged collection takes no writes before repair")

        let repaired = try await puffctl(puffd, ["repair", "login"])
        #expect(repaired.status == 0, "\(repaired.output)")
        #expect(repaired.output.contains("kept 3 records"), "\(repaired.output)")
        #expect(repaired.output.contains("lost: "), "\(repaired.output)")
        #expect(repaired.output.contains("is damaged at offset \(damaged)"), "\(repaired.output)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: dataDir).filter {
            $0.hasPrefix("\(journal).damaged-")
        }
        #expect(aside.count == 1, "the old journal is kept beside the new one")

        _ = await puffd.terminate()
        puffd = try await daemon()
        let clean = try await puffctl(puffd, ["status"])
        #expect(!clean.output.contains("is damaged"), "\(clean.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "damage pass\n").status == 0)
        #expect(
            try await secretTool(puffd, ["lookup", "service", "damage-e2e", "user", "third"]).output == "third-secret")
        let after = try await secretTool(
            puffd, ["store", "--label=fourth", "service", "damage-e2e", "user", "fourth"], input: "fourth-secret")
        #expect(after.status == 0, "writes work again: \(after.output)")
        _ = await puffd.terminate()
    }
}
