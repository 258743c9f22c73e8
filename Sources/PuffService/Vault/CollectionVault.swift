// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// One collection's vault (architecture.md Part A item 7): its lock state, keys, items and their
/// attribute index, over one space of the ``RecordStore``.
///
/// Each item is held as its journal record, the only sealed form (Part A item 8): an unlocked
/// collection opens an item's record when a call touches it (``items``) and keeps what it read
/// but the secret, which is opened again from the record for each read. Unlocking a collection
/// whose records carry blind index tags opens no item record (``unlockInPlace(master:)``); its
/// search answers from the tags' index whether locked or not. A class, so the service updates it
/// in place (Part A item 9). Owned and touched only by the ``SecretService`` actor.
final class CollectionVault {
    let id: CollectionID
    /// The space in the store; nil for the in-memory `session` collection. A re-key moves the
    /// collection to a new space (``rekeyed(space:header:opened:deadRecords:)``).
    private(set) var space: SpaceID? { didSet { publishKey() } }
    var header: VaultHeader?
    var fields: CollectionFields
    /// Its lock, writes and trust in the records it holds, changed only by ``send(_:)``.
    private(set) var state: CollectionState
    /// The head slots a scan read, which the first unlock authenticates.
    private(set) var scannedHeads: [JournalHead] = []
    /// Whether the scan started from an index snapshot, and its seal, which an unlock in place
    /// must authenticate before trusting the snapshot's locators and index.
    private(set) var fromSnapshot = false
    private(set) var snapshotSeal: IndexSnapshot.Seal?
    /// Only for an ephemeral vault: the master key, kept while locked since no passcode exists.
    var escrow: MasterKey?
    /// While unlocked, the master key's header sub-key (`subkey(.header)`), wiped by a lock: what
    /// checks a header another machine wrote to a fleet collection (docs/design/fleet.md §5).
    var headerKey: SecureBytes?
    private(set) var hasher: KeyedHash
    /// What the bus thread may read (``ReadView``): the items, their settings and, while open,
    /// the key. Written only through ``table``, ``settings`` and ``publishKey()``.
    let readable = SharedState(ReadableCollection())
    /// Runs inside ``lock(forGood:)`` after the key left ``readable`` and before it is wiped (tests).
    var afterUnpublishing: (() -> Void)?
    /// The items by number; read through ``items``, which opens them.
    var table: ItemTable {
        _read { yield readable.value.items }
        _modify { yield &readable.value.items }
    }
    /// The items held opened, which it closes again past a limit.
    var openedItems = OpenedItems()
    /// Where items' records are read from by their locators (the service's store; set when the
    /// service takes the collection in).
    var records: (any RecordStore)? { didSet { publishKey() } }
    var index: AttributeIndex {
        _read { yield readable.value.index }
        _modify { yield &readable.value.index }
    }
    /// Whether ``index`` answers for items not in memory: true from start for a collection whose
    /// locked search is `always`, and from the first unlock of this run for `after-unlock` (then
    /// kept across `Lock`); a `never` collection drops it on `Lock` (issue 24 item 6). An `always`
    /// collection whose index key the TPM did not unseal at start waits for its unlock, as
    /// `after-unlock` does (issue 26 item 6).
    private(set) var isIndexed: Bool {
        get { readable.value.isIndexed }
        set { readable.value.isIndexed = newValue }
    }
    /// The newest collection record, which an unlock opens for the collection's fields.
    var collectionRecord: [UInt8]?
    /// Items' access settings while the collection is open (items without any are absent).
    var settings: [UInt64: ItemSettings] {
        _read { yield readable.value.settings }
        _modify { yield &readable.value.settings }
    }
    /// Each live item's newest settings records, which an unlock opens for ``settings``.
    var settingsRecords: [UInt64: SettingsRecords] = [:]

