// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// A header's bytes (docs/vault-format.md "Header"): versions 1 and 2 as they always were,
/// version 3 with its slots and trailing MAC.
extension VaultHeader {
    /// Bytes of version 3's trailing MAC.
    public static let macBytes = 32
    /// The most bytes of an index wrap and of an index seal.
    static let maximumIndexWrapBytes = 256

    /// The header's bytes in its own version (the store adds its checksum). A version 3 header not
    /// sealed yet ends in 32 zero bytes, which never verify.
    public func encoded() -> [UInt8] {
        if isLegacy {
            var writer = ByteWriter(capacity: 256)
            writer.raw(wrapAssociatedData)
            writer.blob(slots.first?.wrappedMaster ?? [])
            return writer.bytes
        }
        return authenticatedBytes + (mac.count == Self.macBytes ? mac : [UInt8](repeating: 0, count: Self.macBytes))
    }

    /// Version 3's bytes before the MAC: what the MAC covers.
    var authenticatedBytes: [UInt8] {
        var writer = ByteWriter(capacity: 512)
        writer.raw(Array("puff.header".utf8))
        writer.u16(version)
        writer.u16(flags.rawValue)
        writer.u8(policyKind)
        writer.u8(policyMinimumLength)
        writer.raw(space.bytes)
        writer.u8(lockedSearch.rawValue)
        writer.u8(indexStorage.rawValue)
        writer.blob(indexKey ?? [])
        writer.blob(indexWrap ?? [])
        var seal = ByteWriter()
        indexSeal?.encode(into: &seal)
        writer.blob(seal.bytes)
        writer.string(collectionID ?? "")
        writer.u16(nextSlotID)
        writer.u8(UInt8(truncatingIfNeeded: slots.count))
        for slot in slots { slot.encode(into: &writer) }
        return writer.bytes
    }

