// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// One journal record (docs/vault-format.md): a clear prefix the daemon needs while locked, then an
/// XChaCha20-Poly1305 box bound to the prefix, the collection's space and the journal's format.
///
/// Prefix, format 2: `kind u8 | number u64 | sequence u64 | previous tag (16) | tag count u16 |
/// tags (16 bytes each)`; format 1 (journals written before the chain) has no sequence and no
/// previous tag. The sequence number and the previous record's MAC bind a record to its place in
/// the collection's journal (issue 24 item 4); the tags are the blind index digests of the item's
/// `name=value` pairs and of its whole set (a private collection writes none).
public struct VaultRecord: Sendable {
    /// What a record says.
    public enum Kind: UInt8, Sendable {
        /// An item's whole state (put): fields and secret.
        case item = 1
        /// An item was deleted; the box holds the time.
        case itemDeleted = 2
        /// The collection's own fields (label, times, item counter; id and aliases when hidden).
        case collection = 3
        /// One item's access settings (protection and per-executable rules); the newest one of a
        /// live item counts, and a deletion of the item ends it.
        case itemSettings = 4
        /// One item's rules by Flatpak app id; like kind 4, the newest one of a live item counts,
        /// and a deletion of the item ends it.
        case appRules = 5
    }

    /// Where a record sits in its collection's chain: its sequence number and its predecessor's
    /// MAC (16 zero bytes for the first record of a journal).
    public struct Link: Sendable, Equatable {
        public let sequence: UInt64
        public let previous: [UInt8]

        public init(sequence: UInt64, previous: [UInt8]) {
            self.sequence = sequence
            self.previous = previous
        }

        /// The link of a journal's first record, numbered `sequence`.
        public static func first(_ sequence: UInt64) -> Link {
            Link(sequence: sequence, previous: [UInt8](repeating: 0, count: 16))
        }
    }

    /// The journal format this code writes: records chained by sequence number and previous tag.
    public static let currentFormat: UInt8 = 2

    public let kind: Kind
    /// The item number; 0 for a collection record.
    public let number: UInt64
    /// The record's place in the chain; nil in a format 1 journal.
    public let link: Link?
    /// Blind index tags, 16 bytes each.
    public let tags: [UInt8]
    /// Nonce, ciphertext and MAC.
    public let box: [UInt8]

    static let maxTags = 1024
    /// Item numbers are below 2^63, so the next number (one more) and its conversion to `Int`
    /// always fit; a record numbered higher is malformed, not a reason to trap.
    public static let numberLimit: UInt64 = 1 << 63

    /// The journal format the record belongs to.
    public var format: UInt8 { link == nil ? 1 : 2 }

    /// The box's MAC: what the next record names as its predecessor.
    public var mac: [UInt8] { Array(box.suffix(16)) }

    /// Seals `plaintext` as a format 2 record of `space` at `link`.
    public init(
        kind: Kind, number: UInt64, tags: [UInt8], plaintext: SecureBytes, space: SpaceID, sealer: SecretSealer,
        link: Link
    ) {
        self.kind = kind
        self.number = number
        self.link = link
        self.tags = tags
        box = sealer.seal(plaintext, associatedData: Self.associatedData(kind, number, tags, space, link))
    }

    /// Parses a record's bytes as a store returned them from a journal of `format`.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(decoding bytes: [UInt8], format: UInt8 = currentFormat) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            guard let kind = Kind(rawValue: try reader.u8("record kind")) else {
                throw ByteReader.Malformed(offset: 0, what: "record kind")
            }
            let number = try reader.u64("item number")
            guard number < Self.numberLimit else { throw ByteReader.Malformed(offset: 1, what: "item number") }
            var link: Link?
            if format >= 2 {
                let sequence = try reader.u64("sequence number")
                guard sequence > 0, sequence < Self.numberLimit else {
                    throw ByteReader.Malformed(offset: 9, what: "sequence number")
                }
                link = Link(sequence: sequence, previous: Array(try reader.take(16, "previous tag")))
            }
            let countOffset = format >= 2 ? 33 : 9
            let count = Int(try reader.u16("tag count"))
            guard count <= Self.maxTags else { throw ByteReader.Malformed(offset: countOffset, what: "tag count") }
            let tags = Array(try reader.take(count * 16, "tags"))
            let box = Array(try reader.take(reader.remaining, "box"))
            guard box.count >= SecretSealer.overhead else {
                throw ByteReader.Malformed(offset: countOffset + 2, what: "box")
            }
            return VaultRecord(kind: kind, number: number, link: link, tags: tags, box: box)
        }
    }

    private init(kind: Kind, number: UInt64, link: Link?, tags: [UInt8], box: [UInt8]) {
        self.kind = kind
        self.number = number
        self.link = link
        self.tags = tags
        self.box = box
    }

    /// The record's bytes, for the store.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 35 + tags.count + box.count)
        writer.u8(kind.rawValue)
        writer.u64(number)
        if let link {
            writer.u64(link.sequence)
            writer.raw(link.previous)
        }
        writer.u16(UInt16(tags.count / 16))
        writer.raw(tags)
        writer.raw(box)
        return writer.bytes
    }

    /// The box opened, if `sealer` holds the key and nothing was altered.
    ///
    /// - Throws: ``CryptoError/wrongKey``.
    public func open(space: SpaceID, sealer: SecretSealer) throws(CryptoError) -> SecureBytes {
        try sealer.open(box, associatedData: Self.associatedData(kind, number, tags, space, link))
    }

    /// Format 1: the binding and the tags. Format 2 adds the sequence number and previous tag, so a
    /// record moved to another place in the chain fails to open.
    static func associatedData(_ kind: Kind, _ number: UInt64, _ tags: [UInt8], _ space: SpaceID, _ link: Link?)
        -> [UInt8]
    {
        let binding = RecordBinding(
            recordID: number, kind: kind.rawValue, collection: space.hex, formatVersion: link == nil ? 1 : 2)
        guard let link else { return binding.associatedData + tags }
        var writer = ByteWriter(capacity: 24 + tags.count)
        writer.raw(tags)
        writer.u64(link.sequence)
        writer.raw(link.previous)
        return binding.associatedData + writer.bytes
    }
}
