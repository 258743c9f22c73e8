// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A collection's header (docs/vault-format.md): what opening it needs before any record.
///
/// Everything but the wrapped master key is the wrap's associated data, so changing a flag, a KDF
/// parameter or the id makes the passcode fail rather than silently weakening the collection.
public struct VaultHeader: Sendable, Equatable {
    /// The format this code writes: 2 carries ``LockedSearch``. A reader refuses a higher version
    /// and reads version 1 (no such byte) as ``LockedSearch/always`` (docs/vault-format.md).
    public static let formatVersion: UInt16 = 2

    /// Whether, and from when, a locked collection's items are found by search (issue 24 item 6):
    /// this decides whether the blind index key sits in the header in the clear.
    public enum LockedSearch: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
        /// The index key in the clear and the records tagged: search works from start, and a thief
        /// with the files can confirm guessed attribute values and link equal ones.
        case always = 0
        /// No key in any file and no tags: the index is built at the first unlock of a run and kept
        /// in memory across `Lock` until puffd stops.
        case afterUnlock = 1
        /// No key, no tags, and the index dropped on `Lock`: only an unlocked collection is searched.
        case never = 2

        /// The name settings and `puffctl` use: `always`, `after-unlock`, `never`.
        public var description: String {
            switch self {
            case .always: "always"
            case .afterUnlock: "after-unlock"
            case .never: "never"
            }
        }
    }

    /// What the collection reveals while locked (architecture.md Part A item 3).
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// No blind index; metadata dropped on lock.
        public static let `private` = Flags(rawValue: 1)
        /// Not listed anywhere until its passcode opens it; implies private.
        public static let hidden = Flags(rawValue: 2)
    }

    public var version: UInt16
    public var flags: Flags
    public var kdf: KDFParameters
    public var salt: [UInt8]
    /// The passcode policy's kind and minimum length, as docs/vault-format.md lists them; PuffService's
    /// `PasscodePolicy` reads and enforces them.
    public var policyKind: UInt8
    public var policyMinimumLength: UInt8
    public var space: SpaceID
    /// Whether locked search works (version 2; version 1 reads as `always`, or `never` when
    /// private). A private collection is always `never`.
    public var lockedSearch: LockedSearch
    /// The blind index key, in the clear by design (Part A item 3) when ``lockedSearch`` is
    /// `always`; nil otherwise (private collections, `after-unlock`, `never`).
    public var indexKey: [UInt8]?
    /// The collection id; nil for a hidden collection (its id is sealed in its journal).
    public var collectionID: String?
    /// The master key sealed under the passcode key, bound to ``wrapAssociatedData``.
    public var wrappedKey: [UInt8]

    public init(
        flags: Flags, kdf: KDFParameters, salt: [UInt8], policyKind: UInt8 = 0, policyMinimumLength: UInt8 = 1,
        space: SpaceID, indexKey: [UInt8]?, collectionID: String?, wrappedKey: [UInt8] = [],
        lockedSearch: LockedSearch? = nil
    ) {
        version = Self.formatVersion
        self.lockedSearch = lockedSearch ?? (indexKey == nil ? .never : .always)
        self.flags = flags
        self.kdf = kdf
        self.salt = salt
        self.policyKind = policyKind
        self.policyMinimumLength = policyMinimumLength
        self.space = space
        self.indexKey = indexKey
        self.collectionID = collectionID
        self.wrappedKey = wrappedKey
    }

    /// Every field but the wrapped key, as encoded: the locked-search mode (version 2) too, so a
    /// thief who flips it makes the passcode fail.
    public var wrapAssociatedData: [UInt8] {
        var writer = ByteWriter(capacity: 128)
        writer.raw(Array("puff.header".utf8))
        writer.u16(version)
        writer.u16(flags.rawValue)
        writer.u64(kdf.operations)
        writer.u64(UInt64(kdf.memoryBytes))
        writer.blob(salt)
        writer.u8(policyKind)
        writer.u8(policyMinimumLength)
        writer.raw(space.bytes)
        if version >= 2 { writer.u8(lockedSearch.rawValue) }
        writer.blob(indexKey ?? [])
        writer.string(collectionID ?? "")
        return writer.bytes
    }

    /// The header's bytes (the store adds its checksum).
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 256)
        writer.raw(wrapAssociatedData)
        writer.blob(wrappedKey)
        return writer.bytes
    }

    /// Parses a header.
    ///
    /// - Throws: ``VaultFormatError`` naming what is wrong; never traps.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            guard try reader.take(11, "magic").elementsEqual("puff.header".utf8) else {
                throw ByteReader.Malformed(offset: 0, what: "magic")
            }
            let version = try reader.u16("version")
            guard version >= 1, version <= Self.formatVersion else {
                throw VaultFormatError.unsupportedVersion(version)
            }
            let flags = Flags(rawValue: try reader.u16("flags"))
            let operations = try reader.u64("KDF operations")
            let memory = try reader.u64("KDF memory")
            guard memory <= UInt64(Int.max),
                let kdf = try? KDFParameters(operations: operations, memoryBytes: Int(memory))
            else { throw ByteReader.Malformed(offset: 15, what: "KDF parameters") }
            let salt = Array(try reader.blob("salt", max: PasscodeKDF.saltBytes))
            guard salt.count == PasscodeKDF.saltBytes else { throw ByteReader.Malformed(offset: 31, what: "salt") }
            let policyKind = try reader.u8("policy")
            let policyLength = try reader.u8("policy length")
            let space = SpaceID(bytes: Array(try reader.take(16, "space id")))!
            var mode: LockedSearch?
            if version >= 2 {
                guard let read = LockedSearch(rawValue: try reader.u8("locked search")) else {
                    throw ByteReader.Malformed(offset: reader.offset - 1, what: "locked search")
                }
                mode = read
            }
            let key = try reader.blob("index key", max: 32)
            let id = try reader.string("collection id", max: 4096)
            let wrapped = Array(try reader.blob("wrapped key", max: 256))
            try reader.expectEnd("trailing bytes")
            var header = VaultHeader(
                flags: flags, kdf: kdf, salt: salt, policyKind: policyKind, policyMinimumLength: policyLength,
                space: space, indexKey: key.isEmpty ? nil : Array(key), collectionID: id.isEmpty ? nil : id,
                wrappedKey: wrapped, lockedSearch: mode)
            header.version = version
            return header
        }
        let indexKeyFits = indexKey == nil || indexKey?.count == 32
        let hiddenFits = !flags.contains(.hidden) || (flags.contains(.private) && collectionID == nil)
        // The key is in the clear exactly when locked search is `always`; a private collection has none.
        let searchFits =
            (lockedSearch == .always) == (indexKey != nil) && (!flags.contains(.private) || lockedSearch == .never)
        guard indexKeyFits, !flags.contains(.private) || indexKey == nil, searchFits, hiddenFits,
            flags.contains(.hidden) || collectionID != nil
        else { throw .malformed(offset: 0, what: "flags contradict the header's fields") }
    }
}

/// Why vault bytes could not be read as a header, record or catalog.
public enum VaultFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes at `offset` (from the start of the header or record) make no sense as `what`.
    case malformed(offset: UInt64, what: String)
    /// Written by a newer Puff; this version cannot read it.
    case unsupportedVersion(UInt16)

    public var description: String {
        switch self {
        case .malformed(let offset, let what): "malformed \(what) at byte \(offset)"
        case .unsupportedVersion(let version): "format version \(version) is newer than this puffd reads"
        }
    }
}
