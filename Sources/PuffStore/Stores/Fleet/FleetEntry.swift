// SPDX-License-Identifier: Apache-2.0

/// One entry of a fleet collection's remote log (docs/design/fleet.md §2): the records one append
/// call wrote, in journal order, and the head written with them. Sealed bytes only.
///
/// Bytes, little-endian: `u32 count | count × (u32 length | record) | u32 head length | head`; a
/// head length of 0 is no head.
struct FleetEntry: Equatable {
    /// The records, encoded as the journal holds them.
    var records: [[UInt8]]
    /// The head written after them, if any.
    var head: [UInt8]?

    /// The largest head: one slot of a head file holds it (``FileRecordStore/headSlotSize``).
    static let maxHead = 512 - JournalFraming.frameOverhead

    /// The entry's bytes.
    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: records.reduce(8) { $0 + 4 + $1.count } + (head?.count ?? 0))
        writer.u32(UInt32(records.count))
        for record in records { writer.blob(record) }
        writer.blob(head ?? [])
        return writer.bytes
    }

    /// Reads ``encoded()``, checking every bound: an entry comes from outside the machine (an
    /// operator of the shared store can write anything), so a bad one is refused whole and none
    /// of it reaches the journal. Every record must parse as a record of `format` (its clear
    /// prefix; its box is the reader's to open).
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    init(decoding bytes: [UInt8], format: UInt8) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            let count = Int(try reader.u32("record count"))
            // Each record takes at least its length's 4 bytes: a count no entry can hold is refused
            // before anything is reserved for it.
            guard count <= reader.remaining / 4 else { throw ByteReader.Malformed(offset: 0, what: "record count") }
            var records: [[UInt8]] = []
            records.reserveCapacity(count)
            for _ in 0..<count {
                let start = reader.offset
                let record = Array(try reader.blob("record", max: JournalFraming.maxPayload))
                guard !record.isEmpty else { throw ByteReader.Malformed(offset: start, what: "record") }
                do {
                    _ = try VaultRecord(decoding: record, format: format)
                } catch {
                    throw ByteReader.Malformed(offset: start + 4, what: "record (\(error))")
                }
                records.append(record)
            }
            let head = Array(try reader.blob("head", max: Self.maxHead))
            try reader.expectEnd("trailing bytes")
            return FleetEntry(records: records, head: head.isEmpty ? nil : head)
        }
    }

    init(records: [[UInt8]], head: [UInt8]?) {
        self.records = records
        self.head = head
    }

    /// The records' chain sequences (nil for a record of a format 1 journal or one that does not
    /// parse), for their locators.
    func sequences(format: UInt8) -> [UInt64?] {
        records.map { (try? VaultRecord(decoding: $0, format: format))?.link?.sequence }
    }
}
