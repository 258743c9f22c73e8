// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Unlock slots through the built `puffd` and `puffctl` (issue 26, docs/unlock-slots.md): a
/// recovery code opens a collection whose passcode is forgotten and sets a new one, a second
/// passcode opens it too, the last slot stays, and the recovery code is never in a bus message,
/// puffd's log or the vault's files: a `dbus-monitor` eavesdrops on every message meanwhile.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct SlotFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-slots-\(UUID().uuidString)").path
    var vault: String { folder + "/vault" }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", vault, "--kdf", "interactive"])
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// The one line of `output` that looks like a recovery code.
    static func code(in output: String) -> String? {
        let lines = output.split(separator: "\n").map(String.init).filter {
            $0.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){7}/) != nil
        }
        return lines.count == 1 ? lines[0] : nil
    }

    @Test func aRecoveryCodeOpensACollectionWhosePasscodeIsForgottenAndSetsANewOne() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let puffd = try await daemon()
        let monitor = try BusMonitor(address: puffd.bus.address, folder: folder)
        try await monitor.started(puffd.clientEnvironment)
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "old pass\n").status == 0)

        let listed = try await puffctl(puffd, ["slot", "list", "login"])
        #expect(listed.status == 0 && listed.output.contains("passcode"), "\(listed.output)")
        let added = try await puffctl(puffd, ["slot", "add", "login", "recovery", "--stdin"], input: "old pass\n")
        #expect(added.status == 0, "\(added.output)")
        let code = try #require(Self.code(in: added.output), "no recovery code printed: \(added.output)")
        let withRecovery = try await puffctl(puffd, ["slot", "list", "login", "--json"])
        #expect(withRecovery.output.contains("\"recovery\""), "\(withRecovery.output)")

        // The passcode is forgotten: the code opens the collection, typed in lower case without dashes.
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "forgotten\n").status == 2)
        let typed = code.lowercased().replacingOccurrences(of: "-", with: "")
        let opened = try await puffctl(puffd, ["unlock", "--recovery", "--stdin"], input: typed + "\n")
        #expect(opened.status == 0, "\(opened.output)")
        #expect(try await isLocked(puffd, "login") == false)

        // A text that is not a code is refused before anything is sent.
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let notACode = try await puffctl(puffd, ["unlock", "--recovery", "--stdin"], input: "old pass\n")
        #expect(notACode.status == 1 && notACode.output.contains("not a recovery code"), "\(notACode.output)")

        // passwd --recovery sets a new passcode, which then opens; the old one does not; the code still does.
        let changed = try await puffctl(puffd, ["passwd", "--recovery", "--stdin"], input: "\(code)\nnew pass\n")
        #expect(changed.status == 0, "\(changed.output)")
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "old pass\n").status == 2)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "new pass\n").status == 0)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--recovery", "--stdin"], input: code + "\n").status == 0)

        // The code was in no message, nor in puffd's log or the vault's files.
        let messages = try await monitor.stopped(puffd.clientEnvironment)
        let compact = code.replacingOccurrences(of: "-", with: "")
        for form in [code, compact, code.lowercased(), typed] {
            #expect(messages.range(of: Data(form.utf8)) == nil, "the recovery code crossed the bus")
            #expect(!puffd.log.contains(form), "the recovery code is in puffd's log")
        }
        #expect(messages.count > 0 && monitor.sawMarkers, "the monitor saw nothing")
        for name in try FileManager.default.subpathsOfDirectory(atPath: vault) {
            guard let contents = FileManager.default.contents(atPath: vault + "/" + name) else { continue }
            #expect(contents.range(of: Data(code.utf8)) == nil, "the recovery code is in \(name)")
        }

        // A plain passwd has no recovery code at hand: it refuses and names the slot, and with
        // --drop-slots goes on without it, after which the code opens nothing.
        let refused = try await puffctl(puffd, ["passwd", "--stdin"], input: "new pass\nthird pass\n")
        #expect(refused.status == 1 && refused.output.contains("recovery"), "\(refused.output)")
        let dropped = try await puffctl(puffd, ["passwd", "--stdin", "--drop-slots"], input: "new pass\nthird pass\n")
        #expect(dropped.status == 0, "\(dropped.output)")
        #expect(!(try await puffctl(puffd, ["slot", "list", "login"]).output.contains("recovery")))
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--recovery", "--stdin"], input: code + "\n").status == 2)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "third pass\n").status == 0)
        _ = await puffd.terminate()
    }

    @Test func aSecondPasscodeOpensTooTakesANewLabelAndTheLastSlotStays() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "first pass\n").status == 0)
        let added = try await puffctl(
            puffd, ["slot", "add", "login", "passcode", "--label", "spare", "--stdin"],
            input: "first pass\nsecond pass\n")
        #expect(added.status == 0, "\(added.output)")
        let listed = try await puffctl(puffd, ["slot", "list", "login"])
        #expect(listed.output.contains("spare"), "\(listed.output)")
        let relabelled = try await puffctl(
            puffd, ["slot", "relabel", "login", "2", "drawer", "--stdin"], input: "first pass\n")
        #expect(relabelled.status == 0, "\(relabelled.output)")
        let renamed = try await puffctl(puffd, ["slot", "list", "login"]).output
        #expect(renamed.contains("drawer") && !renamed.contains("spare"), "\(renamed)")
        for passcode in ["first pass", "second pass"] {
            #expect(try await puffctl(puffd, ["lock"]).status == 0)
            let unlocked = try await puffctl(puffd, ["unlock", "--stdin"], input: passcode + "\n")
            #expect(unlocked.status == 0, "\(passcode): \(unlocked.output)")
        }

        // Slot 1 goes, proved by the second passcode; then the second, the last, stays.
        #expect(
            try await puffctl(puffd, ["slot", "remove", "login", "1", "--stdin"], input: "second pass\n").status == 0)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "first pass\n").status == 2)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "second pass\n").status == 0)
        let last = try await puffctl(puffd, ["slot", "remove", "login", "2", "--stdin"], input: "second pass\n")
        #expect(last.status == 1 && last.output.contains("last slot"), "\(last.output)")
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "second pass\n").status == 0)
        _ = await puffd.terminate()
    }

    @Test func aClientWithoutAValidProofAddsAndRemovesNothingAndIsAudited() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        // Two slots, so that removing one is refused for the proof, not as the last slot.
        let spare = try await puffctl(
            puffd, ["slot", "add", "login", "passcode", "--stdin"], input: "right pass\nspare pass\n")
        #expect(spare.status == 0, "\(spare.output)")
        try await ClientDriver.expectPasses("slot_attack.py", ["login"], against: puffd)
        let audit = try await puffctl(puffd, ["audit", "--json", "--collection", "login"])
        #expect(audit.status == 0, "\(audit.output)")
        let entries = try Self.auditEntries(audit.output)
        let refusedAdds = entries.filter { $0["action"] == "slot-add" && $0["result"] == "refused" }
        let refusedRemoves = entries.filter { $0["action"] == "slot-remove" && $0["result"] == "refused" }
        #expect(refusedAdds.count >= 2, "refused AddSlot calls are audited: \(entries)")
        #expect(refusedRemoves.count >= 1, "a refused RemoveSlot is audited: \(entries)")
        let done = entries.filter { $0["result"] == "allowed" && ($0["action"] ?? "").hasPrefix("slot-") }
        #expect(done.count == 1, "only puffctl's own slot add went through: \(entries)")
        _ = await puffd.terminate()
    }

    /// Whether `puffctl status` shows `collection` locked.
    func isLocked(_ puffd: TestDaemon, _ collection: String) async throws -> Bool? {
        let status = try await puffctl(puffd, ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        return collections.first { $0["id"] as? String == collection }?["locked"] as? Bool
    }

    /// The action and result of each entry of `puffctl audit --json`.
    static func auditEntries(_ json: String) throws -> [[String: String]] {
        let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let entries = try #require(document?["entries"] as? [[String: Any]])
        return entries.map { entry in
            ["action": entry["action"] as? String ?? "", "result": entry["result"] as? String ?? ""]
        }
    }
}

