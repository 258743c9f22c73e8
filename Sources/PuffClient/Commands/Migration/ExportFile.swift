// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus
import PuffSystem
import SystemPackage

/// The file `puffctl export` writes: whole or not at all (a temporary file beside it, 0600,
/// created with `O_EXCL | O_NOFOLLOW`, `fsync`, then linked or renamed into place and the folder
/// synced). A symbolic link at the path is refused, never followed or replaced; an existing file
/// is replaced only with `--force`; nothing at the path is ever opened, so a FIFO there cannot
/// make the export wait.
struct ExportFile {
    let path: String
    let replaces: Bool
    private let temporary: String
    private let fd: UnixFD

    /// Checks `path` and creates the temporary file beside it, before any secret is fetched.
    ///
    /// - Throws: ``ClientError/usage(_:)`` naming what is at `path` and what to do.
    init(path: String, force: Bool) throws(ClientError) {
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                throw .usage("\(path) is a symbolic link; it is neither followed nor replaced: name the file itself")
            case S_IFREG where force: break
            case S_IFREG: throw .usage("\(path) exists; --force replaces it")
            default: throw .usage("\(path) exists and is not a regular file; it is not replaced")
            }
        } else if errno != ENOENT {
            throw .usage("cannot use \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        replaces = force
        (fd, temporary) = try ArchiveFile.create(beside: path)
    }

    /// Writes `bytes` to the temporary file and puts it in place.
    ///
    /// - Throws: ``ClientError/usage(_:)``; the temporary file is removed then, nothing else changes.
    func commit(_ bytes: [UInt8]) throws(ClientError) {
        do throws(Errno) {
            try FileDescriptor(rawValue: fd.rawValue).writeFully(bytes)
        } catch {
            discard()
            throw .usage("cannot write \(temporary): \(String(cString: strerror(error.rawValue)))")
        }
        guard replaces else {
            try keepNew()
            return
        }
        try ArchiveFile.commit(fd, temporary: temporary, to: path)
    }

    /// Without `--force`: `link` fails if anything appeared at the path meanwhile (a file, a
    /// link), where `rename` would replace it.
    private func keepNew() throws(ClientError) {
        guard fsync(fd.rawValue) == 0 else {
            let code = errno
            discard()
            throw .usage("cannot write \(temporary): \(String(cString: strerror(code)))")
        }
        guard link(temporary, path) == 0 else {
            let code = errno
            discard()
            throw .usage(
                code == EEXIST
                    ? "\(path) appeared while exporting; nothing was written (--force replaces a file)"
                    : "cannot write \(path): \(String(cString: strerror(code)))")
        }
        unlink(temporary)
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)
            close(folderFD)
        }
    }

    /// Removes the temporary file: the export did not happen.
    func discard() {
        unlink(temporary)
    }
}
