// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// Taking in records another machine appended to a shared collection (docs/design/fleet.md §0),
/// which a pull put at the end of the local journal: each is applied as an unlock reading the
/// journal would apply it (``VaultOpening/open(_:header:master:id:file:fields:)``) on an open
/// collection, and as a scan would (``VaultOpening/scan(_:header:file:indexKey:resuming:)``) on a
/// locked one, in place, with the events clients would have heard had the write been made here.
extension CollectionVault {
    /// Applies `records` (encoded, oldest first), now in the journal at `locators`, after the
    /// chain's tip. A record that does not parse or authenticate, or that the chain leaves out or
    /// finds out of step, is named in ``damage`` (the collection then takes no writes, as for
    /// its own journal); every record that counts moves the tip.
    ///
    /// - Parameter file: The journal's name, for damage reports.
    /// - Returns: The events to emit, in order.
    func takePulled(_ records: [[UInt8]], at locators: [RecordLocator], file: String) -> [ServiceEvent] {
        guard let space else { return [] }
        var chain = JournalChain(file: file, head: nil)
        if let tip { chain.resume(at: tip, first: 1) }
        var events: [ServiceEvent] = []
        for (position, bytes) in records.enumerated() {
            let offset = position < locators.count ? locators[position].offset : 0
            let record: VaultRecord
            do {
                record = try VaultRecord(decoding: bytes, format: format)
            } catch {
                chain.skip(at: offset, "\(error)")
                continue
            }
            let kept: ItemRecord =
                position < locators.count
                ? .at(RecordLocator(offset: offset, record: bytes, sequence: record.link?.sequence)) : .bytes(bytes)
            if let sealer {
                let plaintext: SecureBytes
                do {
                    plaintext = try record.open(space: space, sealer: sealer)
                } catch {
                    chain.skip(at: offset, "record does not authenticate (\(error))")
                    continue
                }
                guard chain.admit(record, offset: offset) else { continue }
                do {
                    events += try takeOpened(record, plaintext, kept: kept)
                } catch {
                    chain.note(at: offset, "\(error)")
                }
            } else {
                guard chain.admit(record, offset: offset) else { continue }
                events += takeSealed(record, bytes: bytes, kept: kept)
            }
            fields.nextItemNumber = max(fields.nextItemNumber, record.number + 1)
        }
        if var newTip = chain.tip {
            // An open collection's head seals its `Modified`, as after a write of its own.
            if isOpen { newTip.modified = max(newTip.modified, fields.modified) }
            tip = newTip
        }
        if !chain.damage.isEmpty { noteDamage(chain.damage) }
        if !records.isEmpty { noteAppendedElsewhere() }
        return events
    }

    /// Applies one authenticated record of an open collection, as reading its journal would.
    private func takeOpened(_ record: VaultRecord, _ plaintext: SecureBytes, kept: ItemRecord) throws -> [ServiceEvent]
    {
        let number = record.number
        let id = ItemID(collection: self.id, number: number)
        switch record.kind {
        case .collection:
            let old = fields
            var new = try CollectionFields(parsing: plaintext)
            new.nextItemNumber = max(new.nextItemNumber, old.nextItemNumber)
            new.modified = max(new.modified, old.modified)
            noteAppended([record])
            deadRecords += collectionRecord == nil ? 0 : 1
            fields = new
            guard new.label != old.label || new.modified != old.modified else { return [] }
            return [.collectionChanged(self.id, [.label(new.label), .modified(new.modified)])]
        case .itemSettings, .appRules:
            // Settings of a number that holds no item describe nothing (as an unlock filters them).
            guard contains(number) else {
                deadRecords += 1
                return []
            }
            deadRecords += settingsRecords[number]?.has(record.kind) == true ? 1 : 0
            noteAppended([record])
            settings[number] = try (settings[number] ?? ItemSettings()).applying(record.kind, plaintext)
            return []
        case .itemDeleted:
            let time = try DeletionPayload.time(plaintext)
            let existed = contains(number)
            deadRecords += 1 + (existed ? 1 + settingsRecordCount(of: number) : 0)
            noteAppended([record])
            remove(number)
            fields.modified = max(fields.modified, time)
            return existed ? [.itemDeleted(id)] : []
        case .item:
            let itemFields = try ItemFields.parse(plaintext, wantsSecret: false).0
            var item = StoredItem(
                collection: self.id.rawValue, number: number, label: itemFields.label, attributes: [:],
                type: itemFields.type, contentType: itemFields.contentType, sealedSecret: [],
                created: itemFields.created, modified: itemFields.modified)
            item.attributeList = itemFields.attributes
            appendedItems[number] = kept
            fields.modified = max(fields.modified, item.modified)
            guard let old = items[number] else {
                insert(item)
                return [.itemCreated(id)]
            }
            deadRecords += 1
            update(item)
            var changed: [ItemProperty] = []
            if old.label != item.label { changed.append(.label(item.label)) }
            if !old.attributeList.hasSameBytes(as: item.attributeList) { changed.append(.attributes(item.attributes)) }
            if old.reportedType != item.reportedType { changed.append(.type(item.reportedType)) }
            changed.append(.modified(item.modified))
            return [.itemChanged(id, changed)]
        }
    }

    /// Applies one record of a locked collection from its clear prefix, as a scan would: an
    /// item is its record (not opened) and its tags in the blind index.
    private func takeSealed(_ record: VaultRecord, bytes: [UInt8], kept: ItemRecord) -> [ServiceEvent] {
        let number = record.number
        let id = ItemID(collection: self.id, number: number)
        switch record.kind {
        case .collection:
            deadRecords += collectionRecord == nil ? 0 : 1
            collectionRecord = bytes
            return []
        case .itemSettings, .appRules:
            guard contains(number) else { return [] }
            deadRecords += settingsRecords[number]?.has(record.kind) == true ? 1 : 0
            settingsRecords[number, default: SettingsRecords()].note(bytes)
            return []
        case .itemDeleted:
            guard contains(number) else { return [] }
            deadRecords += 2 + settingsRecordCount(of: number)
            remove(number)
            return [.itemDeleted(id)]
        case .item:
            // A private collection shows nothing while locked: its next unlock reads the journal.
            guard !isPrivate else { return [] }
            let old = table[number]
            if let old {
                unindex(old)
                deadRecords += 1
            }
            var item = StoredItem(
                collection: self.id.rawValue, number: number, label: "", attributes: [:], type: "", contentType: "",
                sealedSecret: [], created: 0, modified: 0)
            item.record = kept
            item.isOpened = false
            table[number] = item
            if lockedSearch == .always { record.tags.withUnsafeBytes { index.insert(number, tags: $0) } }
            return [old == nil ? .itemCreated(id) : .itemChanged(id, [])]
        }
    }
}