/// `dbus-monitor --binary` on the test bus, writing every message into a file: what a process
/// that eavesdrops sees. Markers sent before and after show it was listening all along.
final class BusMonitor: @unchecked Sendable {
    private let process = Process()
    private let path: String
    private let address: String
    private(set) var sawMarkers = false
    private let start = "puff-monitor-start-\(UUID().uuidString)"
    private let end = "puff-monitor-end-\(UUID().uuidString)"

    init(address: String, folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        path = folder + "/monitor.bin"
        self.address = address
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        process.arguments = ["--address", address, "--binary"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if !process.hasExited { kill(process.processIdentifier, SIGKILL) }
    }

    /// Returns once the monitor has seen a marker sent after it started.
    func started(_ environment: [String: String]) async throws {
        try await mark(start, environment)
    }

    /// Waits for a closing marker, stops the monitor and returns every message it saw.
    func stopped(_ environment: [String: String]) async throws -> Data {
        try await mark(end, environment)
        sawMarkers = true
        kill(process.processIdentifier, SIGKILL)
        return FileManager.default.contents(atPath: path) ?? Data()
    }

    /// Sends signals carrying `marker` until the monitor's file holds it (a hang guard, not a
    /// speed target: generous for a loaded machine).
    private func mark(_ marker: String, _ environment: [String: String]) async throws {
        let deadline = ContinuousClock.now.advanced(by: HangGuard.step)
        while ContinuousClock.now < deadline {
            _ = try await ChildProcess.run(
                "/usr/bin/dbus-send",
                ["--address=\(address)", "--type=signal", "/", "io.puff.Test.Marker", "string:\(marker)"],
                environment: environment)
            if let data = FileManager.default.contents(atPath: path), data.range(of: Data(marker.utf8)) != nil {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BusMonitorError.neverListened
    }
}

/// The monitor never saw its marker.
enum BusMonitorError: Error {
    case neverListened
}
