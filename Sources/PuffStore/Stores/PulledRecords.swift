// SPDX-License-Identifier: Apache-2.0

/// What a pull (``RecordStore/pull(_:)``) brought into a space's local journal from the other
/// writers of a shared store (docs/design/fleet.md §3): their records in journal order, where
/// the local journal now holds them, and the space's generation after them.
public struct PulledRecords: Sendable, Equatable {
    /// The records appended, encoded as the journal holds them, oldest first.
    public var records: [[UInt8]]
    /// Where each of `records` now is in the local journal (same order and count).
    public var locators: [RecordLocator]
    /// The newest head the entries carried (the sealed head of the last record), if any.
    public var head: [UInt8]?
    /// The space's generation once these records are in: the next append expects it.
    public var generation: UInt64

    /// A pull's result.
    public init(records: [[UInt8]], locators: [RecordLocator], head: [UInt8]?, generation: UInt64) {
        self.records = records
        self.locators = locators
        self.head = head
        self.generation = generation
    }
}

/// A space's header as a shared store keeps it, newer than the one the local copy holds
/// (``RecordStore/sharedHeader(of:)``): another machine changed the collection's unlock slots.
/// Nothing in it is trusted until the caller checked it with the collection's key.
public struct SharedHeader: Sendable, Equatable {
    /// The sealed header, as the local header file would hold it.
    public var bytes: [UInt8]
    /// Its version in the shared store (KV v2's version of the header path).
    public var version: UInt64

    public init(bytes: [UInt8], version: UInt64) {
        self.bytes = bytes
        self.version = version
    }
}
