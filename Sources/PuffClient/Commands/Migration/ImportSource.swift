// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffFormats
import PuffText

/// What `puffctl import` reads SOURCE into: a file, whose format is found from its content, or
/// a `pass` store's folder, decrypted through gpg (docs/migration.md). Whatever fails says so
/// before anything reaches puffd.
struct ImportSource {
    var path: String
    /// `--format`, checked against the content.
    var format: ForeignFormat?
    /// `--salvage`: a damaged gnome-keyring textual keyring gives its intact items.
    var salvage: Bool
    /// `--source-passcode-fd`.
    var passcodeDescriptor: Int32?
    /// `--json`: the reading's progress as JSON lines (``ImportReadProgress``).
    var json: Bool

    /// The source's items, and what of it was skipped and why.
    func read() async throws(ClientError) -> PortableCollection {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw .usage("cannot read \(TerminalText.escaped(path)): it is a symbolic link; name what it points to")
        }
        let isFolder = lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        if format == .pass || (format == nil && isFolder) {
            guard isFolder else {
                throw .usage("--format pass reads a pass store's folder: \(TerminalText.escaped(path)) is not a folder")
            }
            guard !salvage else { throw .usage("--salvage is for a damaged gnome-keyring textual keyring") }
            return try await readPass()
        }
        if let format, isFolder { throw .source(.notThisFormat(format)) }
        return try readFile()
    }

    private func readPass() async throws(ClientError) -> PortableCollection {
        // The file readers' `import-read` bar, counting entries as gpg decrypts them.
        let progress = ProgressReporter.forCommand("import-read", json: json)
        defer { progress.finish() }
        do {
            return try await PassStore.read(path) { done, total in
                progress.update(ProgressUpdate(done: UInt64(done), total: UInt64(total), unit: "items"))
            }
        } catch {
            throw .usage("the source: \(error); nothing was imported")
        }
    }

    /// A file read whole, its format found, its password asked when it has one.
    private func readFile() throws(ClientError) -> PortableCollection {
        var bytes = try SourceFile.read(path)
        // An unencrypted export (Bitwarden's) is all secrets; an encrypted file is not, but
        // telling them apart costs more than the wipe.
        defer { SecureBytes.wipe(&bytes) }
        do {
            let reader = try ForeignFormats.reader(for: bytes, format: format)
            if salvage, reader.format != .gnomeKeyring {
                throw ClientError.usage(
                    "--salvage is for a damaged gnome-keyring textual keyring; this is a \(reader.format.rawValue) file"
                )
            }
            var code: SecureBytes?
            if reader.needsPasscode(bytes) { code = try sourcePasscode() }
            let progress = ImportReadProgress(json: json)
            guard salvage else { return try progress.reading { try reader.read(bytes, passcode: code) } }
            let reading = try progress.reading { try GnomeKeyringFile.read(bytes, passcode: code, salvage: true) }
            var collection = reading.collection
            collection.skipped += reading.skipped.map { PortableSkip(label: nil, reason: "damaged: \($0)") }
            return collection
        } catch let error as ForeignFormatError {
            throw .source(error)
        } catch let error as ClientError {
            throw error
        } catch {
            throw .failed(name: "", message: "\(error)")
        }
    }

    /// The source's password from `--source-passcode-fd`, else the terminal; with neither, a
    /// failure naming the option at once (standard input is never read for it unasked).
    private func sourcePasscode() throws(ClientError) -> SecureBytes {
        let place: PasscodeSource = passcodeDescriptor.map { .descriptor($0) } ?? .terminal
        let channel: any PasscodeChannel
        do {
            channel = try place.open()
        } catch .noPasscodeSource {
            throw .usage(
                "\(TerminalText.escaped(path)) needs its password and there is no terminal to ask it on:"
                    + " pass it on a descriptor with --source-passcode-fd N; nothing was imported")
        }
        return try PasscodePrompt.existing(from: channel, prompt: "Password of \(TerminalText.escaped(path)):")
    }
}
