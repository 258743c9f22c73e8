// SPDX-License-Identifier: Apache-2.0
import PuffStore
import PuffTesting
import Testing

/// A collection's items that are not opened cost their locator, 16 bytes (design core-reshaped §5).
@Suite struct LocatorTableTests {
    @Test func aSlotTakesSixteenBytesAndTellsHolesLocatorsAndWholeItemsApart() {
        #expect(MemoryLayout<RecordLocator>.stride == 16)
        var table = LocatorTable()
        table.appendHoles(3)
        let locator = RecordLocator(offset: 16, length: 400, sequence: 7)
        table[1] = .at(locator)
        table[2] = .whole
        #expect([table[0], table[1], table[2]] == [.hole, .at(locator), .whole])
        #expect(table.leadingHoles == 1)
        #expect(table.lastFilled == 2)
    }

}

/// The memory budget of a collection's items (design core-reshaped §5), measured on the C heap
/// with `mallinfo2`, which counts every thread's allocations: `make check` and `make test` run
/// this suite alone, in a process of its own (the Makefile's ALONE_TESTS), and the smallest of
/// three builds counts.
@Suite(.serialized) struct MemoryBudgetTests {
    @Test func oneHundredThousandItemsReadFromAJournalStayUnderThreeMiBOnTheHeap() {
        var used = Int.max
        for _ in 0..<3 {
            let before = heapBytesInUse()
            let items = Self.unopenedItems()
            used = min(used, heapBytesInUse() - before)
            #expect(items.count == 100_000)
        }
        // 100,000 × 16 bytes = 1.6 MB in an array grown to 2 MiB (measured: 2,097,200 bytes; the
        // same items held whole, as before the locators, took 37.8 MB).
        #expect(used < 3 << 20, "100,000 unopened items take \(used) bytes")
    }

    @Test func anItemReadBackFromItsLocatorIsItsLockedForm() {
        let items = Self.unopenedItems()
        #expect(items.wholeCount == 0)
        guard case .at(let locator) = items[77_777]?.record else {
            Issue.record("item 77777 lost its locator")
            return
        }
        #expect(locator.sequence == 77_777)
        #expect(items[77_777]?.isOpened == false)
        #expect(items[77_777]?.collection == "login")
    }

    /// 100,000 items as a scan of a journal makes them: not opened, each with its locator.
    static func unopenedItems() -> ItemTable {
        var items = ItemTable()
        for number in UInt64(1)...100_000 {
            var item = StoredItem(
                collection: "login", number: number, label: "", attributes: [:], type: "", contentType: "",
                sealedSecret: [], created: 0, modified: 0)
            item.record = .at(RecordLocator(offset: 16 + 420 * number, length: 400, sequence: UInt32(number)))
            item.isOpened = false
            items[number] = item
        }
        return items
    }
}
