// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A collection's sealed head (docs/vault-format.md, Chain): the sequence number and MAC of the
/// newest record the journal had when the last append was acknowledged. Kept in `<space>.head`,
/// so a journal cut at a frame boundary (acknowledged records lost) no longer reads as whole.
///
/// Bytes: `sequence u64 | tag (16) | box`, the box an XChaCha20-Poly1305 seal of nothing under the
/// record key, bound to `"puff.head" | u16 format | u32 length | space hex | sequence | tag`.
public struct JournalHead: Sendable, Equatable {
    public let sequence: UInt64
    public let tag: [UInt8]
    let box: [UInt8]

    /// Seals a head naming `record` (format 2) as the newest of `space`.
    public init(of record: VaultRecord, space: SpaceID, sealer: SecretSealer) {
        self.init(sequence: record.link?.sequence ?? 0, tag: record.mac, space: space, sealer: sealer)
    }

    /// Seals a head naming the record numbered `sequence` whose MAC is `tag`.
    public init(sequence: UInt64, tag: [UInt8], space: SpaceID, sealer: SecretSealer) {
        self.sequence = sequence
        self.tag = tag
        box = sealer.seal(SecureBytes(unwipedCopyOf: []), associatedData: Self.associatedData(sequence, tag, space))
    }

    /// Parses a head's bytes (its clear fields; ``authenticates(space:sealer:)`` checks them).
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            let sequence = try reader.u64("head sequence")
            let tag = Array(try reader.take(16, "head tag"))
            let box = Array(try reader.take(SecretSealer.overhead, "head box"))
            try reader.expectEnd("trailing bytes")
            return JournalHead(sequence: sequence, tag: tag, box: box)
        }
    }

    private init(sequence: UInt64, tag: [UInt8], box: [UInt8]) {
        self.sequence = sequence
        self.tag = tag
        self.box = box
    }

    /// The head's bytes, for the store.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 24 + box.count)
        writer.u64(sequence)
        writer.raw(tag)
        writer.raw(box)
        return writer.bytes
    }

    /// Whether the head was sealed with `sealer`'s key for `space`, unaltered.
    public func authenticates(space: SpaceID, sealer: SecretSealer) -> Bool {
        (try? sealer.open(box, associatedData: Self.associatedData(sequence, tag, space))) != nil
    }

    static func associatedData(_ sequence: UInt64, _ tag: [UInt8], _ space: SpaceID) -> [UInt8] {
        var writer = ByteWriter(capacity: 96)
        writer.raw(Array("puff.head".utf8))
        writer.u16(UInt16(VaultRecord.currentFormat))
        writer.string(space.hex)
        writer.u64(sequence)
        writer.raw(tag)
        return writer.bytes
    }
}