    /// How many settings records item `number` has in the journal (0, 1 or 2): what its
    /// deletion leaves describing nothing, besides its own records.
    func settingsRecordCount(of number: UInt64) -> Int { settingsRecords[number]?.count ?? 0 }
    /// Item records appended by the current write and not yet taken by ``insert(_:)`` or
    /// ``update(_:)``, by item number: where the store put them, or the bytes if it did not say.
    var appendedItems: [UInt64: ItemRecord] = [:]
    /// Records in the journal that no longer describe the present (overwritten or deleted items).
    var deadRecords: Int
    /// The connection that created it since start, which may delete it without a prompt.
    var creator: ClientID?
    /// The journal's format: 1 (unchained, written before issue 24) is upgraded by the first write.
    var format: UInt8 { didSet { publishKey() } }
    /// The newest record of the journal's chain, which the next append names; nil for format 1
    /// and for `session`.
    var tip: JournalChain.Tip?
    /// Writes queued for the journal and not settled yet (``PendingWrites``).
    let pending = PendingWrites()
    /// How many pulls brought records another machine appended (a shared collection): an unlock
    /// that read the journal before one of them reads it again.
    var pulls = 0

    /// An open, unlocked collection.
    init(id: CollectionID, space: SpaceID?, header: VaultHeader?, opened: OpenedCollection) {
        self.id = id
        self.space = space
        self.header = header
        fields = opened.fields
        state = CollectionState(
            openedWith: CollectionKeys(records: opened.sealer, audit: opened.auditSealer), damage: opened.damage)
        hasher = opened.hasher
        deadRecords = opened.deadRecords
        collectionRecord = opened.collectionRecord
        settingsRecords = opened.settingsRecords
        format = opened.format
        tip = opened.tip
        table = opened.items
        settings = opened.settings
        index = opened.index
        isIndexed = true
        publishKey()
    }

    /// A locked collection known only from its journal (before its first unlock).
    init(id: CollectionID, space: SpaceID, header: VaultHeader, scanned: ScannedCollection) {
        self.id = id
        self.space = space
        self.header = header
        fields = CollectionFields(
            id: id.rawValue, label: id.rawValue, created: 0, modified: 0, nextItemNumber: scanned.nextNumber,
            aliases: [])
        state = CollectionState(scannedWith: scanned.damage)
        hasher = scanned.hasher
        scannedHeads = scanned.heads
        fromSnapshot = scanned.fromSnapshot
        snapshotSeal = scanned.snapshotSeal
        collectionRecord = scanned.collectionRecord
        settingsRecords = scanned.settingsRecords
        deadRecords = scanned.deadRecords
        format = scanned.format
        tip = scanned.tip
        table = scanned.items
        index = scanned.index
        isIndexed = header.lockedSearch == .always && !scanned.waitsForIndexKey
    }

    /// Whether the collection is locked (or an unlock is under way).
    var isLocked: Bool { !state.isOpen }
    /// Whether items' labels, attributes and secrets can be read (unlocked since start, or since
    /// the last lock): opened from their records as calls touch them.
    var isOpen: Bool { state.isOpen }
    /// The record key; nil while locked.
    var sealer: SecretSealer? { state.keys?.records }
    /// The audit log's key; nil while locked and for `session`.
    var auditSealer: SecretSealer? { state.keys?.audit }
    /// What reading the journal found wrong (file, offset, why); while not empty the collection is
    /// read-only until `puffctl repair` (an append would move the head past the evidence).
    var damage: [String] { state.damage }
    /// Whether the next unlock reads the journal: an item holds no record (a private collection
    /// forgets its items at `Lock`), or the records in memory are not all the journal's.
    var readsJournalToOpen: Bool { state.records == .incomplete }
    /// Whether the records in memory were checked against the journal's sealed head since they
    /// were read (an unlock did, or they were written since): a later unlock need not check again.
    var chainChecked: Bool { state.records == .checked }
    /// Since when it is unlocked and used, for auto-lock; nil while locked.
    var activity: UnlockActivity? { state.activity }
    /// The `Lock`s it took: an unlock begins under this count, and one taken since refuses it.
    var lockCount: Int { state.lockCount }
    /// How many unlocks are reading the collection (between ``CollectionEvent/unlockStarted(since:)``
    /// and their keys or failure).
    var unlocksUnderWay: Int {
        guard case .opening(let attempts) = state.lock else { return 0 }
        return attempts
    }

