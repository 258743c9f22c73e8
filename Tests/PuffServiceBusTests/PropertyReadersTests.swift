// SPDX-License-Identifier: Apache-2.0
import PuffService
import Testing

@testable import PuffServiceBus

@Suite struct PropertyReadersTests {
    let work = CollectionID("work")

    func item(_ number: UInt64, in collection: CollectionID = .login) -> ItemID {
        ItemID(collection: collection, number: number)
    }

    func numbers(_ readers: [(reader: String, numbers: [UInt64])]) -> [String: [UInt64]] {
        Dictionary(uniqueKeysWithValues: readers.map { ($0.reader, $0.numbers) })
    }

    @Test func aLockChangeNamesEachReaderWithTheItemsItReadInThatCollectionOnly() {
        let readers = PropertyReaders()
        for number: UInt64 in [9, 2, 2, 700] { readers.noteRead(item(number), by: ":1.5") }
        readers.noteRead(item(3, in: work), by: ":1.5")
        readers.noteRead(item(4, in: work), by: ":1.6")
        #expect(numbers(readers.lockChanged(.login, locked: false)) == [":1.5": [2, 9, 700]])
        #expect(numbers(readers.lockChanged(work, locked: true)) == [":1.5": [3], ":1.6": [4]])
        #expect(readers.count(of: ":1.5") == 4, "a second read of item 2 counts once")
    }

    @Test func farItemNumbersAreKeptToo() {
        let readers = PropertyReaders()
        let far = ItemNumbers.bitmapLimit + 5
        readers.noteRead(item(far), by: ":1.5")
        readers.noteRead(item(1), by: ":1.5")
        readers.noteRead(item(UInt64.max), by: ":1.5")
        #expect(numbers(readers.lockChanged(.login, locked: true)) == [":1.5": [1, far, UInt64.max]])
    }

    @Test func aConnectionThatLeftIsForgotten() {
        let readers = PropertyReaders()
        readers.noteRead(item(1), by: ":1.5")
        readers.noteRead(item(1), by: ":1.6")
        readers.forget(":1.5")
        #expect(numbers(readers.lockChanged(.login, locked: true)) == [":1.6": [1]])
        #expect(readers.count(of: ":1.5") == 0)
    }

    @Test func aDeletedCollectionsReadersAreForgottenSoANewOneOfTheSameNameStartsWithNone() {
        let readers = PropertyReaders()
        readers.noteRead(item(1, in: work), by: ":1.5")
        readers.noteRead(item(1), by: ":1.5")
        _ = readers.lockChanged(work, locked: true)
        readers.collectionGone(work)
        #expect(readers.lockChanged(work, locked: false).isEmpty)
        #expect(numbers(readers.lockChanged(.login, locked: true)) == [":1.5": [1]])
        readers.collectionGone(work)
        #expect(readers.noteRead(item(2, in: work), by: ":1.5") == nil, "no lock state announced since")
    }

    @Test func aReadAnswersTheLockStateLastAnnounced() {
        let readers = PropertyReaders()
        #expect(readers.noteRead(item(1), by: ":1.5") == nil, "nothing announced yet: the caller's resolution stands")
        _ = readers.lockChanged(.login, locked: false)
        #expect(readers.noteRead(item(1), by: ":1.5") == false)
        _ = readers.lockChanged(.login, locked: true)
        #expect(readers.noteRead(item(1), by: ":1.6") == true)
        #expect(readers.noteRead(item(1, in: work), by: ":1.6") == nil)
    }
}
