// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffFormats
import PuffText

/// A `pass` store (the standard Unix password store): a folder with `.gpg-id` at its top and one
/// gpg-encrypted file per entry below it. ``read(_:)`` decrypts every entry through the `gpg`
/// program and the person's own agent (``GPGDecrypt``), never a gpg library of Puff's, and maps
/// it with ``PassEntry`` (docs/migration.md).
public enum PassStore {
    /// Why a store could not be read. Names the entry, never its content.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The folder has no `.gpg-id` at its top.
        case notAStore(String)
        /// The folder could not be opened or listed.
        case unreadable(path: String, reason: String)
        /// gpg did not decrypt an entry (no secret key, the agent's question cancelled ...).
        case notDecrypted(entry: String, reason: String)

        public var description: String {
            switch self {
            case .notAStore(let path): "\(path) is not a pass store: it has no .gpg-id at its top"
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .notDecrypted(let entry, let reason): "gpg did not decrypt \(entry): \(reason)"
            }
        }
    }

    /// Whether `path` is a folder with `.gpg-id` at its top (not following a symbolic link).
    public static func recognises(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        return fstatat(fd, ".gpg-id", &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Every entry of the store at `path`, in the order of their paths, and what was passed over
    /// (in ``PortableCollection/skipped``). One entry gpg cannot decrypt fails the whole read, so
    /// an import never leaves holes unnoticed. `gnupgHome` replaces the inherited `GNUPGHOME`
    /// (tests use a throwaway one). `progress` is told the entries decrypted so far and how many
    /// there are, after each one (so a bar appears only once gpg's first passphrase question,
    /// if any, is answered).
    ///
    /// - Throws: ``Failure``.
    public static func read(
        _ path: String, gnupgHome: String? = nil, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws(Failure) -> PortableCollection {
        guard recognises(path) else { throw .notAStore(path) }
        let listing = try PassStoreListing.entries(under: path)
        var items: [PortableItem] = []
        var skipped = listing.skipped
        for (index, entry) in listing.entries.enumerated() {
            defer { progress(index + 1, listing.entries.count) }
            let name = TerminalText.escaped(entry.label)
            let plaintext: GPGDecrypt.Plaintext
            let fd: Int32
            do {
                fd = try PassStoreListing.openEntry(entry.file, under: path)
            } catch {
                throw .notDecrypted(entry: name, reason: error.reason)
            }
            do {
                plaintext = try await GPGDecrypt.decrypt(
                    input: fd, limit: GPGDecrypt.maximumLength, gnupgHome: gnupgHome)
            } catch {
                throw .notDecrypted(entry: name, reason: error.description)
            }
            guard case .complete(let bytes) = plaintext else {
                skipped.append(
                    PortableSkip(
                        label: entry.label, reason: "larger than \(GPGDecrypt.maximumLength >> 20) MiB decrypted"))
                continue
            }
            items.append(PassEntry.item(path: entry.label, plaintext: bytes))
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return PortableCollection(label: name, items: items, skipped: skipped)
    }
}
