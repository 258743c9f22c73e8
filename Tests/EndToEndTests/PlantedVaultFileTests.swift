// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffTesting
import Testing

/// Files planted in the vault folder and a lost catalog, with the built `puffd`, `puffctl` and
/// `secret-tool` (issue 24 items 14 and 19). A FIFO planted as the catalog kept the unfixed puffd
/// from taking its bus name (its start-up `open` waited for a writer, and SIGTERM could not stop
/// it); one planted as an audit log hung the unlock that read it.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct PlantedVaultFileTests {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-planted-\(UUID().uuidString)")
        .path

    enum Role: String, CaseIterable {
        case catalog, header, journal, audit
    }

    enum Plant: String, CaseIterable {
        case fifo, symlink
    }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8),
            timeout: HangGuard.step)
    }

    func secretTool(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: daemon.clientEnvironment, input: Data(input.utf8),
            timeout: HangGuard.step)
    }

    /// A vault whose `login` holds one item (so it has a journal record and an audit log); returns
    /// `login`'s space (the one header's name).
    func makeVault() async throws -> String {
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "login pass\n").status == 0)
        let store = try await secretTool(
            puffd, ["store", "--label=Planted", "service", "planted", "user", "alice"], input: "planted-secret")
        #expect(store.status == 0, "\(store.output)")
        #expect(await puffd.terminate() == 0)
        let headers = try FileManager.default.contentsOfDirectory(atPath: dataDir).filter { $0.hasSuffix(".header") }
        #expect(headers.count == 1)
        return String(try #require(headers.first).dropLast(".header".count))
    }

    @Test(arguments: Role.allCases, Plant.allCases)
    func aPlantedFileIsNamedInStatusAndPuffdStillAnswersAndStops(role: Role, plant: Plant) async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let space = try await makeVault()
        let path =
            switch role {
            case .catalog: "\(dataDir)/catalog"
            case .header: "\(dataDir)/\(space).header"
            case .journal: "\(dataDir)/\(space).journal"
            case .audit: "\(dataDir)/\(space).audit"
            }
        #expect(FileManager.default.fileExists(atPath: path), "the vault has a \(role) file to replace")
        switch plant {
        case .fifo:
            #expect(unlink(path) == 0 && mkfifo(path, 0o600) == 0)
        case .symlink:
            // A link to the real file, which following it would read without complaint.
            try FileManager.default.moveItem(atPath: path, toPath: "\(dataDir)/elsewhere")
            #expect(symlink("\(dataDir)/elsewhere", path) == 0)
        }
        let what = plant == .fifo ? "a FIFO" : "a symbolic link"
        let damage = "\(path) is damaged at offset 0: \(what), not a regular file: refused"

        let puffd = try await daemon()  // fails unless puffd takes its bus name
        let status = try await puffctl(puffd, ["status"])
        #expect(status.status == 0, "\(status.output)")
        if role == .journal || role == .header {
            #expect(status.output.contains("login is damaged: \(damage)"), "\(status.output)")
            let unlock = try await puffctl(puffd, ["unlock", "--stdin"], input: "login pass\n")
            #expect(unlock.status != 0, "a damaged login does not open, and says so: \(unlock.output)")
        } else {
            #expect(status.output.contains("vault problem: \(damage)"), "\(status.output)")
            #expect(status.output.contains("login"), "\(status.output)")
            let unlock = try await puffctl(puffd, ["unlock", "--stdin"], input: "login pass\n")
            #expect(unlock.status == 0, "\(unlock.output)")
            let read = try await secretTool(puffd, ["lookup", "service", "planted", "user", "alice"])
            #expect(read.output == "planted-secret", "\(read.output)")
            if role == .audit {
                let log = try await puffctl(puffd, ["audit"])
                #expect(log.output.contains("\(path).1 is damaged at offset 0: \(what)"), "\(log.output)")
                #expect(log.output.contains("Planted"), "the read was logged in a new file: \(log.output)")
            }
        }
        #expect(await puffd.terminate() == 0, "SIGTERM stops puffd: \(puffd.log)")
        // Left as it was; a planted audit log is moved aside as its predecessor, so the log goes on.
        var info = stat()
        #expect(lstat(role == .audit ? "\(path).1" : path, &info) == 0)
        #expect(info.st_mode & S_IFMT == (plant == .fifo ? S_IFIFO : S_IFLNK), "the planted file is kept as it was")
        if role == .audit {
            #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "a new log took its place")
        }
    }

    @Test func aDeletedCatalogIsRebuiltFromTheHeadersAndInitDoesNotMakeASecondLogin() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        _ = try await makeVault()
        #expect(unlink("\(dataDir)/catalog") == 0)

        let puffd = try await daemon()
        #expect(!puffd.log.contains("puffctl init"), "\(puffd.log)")
        let status = try await puffctl(puffd, ["status"])
        #expect(!status.output.contains("init"), "\(status.output)")
        let row = status.output.split(separator: "\n").first { $0.hasPrefix("login ") }.map { $0.split(separator: " ") }
        #expect(row?[2] == "locked" && row?[3] == "1", "login is listed, locked, with its item: \(status.output)")
        #expect(status.output.contains("default"), "\(status.output)")
        let secondInit = try await puffctl(puffd, ["init", "--stdin"], input: "another pass\n")
        #expect(secondInit.status != 0, "\(secondInit.output)")
        #expect(secondInit.output.contains("already has a passcode"), "\(secondInit.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "login pass\n").status == 0)
        let read = try await secretTool(puffd, ["lookup", "service", "planted", "user", "alice"])
        #expect(read.output == "planted-secret", "\(read.output)")
        #expect(await puffd.terminate() == 0)

        // Restarted, the same again: one login, nothing damaged.
        let restarted = try await daemon()
        let later = try await puffctl(restarted, ["status"])
        #expect(!later.output.contains("damaged"), "\(later.output)")
        #expect(later.output.split(separator: "\n").filter { $0.hasPrefix("login ") }.count == 1, "\(later.output)")
        #expect(await restarted.terminate() == 0)
    }
}
