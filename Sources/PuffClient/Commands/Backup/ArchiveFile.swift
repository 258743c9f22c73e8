// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus

/// The files `puffctl backup` writes and `restore` reads: never through a symbolic link, never a
/// FIFO waited on, written whole or not at all (temporary file, `fsync`, `rename`, folder `fsync`).
enum ArchiveFile {
    /// A new temporary file beside `path`, 0600, for puffd to write the archive into.
    static func create(beside path: String) throws(ClientError) -> (fd: UnixFD, temporary: String) {
        let temporary = "\(folder(of: path))/.\(base(of: path)).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .usage("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw .usage("cannot make \(temporary) private: \(String(cString: strerror(code)))")
        }
        return (UnixFD(taking: fd), temporary)
    }

    /// Refuses a `path` inside the vault folder `vault` (`Status`'s `data_dir`), links resolved: the
    /// rename would replace a vault file (`puffctl backup <vault>/catalog`), or put an archive
    /// among the snapshots, whose rotation would later remove it.
    ///
    /// - Throws: ``ClientError/usage(_:)``.
    static func refuseInside(vault: String, path: String) throws(ClientError) {
        guard !vault.isEmpty, let vaultReal = realpath(vault, nil), let folderReal = realpath(folder(of: path), nil)
        else { return }
        defer {
            free(vaultReal)
            free(folderReal)
        }
        let (inVault, inFolder) = (String(cString: vaultReal), String(cString: folderReal))
        guard inFolder == inVault || inFolder.hasPrefix(inVault + "/") else { return }
        throw .usage("\(path) is inside the vault folder \(vault): write the backup somewhere else")
    }

    /// Syncs the written temporary file and renames it to `path` (a link at `path` is replaced,
    /// not followed), then syncs the folder.
    static func commit(_ fd: UnixFD, temporary: String, to path: String) throws(ClientError) {
        guard fsync(fd.rawValue) == 0 else {
            let code = errno
            unlink(temporary)
            throw .usage("cannot write \(temporary): \(String(cString: strerror(code)))")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .usage("cannot write \(path): \(String(cString: strerror(code)))")
        }
        let folderFD = open(folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)
            close(folderFD)
        }
    }

    /// `path` opened for reading: a regular file, not followed if it is a link, never waited on.
    static func openForReading(_ path: String) throws(ClientError) -> UnixFD {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .usage("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .usage("\(path) is not a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return UnixFD(taking: fd)
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func base(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// `bytes` for people: `812 bytes`, `3.4 MB`.
    static func size(_ bytes: UInt64) -> String {
        guard bytes >= 1000 else { return "\(bytes) bytes" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// Seconds since `start`, to a hundredth: `0.42 s`.
    static func elapsed(since start: ContinuousClock.Instant) -> String {
        let duration = ContinuousClock.now - start
        let hundredths = duration.components.seconds * 100 + duration.components.attoseconds / 10_000_000_000_000_000
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) s"
    }
}
