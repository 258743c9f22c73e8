// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// One collection's vault (architecture.md Part A item 7): its lock state, keys, items and their
/// attribute index, over one space of the ``RecordStore``.
///
/// An open collection holds each item's label and attributes in memory and its secret sealed under
/// the record key; a collection not opened since start holds each item's sealed record as read
/// from the journal, and finds items through the blind index alone. A class, so the service
/// updates it in place (Part A item 9). Owned and touched only by the ``SecretService`` actor.
final class CollectionVault {
    let id: CollectionID
    /// The space in the store; nil for the in-memory `session` collection. A re-key moves the
    /// collection to a new space (``rekeyed(space:header:opened:deadRecords:)``).
    private(set) var space: SpaceID?
    var header: VaultHeader?
    var fields: CollectionFields
    var isLocked: Bool
    /// Whether items' labels, attributes and secrets are in memory (opened since start, or since
    /// the last lock).
    private(set) var isOpen: Bool
    /// Whether the next unlock reads the journal (locked since it was open: only item numbers
    /// and the blind index were kept) rather than the sealed records of a scan.
    private(set) var readsJournalToOpen = false
    /// The record key; nil while locked.
    private(set) var sealer: SecretSealer?
    /// The audit log's key; nil while locked and for `session`.
    private(set) var auditSealer: SecretSealer?
    /// Only for an ephemeral vault: the master key, kept while locked since no passcode exists.
    var escrow: MasterKey?
    private(set) var hasher: KeyedHash
    private(set) var items: ItemTable
    private var index: AttributeIndex
    /// Whether ``index`` answers for items not in memory: true from start for a collection whose
    /// locked search is `always`, and from the first unlock of this run for `after-unlock` (then
    /// kept across `Lock`); a `never` collection drops it on `Lock` (issue 24 item 6). An `always`
    /// collection whose index key the TPM did not unseal at start waits for its unlock, as
    /// `after-unlock` does (issue 26 item 6).
    private(set) var isIndexed: Bool
    /// The newest collection record of a collection not opened yet.
    var pendingCollectionRecord: [UInt8]?
    /// The newest deletion record of a collection not opened yet, whose time counts for `Modified`.
    var pendingDeletionRecord: [UInt8]?
    /// Items' access settings while the collection is open (items without any are absent).
    var settings: [UInt64: ItemSettings] = [:]
    /// Each live item's newest settings record, sealed, while the collection was never opened.
    var pendingSettingsRecords: [UInt64: [UInt8]] = [:]
    /// Records in the journal that no longer describe the present (overwritten or deleted items).
    var deadRecords: Int
    /// The connection that created it since start, which may delete it without a prompt.
    var creator: ClientID?
    /// Since when it is unlocked and used, for auto-lock; nil while locked.
    var activity: UnlockActivity?
    /// The journal's format: 1 (unchained, written before issue 24) is upgraded by the first write.
    var format: UInt8
    /// The newest record of the journal's chain, which the next append names; nil for format 1
    /// and for `session`.
    var tip: JournalChain.Tip?
    /// What reading the journal found wrong (file, offset, why); while not empty the collection is
    /// read-only until `puffctl repair` (an append would move the head past the evidence).
    var damage: [String]
    /// Writes queued for the journal and not settled yet (``PendingWrites``).
    let pending = PendingWrites()

    /// An open, unlocked collection.
    init(id: CollectionID, space: SpaceID?, header: VaultHeader?, opened: OpenedCollection) {
        self.id = id
        self.space = space
        self.header = header
        fields = opened.fields
        isLocked = false
        isOpen = true
        sealer = opened.sealer
        auditSealer = opened.auditSealer
        hasher = opened.hasher
        items = opened.items
        index = opened.index
        isIndexed = true
        deadRecords = opened.deadRecords
        settings = opened.settings
        format = opened.format
        tip = opened.tip
        damage = opened.damage
    }

    /// A locked collection known only from its journal (before its first unlock).
    init(id: CollectionID, space: SpaceID, header: VaultHeader, scanned: ScannedCollection) {
        self.id = id
        self.space = space
        self.header = header
        fields = CollectionFields(
            id: id.rawValue, label: id.rawValue, created: 0, modified: 0, nextItemNumber: scanned.nextNumber,
            aliases: [])
        isLocked = true
        isOpen = false
        sealer = nil
        hasher = scanned.hasher
        items = scanned.items
        index = scanned.index
        isIndexed = header.lockedSearch == .always && !scanned.waitsForIndexKey
        pendingCollectionRecord = scanned.collectionRecord
        pendingDeletionRecord = scanned.deletionRecord
        pendingSettingsRecords = scanned.settingsRecords
        deadRecords = scanned.deadRecords
        format = scanned.format
        tip = scanned.tip
        damage = scanned.damage
    }

