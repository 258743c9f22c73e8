// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffFormats
import PuffTesting
import Testing

/// Issue 25 item 4 for `import`, `backup`, `verify` and `restore`, through the built `puffd` and
/// `puffctl`: each draws its bar (count, rate, time left) on a real terminal, a tmux pane whose
/// output is recorded with `pipe-pane`, and the pane read with `capture-pane` at the end shows
/// none of them; a pipe gets none; with `--json`, progress
/// comes as JSON lines on standard error, counting real units from the first report (0 done) to
/// the last (done = total). The runs are long through their size, not a clock: a vault of 200
/// MiB, opened and copied whole, and a source of 2,000 items of 64 KiB, decrypted and sealed.
extension ProgressBarTests {
    static let bigItems = 200
    static let bigSecretBytes = 1 << 20
    static let sourceItems = 2_000
    static let sourceSecretBytes = 64 << 10
    static let sourcePassword = "source pass"

    /// A libsecret file of `count` items of `size` bytes each (distinct in their first bytes),
    /// written by Puff's own writer, and a 0600 file holding its password, in `folder`.
    static func writeSource(count: Int, size: Int, in folder: String) throws -> (source: String, password: String) {
        let pattern = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let items = (0..<count).map { number in
            var secret = pattern
            withUnsafeBytes(of: UInt64(number)) { secret.replaceSubrange(0..<8, with: $0) }
            return PortableItem(
                label: "source \(number)", attributes: ["service": "progress-import", "n": "\(number)"],
                secret: SecureBytes(unwipedCopyOf: secret))
        }
        let bytes = try LibsecretFile.write(
            PortableCollection(label: "source", items: items),
            passcode: SecureBytes(unwipedCopyOf: Array(sourcePassword.utf8)))
        let source = "\(folder)/source.keyring"
        let password = "\(folder)/source.pass"
        #expect(
            FileManager.default.createFile(
                atPath: source, contents: Data(bytes), attributes: [.posixPermissions: 0o600]))
        #expect(
            FileManager.default.createFile(
                atPath: password, contents: Data("\(sourcePassword)\n".utf8), attributes: [.posixPermissions: 0o600]))
        return (source, password)
    }

    /// `backup [####----]  40%  20.1 MiB/50.0 MiB  10.0 MiB/s  0:03 left`, the units each counts.
    static func isBar(_ line: String, of operation: String) -> Bool {
        guard line.hasPrefix("\(operation) [") else { return false }
        let unit = operation.hasPrefix("import") ? " items" : " ?[KMGT]?i?B"
        let counts = "[\\d.,]+( [KMGT]i)?( ?B)?/[\\d.,]+( [KMGT]i)?( ?B)?"
        let pattern =
            "\(operation) \\[#*-*\\]  \\d+%  \(counts)(\(unit))?  (--|[\\d.,]+( [KMGT]i)?( ?B)?)/s  (--:--|[\\d:]+) left"
        return line.wholeMatch(of: try! Regex(pattern)) != nil
    }

    @Test func aTerminalSeesTheBarsOfImportBackupVerifyAndRestoreAndNothingOfThemAfter() async throws {
        try #require(Tmux.isInstalled, "tmux is missing: make deps installs it (APT_PACKAGES)")
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "progress pass\n").status == 0)
        try await ClientDriver.expectPasses(
            "progress_fill.py", ["\(Self.bigItems)", "\(Self.bigSecretBytes)"], against: puffd)
        let files = dataDir + "-files"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: files) }
        let (source, password) = try Self.writeSource(
            count: Self.sourceItems, size: Self.sourceSecretBytes, in: files)
        // restore needs the person: the default collection's passcode.
        #expect(
            FileManager.default.createFile(
                atPath: "\(files)/vault.pass", contents: Data("progress pass\n".utf8),
                attributes: [.posixPermissions: 0o600]))

        // Each command in turn, its result kept off the pane where it is long (import's item
        // lines), then a word when it failed; the pane stays to be read.
        let puffctl = "'\(VaultFlowTests.puffctl)'"
        let address = "--address '\(puffd.bus.address)'"
        // The commands wait until the pane's output is recorded: a bar can be drawn and erased
        // between two looks at the pane, but never between two bytes of the record.
        let record = "\(files)/pane.record"
        let script = """
            '\(Tmux.path)' -S '\(tmuxSocket)' wait-for recording
            \(puffctl) import '\(source)' --into login --source-passcode-fd 3 \(address) 3<'\(password)' >/dev/null || echo import-failed
            \(puffctl) backup '\(files)/vault.puffbak' \(address) || echo backup-failed
            \(puffctl) verify \(address) || echo verify-failed
            \(puffctl) restore --force '\(files)/vault.puffbak' --passcode-fd 4 \(address) 4<'\(files)/vault.pass' || echo restore-failed
            echo progress-test-done; exec cat
            """
        let started = try await ChildProcess.run(
            ClientDriver.python,
            [
                "-c", Tmux.withoutInheritedDescriptors, Tmux.path, "-S", tmuxSocket, "-f", "/dev/null", "new-session",
                "-d", "-s", "progress", "-x", "160", "-y", "40", "/bin/sh", "-c", script,
            ],
            environment: [:])
        #expect(started.status == 0, "\(started.output)")
        defer {
            Task { [self] in
                _ = try? await tmux(["kill-server"])
                try? FileManager.default.removeItem(atPath: tmuxSocket)
            }
        }

        #expect(try await tmux(["pipe-pane", "-t", "progress", "cat >> '\(record)'"]).status == 0)
        #expect(try await tmux(["wait-for", "-S", "recording"]).status == 0)
        var after: [String] = []
        var recorded = ""
        let deadline = ContinuousClock.now + Self.paneWait * 4
        while ContinuousClock.now < deadline {
            after = try await pane()
            recorded = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            if after.contains("progress-test-done") && recorded.contains("progress-test-done") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        // Every bar the terminal was given: each is drawn after a carriage return and an erase.
        let operations = ["import-read", "import", "backup", "verify", "restore"]
        var seen: Set<String> = []
        for drawn in recorded.split(whereSeparator: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
            let line = drawn.hasPrefix("\u{1B}[K") ? String(drawn.dropFirst(3)) : String(drawn)
            for operation in operations where Self.isBar(line, of: operation) { seen.insert(operation) }
        }
        #expect(after.contains("progress-test-done"), "the commands did not end: \(after)")
        // import-read is as short as decrypting the source; only the bars of the long parts must show.
        for operation in ["import", "backup", "verify", "restore"] {
            #expect(seen.contains(operation), "\(operation)'s bar not drawn; the pane at the end: \(after)")
        }
        #expect(!after.contains { $0.contains(" [") || $0.contains("/s ") }, "every bar is erased: \(after)")
        #expect(!after.contains { $0.hasSuffix("-failed") }, "\(after)")
        #expect(after.contains { $0.hasPrefix("backed up 1 collection") }, "\(after)")
        #expect(after.contains { $0.hasPrefix("restored 1 collection") }, "\(after)")
        _ = try await tmux(["kill-server"])
    }

    @Test func aPipeGetsNoBarAndJsonGetsProgressLinesOfImportBackupVerifyAndRestore() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "progress pass\n").status == 0)
        try await ClientDriver.expectPasses("progress_fill.py", ["20", "\(Self.secretBytes)"], against: puffd)
        let files = dataDir + "-files"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: files) }
        let (source, password) = try Self.writeSource(count: 200, size: 1024, in: files)
        let puffctl = "'\(VaultFlowTests.puffctl)'"
        let archive = "'\(files)/vault.puffbak'"
        let importing = "import '\(source)' --into login --source-passcode-fd 3"

        // Standard error joins standard output in the pipe: only the results come out.
        let piped = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c",
                """
                \(puffctl) \(importing) 3<'\(password)' 2>&1 >/dev/null
                \(puffctl) backup \(archive) 2>&1 && \(puffctl) verify 2>&1 && \(puffctl) verify --backup \(archive) 2>&1 \
                && printf 'progress pass\\n' | \(puffctl) restore --force --stdin \(archive) 2>&1
                """,
            ], environment: puffd.clientEnvironment)
        #expect(piped.status == 0, "\(piped.output)")
        let lines = piped.output.split(separator: "\n").map(String.init)
        #expect(!piped.output.contains("\u{1B}") && !piped.output.contains("\r"), "no bar on a pipe: \(piped.output)")
        #expect(lines.count == 6, "the results only: \(lines)")
        #expect(lines.first == "200 added, 0 replaced, 0 unchanged, 0 skipped (items that were imported into 'login')")

        // With --json, standard error holds only progress lines, one JSON object each.
        let json = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c",
                """
                printf 'progress pass\\n' | \(puffctl) \(importing) --stdin --json 3<'\(password)' 2>&1 >/dev/null
                \(puffctl) backup \(archive)-2 --json 2>&1 >/dev/null
                \(puffctl) verify --json 2>&1 >/dev/null
                \(puffctl) verify --backup \(archive)-2 --json 2>&1 >/dev/null
                printf 'progress pass\\n' | \(puffctl) restore --force --stdin \(archive)-2 --json 2>&1 >/dev/null
                """,
            ], environment: puffd.clientEnvironment)
        let progress = json.output.split(separator: "\n").map(String.init)
        let objects = progress.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: [String: Any]]
        }.compactMap { $0["progress"] }
        #expect(objects.count == progress.count && !json.output.contains("\u{1B}"), "\(json.output)")
        // Each operation's reports, in order: from 0 done to done = total, never backwards.
        var runs: [(operation: String, reports: [[String: Any]])] = []
        for object in objects {
            let operation = object["operation"] as? String ?? "?"
            if runs.last?.operation == operation, let done = object["done"] as? Int,
                let before = runs.last?.reports.last?["done"] as? Int, done >= before
            {
                runs[runs.count - 1].reports.append(object)
            } else {
                runs.append((operation, [object]))
            }
        }
        let expected: [(String, String)] = [
            ("import-read", "items"), ("import", "items"), ("backup", "bytes"), ("verify", "bytes"),
            ("verify", "bytes"),
            ("restore", "bytes"),
        ]
        #expect(runs.map(\.operation) == expected.map(\.0), "\(progress)")
        for (run, (_, unit)) in zip(runs, expected) {
            let first = run.reports.first!
            let last = run.reports.last!
            #expect(first["done"] as? Int == 0 && first["unit"] as? String == unit, "\(run.operation): \(first)")
            #expect(last["done"] as? Int == last["total"] as? Int, "\(run.operation) ends done: \(last)")
            #expect((last["total"] as? Int ?? 0) > 0, "\(run.operation) counted work: \(last)")
        }
        #expect(runs.first?.reports.last?["total"] as? Int == 200, "every item of the source read")
        #expect(runs.dropFirst().first?.reports.last?["total"] as? Int == 200, "every item imported")
    }
}
