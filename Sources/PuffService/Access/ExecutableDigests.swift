// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import Synchronization

/// The content digests of callers' executables (BLAKE2b-256 of the file `/proc/<pid>/exe` opens),
/// cached by device, inode, size and modification time, so each file is read once per change.
///
/// - Important: The file is read through the process's own `/proc/<pid>/exe` link, so a caller
///   whose path was deleted or replaced after it started is hashed as it runs; a process that
///   exits (and whose pid is reused) before the read is a race this cannot close.
package final class ExecutableDigests: Sendable {
    /// What identifies one version of a file without reading it.
    struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanoseconds: Int
    }

    private let cache = Mutex<[FileKey: [UInt8]]>([:])
    /// The most versions kept; the cache starts over when full.
    static let capacity = 512
    /// Where `/proc` is mounted; tests point it elsewhere.
    private let procRoot: String

    /// A cache reading `<procRoot>/<pid>/exe`.
    package init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// The digest of the executable `pid` runs, or nil when it cannot be read (the process left,
    /// or the file is not readable).
    package func digest(ofProcess pid: UInt32) -> [UInt8]? {
        digest(ofFile: "\(procRoot)/\(pid)/exe")
    }

    /// The digest of the file at `path`, from the cache when its identity did not change.
    package func digest(ofFile path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let key = FileKey(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: status.st_mtim.tv_sec, modifiedNanoseconds: status.st_mtim.tv_nsec)
        if let known = cache.withLock({ $0[key] }) { return known }
        guard let digest = ContentDigest.digest(readingToEnd: fd) else { return nil }
        cache.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll() }
            cache[key] = digest
        }
        return digest
    }

    /// How many file versions are cached (tests check a second read uses the cache).
    package var cachedCount: Int { cache.withLock { $0.count } }
}