    /// Parses a header of version 1, 2 or 3 and checks the limits docs/vault-format.md lists.
    ///
    /// - Throws: ``VaultFormatError`` naming what is wrong; never traps.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            guard try reader.take(11, "magic").elementsEqual("puff.header".utf8) else {
                throw ByteReader.Malformed(offset: 0, what: "magic")
            }
            let version = try reader.u16("version")
            guard version >= 1, version <= Self.slottedVersion else {
                throw VaultFormatError.unsupportedVersion(version)
            }
            return version < Self.slottedVersion
                ? try Self.decodeLegacy(version: version, from: &reader) : try Self.decodeSlotted(from: &reader)
        }
        try checkLimits()
    }

    /// Versions 1 and 2: the fields of ``wrapAssociatedData``, then the wrapped key.
    private static func decodeLegacy(version: UInt16, from reader: inout ByteReader) throws -> VaultHeader {
        let flags = Flags(rawValue: try reader.u16("flags"))
        let operations = try reader.u64("KDF operations")
        let memory = try reader.u64("KDF memory")
        guard memory <= UInt64(Int.max), let kdf = try? KDFParameters(operations: operations, memoryBytes: Int(memory))
        else { throw ByteReader.Malformed(offset: 15, what: "KDF parameters") }
        let salt = Array(try reader.blob("salt", max: PasscodeKDF.saltBytes))
        guard salt.count == PasscodeKDF.saltBytes else { throw ByteReader.Malformed(offset: 31, what: "salt") }
        let policyKind = try reader.u8("policy")
        let policyLength = try reader.u8("policy length")
        let space = SpaceID(bytes: Array(try reader.take(16, "space id")))!
        var mode: LockedSearch?
        if version >= 2 { mode = try lockedSearch(from: &reader) }
        let key = try reader.blob("index key", max: 32)
        let id = try reader.string("collection id", max: 4096)
        let wrapped = Array(try reader.blob("wrapped key", max: KeySlot.maximumWrapBytes))
        try reader.expectEnd("trailing bytes")
        var header = VaultHeader(
            flags: flags, kdf: kdf, salt: salt, policyKind: policyKind, policyMinimumLength: policyLength,
            space: space, indexKey: key.isEmpty ? nil : Array(key), collectionID: id.isEmpty ? nil : id,
            wrappedKey: wrapped, lockedSearch: mode)
        header.version = version
        return header
    }

    /// Version 3: the collection's fields, the index storage, the slots, the MAC.
    private static func decodeSlotted(from reader: inout ByteReader) throws -> VaultHeader {
        let flags = Flags(rawValue: try reader.u16("flags"))
        let policyKind = try reader.u8("policy")
        let policyLength = try reader.u8("policy length")
        let space = SpaceID(bytes: Array(try reader.take(16, "space id")))!
        let mode = try lockedSearch(from: &reader)
        let storageOffset = reader.offset
        guard let storage = IndexStorage(rawValue: try reader.u8("index storage")) else {
            throw ByteReader.Malformed(offset: storageOffset, what: "index storage")
        }
        let key = Array(try reader.blob("index key", max: 32))
        let wrap = Array(try reader.blob("index wrap", max: maximumIndexWrapBytes))
        let sealOffset = reader.offset + 4
        let sealBytes = try reader.blob("index seal", max: KeySlot.maximumParameterBytes)
        var seal: KeySlot.TPM2?
        if !sealBytes.isEmpty {
            var inner = ByteReader(sealBytes)
            do throws(ByteReader.Malformed) {
                seal = try KeySlot.TPM2.decode(from: &inner)
                try inner.expectEnd("index seal")
            } catch {
                throw ByteReader.Malformed(offset: sealOffset + error.offset, what: error.what)
            }
        }
        let id = try reader.string("collection id", max: 4096)
        var header = VaultHeader(
            flags: flags, policyKind: policyKind, policyMinimumLength: policyLength, space: space,
            collectionID: id.isEmpty ? nil : id, lockedSearch: mode, indexKey: key.isEmpty ? nil : key,
            indexWrap: wrap.isEmpty ? nil : wrap, indexSeal: seal)
        // The byte must say what the fields hold, and storage 2 needs both the wrap and the seal.
        let complete =
            storage == .tpm2 ? (header.indexWrap != nil && seal != nil) : (header.indexWrap == nil && seal == nil)
        guard header.indexStorage == storage, complete else {
            throw ByteReader.Malformed(offset: storageOffset, what: "index storage")
        }
        header.nextSlotID = try reader.u16("next slot id")
        let countOffset = reader.offset
        let count = Int(try reader.u8("slot count"))
        guard (1...maximumSlots).contains(count) else {
            throw ByteReader.Malformed(offset: countOffset, what: "slot count")
        }
        for _ in 0..<count { header.slots.append(try KeySlot.decode(from: &reader)) }
        header.mac = Array(try reader.take(macBytes, "header MAC"))
        try reader.expectEnd("trailing bytes")
        return header
    }

    private static func lockedSearch(from reader: inout ByteReader) throws(ByteReader.Malformed) -> LockedSearch {
        guard let mode = LockedSearch(rawValue: try reader.u8("locked search")) else {
            throw ByteReader.Malformed(offset: reader.offset - 1, what: "locked search")
        }
        return mode
    }

    /// The rules no single field shows (docs/design/unlock-slots.md §2 "Limits").
    private func checkLimits() throws(VaultFormatError) {
        let indexKeyFits = indexKey == nil || indexKey?.count == 32
        let hiddenFits = !flags.contains(.hidden) || (flags.contains(.private) && collectionID == nil)
        // A key is readable before unlock exactly when locked search is `always`; a private
        // collection has none and is `never`.
        let searchFits =
            (lockedSearch == .always) == (indexStorage != .none)
            && (!flags.contains(.private) || (lockedSearch == .never && indexStorage == .none))
        guard indexKeyFits, searchFits, hiddenFits, flags.contains(.hidden) || collectionID != nil else {
            throw .malformed(offset: 0, what: "flags contradict the header's fields")
        }
        guard !isLegacy else { return }
        let ids = slots.map(\.id)
        guard Set(ids).count == ids.count, ids.allSatisfy({ $0 < nextSlotID }) else {
            throw .malformed(offset: 0, what: "slot ids")
        }
        // A hidden collection opens with its passcode only: any other slot would open it without.
        guard !flags.contains(.hidden) || (slots.count == 1 && slots[0].kind == .passcode) else {
            throw .malformed(offset: 0, what: "slots of a hidden collection")
        }
    }
}
