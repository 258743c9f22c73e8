// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

extension IndexSnapshot {
    /// What a snapshot says of where records are, for a first unlock after a clean restart that
    /// opens no item record (design core-reshaped §4.4): each live item's locator, the chain
    /// digest at the last record covered, the newest collection record and the items' settings
    /// records (sealed, as in the journal). Trusted only under an authenticating ``Seal``.
    public struct Located: Sendable, Equatable {
        /// One per item of ``IndexSnapshot/items``, in the same order; empty when unknown.
        public var locators: [RecordLocator] = []
        /// The chain digest after the last record covered; empty when unknown (format 1).
        public var chainDigest: [UInt8] = []
        /// The newest collection record's bytes; empty when unknown.
        public var collectionRecord: [UInt8] = []
        /// One per item of ``IndexSnapshot/settings``, in the same order; empty when unknown.
        public var settingsRecords: [[UInt8]] = []

        public init(
            locators: [RecordLocator] = [], chainDigest: [UInt8] = [], collectionRecord: [UInt8] = [],
            settingsRecords: [[UInt8]] = []
        ) {
            self.locators = locators
            self.chainDigest = chainDigest
            self.collectionRecord = collectionRecord
            self.settingsRecords = settingsRecords
        }

        func encode(into writer: inout ByteWriter) {
            writer.u64(UInt64(locators.count))
            for locator in locators {
                writer.u64(locator.offset)
                writer.u32(locator.length)
                writer.u32(locator.sequence)
            }
            writer.blob(chainDigest)
            writer.blob(collectionRecord)
            writer.u64(UInt64(settingsRecords.count))
            for record in settingsRecords { writer.blob(record) }
        }

        /// Parses it; a count that is neither 0 nor the list's it goes with is malformed.
        init(parsing reader: inout ByteReader, items: Int, settings: Int) throws(ByteReader.Malformed) {
            let count = try reader.u64("locators")
            guard count == 0 || count == UInt64(items), count <= UInt64(reader.remaining / 16) else {
                throw ByteReader.Malformed(offset: reader.offset, what: "locators")
            }
            locators.reserveCapacity(Int(count))
            for _ in 0..<count {
                locators.append(
                    RecordLocator(
                        offset: try reader.u64("offset"), length: try reader.u32("length"),
                        sequence: try reader.u32("sequence")))
            }
            chainDigest = Array(try reader.blob("chain digest", max: ChainDigest.length))
            collectionRecord = Array(try reader.blob("collection record", max: JournalFraming.maxPayload))
            let records = try reader.u64("settings records")
            guard records == 0 || records == UInt64(settings), records <= UInt64(reader.remaining / 4) else {
                throw ByteReader.Malformed(offset: reader.offset, what: "settings records")
            }
            for _ in 0..<records {
                settingsRecords.append(Array(try reader.blob("settings record", max: JournalFraming.maxPayload)))
            }
        }
    }

    /// A seal of nothing under the collection's record key whose associated data names the space
    /// and the BLAKE2b of the snapshot's payload before the seal: puffd seals a snapshot only
    /// when it made it from records it had checked against the journal's sealed head, so a
    /// snapshot that authenticates says where the collection's records are as puffd knew it.
    /// Someone who can write the vault folder can put back an older sealed snapshot (the
    /// journal's records after it are then read, as after any snapshot) but not forge one.
    public struct Seal: Sendable, Equatable {
        public var box: [UInt8]
        /// What the box authenticates (set when decoding).
        public var digest: [UInt8] = []

        /// Seals `payload` (the snapshot's payload before the seal) for `space`.
        static func sealing(_ payload: [UInt8], space: SpaceID, sealer: SecretSealer) -> Seal {
            let digest = ContentDigest.digest(payload)
            return Seal(
                box: sealer.seal(SecureBytes(unwipedCopyOf: []), associatedData: associatedData(digest, space)),
                digest: digest)
        }

        /// Whether it was sealed with `sealer`'s key for `space`, over the payload as read.
        public func authenticates(space: SpaceID, sealer: SecretSealer) -> Bool {
            (try? sealer.open(box, associatedData: Self.associatedData(digest, space))) != nil
        }

        static func associatedData(_ digest: [UInt8], _ space: SpaceID) -> [UInt8] {
            Array("puff.index".utf8) + space.bytes + digest
        }
    }

    /// ``encoded()`` with a seal under `sealer` for `space` over everything before it.
    public func encoded(sealedFor space: SpaceID, with sealer: SecretSealer) -> [UInt8] {
        var unsealed = self
        unsealed.seal = nil
        let file = unsealed.encoded()
        // The payload before the (empty) seal's 4-byte length, as the decoder sees it.
        let payload = Array(file[Self.magic.count + 8..<file.count - ContentDigest.length - 4])
        var sealed = self
        sealed.seal = Seal.sealing(payload, space: space, sealer: sealer)
        return sealed.encoded()
    }
}
