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
    /// One index key and the item numbers under it, ascending.
    public struct Key: Sendable, Equatable {
        public var digest: Digest128
        public var numbers: [UInt64]

        public init(digest: Digest128, numbers: [UInt64]) {
            self.digest = digest
            self.numbers = numbers
        }
    }

    /// The file's magic: its kind and format version.
    public static let magic = Array("PUFFIDX\u{1}".utf8)
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
    /// Live items that have a settings record.
    public var settings: [UInt64]
    /// The blind index (written ascending by digest).
    public var keys: [Key]
    /// What an unlock in place needs (``Located``; written after the keys): empty in a snapshot
    /// written before it.
    public var located = Located()
    /// The seal over everything before it (``IndexSnapshot/Seal``); nil when written while locked.
    public var seal: Seal?

    public init(
        journalLength: UInt64, version: UInt8, lastRecordOffset: UInt64, lastTag: [UInt8], tipSequence: UInt64,
        firstSequence: UInt64, nextNumber: UInt64, deadRecords: UInt64, hasCollectionRecord: Bool, items: [UInt64],
        settings: [UInt64], keys: [Key]
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
        let postings = keys.reduce(0) { $0 + $1.numbers.count }
        var writer = ByteWriter(capacity: 96 + items.count * 8 + keys.count * 20 + postings * 8)
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
        writer.u64(UInt64(keys.count))
        for key in keys.sorted(by: { ($0.digest.high, $0.digest.low) < ($1.digest.high, $1.digest.low) }) {
            writer.u64(key.digest.high)
            writer.u64(key.digest.low)
            writer.u32(UInt32(key.numbers.count))
            for number in key.numbers { writer.u64(number) }
        }
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
        let payload = Array(file[head..<file.count - ContentDigest.length])
        guard ContentDigest.digest(payload).elementsEqual(file.suffix(ContentDigest.length)) else { return nil }
        guard var decoded = try? parsing(payload, Self.parse) else { return nil }
        if let box = decoded.seal?.box {
            // The seal authenticates the payload before it (its 4-byte length and the box).
            decoded.seal?.digest = ContentDigest.digest(Array(payload[..<(payload.count - 4 - box.count)]))
        }
        self = decoded
    }

    private static func parse(_ reader: inout ByteReader) throws -> IndexSnapshot {
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
        let keyCount = try reader.u64("keys")
        guard keyCount <= UInt64(reader.remaining / 20) else { throw ByteReader.Malformed(offset: 0, what: "keys") }
        var keys: [Key] = []
        keys.reserveCapacity(Int(keyCount))
        for _ in 0..<keyCount {
            let high = try reader.u64("key")
            let low = try reader.u64("key")
            let count = try reader.u32("postings")
            guard count > 0, Int(count) <= reader.remaining / 8 else {
                throw ByteReader.Malformed(offset: reader.offset, what: "postings")
            }
            var numbers: [UInt64] = []
            numbers.reserveCapacity(Int(count))
            for _ in 0..<count { numbers.append(try reader.u64("posting")) }
            keys.append(Key(digest: Digest128(high: high, low: low), numbers: numbers))
        }
        var snapshot = IndexSnapshot(
            journalLength: journalLength, version: version, lastRecordOffset: lastRecordOffset, lastTag: lastTag,
            tipSequence: tip, firstSequence: first, nextNumber: next, deadRecords: dead,
            hasCollectionRecord: hasCollection, items: items, settings: settings, keys: keys)
        snapshot.located = try Located(parsing: &reader, items: items.count, settings: settings.count)
        let box = Array(try reader.blob("seal", max: 256))
        snapshot.seal = box.isEmpty ? nil : Seal(box: box)
        try reader.expectEnd("snapshot")
        return snapshot
    }
}

extension RecordStore {
    /// Stores that keep no snapshot (memory): there is none, and nothing is written.
    public func indexSnapshot(of space: SpaceID) async -> [UInt8]? { nil }

    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {}

    public func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay? { nil }
}
