// SPDX-License-Identifier: Apache-2.0

/// A space moved aside by ``RecordStore/setAside(_:at:)``: what a deleted collection left.
public struct SetAsideSpace: Sendable {
    /// Which space, set aside when.
    public struct Name: Sendable, Hashable {
        public let space: SpaceID
        /// Seconds since the epoch.
        public let time: UInt64

        public init(space: SpaceID, time: UInt64) {
            self.space = space
            self.time = time
        }
    }

    public let name: Name
    /// The header's bytes (checked like ``RecordStore/header(of:)``).
    public let header: [UInt8]
    /// The journal as it was (a torn tail left out, not cut).
    public let journal: JournalReplay

    public init(name: Name, header: [UInt8], journal: JournalReplay) {
        self.name = name
        self.header = header
        self.journal = journal
    }
}

/// A re-key's note (``RecordStore/replaceSpace(_:with:header:records:head:)``): `new` replaces `old`.
public struct SpaceReplacement: Sendable, Equatable {
    public let old: SpaceID
    public let new: SpaceID
    /// Whether `new`'s header is in place: the switch happened.
    public let isSwitched: Bool

    public init(old: SpaceID, new: SpaceID, isSwitched: Bool) {
        self.old = old
        self.new = new
        self.isSwitched = isSwitched
    }
}

/// What ``RecordStore/replay(_:)`` read.
public struct JournalReplay: Sendable {
    /// One record and where it starts in the journal (for error messages).
    public struct Record: Sendable {
        public let offset: UInt64
        public let bytes: [UInt8]

        public init(offset: UInt64, bytes: [UInt8]) {
            self.offset = offset
            self.bytes = bytes
        }
    }

    /// A stretch of a journal that does not read as frames (a flipped byte in the middle): its
    /// offset and why. Reading went on at the next good frame.
    public struct Damage: Sendable, Equatable {
        public let offset: UInt64
        public let reason: String

        public init(offset: UInt64, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    /// A torn tail that was cut off.
    public struct Cut: Sendable, Equatable {
        /// Where the cut tail started.
        public let offset: UInt64
        /// How many bytes were cut.
        public let length: UInt64
        /// Where the cut bytes were kept, if anywhere (nothing is thrown away unseen).
        public let keptAt: String?
    }

    /// The records in journal order.
    public var records: [Record]
    /// The torn tail cut off while reading, if any.
    public var cut: Cut?
    /// The journal's size after any cut, in bytes.
    public var size: UInt64
    /// The journal's format version (its preamble): 1 unchained, 2 chained.
    public var version: UInt8
    /// The head slots that are whole (checksums match), in no particular order; which one is
    /// newest is for the reader to find (only it can authenticate them).
    public var heads: [[UInt8]]
    /// Frames in the middle that did not read, in journal order; the records around them did.
    public var damaged: [Damage]

    public init(
        records: [Record], cut: Cut?, size: UInt64, version: UInt8 = VaultRecord.currentFormat, heads: [[UInt8]] = [],
        damaged: [Damage] = []
    ) {
        self.damaged = damaged
        self.records = records
        self.cut = cut
        self.size = size
        self.version = version
        self.heads = heads
    }
}

/// What ``RecordStore/rewrite(_:records:version:keepingOldAs:)`` did.
public struct JournalRewrite: Sendable, Equatable {
    /// The bytes the journal shrank by.
    public var shrunk: UInt64
    /// The suffix the old journal is kept under (`<space>.journal<suffix>`), nil when not kept.
    public var keptAs: String?

    public init(shrunk: UInt64, keptAs: String?) {
        self.shrunk = shrunk
        self.keptAs = keptAs
    }

    /// The suffix to try after `base` was taken `attempt - 1` times: `base`, `base-2`, `base-3`, …
    static func suffix(_ base: String, attempt: Int) -> String {
        attempt == 1 ? base : "\(base)-\(attempt)"
    }
}
