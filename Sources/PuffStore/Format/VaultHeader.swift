// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A collection's header (docs/vault-format.md): what opening it needs before any record.
///
/// Version 3, the slotted header (docs/design/unlock-slots.md §2), holds one to sixteen
/// ``KeySlot``s, each wrapping the master key under its own credential, and ends in a MAC keyed by
/// the master key, so no field changes unseen once any slot has opened it. Versions 1 and 2 hold
/// one passcode and read as one legacy slot (``isLegacy``): there everything but the wrapped key
/// is the wrap's associated data (``wrapAssociatedData``), and there is no MAC.
public struct VaultHeader: Sendable, Equatable {
    /// The newest single-passcode version: what the compatibility initialiser writes and what a
    /// legacy header stays at through a locked-search change. New collections are slotted
    /// (``slottedVersion``), which is also the newest version the reader reads.
    public static let formatVersion: UInt16 = 2
    /// The slotted header's version (issue 26 calls it "v2"), the newest this code reads.
    public static let slottedVersion: UInt16 = 3
    /// The most slots a header holds.
    public static let maximumSlots = 16

    /// Whether, and from when, a locked collection's items are found by search (issue 24 item 6):
    /// this decides whether the blind index key sits in the header in the clear.
    public enum LockedSearch: UInt8, Sendable, Equatable, CaseIterable, CustomStringConvertible {
        /// The index key readable before unlock (in the clear, or sealed by the TPM) and the records
        /// tagged: search works from start, and whoever reads the key can confirm guessed
        /// attribute values and link equal ones.
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

    /// Where the blind index key of an `always` collection is kept (version 3's index storage byte).
    public enum IndexStorage: UInt8, Sendable, Equatable, CaseIterable {
        /// No key in the header: the index is keyed by the master key's `puffidx_` sub-key.
        case none = 0
        /// ``indexKey`` in the clear.
        case clear = 1
        /// ``indexSeal`` seals the key to this machine's TPM, ``indexWrap`` wraps it under the
        /// master key (any unlock recovers it if the TPM is gone).
        case tpm2 = 2
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

    /// 1 and 2 hold one passcode (``isLegacy``); 3 holds slots.
    public var version: UInt16
    public var flags: Flags
    /// The passcode policy's kind and minimum length, as docs/vault-format.md lists them; PuffService's
    /// `PasscodePolicy` reads and enforces them.
    public var policyKind: UInt8
    public var policyMinimumLength: UInt8
    public var space: SpaceID
    /// Whether locked search works (version 2 on; version 1 reads as `always`, or `never` when
    /// private). A private collection is always `never`.
    public var lockedSearch: LockedSearch
    /// The blind index key, in the clear by design (Part A item 3) when ``lockedSearch`` is
    /// `always` and the storage is ``IndexStorage/clear``; nil otherwise.
    public var indexKey: [UInt8]?
    /// The index key wrapped under the master key's `puffixw_` sub-key (storage ``IndexStorage/tpm2``).
    public var indexWrap: [UInt8]?
    /// The index key sealed by the TPM (storage ``IndexStorage/tpm2``).
    public var indexSeal: KeySlot.TPM2?
    /// The collection id; nil for a hidden collection (its id is sealed in its journal).
    public var collectionID: String?
    /// The id the next slot added gets; every slot's id is below it, so ids are never reused.
    public var nextSlotID: KeySlot.ID
    /// The ways in, in the order written. A legacy header has exactly one passcode slot, id 1.
    public var slots: [KeySlot]
    /// Version 3's trailing BLAKE2b-256 MAC over every byte before it (``sealMAC(with:)``); empty
    /// for a legacy header and for a version 3 header not sealed yet.
    public internal(set) var mac: [UInt8]

    /// Whether this is a version 1 or 2 header: one passcode slot, wrapped under
    /// ``wrapAssociatedData`` and the bare Argon2id key, and no MAC.
    public var isLegacy: Bool { version < Self.slottedVersion }

