// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// The running digest of a journal's records that a version 2 head seals (docs/vault-format.md,
/// Chain): BLAKE2b-256 chained over each record's clear prefix and MAC, in journal order, from 32
/// zero bytes at the journal's first record.
///
/// What a locked scan learns from a record's clear prefix (its kind, item number, place and blind
/// index tags) is what a collection unlocked without opening its records acts on; its MAC stands
/// for the box, which authenticates the same prefix when the record is opened. An unlock compares
/// the digest of the records it holds with the head's, which only the record key can seal, so a
/// record dropped, reordered, replayed or given another prefix shows without opening any.
public struct ChainDigest: Sendable, Equatable {
    /// The digest's bytes (32).
    public let bytes: [UInt8]

    /// The digest before a journal's first record.
    public static let empty = ChainDigest(bytes: [UInt8](repeating: 0, count: length))

    /// The length in bytes.
    public static let length = 32

    /// A digest read from a head.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// This digest advanced over `record`: `BLAKE2b-256(digest | u64 sequence | u8 kind | u64
    /// number | u16 tag count | tags | MAC)` (sequence 0 for a format 1 record).
    public func advanced(by record: VaultRecord) -> ChainDigest {
        var writer = ByteWriter(capacity: Self.length + 35 + record.tags.count)
        writer.raw(bytes)
        writer.u64(record.link?.sequence ?? 0)
        writer.u8(record.kind.rawValue)
        writer.u64(record.number)
        writer.u16(UInt16(record.tags.count / 16))
        writer.raw(record.tags)
        writer.raw(record.box.suffix(16))
        return ChainDigest(bytes: ContentDigest.digest(writer.bytes))
    }

    /// Whether both hold the same bytes, compared in constant time.
    public func matches(_ other: ChainDigest) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(bytes, other.bytes) { difference |= a ^ b }
        return difference == 0
    }
}

extension VaultRecord {
    /// The time a record of `kind` sets, from its opened `plaintext`: an item's `Modified`, a
    /// deletion's time, the collection's own `Modified`; nil for settings (they change no time)
    /// and for a plaintext that does not parse. A collection's `Modified` is the newest of these.
    public static func time(of kind: Kind, plaintext: SecureBytes) -> UInt64? {
        switch kind {
        case .item:
            // `u64 created | u64 modified | …`
            return plaintext.withUnsafeBytes { raw -> UInt64? in
                guard raw.count >= 16 else { return nil }
                var value: UInt64 = 0
                for index in (8..<16).reversed() { value = value << 8 | UInt64(raw[index]) }
                return value
            }
        case .itemDeleted: return try? DeletionPayload.time(plaintext)
        case .collection: return (try? CollectionFields(parsing: plaintext))?.modified
        case .itemSettings, .appRules: return nil
        }
    }
}