    var isPrivate: Bool { header?.flags.contains(.private) ?? false }
    var isHidden: Bool { header?.flags.contains(.hidden) ?? false }
    /// Whether, and from when, its items are found while it is locked (the header says).
    var lockedSearch: VaultHeader.LockedSearch { header?.lockedSearch ?? .always }
    /// Whether its index key is sealed by the TPM and was not unsealed: until its unlock, search
    /// finds none of its items while it is locked.
    var waitsForIndexKey: Bool { header?.indexStorage == .tpm2 && lockedSearch == .always && !isIndexed }

    /// Item numbers in creation order.
    var order: [UInt64] { items.numbers }

    /// How many items the collection holds.
    var count: Int { items.count }

    /// Installs what unlocking opened (keys, and for a collection not open yet its items).
    func unlock(with opened: OpenedCollection, replacingItems: Bool) {
        sealer = opened.sealer
        auditSealer = opened.auditSealer
        if replacingItems {
            // Numbers seen only in records that are gone from memory (deletions) still count.
            let next = max(fields.nextItemNumber, opened.fields.nextItemNumber)
            fields = opened.fields
            fields.nextItemNumber = next
            items = opened.items
            index = opened.index
            isIndexed = true
            hasher = opened.hasher
            // Opened from a scan's live records, it counts none dead: the scan counted them.
            deadRecords = max(deadRecords, opened.deadRecords)
            settings = opened.settings
            pendingCollectionRecord = nil
            pendingDeletionRecord = nil
            pendingSettingsRecords = [:]
            format = opened.format
            tip = opened.tip
            damage = opened.damage
            isOpen = true
            readsJournalToOpen = false
        }
        isLocked = false
    }

    /// Moves an unlocked collection to its re-keyed space: its keys, items (secrets sealed under
    /// the new record key) and chain are those of the new journal, `opened`.
    func rekeyed(space: SpaceID, header: VaultHeader, opened: OpenedCollection, deadRecords: Int) {
        self.space = space
        self.header = header
        unlock(with: opened, replacingItems: true)
        self.deadRecords = deadRecords
    }

    /// Moves a locked collection to its re-keyed space, as start-up would read it from there; an
    /// `after-unlock` index built at an earlier unlock stays in memory, as it stays across `Lock`.
    func rekeyed(space: SpaceID, header: VaultHeader, scanned: ScannedCollection) {
        self.space = space
        self.header = header
        let keepsIndex = lockedSearch == .afterUnlock && isIndexed
        if !isPrivate, !keepsIndex {
            fields.nextItemNumber = max(fields.nextItemNumber, scanned.nextNumber)
            hasher = scanned.hasher
            items = scanned.items
            index = scanned.index
            isIndexed = lockedSearch == .always && !scanned.waitsForIndexKey
            pendingCollectionRecord = scanned.collectionRecord
            pendingDeletionRecord = scanned.deletionRecord
            pendingSettingsRecords = scanned.settingsRecords
            settings = [:]
            isOpen = false
            readsJournalToOpen = false
        }
        deadRecords = scanned.deadRecords
        format = scanned.format
        tip = scanned.tip
        damage = scanned.damage
    }

    /// Wipes the keys and stops the auto-lock timer. A collection also forgets what it shows of
    /// its items, so that clients see the same after `Lock` as after a restart (Part A item 11):
    /// a private one everything, another one all but item numbers and the blind index (which a
    /// `never` collection drops too).
    func lock() {
        isLocked = true
        sealer = nil
        auditSealer = nil
        activity?.timer?.cancel()
        activity = nil
        guard isPrivate else {
            forgetMetadata()
            if lockedSearch == .never { dropIndex() }
            return
        }
        items = ItemTable()
        dropIndex()
        settings = [:]
        isOpen = false
    }

    /// Forgets the blind index; the next unlock builds it again.
    private func dropIndex() {
        index = AttributeIndex()
        hasher = KeyedHash()
        isIndexed = false
    }