    var isPrivate: Bool { header?.flags.contains(.private) ?? false }
    var isHidden: Bool { header?.flags.contains(.hidden) ?? false }
    /// Whether, and from when, its items are found while it is locked (the header says).
    var lockedSearch: VaultHeader.LockedSearch { header?.lockedSearch ?? .always }
    /// Whether its index key is sealed by the TPM and was not unsealed: until its unlock, search
    /// finds none of its items while it is locked.
    var waitsForIndexKey: Bool { header?.indexStorage == .tpm2 && lockedSearch == .always && !isIndexed }

    /// Item numbers in creation order.
    var order: [UInt64] { table.numbers }

    /// How many items the collection holds.
    var count: Int { table.count }

    /// Starts a new index under `hasher`, empty.
    func replaceIndex(hasher: KeyedHash) {
        self.hasher = hasher
        index = AttributeIndex(hasher: hasher)
    }

    /// Notes that the index answers for every item.
    func markIndexed() { isIndexed = true }

    /// Applies `event` to ``state`` only: the caller installs what the event brought, then
    /// performs the actions (``perform(_:)``), so the key is published over the items it opens.
    func applied(_ event: CollectionEvent) throws(CollectionRefusal) -> [CollectionAction] {
        try state.apply(event)
    }

    /// Takes what reading the journal whole with the key found: fields, items (closed again, to
    /// open when touched), index, settings, the records a later unlock opens, and the chain.
    func install(_ opened: OpenedCollection) {
        // Numbers seen only in records that are gone from memory (deletions) still count.
        let next = max(fields.nextItemNumber, opened.fields.nextItemNumber)
        fields = opened.fields
        fields.nextItemNumber = next
        table = opened.items
        closeEveryItem()
        index = opened.index
        isIndexed = true
        hasher = opened.hasher
        // Opened from a scan's live records, it counts none dead: the scan counted them.
        deadRecords = max(deadRecords, opened.deadRecords)
        settings = opened.settings
        collectionRecord = opened.collectionRecord
        settingsRecords = opened.settingsRecords
        format = opened.format
        tip = opened.tip
    }

    /// Forgets the blind index; the next unlock builds it again.
    func dropIndex() {
        index = AttributeIndex()
        hasher = KeyedHash()
        isIndexed = false
    }

    /// Moves an unlocked collection to its re-keyed space: its keys, items (secrets sealed under
    /// the new record key) and chain are those of the new journal, `opened`.
    func rekeyed(space: SpaceID, header: VaultHeader, opened: OpenedCollection, deadRecords: Int) {
        let keys = CollectionKeys(records: opened.sealer, audit: opened.auditSealer)
        // Only an unlocked collection is read whole; the write turn the re-key holds keeps it so.
        guard let actions = try? applied(.rekeyed(keys, damage: opened.damage)) else { return }
        self.space = space
        self.header = header
        install(opened)
        self.deadRecords = deadRecords
        perform(actions)
    }

    /// Moves a locked collection to its re-keyed space, as start-up would read it from there; an
    /// `after-unlock` index built at an earlier unlock stays in memory, as it stays across `Lock`.
    func rekeyed(space: SpaceID, header: VaultHeader, scanned: ScannedCollection) {
        self.space = space
        self.header = header
        let keepsIndex = lockedSearch == .afterUnlock && isIndexed
        let keepsOld = isPrivate || keepsIndex
        // The records in memory stay the old space's when kept: the next unlock reads the new journal.
        guard (try? applied(.rescanned(damage: scanned.damage, keptOld: keepsOld))) != nil else { return }
        if !keepsOld {
            fields.nextItemNumber = max(fields.nextItemNumber, scanned.nextNumber)
            hasher = scanned.hasher
            table = scanned.items
            index = scanned.index
            isIndexed = lockedSearch == .always && !scanned.waitsForIndexKey
            collectionRecord = scanned.collectionRecord
            settingsRecords = scanned.settingsRecords
            settings = [:]
            scannedHeads = scanned.heads
            fromSnapshot = scanned.fromSnapshot
            snapshotSeal = scanned.snapshotSeal
        }
        deadRecords = scanned.deadRecords
        format = scanned.format
        tip = scanned.tip
    }
}
