// SPDX-License-Identifier: Apache-2.0
import PuffStore
import Testing

/// The dense item table behaves as a dictionary from number to item, in number order.
@Suite struct ItemTableTests {
    static func item(_ number: UInt64) -> StoredItem {
        StoredItem(
            collection: "login", number: number, label: "\(number)", attributes: [:], type: "", contentType: "",
            sealedSecret: [], created: 0, modified: 0)
    }

    @Test func itemsAreFoundByNumberAndListedInNumberOrderAroundHoles() {
        var table = ItemTable()
        for number: UInt64 in [3, 4, 5, 9] { table[number] = Self.item(number) }
        table[1] = Self.item(1)
        #expect(table.count == 5)
        #expect(table.numbers == [1, 3, 4, 5, 9])
        #expect(table[2] == nil)
        #expect(table[10] == nil)
        #expect(table[0] == nil)
        #expect(table[9]?.label == "9")
        table[4] = nil
        table[4] = nil
        #expect(table.count == 4)
        #expect(table.numbers == [1, 3, 5, 9])
        #expect(table.lastNumber == 9)
    }

    @Test func deletingTheOldestItemsAndThenAllLeavesAnEmptyTable() {
        var table = ItemTable()
        for number: UInt64 in 1...10 { table[number] = Self.item(number) }
        for number: UInt64 in 1...8 { table[number] = nil }
        #expect(table.numbers == [9, 10])
        #expect(table[9]?.number == 9)
        table[11] = Self.item(11)
        #expect(table.numbers == [9, 10, 11])
        for number: UInt64 in 9...11 { table[number] = nil }
        #expect(table.isEmpty)
        #expect(table.lastNumber == nil)
        table[12] = Self.item(12)
        #expect(table.numbers == [12])
    }
}
