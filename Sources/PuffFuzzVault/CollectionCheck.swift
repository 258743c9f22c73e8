// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// One collection's records read the two ways `puffd` reads them: scanned without a key at
/// start-up (visible collections), then opened on unlock from the records the scan kept; and
/// opened whole, as a private or hidden collection is. Both must agree.
enum CollectionCheck {
    typealias Failure = VaultCheck.Failure

    /// Scans (unless private) and opens `records` under `header`; `master` nil when the header's
    /// wrapped key did not open. Returns whether any opening succeeded.
    static func run(_ records: [JournalReplay.Record], header: VaultHeader, master: MasterKey?) throws(Failure) -> Bool
    {
        let file = "fuzz.journal"
        var scanned: ScannedCollection?
        if !header.flags.contains(.private) {
            scanned = try? VaultOpening.scan(
                JournalReplay(records: records, cut: nil, size: 0), header: header, file: file)
            if let scanned { try checkScanned(scanned, records: records.count) }
        }
        guard let master else { return false }
        let whole = try? VaultOpening.open(
            records, header: header, master: master, id: FuzzKeys.collection, file: file)
        if let whole { try checkOpened(whole) }
        guard let scanned else { return whole != nil }
        let live = try? VaultOpening.open(
            liveRecords(of: scanned), header: header, master: master, id: FuzzKeys.collection, file: file)
        if let live { try checkOpened(live) }
        if let whole {
            guard let live else { throw Failure("the journal opened whole but not from the records its scan kept") }
            try compare(whole: whole, live: live, scanned: scanned)
        }
        return whole != nil || live != nil
    }

    /// What `VaultOpening.liveRecords(of:)` hands to an unlock: the newest collection record,
    /// then each live item's newest record, by number, then their newest settings records.
    static func liveRecords(of scanned: ScannedCollection) -> [JournalReplay.Record] {
        var records: [JournalReplay.Record] = []
        if let collection = scanned.collectionRecord { records.append(.init(offset: 0, bytes: collection)) }
        for number in scanned.items.numbers {
            guard let item = scanned.items[number] else { continue }
            records.append(.init(offset: 0, bytes: item.sealedSecret))
        }
        for (_, settings) in scanned.settingsRecords.sorted(by: { $0.key < $1.key }) {
            records.append(.init(offset: 0, bytes: settings))
        }
        return records
    }

    static func checkScanned(_ scanned: ScannedCollection, records: Int) throws(Failure) {
        guard scanned.items.count <= records, scanned.deadRecords >= 0, scanned.deadRecords <= records else {
            throw Failure("a scan counted \(scanned.items.count) items, \(scanned.deadRecords) dead of \(records)")
        }
        guard scanned.items.numbers.allSatisfy({ $0 < scanned.nextNumber }) else {
            throw Failure("a scanned item's number is not below the next number")
        }
    }

    static func checkOpened(_ opened: OpenedCollection) throws(Failure) {
        guard opened.deadRecords >= 0 else { throw Failure("negative dead records") }
        let numbers = opened.items.numbers
        guard numbers.count == opened.items.count, numbers == numbers.sorted(), Set(numbers).count == numbers.count
        else { throw Failure("the item table's numbers are not its items, ascending") }
        for number in numbers {
            guard number < opened.fields.nextItemNumber else {
                throw Failure("an opened item's number is not below the next number")
            }
            guard opened.items[number]?.number == number else { throw Failure("an item is filed under another number") }
        }
    }

    /// The unlock path (scan, then its live records) sees what opening the whole journal sees.
    static func compare(whole: OpenedCollection, live: OpenedCollection, scanned: ScannedCollection) throws(Failure) {
        guard whole.items.numbers == scanned.items.numbers, live.items.numbers == scanned.items.numbers else {
            throw Failure("the scan, the live records and the whole journal list different items")
        }
        guard whole.settings == live.settings, Set(whole.settings.keys) == Set(scanned.settingsRecords.keys) else {
            throw Failure("the scan, the live records and the whole journal keep different item settings")
        }
        guard whole.deadRecords == scanned.deadRecords, live.deadRecords == 0 else {
            throw Failure(
                "dead records: whole \(whole.deadRecords), scan \(scanned.deadRecords), live \(live.deadRecords)")
        }
        // `CollectionVault.unlock(with:replacingItems:)` keeps the scan's next number when higher.
        guard max(scanned.nextNumber, live.fields.nextItemNumber) == whole.fields.nextItemNumber else {
            throw Failure("the unlock path's next item number differs from the whole journal's")
        }
        guard whole.fields.id == live.fields.id, whole.fields.label == live.fields.label,
            whole.fields.created == live.fields.created, whole.fields.aliases == live.fields.aliases
        else { throw Failure("the collection's fields differ between the two paths") }
        for number in whole.items.numbers {
            guard let a = whole.items[number], let b = live.items[number] else { continue }
            guard a.label == b.label, a.attributes == b.attributes, a.type == b.type, a.contentType == b.contentType,
                a.created == b.created, a.modified == b.modified
            else { throw Failure("item \(number) differs between the two paths") }
        }
    }
}
