// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto

/// `puffctl restore INFILE [--force]`.
struct RestoreVault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the whole vault with a backup.",
        discussion: """
            Every collection is replaced by the backup's (what the vault holds now and the backup \
            does not is gone from it), so it is done only once confirmed: on the terminal, by \
            typing "restore", or with --force where there is no terminal. puffd then needs the \
            person too: the passcode of the default collection (or of --collection) from the \
            terminal, --stdin or --passcode-fd, or, with none of them and no terminal, a yes \
            through its prompter (puffctl agent, pinentry); a vault with no collection needs \
            neither. puffd reads and checks the whole backup first and changes nothing if any of \
            it is damaged or would not open; then it keeps the vault as it is now as a snapshot \
            in <vault>/snapshots/ (`puffctl restore` on that file takes it back), replaces the \
            files and locks every collection. Wrong-passcode delays stay as they are. On a terminal, a progress bar on \
            standard error shows the bytes done, the rate and the time left, and is erased at the \
            end; with --json, progress lines on standard error instead; on a pipe, nothing.
            """
    )

    @Argument(help: "The backup to restore (written by puffctl backup, or a snapshot).")
    var infile: String

    @Flag(help: "Restore without asking on the terminal (for scripts, which have none).")
    var force = false

    @Flag(help: "Print the result as one JSON object, and progress as JSON lines on standard error.")
    var json = false

    @Option(help: "Whose passcode confirms the restore (default: the default collection).")
    var collection: String?

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let fd = try ArchiveFile.openForReading(infile)
        if !force { try Self.confirm(infile) }
        let client = try await connection.connect()
        let status = try await client.status()
        // The passcode is puffd's proof that the person agrees; without a terminal or a passcode
        // option, puffd asks its prompter instead. A vault with no collection needs none.
        var code: SecureBytes?
        let target = collection ?? status.defaultCollection?.id
        if let target, passcode.source != .terminal || (try? TerminalChannel()) != nil {
            code = try PasscodePrompt.existing(from: try passcode.source.open(), prompt: "Passcode for \(target):")
        }
        let start = ContinuousClock.now
        let progress = ProgressReporter.forCommand("restore", json: json)
        defer { progress.finish() }
        let outcome = try await client.restore(
            from: fd, name: infile, passcode: code, collection: collection, progress: progress.update)
        progress.finish()
        guard !json else { return Console.out(BackupOutput.json(restore: outcome, from: infile)) }
        Console.out(
            "restored \(outcome.collections) collection\(outcome.collections == 1 ? "" : "s") "
                + "(\(outcome.files) files, \(ArchiveFile.size(outcome.bytes))) in "
                + "\(ArchiveFile.elapsed(since: start)) from \(infile); every collection is locked")
        if !outcome.snapshot.isEmpty {
            Console.out(
                "the vault as it was is kept in \(outcome.snapshot) (`puffctl restore \(outcome.snapshot)` takes it back)"
            )
        }
    }

    /// Asks on the terminal; only "restore", typed in full, confirms.
    ///
    /// - Throws: ``ClientError/usage(_:)`` when there is no terminal or the answer is another.
    private static func confirm(_ infile: String) throws(ClientError) {
        let terminal: TerminalChannel
        do {
            terminal = try TerminalChannel()
        } catch {
            throw .usage("restoring replaces the whole vault and there is no terminal to confirm on: pass --force")
        }
        let answer =
            (try? terminal.readAnswer(
                prompt: "Replace every collection of the vault with those of \(infile)? Type restore to confirm:"))
            ?? ""
        guard answer == "restore" else { throw .usage("not confirmed; nothing was restored") }
    }
}
