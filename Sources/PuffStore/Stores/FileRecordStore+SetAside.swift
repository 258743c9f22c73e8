// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Deleted collections kept sealed: every `<hex>.*` file of a space (header, journal, cut tails,
/// audit logs) moves to `deleted/<time>-<hex>/`, 0700, by `rename` within the vault folder.
extension FileRecordStore {
    /// The folder deleted collections are kept in.
    var deletedFolder: String { "\(folder)/deleted" }

    private func entryFolder(_ name: SetAsideSpace.Name) -> String {
        "\(deletedFolder)/\(name.time)-\(name.space.hex)"
    }

    public func setAside(_ space: SpaceID, at time: UInt64) throws(StoreError) {
        guard access(headerPath(space), F_OK) == 0 else { throw .noSuchSpace(space) }
        committer.forget(space)
        readers.forget(space)
        let entry = entryFolder(SetAsideSpace.Name(space: space, time: time))
        try DurableFiles.makePrivateFolder(deletedFolder)
        try DurableFiles.makePrivateFolder(entry)
        // The header first: once it has moved the space is gone, whatever else a crash leaves.
        let names = try Self.names(in: folder).filter { $0.hasPrefix(space.hex + ".") && !$0.hasSuffix(".tmp") }
        for name in Self.headerFirst(names) {
            guard rename("\(folder)/\(name)", "\(entry)/\(name)") == 0 else {
                throw .writeFailed("cannot move \(folder)/\(name) aside: \(DurableFiles.describe(errno))")
            }
        }
        try DurableFiles.syncFolder(entry)
        try DurableFiles.syncFolder(deletedFolder)
        try DurableFiles.syncFolder(folder)
    }

    public func setAsideSpaces() throws(StoreError) -> [SetAsideSpace] {
        guard access(deletedFolder, F_OK) == 0 else { return [] }
        var found: [SetAsideSpace] = []
        for name in try Self.names(in: deletedFolder).sorted() {
            guard let parsed = Self.parse(name) else { continue }
            let entry = entryFolder(parsed)
            let headerFile = "\(entry)/\(parsed.space.hex).header"
            let journalFile = "\(entry)/\(parsed.space.hex).journal"
            guard let header = try DurableFiles.readWhole(headerFile) else { continue }
            let journal = try DurableFiles.readWhole(journalFile) ?? JournalFraming.preamble
            let version = JournalFraming.version(of: journal) ?? VaultRecord.currentFormat
            let parsedJournal = try JournalFraming.parse(
                journal, file: journalFile, preamble: JournalFraming.preamble(version: version))
            found.append(
                SetAsideSpace(
                    name: parsed,
                    header: try ChecksummedFile.decode(header, magic: ChecksummedFile.headerMagic, name: headerFile),
                    journal: JournalReplay(
                        records: parsedJournal.records, cut: nil, size: UInt64(parsedJournal.goodEnd),
                        version: version)))
        }
        return found.sorted { ($0.name.time, $0.name.space.hex) < ($1.name.time, $1.name.space.hex) }
    }

    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) throws(StoreError) {
        let entry = entryFolder(SetAsideSpace.Name(space: space, time: time))
        guard access(entry, F_OK) == 0, access(headerPath(space), F_OK) != 0 else { throw .noSuchSpace(space) }
        // The header last: until it is back, the space does not exist.
        let names = try Self.names(in: entry)
        for name in Self.headerFirst(names).reversed() {
            guard name.hasPrefix(space.hex + "."), rename("\(entry)/\(name)", "\(folder)/\(name)") == 0 else {
                throw .writeFailed("cannot move \(entry)/\(name) back: \(DurableFiles.describe(errno))")
            }
        }
        try DurableFiles.syncFolder(folder)
        rmdir(entry)
        try DurableFiles.syncFolder(deletedFolder)
    }

    public func purgeSetAside(before time: UInt64) throws(StoreError) -> [SetAsideSpace.Name] {
        guard access(deletedFolder, F_OK) == 0 else { return [] }
        var purged: [SetAsideSpace.Name] = []
        for name in try Self.names(in: deletedFolder) {
            guard let parsed = Self.parse(name), parsed.time < time else { continue }
            let entry = entryFolder(parsed)
            for file in try Self.names(in: entry) where unlink("\(entry)/\(file)") != 0 && errno != ENOENT {
                throw .writeFailed("cannot remove \(entry)/\(file): \(DurableFiles.describe(errno))")
            }
            guard rmdir(entry) == 0 else {
                throw .writeFailed("cannot remove \(entry): \(DurableFiles.describe(errno))")
            }
            purged.append(parsed)
        }
        if !purged.isEmpty { try DurableFiles.syncFolder(deletedFolder) }
        return purged
    }

    /// `<time>-<hex>` read back; nil for anything else (a planted file is ignored).
    private static func parse(_ name: String) -> SetAsideSpace.Name? {
        let parts = name.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let time = UInt64(parts[0]), let space = SpaceID(hex: String(parts[1])) else {
            return nil
        }
        return SetAsideSpace.Name(space: space, time: time)
    }

    /// `names` with the header's first.
    private static func headerFirst(_ names: [String]) -> [String] {
        names.filter { $0.hasSuffix(".header") } + names.filter { !$0.hasSuffix(".header") }
    }

    /// The names in a folder, `.` and `..` left out.
    static func names(in path: String) throws(StoreError) -> [String] {
        guard let dir = opendir(path) else {
            throw .readFailed("cannot list \(path): \(DurableFiles.describe(errno))")
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
