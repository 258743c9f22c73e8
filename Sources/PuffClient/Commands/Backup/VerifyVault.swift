// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
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
            warning only).
            """
    )

    @Option(name: .customLong("backup"), help: ArgumentHelp("Check this backup file instead.", valueName: "FILE"))
    var backup: String?

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let start = ContinuousClock.now
        if let backup {
            try Self.verifyBackup(backup, start: start)
            return
        }
        let outcome = try await connection.connect().verify()
        for finding in outcome.findings {
            let place = finding.offset.map { "\(finding.file) at offset \($0)" } ?? finding.file
            let text = finding.what.contains(finding.file) ? finding.what : "\(place): \(finding.what)"
            Console.out("\(finding.isWarning ? "warning" : "damaged"): \(text)")
        }
        let problems = outcome.findings.count { !$0.isWarning }
        var summary =
            "checked every vault file, and \(outcome.records) record\(outcome.records == 1 ? "" : "s") of "
            + "\(outcome.checked.count) unlocked collection\(outcome.checked.count == 1 ? "" : "s")"
        if !outcome.locked.isEmpty {
            summary += "; locked, frames only: \(outcome.locked.joined(separator: ", "))"
        }
        Console.out("\(summary) in \(ArchiveFile.elapsed(since: start))")
        if problems > 0 { throw ClientError.usage("verify found \(problems) problem\(problems == 1 ? "" : "s")") }
    }

    /// Checks a backup file: the archive's checksums, then each file's frames.
    private static func verifyBackup(_ path: String, start: ContinuousClock.Instant) throws(ClientError) {
        let fd = try ArchiveFile.openForReading(path)
        var problems = 0
        var files = 0
        do {
            var reader = try BackupReader(fd: fd.rawValue, path: path)
            while let entry = try reader.next() {
                files += 1
                let inside = "\(path): \(entry.name)"
                let base = String(entry.name.split(separator: "/").last ?? "")
                guard let finding = VaultFileCheck.finding(for: entry.bytes, name: base, path: inside) else { continue }
                Console.out(
                    "\(finding.kind == .torn ? "warning" : "damaged"): \(inside) at offset \(finding.offset): \(finding.what)"
                )
                if finding.kind != .torn { problems += 1 }
            }
        } catch {
            Console.out("damaged: \(error)")
            problems += 1
        }
        Console.out("checked \(files) file\(files == 1 ? "" : "s") of \(path) in \(ArchiveFile.elapsed(since: start))")
        if problems > 0 { throw .usage("verify found \(problems) problem\(problems == 1 ? "" : "s") in \(path)") }
    }
}
