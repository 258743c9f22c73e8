// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffFormats
import PuffText

/// The entries of a `pass` store: every regular `*.gpg` file below its top, found without
/// following a symbolic link, hidden files and folders (`.git`, `.gpg-id`, `.extensions`) left
/// out, as `pass ls` leaves them out. What else is there (a link, a file not ending in `.gpg`, a
/// FIFO) is listed as skipped, so the person sees what did not cross.
enum PassStoreListing {
    struct Entry: Equatable {
        /// The path under the store, `.gpg` included.
        var file: String
        /// The entry's name as `pass` shows it: the path without `.gpg`.
        var label: String
    }

    /// The entries under the store at `root`, sorted by path, and what was passed over.
    static func entries(under root: String) throws(PassStore.Failure) -> (entries: [Entry], skipped: [PortableSkip]) {
        var entries: [Entry] = []
        var skipped: [PortableSkip] = []
        try walk(root: root, relative: "", into: &entries, skipped: &skipped)
        entries.sort { Array($0.label.utf8).lexicographicallyPrecedes(Array($1.label.utf8)) }
        return (entries, skipped)
    }

    /// Opens the entry `file` (a path under `root`) for reading, one component at a time, none
    /// followed if it is a symbolic link, the last one not blocked on if it is a FIFO: a store
    /// changed since it was listed cannot make gpg read a file outside it.
    ///
    /// Why an entry could not be opened.
    struct OpenFailure: Error {
        var reason: String
    }

    /// - Returns: the open descriptor.
    /// - Throws: ``OpenFailure`` saying why it could not be opened.
    static func openEntry(_ file: String, under root: String) throws(OpenFailure) -> Int32 {
        var directory = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { throw OpenFailure(reason: String(cString: strerror(errno))) }
        let components = file.split(separator: "/").map(String.init)
        for component in components.dropLast() {
            let next = openat(directory, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(directory)
            guard next >= 0 else { throw OpenFailure(reason: String(cString: strerror(code))) }
            directory = next
        }
        let fd = openat(directory, components.last ?? "", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        let code = errno
        close(directory)
        guard fd >= 0 else {
            throw OpenFailure(reason: code == ELOOP ? "it became a symbolic link" : String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw OpenFailure(reason: "it is no longer a regular file")
        }
        // gpg reads it blocking; O_NONBLOCK was only for the open.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    private static func walk(
        root: String, relative: String, into entries: inout [Entry], skipped: inout [PortableSkip]
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
                    PortableSkip(
                        label: relative.isEmpty ? "." : relative, reason: "a file in it whose name is not UTF-8"))
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
            case S_IFREG:
                skipped.append(PortableSkip(label: child, reason: "not an entry (its name does not end in .gpg)"))
            case S_IFLNK:
                skipped.append(PortableSkip(label: child, reason: "a symbolic link (not followed)"))
            default:
                skipped.append(PortableSkip(label: child, reason: "not a regular file"))
            }
        }
    }
}
