// SPDX-License-Identifier: Apache-2.0
import Glibc

extension DurableFiles {
    /// Opens `path` as a vault file: without following a link (`O_NOFOLLOW`), without waiting on
    /// a FIFO or a device (`O_NONBLOCK` until `fstat` has shown a regular file, then cleared),
    /// closed on exec; created 0600 when `flags` hold `O_CREAT`. Nil when it does not exist and
    /// `flags` do not create it.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming `path` and what it is when it
    ///   is anything but a regular file: a file planted in the vault folder is reported like
    ///   damage, never followed, read or waited on. ``StoreError/readFailed(_:)`` (read-only
    ///   `flags`) or ``StoreError/writeFailed(_:)`` when it cannot be opened.
    static func openRegular(_ path: String, _ flags: Int32) throws(StoreError) -> Int32? {
        let fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0o600)
        let failed = { (action: String, code: Int32) -> StoreError in
            flags & O_ACCMODE == O_RDONLY
                ? .readFailed("\(action) \(path): \(describe(code))") : writeError(action, path, code)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT, flags & O_CREAT == 0 { return nil }
            // ELOOP is a link; ENXIO a FIFO without a reader opened for writing; EISDIR a folder.
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG { throw refused(path, info.st_mode) }
            throw failed("cannot open", code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw failed("cannot stat", code)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw refused(path, info.st_mode)
        }
        let status = fcntl(fd, F_GETFL)
        guard status >= 0, fcntl(fd, F_SETFL, status & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            throw failed("cannot use", code)
        }
        return fd
    }

    /// The damage a vault path that is not a regular file is reported as.
    static func refused(_ path: String, _ mode: mode_t) -> StoreError {
        .damaged(file: path, offset: 0, reason: "\(kind(mode)), not a regular file: refused")
    }

    /// What a file of `mode` is, for a message: `a FIFO`, `a symbolic link` ...
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "an unknown kind of file"
        }
    }

    /// The vault files in `folder` (by name: `lock`, `catalog` and those of the collections and
    /// their logs) that are not regular files, each as the damage it is reported as.
    static func refusedFiles(in folder: String) -> [StoreError] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var found: [StoreError] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard isVaultFileName(name) else { continue }
            var info = stat()
            let path = "\(folder)/\(name)"
            if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG { found.append(refused(path, info.st_mode)) }
        }
        return found.sorted { "\($0)" < "\($1)" }
    }

    /// Whether puffd reads or writes a file of this name in the vault folder.
    static func isVaultFileName(_ name: String) -> Bool {
        if ["lock", "catalog", "attempts", "fleet"].contains(name) { return true }
        guard let dot = name.firstIndex(of: "."), SpaceID(hex: String(name[..<dot])) != nil else { return false }
        let suffix = name[dot...]
        return [".header", ".journal", ".head", ".audit", ".audit.1"].contains(suffix)
            || suffix.hasPrefix(".journal.cut-")
    }
}
