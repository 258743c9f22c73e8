// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// One collection's records read the two ways `puffd` reads them: scanned without a key at
/// start-up (visible collections), and opened whole on unlock. Where neither found damage, both
/// must agree.
enum CollectionCheck {
    typealias Failure = VaultCheck.Failure

    /// Scans (unless private) and opens `records` under `header`; `master` nil when the header's
    /// wrapped key did not open. Returns whether the opening succeeded.
    static func run(_ records: [JournalReplay.Record], header: VaultHeader, master: MasterKey?) throws(Failure) -> Bool
    {
        let file = "fuzz.journal"
        // The head the daemon would have written after the last record, so a whole chain reads as
        // undamaged and the two paths get compared.
        let last = records.last.flatMap { try? VaultRecord(decoding: $0.bytes) }
        let head = last.map { JournalHead(of: $0, space: FuzzKeys.space, sealer: FuzzKeys.sealer).encoded() }
        let journal = JournalReplay(records: records, cut: nil, size: 0, heads: head.map { [$0] } ?? [])
        var scanned: ScannedCollection?
        if !header.flags.contains(.private) {
            scanned = VaultOpening.scan(journal, header: header, file: file)
            if let scanned { try checkScanned(scanned, records: records.count) }
        }
        guard let master else { return false }
        let whole = try? VaultOpening.open(journal, header: header, master: master, id: FuzzKeys.collection, file: file)
        if let whole { try checkOpened(whole) }
        if let whole, let scanned, whole.damage.isEmpty, scanned.damage.isEmpty {
            try compare(whole: whole, scanned: scanned)
        }
        return whole != nil
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

    /// Without damage, the scan sees what opening the whole journal sees.
    static func compare(whole: OpenedCollection, scanned: ScannedCollection) throws(Failure) {
        guard whole.items.numbers == scanned.items.numbers else {
            throw Failure("the scan and the whole journal list different items")
        }
        guard Set(whole.settings.keys) == Set(scanned.settingsRecords.keys) else {
            throw Failure("the scan and the whole journal keep different item settings")
        }
        guard whole.deadRecords == scanned.deadRecords else {
            throw Failure("dead records: whole \(whole.deadRecords), scan \(scanned.deadRecords)")
        }
        guard scanned.nextNumber <= whole.fields.nextItemNumber else {
            throw Failure("the scan's next item number is above the whole journal's")
        }
    }
}
