// SPDX-License-Identifier: Apache-2.0

/// Keeps each collection's audit log: sealed entries (``AuditRecord``), per collection space, in a
/// current file and one rotated predecessor, so a log never takes more than about twice ``limit``.
///
/// Like ``RecordStore`` it sees sealed bytes only. Unlike the journal, an append is not durable
/// when it returns: audit entries are written on every secret read, and an `fdatasync` each would
/// double a read's cost, so the caller batches them with ``sync()``. An append is O(1): it never
/// reads or rewrites earlier entries.
public protocol AuditStore: Sendable {
    /// The size in bytes past which a log rotates: the current file becomes the predecessor (the
    /// old predecessor is dropped) and a new current file starts.
    var limit: Int { get }

    /// Appends entries to the space's log in one write, rotating first when they would take the
    /// current file past ``limit`` (a batch is never split across files). Durable only after the
    /// next ``sync()``.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the log then ends where it ended before.
    func append(_ entries: [[UInt8]], to space: SpaceID) throws(StoreError)

    /// The space's entries, oldest first: the predecessor's, then the current file's. A torn last
    /// entry (a crash in the middle of an append) is left out; a file damaged before its end is
    /// left out whole and named in ``AuditReplay/damage``. Empty for a space with no log.
    ///
    /// - Throws: ``StoreError/readFailed(_:)``.
    func entries(of space: SpaceID) throws(StoreError) -> AuditReplay

    /// Makes every entry appended so far durable (`fdatasync`, and the folder after a rotation).
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``.
    func sync() throws(StoreError)

    /// Whether the space's current file was removed or replaced behind the store's back since it
    /// opened or read it (a process of the user deleting the log to hide what it did). The store
    /// then lets go of the old file, so the next append starts a new one; the caller records the
    /// removal there.
    func wasRemoved(_ space: SpaceID) -> Bool

    /// Removes the space's log and its predecessor (the collection was deleted).
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``.
    func remove(_ space: SpaceID) throws(StoreError)

    /// Syncs and closes the space's log, which stays where it is (its collection was set aside,
    /// and its files with it); a later append opens it again.
    func closeLog(_ space: SpaceID)

    /// Every space's log files as they are now, for a backup (``VaultSnapshot``): whole entries
    /// only, since appends wait while this runs.
    ///
    /// - Throws: ``StoreError/readFailed(_:)``.
    func snapshotFiles() throws(StoreError) -> [VaultSnapshot.File]
}

extension AuditStore {
    public func snapshotFiles() throws(StoreError) -> [VaultSnapshot.File] { [] }
}

/// What ``AuditStore/entries(of:)`` read.
public struct AuditReplay: Sendable, Equatable {
    /// The entries' bytes, oldest first.
    public var records: [[UInt8]]
    /// The damaged file and offset, when a file failed before its end.
    public var damage: String?

    public init(records: [[UInt8]], damage: String? = nil) {
        self.records = records
        self.damage = damage
    }
}

/// How audit entries sit in a file: an own 16-byte preamble, then ``JournalFraming``'s frames.
public enum AuditFraming {
    /// `PUFFAUD` and a format byte, then the version and seven zero bytes.
    public static let preamble: [UInt8] = Array("PUFFAUD\u{1}".utf8) + [1, 0, 0, 0, 0, 0, 0, 0]
}
