// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import PuffCrypto
import PuffFormats
import PuffText

/// `puffctl export --collection COLLECTION --format FORMAT OUTFILE [--target-passcode-fd N] [--force]`.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a collection's items to a file another password store opens.",
        discussion: """
            FORMAT is gnome-keyring (a binary keyring for ~/.local/share/keyrings/), libsecret \
            (libsecret's file backend and oo7) or kdbx (KeePassXC, KDBX 4). Labels, attributes \
            and secrets cross exactly; access rules, protection and the audit log do not (see \
            docs/migration.md). The file's password is asked twice on the terminal with echo off, \
            or read as one line of descriptor N (--target-passcode-fd); never an argument, never \
            empty. The export is a readable copy of every secret, so the person agrees first: \
            with the collection's passcode (--stdin, --passcode-fd, --ask-passcode; a locked \
            collection's is asked on the terminal and unlocks it), or else by answering puffd's \
            own question (puffctl agent, pinentry). Each item then passes the access gate as a \
            read would: a protected item asks, a rule may refuse; items kept back are named, the \
            file holds the rest and the command exits 1. Every item exported is audited. OUTFILE \
            is written whole or not at all, 0600; a symbolic link there is refused, an existing \
            file is replaced only with --force. On a terminal, progress bars on standard error: export \
            while puffd passes the items through its gate, export-received while they arrive.
            """
    )

    @Argument(help: ArgumentHelp("The file to write.", valueName: "OUTFILE"), completion: .file())
    var outfile: String

    @Option(
        help: ArgumentHelp("The collection to export.", valueName: "COLLECTION"),
        completion: .custom(Completions.collections))
    var collection: String

    @Option(help: ArgumentHelp("The file's format.", valueName: "FORMAT"))
    var format: ExportFormat

    @Option(
        name: .customLong("target-passcode-fd"),
        help: ArgumentHelp("Read the file's password as one line of descriptor N.", valueName: "N"))
    var targetPasscodeDescriptor: Int32?

    @Flag(help: "Replace OUTFILE if it is an existing regular file.")
    var force = false

    @OptionGroup var consent: ConsentOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if let targetPasscodeDescriptor, targetPasscodeDescriptor < 0 {
            throw ValidationError("--target-passcode-fd needs a descriptor number (0 or more)")
        }
    }

    func run() async throws {
        guard let writer = ForeignFormats.writer(for: format.foreign) else { return }
        let client = try await connection.connect()
        // Checked first, so a missing collection or an unusable OUTFILE costs no typing.
        let target = try await client.status().target(collection)
        let file = try ExportFile(path: outfile, force: force)
        let exported: ExportedCollection
        do {
            let targetCode = try targetPasscode()
            var code = try consent.passcode(of: target.id)
            if code == nil, target.isLocked {
                code = try PasscodePrompt.existing(
                    from: try PasscodeSource.terminal.open(), prompt: "Passcode for \(target.id):")
            }
            // Two bars, as import has: `export` while puffd passes the items through its gate,
            // then `export-received` while they arrive over the pipe.
            let gate = ProgressReporter.forCommand("export", json: false)
            let received = ProgressReporter.forCommand("export-received", json: false)
            defer {
                gate.finish()
                received.finish()
            }
            exported = try await client.exportItems(
                of: target.id, passcode: code, progress: gate.update,
                receiving: { update in
                    gate.finish()
                    received.update(update)
                })
            received.finish()
            let bytes: [UInt8]
            do {
                bytes = try writer.write(exported.collection, passcode: targetCode)
            } catch {
                throw ClientError.usage("cannot export to \(format.rawValue): \(error); nothing was written")
            }
            try file.commit(bytes)
        } catch {
            file.discard()
            throw error
        }
        try report(exported)
    }

    /// The new file's password: twice on the terminal, or one line of the descriptor; never empty.
    private func targetPasscode() throws(ClientError) -> SecureBytes {
        let place: PasscodeSource = targetPasscodeDescriptor.map { .descriptor($0) } ?? .terminal
        let code = try PasscodePrompt.new(
            from: try place.open(), for: "the file \(TerminalText.escaped(outfile))")
        // gnome-keyring writes a keyring without a password as clear text; no format gets one.
        guard code.count > 0 else { throw .emptyPasscode }
        return code
    }

    private func report(_ exported: ExportedCollection) throws(ClientError) {
        let count = exported.collection.items.count
        Console.out(
            "exported \(count) item\(count == 1 ? "" : "s") of \(collection) to \(outfile) "
                + "(\(format.rawValue))")
        guard !exported.leftOut.isEmpty else { return }
        for item in exported.leftOut {
            Console.error("left out '\(item.label)' (\(item.path)): \(item.reason)")
        }
        let left = exported.leftOut.count
        throw .usage("\(left) item\(left == 1 ? " was" : "s were") left out; the file holds the other \(count)")
    }
}

/// The formats `export` writes: those ``ForeignFormats/writers`` has.
enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
    case gnomeKeyring = "gnome-keyring"
    case libsecret
    case kdbx

    var foreign: ForeignFormat { ForeignFormat(rawValue: rawValue)! }
}
