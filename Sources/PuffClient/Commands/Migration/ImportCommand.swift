// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import PuffCrypto
import PuffFormats

/// `puffctl import SOURCE --into COLLECTION [--format F] [--source-passcode-fd N] [--dry-run] [--json]`,
/// and `puffctl import --bus ADDRESS --into COLLECTION` from a running provider (``LiveImport``).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy the items of another store's file or pass store, or of a running provider, into a collection.",
        discussion: """
            The format is found from the file's content, never its name; --format names it and \
            fails when the content is not that format. SOURCE may be a file of gnome-keyring, \
            libsecret, KeePass (KDBX) or Bitwarden's unencrypted JSON export, or the folder of a \
            pass store, whose entries gpg decrypts through the person's own agent. A file's \
            password is asked on the terminal with echo off, or read as one line of descriptor N \
            (--source-passcode-fd); never an argument; with neither, the import fails at once. A \
            damaged gnome-keyring textual keyring is refused unless --salvage is given, which \
            imports its intact items and lists the damaged ones as skipped. A locked COLLECTION \
            is unlocked first (its passcode from the terminal, --stdin or --passcode-fd). The \
            items reach puffd over a pipe and are saved as one batch: all of them or none; the \
            vault is saved as a snapshot first (see `puffctl restore`). An item with the same \
            label, attributes and secret as one in the collection is left unchanged, so \
            importing a source twice changes nothing; one with the same label and attributes but \
            another secret replaces that item's secret. Created and Modified come from the \
            source. A wrong password or a --format that does not fit changes nothing. --dry-run \
            prints the plan (added, replaced, unchanged, skipped and why) and changes nothing; \
            --json prints one JSON object per item and a last one with the totals. With --bus \
            ADDRESS instead of SOURCE, every item of every unlocked collection of the provider \
            that owns org.freedesktop.secrets on that bus (gnome-keyring, KeePassXC, KWallet, \
            oo7) is copied; its locked collections are skipped and listed, and never unlocked \
            unless --unlock-source asks the provider to (it then shows its own prompt; a \
            --dry-run never asks). See \
            docs/migration.md.
            """
    )

    @Argument(
        help: ArgumentHelp("The other store's file, or a pass store's folder.", valueName: "SOURCE"),
        completion: .file())
    var source: String?

    @Option(
        name: .customLong("bus"),
        help: ArgumentHelp(
            "Copy from the provider running on the bus at ADDRESS instead of a file.", valueName: "ADDRESS"))
    var bus: String?

    @Flag(
        help:
            "With --bus: ask the other provider to unlock its locked collections (it shows its own prompt; not on --dry-run)."
    )
    var unlockSource = false

    @Option(
        name: .customLong("into"),
        help: ArgumentHelp("The collection to import into.", valueName: "COLLECTION"),
        completion: .custom(Completions.collections))
    var collection: String

    @Option(help: ArgumentHelp("The source's format, checked against its content.", valueName: "FORMAT"))
    var format: ForeignFormat?

    @Option(
        name: .customLong("source-passcode-fd"),
        help: ArgumentHelp("Read the source's password as one line of descriptor N.", valueName: "N"))
    var sourcePasscodeDescriptor: Int32?

    @Flag(help: "Import the intact items of a damaged gnome-keyring textual keyring, skipping the damaged ones.")
    var salvage = false

    @Flag(help: "Print what would be added, replaced, left unchanged or skipped, and change nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object per item, then one with the totals.")
    var json = false

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        try LiveImport.validate(source: source, bus: bus, format: format, passcodeDescriptor: sourcePasscodeDescriptor)
        if unlockSource, bus == nil { throw ValidationError("--unlock-source is for --bus ADDRESS") }
        if salvage, bus != nil { throw ValidationError("--salvage is for a SOURCE file") }
        if let sourcePasscodeDescriptor, sourcePasscodeDescriptor < 0 {
            throw ValidationError("--source-passcode-fd needs a descriptor number (0 or more)")
        }
    }

    func run() async throws {
        let client = try await connection.connect()
        // Checked first, so a missing collection costs no typing.
        let target = try await client.status().target(collection)
        let live = try await LiveImport.read(
            bus, unlocking: LiveUnlocking(unlockSource: unlockSource, dryRun: dryRun), json: json)
        let read: PortableCollection
        if let live {
            read = PortableCollection(label: "", items: live.items)
        } else {
            read = try await ImportSource(
                path: source ?? "", format: format, salvage: salvage, passcodeDescriptor: sourcePasscodeDescriptor,
                json: json
            ).read()
        }
        if target.isLocked {
            let code = try PasscodePrompt.existing(
                from: try passcode.source.open(), prompt: "Passcode for \(target.id):")
            _ = try await client.unlock(target.id, passcode: code)
        }
        let progress = ProgressReporter.forCommand("import", json: json)
        defer { progress.finish() }
        let outcomes = try await client.importItems(
            read.items, into: target.id, dryRun: dryRun, progress: progress.update)
        progress.finish()
        ImportOutput.print(
            outcomes + LiveImport.skippedLines(live, after: read.items.count), items: read.items,
            skipped: read.skipped, json: json, dryRun: dryRun, into: target.id, origins: LiveImport.origins(live))
    }

}

extension ForeignFormat: ExpressibleByArgument {}
