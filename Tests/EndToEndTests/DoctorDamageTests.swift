// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffStore
import PuffTesting
import Testing

/// `puffctl doctor` against a damaged vault, with the built `puffd` and `puffctl` (issue 24 item
/// 20): the unfixed doctor said OK with a collection damaged, a journal cut or a FIFO planted.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct DoctorDamageTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("puff-doctor-damage-\(UUID().uuidString)")
        .path
    /// The default vault folder under the test's `XDG_DATA_HOME`, so doctor finds it without puffd.
    var dataDir: String { "\(root)/data/puff" }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func run(_ daemon: TestDaemon, _ program: String, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            program, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8), timeout: HangGuard.step)
    }

    /// Doctor on `bus`, with only a user-level activation file naming puffd, so a whole vault
    /// leaves nothing to fail.
    func doctor(bus: TestBus) async throws -> ChildProcess.Result {
        let services = "\(root)/data/dbus-1/services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=\(TestDaemon.executablePath)\n"
            .write(toFile: "\(services)/org.freedesktop.secrets.service", atomically: false, encoding: .utf8)
        let environment = [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": "\(root)/home", "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8", "XDG_DATA_HOME": "\(root)/data", "XDG_DATA_DIRS": "\(root)/system",
        ]
        return try await ChildProcess.run(
            VaultFlowTests.puffctl, ["doctor"], environment: environment, timeout: HangGuard.step)
    }

    /// `login` with one item; returns its journal's path.
    func makeVault() async throws -> String {
        let puffd = try await daemon()
        #expect(try await run(puffd, VaultFlowTests.puffctl, ["init", "--stdin"], input: "login pass\n").status == 0)
        let store = try await run(
            puffd, "/usr/bin/secret-tool", ["store", "--label=Doc", "service", "doctor"], input: "doctor-secret")
        #expect(store.status == 0, "\(store.output)")
        #expect(await puffd.terminate() == 0)
        let header = try #require(
            try FileManager.default.contentsOfDirectory(atPath: dataDir).first { $0.hasSuffix(".header") })
        return "\(dataDir)/\(header.dropLast(".header".count)).journal"
    }

    @Test func aFlippedJournalByteFailsDoctorWithFileAndOffsetWithAndWithoutPuffd() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let journal = try await makeVault()
        let idle = try TestBus()
        let whole = try await doctor(bus: idle)
        #expect(whole.output.contains("OK    every vault file is whole"), "\(whole.output)")
        #expect(whole.status == 0, "\(whole.output)")

        var bytes = try #require(FileManager.default.contents(atPath: journal))
        bytes[40] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: journal))
        let offline = try await doctor(bus: idle)
        #expect(
            offline.output.contains("FAIL  \(journal) is damaged at offset 16: record checksum does not match"),
            "\(offline.output)")
        #expect(offline.status == 1, "\(offline.output)")

        let puffd = try await daemon()
        let online = try await doctor(bus: puffd.bus)
        #expect(
            online.output.contains("FAIL  collection login is damaged: \(journal) is damaged at offset 16"),
            "\(online.output)")
        #expect(online.status == 1, "\(online.output)")
        #expect(await puffd.terminate() == 0)
    }

    @Test func aCutJournalAndAPlantedFifoFailDoctor() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let journal = try await makeVault()
        // Where the records end: puffd keeps a zero tail after them (design core-reshaped §6).
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: journal)))
        let size = try JournalFraming.parse(bytes, file: journal).goodEnd
        // A torn append: its length and a few of its bytes, written over the zeros.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        try handle.seek(toOffset: UInt64(size))
        try handle.write(contentsOf: Data([9, 0, 0, 0, 7, 7]))
        try handle.close()
        let idle = try TestBus()
        let torn = try await doctor(bus: idle)
        #expect(torn.output.contains("WARN  \(journal) ends in a torn append of 6 bytes at offset \(size)"))

        let audit = String(journal.dropLast(".journal".count)) + ".audit"
        #expect(unlink(audit) == 0 && mkfifo(audit, 0o600) == 0)
        let puffd = try await daemon()  // cuts the torn append off, keeping it
        let result = try await doctor(bus: puffd.bus)
        #expect(
            result.output.contains(
                "FAIL  \(journal) was cut at offset \(size); the 6 bytes cut off are kept here"), "\(result.output)")
        #expect(result.output.contains("\(journal).cut-\(size)"), "\(result.output)")
        #expect(
            result.output.contains("FAIL  \(audit) is damaged at offset 0: a FIFO, not a regular file: refused"),
            "\(result.output)")
        #expect(result.status == 1, "\(result.output)")
        #expect(await puffd.terminate() == 0)
    }
}
