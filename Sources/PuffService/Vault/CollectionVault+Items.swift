// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension CollectionVault {
    /// A collection's items by number, opened on touch: reading an item of an unlocked collection
    /// whose record was not opened yet opens it (label, attributes, type, times; never the secret)
    /// and keeps what it read. A locked collection's items read as their blank locked view.
    struct Items {
        unowned let vault: CollectionVault

        /// The item numbered `number`, opened if the collection is unlocked.
        subscript(number: UInt64) -> StoredItem? { vault.item(number) }
    }

    /// The items, opened on touch.
    var items: Items { Items(vault: self) }

    /// Whether an item numbered `number` exists (opens nothing).
    func contains(_ number: UInt64) -> Bool { table[number] != nil }

    /// The item numbered `number`; an unlocked collection opens its record first if it was not.
    ///
    /// A record that does not open (altered in memory's copy of the journal, or on disk before it
    /// was read) is named in ``damage`` (the collection then takes no writes) and the item keeps
    /// its locked view: its secret is refused when read (``SecretService/plaintext(of:_:in:)``).
    func item(_ number: UInt64) -> StoredItem? {
        guard let item = table[number] else { return nil }
        guard !item.isOpened, !isLocked, let sealer, let space, !item.record.isNone else { return item }
        do {
            let opened = try Self.opened(item, space: space, sealer: sealer, format: format, from: records)
            table[number] = opened
            noteOpened(number)
            return opened
        } catch {
            noteUnreadable(number, error)
        }
        return item
    }

    /// Opens every item's record that is not open yet (a rebuild of the index needs attributes).
    func openEveryItem() {
        for number in table.numbers { _ = item(number) }
    }

    /// Builds the index of an open collection again under `hasher` (its locked search changed).
    func reindex(under hasher: KeyedHash) {
        guard isOpen else { return }
        openEveryItem()
        replaceIndex(hasher: hasher)
        for number in table.numbers {
            if let item = table[number] { index.insert(number, attributes: item.attributeList) }
        }
        markIndexed()
    }

    /// Notes records just appended to the journal, at `locators` when the store said where: an
    /// item's newest record becomes its only sealed form once ``insert(_:)`` or ``update(_:)``
    /// takes it; the collection record and settings records are kept for the next unlock to open.
    func noteAppended(_ records: [VaultRecord], at locators: [RecordLocator]? = nil) {
        for (position, record) in records.enumerated() {
            switch record.kind {
            case .item:
                appendedItems[record.number] =
                    if let locators, position < locators.count { .at(locators[position]) } else {
                        .bytes(record.encoded())
                    }
            case .itemDeleted:
                appendedItems[record.number] = nil
                settingsRecords[record.number] = nil
            case .collection: collectionRecord = record.encoded()
            case .itemSettings, .appRules:
                settingsRecords[record.number, default: SettingsRecords()].note(record.encoded())
            }
        }
    }

    /// `item` as the collection keeps it: with the record just appended for it, if any, in place
    /// of a secret sealed on its own.
    private func kept(_ item: StoredItem) -> StoredItem {
        var item = item
        item.isOpened = true
        if let record = appendedItems.removeValue(forKey: item.number) {
            item.record = record
            item.sealedSecret = []
        } else if !item.sealedSecret.isEmpty {
            // A change not stored (the `session` collection): its record, if any, is outdated.
            item.record = .none
        }
        return item
    }

    /// Adds a new item, whose number is higher than every other's.
    func insert(_ item: StoredItem) {
        insert(item, digests: index.digests(of: item.attributeList))
    }

    /// Adds a new item whose attributes' digests (``digests(of:)``) are `digests`.
    func insert(_ item: StoredItem, digests: AttributeDigests) {
        let item = kept(item)
        table[item.number] = item
        index.insert(item.number, digests: digests)
        noteOpened(item.number)
    }

    /// Notes item `number` opened, closing the one opened longest ago past ``OpenedItems/limit``.
    func noteOpened(_ number: UInt64) {
        guard let oldest = openedItems.note(number), let item = table[oldest], let closed = Self.closed(item) else {
            return
        }
        table[oldest] = closed
    }

    /// Closes every opened item that can be read again (after an unlock opened them all).
    func closeEveryItem() {
        for number in table.numbers {
            if let item = table[number], let closed = Self.closed(item) { table[number] = closed }
        }
        openedItems.removeAll()
    }

    /// Overwrites an existing item, re-indexing it when its attributes changed.
    func update(_ item: StoredItem) {
        update(item, digests: nil)
    }

    /// ``update(_:)`` with the new attributes' digests when the caller has them.
    func update(_ item: StoredItem, digests: AttributeDigests?) {
        guard let old = table[item.number] else { return }
        let item = kept(item)
        table[item.number] = item
        noteOpened(item.number)
        if !old.isOpened || !old.attributeList.hasSameBytes(as: item.attributeList) {
            unindex(old)
            index.insert(item.number, digests: digests ?? index.digests(of: item.attributeList))
        }
    }

    /// The keyed digests of `attributes` under this collection's index key, computed once per
    /// write: the record's tags, the index keys and the exact-set key.
    func digests(of attributes: AttributeList) -> AttributeDigests {
        index.digests(of: attributes)
    }

    /// Items filed under the pair or set key `key`, in creation order (candidates only).
    func numbers(under key: Digest128) -> [UInt64] {
        index.numbers(under: key)
    }

    /// Removes an item.
    func remove(_ number: UInt64) {
        guard let old = table[number] else { return }
        table[number] = nil
        settings[number] = nil
        settingsRecords[number] = nil
        appendedItems[number] = nil
        unindex(old)
    }

    /// Takes `item` out of the index: by its attributes once opened, else by its record's tags.
    func unindex(_ item: StoredItem) {
        var item = item
        if !item.isOpened, !writesTags, let sealer, let space,
            let opened = try? Self.opened(item, space: space, sealer: sealer, format: format, from: records)
        {
            // Its index keys come from its attributes (its record carries no tags): read them again.
            item = opened
        }
        if item.isOpened {
            index.remove(item.number, attributes: item.attributeList)
        } else {
            let bytes: [UInt8]? =
                switch item.record {
                case .none: nil
                case .bytes(let kept): kept
                case .at(let locator): space.flatMap { try? records?.read(locator, in: $0) }
                }
            let tags = bytes.flatMap { try? VaultRecord(decoding: $0, format: format).tags } ?? []
            tags.withUnsafeBytes { index.remove(item.number, tags: $0) }
        }
    }

    /// Numbers of the items whose attributes include every pair of `query`, in creation order,
    /// from the index alone whether locked or open: its digests are keyed 128-bit BLAKE2b, so a
    /// false hit is a 2⁻¹²⁸ event. A locked collection without its index finds nothing.
    func search(_ query: Attributes) -> [UInt64] {
        readable.value.search(query)
    }

    /// The oldest item whose attribute set is exactly `attributes`, byte for byte (open only):
    /// the index's candidates are opened to compare.
    func exactMatch(_ wanted: AttributeList, digests: AttributeDigests) -> UInt64? {
        index.candidates(exactlyMatching: digests).first { item($0)?.attributeList.hasSameBytes(as: wanted) ?? false }
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
