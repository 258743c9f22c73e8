// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// One journal record (docs/vault-format.md): a clear prefix the daemon needs while locked, then an
/// XChaCha20-Poly1305 box bound to the prefix, the collection's space and the format version.
///
/// Prefix: `kind u8 | number u64 | tag count u16 | tags (16 bytes each)`. The tags are the blind
/// index digests of the item's `name=value` pairs and of its whole set; a private collection
/// writes none.
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
    }

    public let kind: Kind
    /// The item number; 0 for a collection record.
    public let number: UInt64
    /// Blind index tags, 16 bytes each.
    public let tags: [UInt8]
    /// Nonce, ciphertext and MAC.
    public let box: [UInt8]

    static let maxTags = 1024
    /// Item numbers are below 2^63, so the next number (one more) and its conversion to `Int`
    /// always fit; a record numbered higher is malformed, not a reason to trap.
    public static let numberLimit: UInt64 = 1 << 63

    /// Seals `plaintext` as a record of `space`.
    public init(kind: Kind, number: UInt64, tags: [UInt8], plaintext: SecureBytes, space: SpaceID, sealer: SecretSealer)
    {
        self.kind = kind
        self.number = number
        self.tags = tags
        box = sealer.seal(plaintext, associatedData: Self.associatedData(kind, number, tags, space))
    }

    /// Parses a record's bytes as a store returned them.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            guard let kind = Kind(rawValue: try reader.u8("record kind")) else {
                throw ByteReader.Malformed(offset: 0, what: "record kind")
            }
            let number = try reader.u64("item number")
            guard number < Self.numberLimit else { throw ByteReader.Malformed(offset: 1, what: "item number") }
            let count = Int(try reader.u16("tag count"))
            guard count <= Self.maxTags else { throw ByteReader.Malformed(offset: 9, what: "tag count") }
            let tags = Array(try reader.take(count * 16, "tags"))
            let box = Array(try reader.take(reader.remaining, "box"))
            guard box.count >= SecretSealer.overhead else { throw ByteReader.Malformed(offset: 11, what: "box") }
            return VaultRecord(kind: kind, number: number, tags: tags, box: box)
        }
    }

    private init(kind: Kind, number: UInt64, tags: [UInt8], box: [UInt8]) {
        self.kind = kind
        self.number = number
        self.tags = tags
        self.box = box
    }

    /// The record's bytes, for the store.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 11 + tags.count + box.count)
        writer.u8(kind.rawValue)
        writer.u64(number)
        writer.u16(UInt16(tags.count / 16))
        writer.raw(tags)
        writer.raw(box)
        return writer.bytes
    }

    /// The box opened, if `sealer` holds the key and nothing was altered.
    ///
    /// - Throws: ``CryptoError/wrongKey``.
    public func open(space: SpaceID, sealer: SecretSealer) throws(CryptoError) -> SecureBytes {
        try sealer.open(box, associatedData: Self.associatedData(kind, number, tags, space))
    }

    static func associatedData(_ kind: Kind, _ number: UInt64, _ tags: [UInt8], _ space: SpaceID) -> [UInt8] {
        RecordBinding(
            recordID: number, kind: kind.rawValue, collection: space.hex, formatVersion: VaultHeader.formatVersion
        ).associatedData + tags
    }
}
