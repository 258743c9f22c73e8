// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A re-key's switch from one space to another (docs/vault-format.md, "Re-keying"): the new space
/// is written whole beside the old one, its header last, under a note `<new>.replaces` naming the
/// old space; the header's rename is the switch, and settling removes the space that lost.
extension FileRecordStore {
    /// The magic of a replacement note: the old space's 16 bytes follow, checksummed.
    static let replacesMagic = Array("PUFFREP\u{1}".utf8)

    func replacesPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).replaces" }

    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        throws(StoreError)
    {
        try checkRunning()
        guard access(headerPath(new), F_OK) != 0, access(replacesPath(new), F_OK) != 0 else {
            throw .writeFailed("cannot replace \(old.hex): \(new.hex) exists already")
        }
        // The note first: every file of `new` written after it is found and removed should a
        // crash stop this before the switch.
        try DurableFiles.replace(
            replacesPath(new), with: ChecksummedFile.encode(old.bytes, magic: Self.replacesMagic), folder: folder)
        try passCrashPoint()
        var journal = JournalFraming.preamble
        journal.reserveCapacity(records.reduce(journal.count) { $0 + $1.count + JournalFraming.frameOverhead })
        for record in records { journal += JournalFraming.frame(record) }
        try DurableFiles.replace(journalPath(new), with: journal, folder: folder)
        try passCrashPoint()
        if let head {
            try DurableFiles.replace(headPath(new), with: JournalFraming.frame(head), folder: folder)
            try passCrashPoint()
        }
        // The switch: `new` exists from here on, complete.
        try DurableFiles.replace(
            headerPath(new), with: ChecksummedFile.encode(header, magic: ChecksummedFile.headerMagic), folder: folder)
        try passCrashPoint()
    }

    public func replacements() throws(StoreError) -> [SpaceReplacement] {
        var found: [SpaceReplacement] = []
        for name in try Self.names(in: folder) where name.hasSuffix(".replaces") {
            guard let new = SpaceID(hex: String(name.dropLast(".replaces".count))),
                let bytes = try? DurableFiles.readWhole("\(folder)/\(name)"),
                let oldBytes = try? ChecksummedFile.decode(bytes, magic: Self.replacesMagic, name: name),
                let old = SpaceID(bytes: oldBytes), old != new
            else { continue }  // not a note this store wrote: left alone, never acted on
            found.append(SpaceReplacement(old: old, new: new, isSwitched: access(headerPath(new), F_OK) == 0))
        }
        return found.sorted { $0.new.hex < $1.new.hex }
    }

    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) throws(StoreError) {
        try checkRunning()
        let loser = keepingNew ? replacement.old : replacement.new
        committer.forget(loser)
        readers.forget(loser)
        // The header first: once it is gone the space is gone, whatever else a crash leaves.
        let names = try Self.names(in: folder).filter { $0.hasPrefix(loser.hex + ".") && !$0.hasSuffix(".replaces") }
        for name in names.sorted(by: { ($0.hasSuffix(".header") ? 0 : 1, $0) < ($1.hasSuffix(".header") ? 0 : 1, $1) })
        {
            guard unlink("\(folder)/\(name)") == 0 || errno == ENOENT else {
                throw .writeFailed("cannot remove \(folder)/\(name): \(DurableFiles.describe(errno))")
            }
        }
        try DurableFiles.syncFolder(folder)
        try passCrashPoint()
        guard unlink(replacesPath(replacement.new)) == 0 || errno == ENOENT else {
            throw .writeFailed("cannot remove \(replacesPath(replacement.new)): \(DurableFiles.describe(errno))")
        }
        try DurableFiles.syncFolder(folder)
        try passCrashPoint()
    }

    // MARK: - Crash points (tests)

    /// Makes the store stop as a killed process would after `steps` more durable steps of a
    /// replacement, its settling or a catalog write: the step that reaches it completes, then
    /// it and every later write throw, and nothing more reaches the disk (tests reopen the
    /// folder afterwards).
    package func crash(afterSteps steps: Int) {
        stepsBeforeCrash = steps
    }

    /// Whether ``crash(afterSteps:)`` stopped the store.
    package var hasCrashed: Bool { crashed }

    /// Counts one durable step towards ``crash(afterSteps:)``.
    func passCrashPoint() throws(StoreError) {
        guard let left = stepsBeforeCrash else { return }
        guard left <= 1 else {
            stepsBeforeCrash = left - 1
            return
        }
        stepsBeforeCrash = nil
        crashed = true
        throw .writeFailed("stopped at a crash point")
    }

    /// Throws once the store stopped at a crash point.
    func checkRunning() throws(StoreError) {
        if crashed { throw .writeFailed("stopped at a crash point") }
    }
}
