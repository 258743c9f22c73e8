// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A collection's sealed head (docs/vault-format.md, Chain): the sequence number and MAC of the
/// newest record the journal had when the last append was acknowledged. Kept in `<space>.head`,
/// so a journal cut at a frame boundary (acknowledged records lost) no longer reads as whole.
///
/// Version 2 (written since issue 27) also seals the ``ChainDigest`` of the journal's records up
/// to that one and the collection's `Modified` then, so an unlock checks the chain and shows the
/// collection's times without opening a record.
///
/// Bytes, version 1: `sequence u64 | tag (16) | box`; version 2: `sequence u64 | tag (16) | digest
/// (32) | modified u64 | box`. The box is an XChaCha20-Poly1305 seal of nothing under the record
/// key, bound to `"puff.head" | u16 format | u32 length | space hex | sequence | tag` (version 1,
/// format 2) or `"puff.head" | u16 3 | u32 length | space hex | sequence | tag | digest | modified`
/// (version 2).
public struct JournalHead: Sendable, Equatable {
    public let sequence: UInt64
    public let tag: [UInt8]
    /// The digest of the journal's records up to the one named; nil in a version 1 head.
    public let digest: ChainDigest?
    /// The collection's `Modified` as of the record named; 0 in a version 1 head.
    public let modified: UInt64
    let box: [UInt8]

    /// The head version this code writes.
    public static let currentVersion = 2

    /// 1 or 2.
    public var version: Int { digest == nil ? 1 : 2 }

    /// Seals a version 2 head naming the record numbered `sequence` whose MAC is `tag`.
    public init(
        sequence: UInt64, tag: [UInt8], digest: ChainDigest, modified: UInt64, space: SpaceID, sealer: SecretSealer
    ) {
        self.sequence = sequence
        self.tag = tag
        self.digest = digest
        self.modified = modified
        box = sealer.seal(
            SecureBytes(unwipedCopyOf: []),
            associatedData: Self.associatedData(sequence, tag, digest, modified, space))
    }

    /// Seals a version 1 head naming `record`, as puffd wrote before issue 27: what tests and the
    /// fuzz target write beside journals they make (an unlock then reads the journal whole).
    public init(of record: VaultRecord, space: SpaceID, sealer: SecretSealer) {
        self.init(version1Sequence: record.link?.sequence ?? 0, tag: record.mac, space: space, sealer: sealer)
    }

    /// Seals a version 1 head, as puffd wrote before issue 27.
    package init(version1Sequence sequence: UInt64, tag: [UInt8], space: SpaceID, sealer: SecretSealer) {
        self.sequence = sequence
        self.tag = tag
        digest = nil
        modified = 0
        box = sealer.seal(
            SecureBytes(unwipedCopyOf: []), associatedData: Self.associatedData(sequence, tag, nil, 0, space))
    }

    /// Parses a head's bytes (its clear fields; ``authenticates(space:sealer:)`` checks them).
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            let sequence = try reader.u64("head sequence")
            let tag = Array(try reader.take(16, "head tag"))
            var digest: ChainDigest?
            var modified: UInt64 = 0
            if reader.remaining == ChainDigest.length + 8 + SecretSealer.overhead {
                digest = ChainDigest(bytes: Array(try reader.take(ChainDigest.length, "head digest")))
                modified = try reader.u64("head modified")
            }
            let box = Array(try reader.take(SecretSealer.overhead, "head box"))
            try reader.expectEnd("trailing bytes")
            return JournalHead(sequence: sequence, tag: tag, digest: digest, modified: modified, box: box)
        }
    }

    private init(sequence: UInt64, tag: [UInt8], digest: ChainDigest?, modified: UInt64, box: [UInt8]) {
        self.sequence = sequence
        self.tag = tag
        self.digest = digest
        self.modified = modified
        self.box = box
    }

    /// The head's bytes, for the store.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + box.count)
        writer.u64(sequence)
        writer.raw(tag)
        if let digest {
            writer.raw(digest.bytes)
            writer.u64(modified)
        }
        writer.raw(box)
        return writer.bytes
    }

    /// Whether the head was sealed with `sealer`'s key for `space`, unaltered.
    public func authenticates(space: SpaceID, sealer: SecretSealer) -> Bool {
        (try? sealer.open(box, associatedData: Self.associatedData(sequence, tag, digest, modified, space))) != nil
    }

    static func associatedData(
        _ sequence: UInt64, _ tag: [UInt8], _ digest: ChainDigest?, _ modified: UInt64, _ space: SpaceID
    ) -> [UInt8] {
        var writer = ByteWriter(capacity: 136)
        writer.raw(Array("puff.head".utf8))
        // Version 1 named the journal format (2); version 2 names itself 3, so neither's box
        // opens as the other's.
        writer.u16(digest == nil ? UInt16(VaultRecord.currentFormat) : 3)
        writer.string(space.hex)
        writer.u64(sequence)
        writer.raw(tag)
        if let digest {
            writer.raw(digest.bytes)
            writer.u64(modified)
        }
        return writer.bytes
    }
}
