// SPDX-License-Identifier: Apache-2.0

/// Where one record sits in its space's journal (design core-reshaped §5): the offset of its
/// frame, its length, and the low 32 bits of its chain sequence, 16 bytes in all. A collection
/// keeps one per item instead of the record's bytes and reads the record
/// (``RecordStore/read(_:in:)``) when a call touches the item.
///
/// The sequence part lets the reader tell the record it meant from another authentic record of
/// the same item put at that offset (a journal rewritten under a running puffd): the sequence is
/// in the record's associated data, so the check holds once the record opens.
public struct RecordLocator: Sendable, Hashable {
    /// Where the record's frame starts in the journal.
    public var offset: UInt64
    /// The record's length (the frame's payload).
    public var length: UInt32
    /// The record's chain sequence, low 32 bits (0 for a format 1 journal, which has none).
    public var sequence: UInt32

    public init(offset: UInt64, length: UInt32, sequence: UInt32) {
        self.offset = offset
        self.length = length
        self.sequence = sequence
    }

    /// The locator of `record`, which starts at `offset`, from its chain `sequence`.
    public init(offset: UInt64, record: [UInt8], sequence: UInt64?) {
        self.init(offset: offset, length: UInt32(record.count), sequence: UInt32(truncatingIfNeeded: sequence ?? 0))
    }

    /// Where the frame of the record after this one starts.
    public var end: UInt64 { offset + UInt64(JournalFraming.frameOverhead) + UInt64(length) }

    /// Whether `record` (decoded from the bytes read here) is the one this locator names.
    public func names(_ record: VaultRecord) -> Bool {
        sequence == UInt32(truncatingIfNeeded: record.link?.sequence ?? 0)
    }
}
