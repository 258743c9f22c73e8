// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffSystem
import SystemPackage

/// The POSIX steps a durable vault write is made of: private modes whatever the umask, whole
/// writes, `fsync` of files and of their folder, atomic replacement by `rename`.
enum DurableFiles {
    /// An `errno` described for a log line.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The error of a write to `path` that failed with `code`: ``StoreError/refused(_:path:)`` for
    /// a cause the person can fix (full, quota, read-only, not writable), else
    /// ``StoreError/writeFailed(_:)`` as `"<action> <path>: <strerror>"`.
    static func writeError(_ action: String, _ path: String, _ code: Int32) -> StoreError {
        if let refusal = WriteRefusal(errno: code) { return .refused(refusal, path: path) }
        return .writeFailed("\(action) \(path): \(describe(code))")
    }

    /// Creates `path` as a folder if missing and makes it 0700 whatever the umask.
    static func makePrivateFolder(_ path: String) throws(StoreError) {
        // Missing parents (`~/.local/share` on a new account) are made 0700 too.
        var parent = ""
        for component in path.split(separator: "/").dropLast() {
            parent += "/" + component
            if mkdir(parent, 0o700) != 0, errno != EEXIST {
                throw writeError("cannot create", parent, errno)
            }
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw writeError("cannot create", path, errno)
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .writeFailed("\(path) is not a folder")
        }
        guard info.st_uid == getuid() else { throw .writeFailed("\(path) belongs to another user") }
        if info.st_mode & 0o777 != 0o700, chmod(path, 0o700) != 0 {
            throw writeError("cannot make private", path, errno)
        }
    }

    /// Opens `path` with `flags` as ``openRegular(_:_:)`` does, creating it 0600 and forcing 0600
    /// whatever the umask.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` when it is not a regular file,
    ///   ``StoreError/writeFailed(_:)`` when it cannot be opened (or does not exist).
    static func openPrivate(_ path: String, _ flags: Int32) throws(StoreError) -> Int32 {
        guard let fd = try openRegular(path, flags) else {
            throw .writeFailed("cannot open \(path): \(describe(ENOENT))")
        }
        if flags & O_CREAT != 0, fchmod(fd, 0o600) != 0 {
            let code = errno
            close(fd)
            throw writeError("cannot make private", path, code)
        }
        return fd
    }

    /// Writes all of `bytes` at the descriptor's offset, however many calls it takes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(StoreError) {
        do throws(Errno) {
            try FileDescriptor(rawValue: fd).writeFully(bytes)
        } catch {
            throw writeError("cannot write", path, error.rawValue)
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`), however many calls it takes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(StoreError) {
        do throws(Errno) {
            try FileDescriptor(rawValue: fd).writeFully(bytes, atAbsoluteOffset: Int64(offset))
        } catch {
            throw writeError("cannot write", path, error.rawValue)
        }
    }

    /// Flushes the descriptor's data and size to the disk.
    static func sync(_ fd: Int32, path: String) throws(StoreError) {
        guard fsync(fd) == 0 else { throw writeError("cannot fsync", path, errno) }
    }

    /// Flushes a folder, so a `rename` or new file in it survives a crash.
    static func syncFolder(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw writeError("cannot open", path, errno) }
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// Writes `bytes` to a temporary file beside `path`, syncs it, renames it over `path` and
    /// syncs the folder: afterwards `path` holds either the old bytes or all of the new ones.
    static func replace(_ path: String, with bytes: [UInt8], folder: String) throws(StoreError) {
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = try openPrivate(temporary, O_WRONLY | O_CREAT | O_EXCL)
        do throws(StoreError) {
            try writeAll(fd, bytes, path: temporary)
            try sync(fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw writeError("cannot replace", path, code)
        }
        try syncFolder(folder)
    }

    /// The whole file at `path`, or nil when it does not exist.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` when it is not a regular file (never
    ///   followed or waited on), ``StoreError/readFailed(_:)``.
    static func readWhole(_ path: String) throws(StoreError) -> [UInt8]? {
        guard let fd = try openRegular(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .readFailed("cannot stat \(path): \(describe(errno))") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let done: Int
        do throws(Errno) {
            done = try FileDescriptor(rawValue: fd).readFully(into: &bytes)
        } catch {
            throw .readFailed("cannot read \(path): \(describe(error.rawValue))")
        }
        if done < bytes.count { bytes.removeLast(bytes.count - done) }
        return bytes
    }
}
