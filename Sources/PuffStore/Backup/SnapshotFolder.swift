// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The automatic snapshots in `<vault>/snapshots/` (0700): archives named
/// `<UTC time>-<reason>.puffbak`, so their names sort oldest first, the newest `keep` kept.
public struct SnapshotFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// The snapshot folder of the vault in `vault`.
    public init(vault: String) {
        path = "\(vault)/snapshots"
    }

    /// The snapshots' names, oldest first.
    public func names() -> [String] {
        guard access(path, F_OK) == 0, let names = try? FileRecordStore.names(in: path) else { return [] }
        return names.filter { $0.hasSuffix(BackupArchive.fileExtension) && !$0.hasPrefix(".") }.sorted()
    }

    /// Writes `snapshot` as a new archive (temporary file, `fsync`, `rename`, folder `fsync`),
    /// then removes the oldest beyond `keep`: only once the new one is complete, and never the
    /// new one. With `keep` 0 nothing is written. `counting` is told the bytes copied
    /// (``VaultSnapshot/write(to:path:counting:)``).
    ///
    /// - Parameter reason: A word for the file name (`restore`, `repair`, `passwd`, `import`).
    /// - Returns: The new archive's path, nil when none is kept.
    /// - Throws: ``StoreError/writeFailed(_:)``, ``StoreError/readFailed(_:)``; nothing is then
    ///   left behind.
    public func save(
        _ snapshot: VaultSnapshot, reason: String, keep: Int, now: UInt64? = nil, counting: ByteCounting? = nil
    ) throws(StoreError) -> String? {
        guard keep > 0 else { return nil }
        try DurableFiles.makePrivateFolder(path)
        var stamp = tm()
        var seconds = now.map { time_t(clamping: $0) } ?? time(nil)
        gmtime_r(&seconds, &stamp)
        let digits = { (value: Int32, width: Int) -> String in
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let base =
            digits(stamp.tm_year + 1900, 4) + digits(stamp.tm_mon + 1, 2) + digits(stamp.tm_mday, 2) + "T"
            + digits(stamp.tm_hour, 2) + digits(stamp.tm_min, 2) + digits(stamp.tm_sec, 2) + "Z"
        let word = String(reason.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(32))
        // A second one within the same second sorts after the first: `Z-` < `Z02-` < `Z03-`.
        // Whatever the reason words, so the order is the order they were taken in.
        let taken = names().filter { $0.hasPrefix(base) }.map { name in
            Int32(name.dropFirst(base.count).prefix { $0 != "-" }) ?? 1
        }
        var counter = (taken.max() ?? 0) + 1
        var name =
            counter == 1
            ? "\(base)-\(word)\(BackupArchive.fileExtension)"
            : "\(base)\(digits(counter, 2))-\(word)\(BackupArchive.fileExtension)"
        while access("\(path)/\(name)", F_OK) == 0 {
            name = "\(base)\(digits(counter, 2))-\(word)\(BackupArchive.fileExtension)"
            counter += 1
        }
        let final = "\(path)/\(name)"
        let temporary = "\(path)/.\(name).tmp"
        // Temporary files a crash left (another name, another second) would only take space.
        for stale in (try? FileRecordStore.names(in: path)) ?? [] where stale.hasPrefix(".") && stale.hasSuffix(".tmp")
        {
            unlink("\(path)/\(stale)")
        }
        let fd = try DurableFiles.openPrivate(temporary, O_WRONLY | O_CREAT | O_EXCL)
        do throws(StoreError) {
            _ = try snapshot.write(to: fd, path: final, counting: counting)
            try DurableFiles.sync(fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, final) == 0 else {
            let code = errno
            unlink(temporary)
            throw .writeFailed("cannot write \(final): \(DurableFiles.describe(code))")
        }
        // The oldest by name go, never the one just written: with a clock set back since an older
        // snapshot (a name that sorts after it), that one would otherwise go at once.
        for old in names().filter({ $0 != name }).dropLast(keep - 1) { unlink("\(path)/\(old)") }
        try DurableFiles.syncFolder(path)
        return final
    }
}