    /// Keeps only what a collection read from its journal without a key shows: item numbers (with
    /// blank labels, no attributes, times 0), the blind index, and its id as its label.
    private func forgetMetadata() {
        guard isOpen else { return }
        var blank = ItemTable()
        for number in items.numbers {
            blank[number] = StoredItem(
                collection: id.rawValue, number: number, label: "", attributes: [:], type: "", contentType: "",
                sealedSecret: [], created: 0, modified: 0)
        }
        items = blank
        settings = [:]
        fields = CollectionFields(
            id: id.rawValue, label: id.rawValue, created: 0, modified: 0, nextItemNumber: fields.nextItemNumber,
            aliases: [])
        isOpen = false
        readsJournalToOpen = true
    }

    /// Builds the index of an open collection again under `hasher` (its locked search changed).
    func reindex(under hasher: KeyedHash) {
        guard isOpen else { return }
        self.hasher = hasher
        index = AttributeIndex(hasher: hasher)
        for number in items.numbers {
            if let item = items[number] { index.insert(number, attributes: item.attributeList) }
        }
        isIndexed = true
    }

    /// Adds a new item, whose number is higher than every other's.
    func insert(_ item: StoredItem) {
        insert(item, digests: index.digests(of: item.attributeList))
    }

    /// Adds a new item whose attributes' digests (``digests(of:)``) are `digests`.
    func insert(_ item: StoredItem, digests: AttributeDigests) {
        items[item.number] = item
        index.insert(item.number, digests: digests)
    }

    /// Overwrites an existing item, re-indexing it when its attributes changed.
    func update(_ item: StoredItem) {
        update(item, digests: nil)
    }

    /// ``update(_:)`` with the new attributes' digests when the caller has them.
    func update(_ item: StoredItem, digests: AttributeDigests?) {
        guard let old = items[item.number] else { return }
        items[item.number] = item
        if !old.attributeList.hasSameBytes(as: item.attributeList) {
            index.remove(item.number, attributes: old.attributeList)
            index.insert(item.number, digests: digests ?? index.digests(of: item.attributeList))
        }
    }

    /// The keyed digests of `attributes` under this collection's index key, computed once per
    /// write: the record's tags, the index keys and the exact-set key.
    func digests(of attributes: AttributeList) -> AttributeDigests {
        index.digests(of: attributes)
    }

    /// The index key of the single pair `name=value`.
    func pairDigest(_ name: String, _ value: String) -> Digest128 {
        index.pairDigest(name, value)
    }

    /// Items filed under the pair or set key `key`, in creation order (candidates only).
    func numbers(under key: Digest128) -> [UInt64] {
        index.numbers(under: key)
    }

    /// Removes an item.
    func remove(_ number: UInt64) {
        guard let old = items[number] else { return }
        items[number] = nil
        settings[number] = nil
        pendingSettingsRecords[number] = nil
        index.remove(number, attributes: old.attributeList)
    }

    /// Numbers of the items whose attributes include every pair of `query`, in creation order.
    /// A locked collection without its index finds nothing.
    func search(_ query: Attributes) -> [UInt64] {
        guard isOpen else {
            guard isIndexed else { return [] }
            // An index snapshot is not authenticated: a number it names that holds no item is no hit.
            return index.intersection(for: query)?.filter { items[$0] != nil } ?? order
        }
        guard let candidates = index.candidates(for: query) else { return order }
        return candidates.filter { items[$0]?.attributeList.contains(query) ?? false }
    }

    /// The oldest item whose attribute set is exactly `wanted`, byte for byte (open only), found
    /// under its set digest (`digests`, of `wanted`).
    func exactMatch(_ wanted: AttributeList, digests: AttributeDigests) -> UInt64? {
        index.candidates(exactlyMatching: digests).first {
            items[$0]?.attributeList.hasSameBytes(as: wanted) ?? false
        }
    }

    /// The blind index tags an item record carries: only a collection whose locked search is
    /// `always` writes any (a private one is `never`).
    func tags(of attributes: AttributeList) -> [UInt8] {
        writesTags ? index.tags(of: attributes) : []
    }

    /// ``tags(of:)`` from digests already computed.
    func tags(of digests: AttributeDigests) -> [UInt8] {
        writesTags ? digests.tags : []
    }

    /// Whether its records carry blind index tags.
    var writesTags: Bool { !isPrivate && lockedSearch == .always }
}
