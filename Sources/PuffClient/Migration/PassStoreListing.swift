// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The entries of a `pass` store: every regular `*.gpg` file below its top, found without
/// following a symbolic link (a link is passed over and said so), hidden files and folders
/// (`.git`, `.gpg-id`, `.extensions`) left out, as `pass ls` leaves them out.
enum PassStoreListing {
    struct Entry: Equatable {
        /// The path under the store, `.gpg` included.
        var file: String
        /// The entry's name as `pass` shows it: the path without `.gpg`.
        var label: String
    }

    /// The entries under the store at `root`, sorted by path, and what was passed over.
    static func entries(under root: String) throws(PassStore.Failure) -> (entries: [Entry], skipped: [String]) {
        var entries: [Entry] = []
        var skipped: [String] = []
        try walk(root: root, relative: "", into: &entries, skipped: &skipped)
        entries.sort { Array($0.label.utf8).lexicographicallyPrecedes(Array($1.label.utf8)) }
        return (entries, skipped)
    }

    private static func walk(
        root: String, relative: String, into entries: inout [Entry], skipped: inout [String]
    ) throws(PassStore.Failure) {
        let path = relative.isEmpty ? root : root + "/" + relative
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, let directory = fdopendir(fd) else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw .unreadable(path: TerminalText.escaped(path), reason: reason)
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name.first == UInt8(ascii: ".") { continue }
            names.append(name)
        }
        for raw in names {
            guard let name = String(validating: raw, as: UTF8.self) else {
                skipped.append(
                    "a file under \(TerminalText.escaped(relative.isEmpty ? "." : relative)) whose name is not UTF-8")
                continue
            }
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard fstatat(dirfd(directory), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try walk(root: root, relative: child, into: &entries, skipped: &skipped)
            case S_IFREG where name.hasSuffix(".gpg") && name.count > 4:
                entries.append(Entry(file: child, label: String(child.dropLast(4))))
            case S_IFLNK where name.hasSuffix(".gpg"):
                skipped.append("\(TerminalText.escaped(child)): a symbolic link (not followed)")
            default:
                continue
            }
        }
    }
}
