// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import PuffDBus
import PuffStore

/// `puffctl verify [--backup FILE]`.
struct VerifyVault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every frame of every vault file, and every record of the unlocked collections.",
        discussion: """
            Asks puffd to read every vault file's frames and checksums (no key needed), and to \
            open every record of each unlocked collection in its place in the chain; a locked \
            collection's records are checked by their frames only. With --backup, checks a backup \
            file instead, here, without puffd: every entry's checksum, the whole archive's, and \
            the frames of every file in it. Prints each problem with its file and offset, and \
            exits 1 when there is any (a torn append puffd cuts off at its next read is a \
            warning only). On a terminal, a progress bar on standard error shows the bytes done, the rate and the \
            time left, and is erased at the end; with --json, progress lines on standard error \
            instead; on a pipe, nothing.
            """
    )

    @Option(name: .customLong("backup"), help: ArgumentHelp("Check this backup file instead.", valueName: "FILE"))
    var backup: String?

    @Flag(help: "Print the result as one JSON object, and progress as JSON lines on standard error.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let start = ContinuousClock.now
        let progress = ProgressReporter.forCommand("verify", json: json)
        defer { progress.finish() }
        if let backup {
            try Self.verifyBackup(backup, start: start, json: json, progress: progress)
            return
        }
        let outcome = try await connection.connect().verify(progress: progress.update)
        progress.finish()
        let problems = outcome.findings.count { !$0.isWarning }
        if json {
            Console.out(BackupOutput.json(verify: outcome))
            if problems > 0 { throw ClientError.usage("verify found \(problems) problem\(problems == 1 ? "" : "s")") }
            return
        }
        for finding in outcome.findings {
            let place = finding.offset.map { "\(finding.file) at offset \($0)" } ?? finding.file
            let text = finding.what.contains(finding.file) ? finding.what : "\(place): \(finding.what)"
            Console.out("\(finding.isWarning ? "warning" : "damaged"): \(text)")
        }
        var summary =
            "checked every vault file, and \(outcome.records) record\(outcome.records == 1 ? "" : "s") of "
            + "\(outcome.checked.count) unlocked collection\(outcome.checked.count == 1 ? "" : "s")"
        if !outcome.locked.isEmpty {
            summary += "; locked, frames only: \(outcome.locked.joined(separator: ", "))"
        }
        Console.out("\(summary) in \(ArchiveFile.elapsed(since: start))")
        if problems > 0 { throw ClientError.usage("verify found \(problems) problem\(problems == 1 ? "" : "s")") }
    }

    /// Checks a backup file: the archive's checksums, then each file's frames; `progress` is
    /// shown the archive's bytes read. What is found is printed once the bar is gone.
    private static func verifyBackup(
        _ path: String, start: ContinuousClock.Instant, json: Bool, progress: ProgressReporter
    ) throws {
        let fd = try ArchiveFile.openForReading(path)
        var findings: [VerifyOutcome.Finding] = []
        var files = 0
        var info = stat()
        let size = fstat(fd.rawValue, &info) == 0 ? UInt64(info.st_size) : 0
        progress.update(ProgressUpdate(done: 0, total: size, unit: "bytes"))
        do {
            var reader = try BackupReader(fd: fd.rawValue, path: path)
            while let entry = try reader.next() {
                progress.update(ProgressUpdate(done: reader.position, total: size, unit: "bytes"))
                files += 1
                let inside = "\(path): \(entry.name)"
                let base = String(entry.name.split(separator: "/").last ?? "")
                guard let finding = VaultFileCheck.finding(for: entry.bytes, name: base, path: inside) else { continue }
                findings.append(
                    .init(file: inside, offset: finding.offset, what: finding.what, isWarning: finding.kind == .torn))
            }
            progress.update(ProgressUpdate(done: size, total: size, unit: "bytes"))
        } catch {
            findings.append(.init(file: path, offset: nil, what: "\(error)", isWarning: false))
        }
        progress.finish()
        let problems = findings.count { !$0.isWarning }
        if json {
            Console.out(BackupOutput.json(verifyBackup: path, files: files, findings: findings))
            if problems > 0 {
                throw ClientError.usage("verify found \(problems) problem\(problems == 1 ? "" : "s") in \(path)")
            }
            return
        }
        for finding in findings {
            let place = finding.offset.map { "\(finding.file) at offset \($0): " } ?? ""
            Console.out("\(finding.isWarning ? "warning" : "damaged"): \(place)\(finding.what)")
        }
        Console.out("checked \(files) file\(files == 1 ? "" : "s") of \(path) in \(ArchiveFile.elapsed(since: start))")
        if problems > 0 {
            throw ClientError.usage("verify found \(problems) problem\(problems == 1 ? "" : "s") in \(path)")
        }
    }
}
