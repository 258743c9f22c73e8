// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// Reads a token or an AppRole id from a file into locked memory, refusing files another local
/// user could have planted or could read.
enum CredentialFile {
    /// More than any token or id OpenBao makes (tokens are under 100 bytes).
    static let limit = 4096

    /// Whether `path` names something (a link included).
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The file's bytes without trailing white space (an `echo` into the file adds a newline).
    ///
    /// - Parameter ownedByUser: refuse a file that is not this user's, or that group or others
    ///   may read or write.
    static func read(_ path: String, what: String, ownedByUser: Bool) throws(OpenBaoError) -> SecureBytes {
        // No link followed (a planted link to another file), no wait on a FIFO.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw .refused("the \(what) \(path) is a symbolic link: not followed") }
            throw .refused("the \(what) \(path) cannot be opened: \(String(cString: strerror(code)))")
        }
        let file = FileDescriptor(rawValue: fd)
        defer { try? file.close() }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .refused("the \(what) \(path) is not a regular file")
        }
        if ownedByUser {
            guard status.st_uid == geteuid() else {
                throw .refused("the \(what) \(path) belongs to uid \(status.st_uid), not to this user")
            }
            guard status.st_mode & 0o077 == 0 else {
                let mode = String(status.st_mode & 0o777, radix: 8)
                throw .refused(
                    "the \(what) \(path) may be read or written by group or others (mode \(mode)): chmod 600 it")
            }
        }
        let size = Int(status.st_size)
        guard size <= limit else { throw .refused("the \(what) \(path) is larger than \(limit) bytes") }
        var complete = false
        let bytes = SecureBytes(count: size) { (buffer: UnsafeMutableRawBufferPointer) -> Void in
            complete = (try? file.readFully(into: buffer)) == size
        }
        guard complete else { throw .refused("the \(what) \(path) could not be read whole") }
        let kept = bytes.withUnsafeBytes { raw in
            raw.lastIndex { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }.map { $0 + 1 } ?? 0
        }
        guard kept > 0 else { throw .refused("the \(what) \(path) is empty") }
        // Tokens and ids are printable ASCII: anything else (a line break) could start a header line.
        guard bytes.withUnsafeBytes({ $0[..<kept].allSatisfy { (0x21...0x7E).contains($0) } }) else {
            throw .refused("the \(what) \(path) holds characters no token or id has")
        }
        return bytes.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[..<kept])) }
    }
}
