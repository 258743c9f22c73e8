// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc

/// `puffctl backup OUTFILE`.
struct BackupVault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a backup of the whole vault, still sealed, to a file.",
        discussion: """
            puffd copies every collection's files as they are on disk (hidden ones included, \
            deleted ones still kept too), taken between two writes while it goes on serving; no \
            passcode is needed, and none of the backup reads without the collections' passcodes. \
            OUTFILE is written whole or not at all (0600; a link there is replaced, not followed), and \
            never inside the vault folder. \
            `puffctl verify --backup OUTFILE` checks it; `puffctl restore OUTFILE` puts it back. \
            docs/backup.md describes the format. On a terminal, a progress bar on standard error shows the bytes done, the rate and the \
            time left, and is erased at the end; with --json, progress lines on standard error \
            instead; on a pipe, nothing.
            """
    )

    @Argument(help: "Where to write the backup.")
    var outfile: String

    @Flag(help: "Print the result as one JSON object, and progress as JSON lines on standard error.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        try ArchiveFile.refuseInside(vault: try await client.status().dataDirectory, path: outfile)
        let start = ContinuousClock.now
        let (fd, temporary) = try ArchiveFile.create(beside: outfile)
        let progress = ProgressReporter.forCommand("backup", json: json)
        defer { progress.finish() }
        let outcome: BackupOutcome
        do {
            outcome = try await client.backup(into: fd, progress: progress.update)
        } catch {
            unlink(temporary)
            throw error
        }
        try ArchiveFile.commit(fd, temporary: temporary, to: outfile)
        progress.finish()
        guard !json else { return Console.out(BackupOutput.json(backup: outcome, to: outfile)) }
        let unknown =
            outcome.unknown == 0
            ? "" : "; items unknown while locked in \(outcome.unknown) collection\(outcome.unknown == 1 ? "" : "s")"
        Console.out(
            "backed up \(outcome.collections) collection\(outcome.collections == 1 ? "" : "s") "
                + "(\(outcome.items) item\(outcome.items == 1 ? "" : "s")\(unknown)), \(outcome.files) files, "
                + "\(ArchiveFile.size(outcome.bytes)) in \(ArchiveFile.elapsed(since: start)) to \(outfile)")
    }
}
