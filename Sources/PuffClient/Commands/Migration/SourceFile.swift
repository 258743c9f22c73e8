// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffSystem
import PuffText
import SystemPackage

/// Reads another store's file for `import`: a regular file only, opened without following a
/// symbolic link or blocking on a FIFO.
enum SourceFile {
    /// The largest source file read (a keyring of hundreds of thousands of items is far smaller).
    static let maximumBytes = 1 << 30

    /// The whole file.
    ///
    /// - Throws: ``ClientError/usage(_:)`` naming what is wrong with the path.
    static func read(_ path: String) throws(ClientError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link; name the file it points to" : describe(errno)
            throw .usage("cannot read \(TerminalText.escaped(path)): \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .usage("cannot read \(TerminalText.escaped(path)): not a regular file")
        }
        guard Int(info.st_size) <= maximumBytes else {
            throw .usage("cannot read \(TerminalText.escaped(path)): larger than \(maximumBytes >> 20) MiB")
        }
        let read: [UInt8]?
        do throws(Errno) {
            read = try FileDescriptor(rawValue: fd).readToEnd(limit: maximumBytes)
        } catch {
            throw .usage("cannot read \(TerminalText.escaped(path)): \(describe(error.rawValue))")
        }
        guard let bytes = read else {
            throw .usage("cannot read \(TerminalText.escaped(path)): larger than \(maximumBytes >> 20) MiB")
        }
        return bytes
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
