// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// What a scan of a journal's clear prefixes found, kept beside it in `<space>.index` so the next
/// start reads one file instead of the journal (docs/vault-format.md, "Index snapshot"; design
/// core-reshaped §4).
///
/// It is not authenticated, as the clear prefixes it repeats are not: a planted or altered
/// snapshot can hide or misplace items of a locked collection's view, never make one (an item's
/// record is opened with its key, from the journal, when it is unlocked). Every check here is about
/// telling a usable snapshot from one to ignore; ignored, the journal is scanned as before.
public struct IndexSnapshot: Sendable, Equatable {
    /// The file's magic: its kind and format version.
    public static let magic = Array("PUFFIDX\u{2}".utf8)
    /// The largest snapshot read; a bigger file is ignored (it would describe millions of items).
    public static let maxBytes = 256 << 20

    /// The journal's length it covers, in bytes.
    public var journalLength: UInt64
    /// The journal's format (1 unchained, 2 chained).
    public var version: UInt8
    /// Where the last covered record's frame starts, and that record's tag: the journal must hold
    /// that very record there for the snapshot to count.
    public var lastRecordOffset: UInt64
    public var lastTag: [UInt8]
    /// The chain's newest record's sequence (0 for format 1) and the first one's.
    public var tipSequence: UInt64
    public var firstSequence: UInt64
    /// The next free item number, and how many covered records describe nothing live.
    public var nextNumber: UInt64
    public var deadRecords: UInt64
    /// Whether the covered records include a collection record.
    public var hasCollectionRecord: Bool
    /// Live item numbers, in the scan's order.
    public var items: [UInt64]
    /// Live items that have a settings record, once per record (kind 4 or 5): an item with both
    /// is listed twice.
    public var settings: [UInt64]
    /// The blind index, flat (``FlatIndex``): loaded with one copy per table.
    public var keys: FlatIndex
    /// What an unlock in place needs (``Located``; written after the keys): empty in a snapshot
    /// written before it.
    public var located = Located()
    /// The seal over everything before it (``IndexSnapshot/Seal``); nil when written while locked.
    public var seal: Seal?

    public init(
        journalLength: UInt64, version: UInt8, lastRecordOffset: UInt64, lastTag: [UInt8], tipSequence: UInt64,
        firstSequence: UInt64, nextNumber: UInt64, deadRecords: UInt64, hasCollectionRecord: Bool, items: [UInt64],
        settings: [UInt64], keys: FlatIndex
    ) {
        self.journalLength = journalLength
        self.version = version
        self.lastRecordOffset = lastRecordOffset
        self.lastTag = lastTag
        self.tipSequence = tipSequence
        self.firstSequence = firstSequence
        self.nextNumber = nextNumber
        self.deadRecords = deadRecords
        self.hasCollectionRecord = hasCollectionRecord
        self.items = items
        self.settings = settings
        self.keys = keys
    }

    /// `magic | u64 payload length | payload | 32-byte BLAKE2b of the payload`.
    public func encoded() -> [UInt8] {
        let words = items.count + settings.count + keys.singles.count + keys.shared.count + keys.postings.count
        var writer = ByteWriter(capacity: 128 + words * 8)
        writer.u64(journalLength)
        writer.u8(version)
        writer.u64(lastRecordOffset)
        writer.blob(lastTag)
        writer.u64(tipSequence)
        writer.u64(firstSequence)
        writer.u64(nextNumber)
        writer.u64(deadRecords)
        writer.u8(hasCollectionRecord ? 1 : 0)
        writer.u64(UInt64(items.count))
        for number in items { writer.u64(number) }
        writer.u64(UInt64(settings.count))
        for number in settings { writer.u64(number) }
        keys.write(to: &writer)
        located.encode(into: &writer)
        writer.blob(seal?.box ?? [])
        var file = ByteWriter(capacity: writer.bytes.count + 48)
        file.raw(Self.magic)
        file.u64(UInt64(writer.bytes.count))
        file.raw(writer.bytes)
        file.raw(ContentDigest.digest(writer.bytes))
        return file.bytes
    }

    /// The snapshot in `file`, or nil when it is not a whole, well-formed one (any damage: the
    /// caller scans the journal instead).
    public init?(decoding file: [UInt8]) {
        let head = Self.magic.count + 8
        guard file.count >= head + ContentDigest.length, file.starts(with: Self.magic) else { return nil }
        let length = file.withUnsafeBytes {
            UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: head - 8, as: UInt64.self))
        }
        guard length == UInt64(file.count - head - ContentDigest.length) else { return nil }
        let payload = file[head..<file.count - ContentDigest.length]
        let sum = payload.withUnsafeBytes { ContentDigest.digest($0) }
        guard sum.elementsEqual(file.suffix(ContentDigest.length)) else { return nil }
        guard var decoded = try? parsing(file, { reader in try Self.parse(&reader, skipping: head) }) else {
            return nil
        }
        if let box = decoded.seal?.box {
            // The seal authenticates the payload before it (its 4-byte length and the box).
            decoded.seal?.digest = payload.dropLast(4 + box.count).withUnsafeBytes { ContentDigest.digest($0) }
        }
        self = decoded
    }

    private static func parse(_ reader: inout ByteReader, skipping head: Int) throws -> IndexSnapshot {
        _ = try reader.take(head, "head")
        let journalLength = try reader.u64("journal length")
        let version = try reader.u8("version")
        let lastRecordOffset = try reader.u64("last record")
        let lastTag = Array(try reader.blob("last tag", max: 64))
        let tip = try reader.u64("tip")
        let first = try reader.u64("first")
        let next = try reader.u64("next number")
        let dead = try reader.u64("dead records")
        let hasCollection = try reader.u8("collection record") == 1
        // Each count is checked against the bytes left, so a planted count allocates nothing.
        let itemCount = try reader.u64("items")
        guard itemCount <= UInt64(reader.remaining / 8) else { throw ByteReader.Malformed(offset: 0, what: "items") }
        var items: [UInt64] = []
        items.reserveCapacity(Int(itemCount))
        for _ in 0..<itemCount { items.append(try reader.u64("item")) }
        let settingsCount = try reader.u64("settings")
        guard settingsCount <= UInt64(reader.remaining / 8) else {
            throw ByteReader.Malformed(offset: 0, what: "settings")
        }
        var settings: [UInt64] = []
        for _ in 0..<settingsCount { settings.append(try reader.u64("settings")) }
        let keys = try FlatIndex(reading: &reader)
        var snapshot = IndexSnapshot(
            journalLength: journalLength, version: version, lastRecordOffset: lastRecordOffset, lastTag: lastTag,
            tipSequence: tip, firstSequence: first, nextNumber: next, deadRecords: dead,
            hasCollectionRecord: hasCollection, items: items, settings: settings, keys: keys)
        snapshot.located = try Located(parsing: &reader, items: items.count, settings: settings.count)
        let box = Array(try reader.blob("seal", max: 256))
        snapshot.seal = box.isEmpty ? nil : Seal(box: box)
        _ = try reader.take(ContentDigest.length, "checksum")
        try reader.expectEnd("snapshot")
        return snapshot
    }
}

extension RecordStore {
    /// Stores that keep no snapshot (memory): there is none, and nothing is written.
    public func indexSnapshot(of space: SpaceID) async -> [UInt8]? { nil }

    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {}

    public func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay? { nil }

    public func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool { true }
}