    /// Where the index key is kept, as the fields say: the clear key, the TPM pair, or neither.
    public var indexStorage: IndexStorage {
        if indexKey != nil { return .clear }
        return indexWrap != nil || indexSeal != nil ? .tpm2 : .none
    }

    /// A slotted header (version 3) with no slots yet; add them with ``addSlot(label:parameters:master:kek:)``.
    public init(
        flags: Flags, policyKind: UInt8 = 0, policyMinimumLength: UInt8 = 1, space: SpaceID, collectionID: String?,
        lockedSearch: LockedSearch, indexKey: [UInt8]? = nil, indexWrap: [UInt8]? = nil, indexSeal: KeySlot.TPM2? = nil
    ) {
        version = Self.slottedVersion
        self.flags = flags
        self.policyKind = policyKind
        self.policyMinimumLength = policyMinimumLength
        self.space = space
        self.collectionID = collectionID
        self.lockedSearch = lockedSearch
        self.indexKey = indexKey
        self.indexWrap = indexWrap
        self.indexSeal = indexSeal
        nextSlotID = 1
        slots = []
        mac = []
    }

    /// A legacy header (version 2) with one passcode slot wrapped as `wrappedKey`: how versions 1
    /// and 2 read, and how tests and the fuzz harness make one. Puff writes new headers as
    /// version 3 (``init(flags:policyKind:policyMinimumLength:space:collectionID:lockedSearch:indexKey:indexWrap:indexSeal:)``).
    public init(
        flags: Flags, kdf: KDFParameters, salt: [UInt8], policyKind: UInt8 = 0, policyMinimumLength: UInt8 = 1,
        space: SpaceID, indexKey: [UInt8]?, collectionID: String?, wrappedKey: [UInt8] = [],
        lockedSearch: LockedSearch? = nil
    ) {
        self.init(
            flags: flags, policyKind: policyKind, policyMinimumLength: policyMinimumLength, space: space,
            collectionID: collectionID, lockedSearch: lockedSearch ?? (indexKey == nil ? .never : .always),
            indexKey: indexKey)
        version = 2
        slots = [Self.legacySlot(kdf: kdf, salt: salt, wrappedKey: wrappedKey)]
        nextSlotID = Self.legacySlotID + 1
    }

    /// The id of a legacy header's one slot.
    public static let legacySlotID: KeySlot.ID = 1

    /// A legacy header's one slot: a passcode, labelled "passcode".
    static func legacySlot(kdf: KDFParameters, salt: [UInt8], wrappedKey: [UInt8]) -> KeySlot {
        KeySlot(
            id: legacySlotID, label: "passcode", parameters: .passcode(KeySlot.Typed(kdf: kdf, salt: salt)),
            wrappedMaster: wrappedKey)
    }

    /// A legacy header's one slot's Argon2id cost and salt (nil in a version 3 header that has no
    /// typed first slot, which never reads them).
    private var legacyTyped: KeySlot.Typed? { slots.first?.parameters.typed }

    /// Version 1 and 2's associated data: every field but the wrapped key, as encoded, the
    /// locked-search mode (version 2) too, so a thief who flips it makes the passcode fail.
    public var wrapAssociatedData: [UInt8] {
        var writer = ByteWriter(capacity: 128)
        writer.raw(Array("puff.header".utf8))
        writer.u16(version)
        writer.u16(flags.rawValue)
        writer.u64(legacyTyped?.kdf.operations ?? 0)
        writer.u64(UInt64(legacyTyped?.kdf.memoryBytes ?? 0))
        writer.blob(legacyTyped?.salt ?? [])
        writer.u8(policyKind)
        writer.u8(policyMinimumLength)
        writer.raw(space.bytes)
        if version >= 2 { writer.u8(lockedSearch.rawValue) }
        writer.blob(indexKey ?? [])
        writer.string(collectionID ?? "")
        return writer.bytes
    }
}
