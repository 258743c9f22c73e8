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

    /// The highest item number a journal may hold.
    static let highest = VaultRecord.numberLimit - 1

    /// A journal may number items far apart (fuzz/crashes/vault/item-number-gap-allocation): the
    /// table must not make a slot for every number between them.
    @Test func numbersFarApartAreKeptWithoutASlotForEveryNumberBetween() {
        var table = ItemTable()
        let far: [UInt64] = [1 << 62, 1 << 40, Self.highest, 5_000_000]
        for number: UInt64 in [1, 2] + far + [3] { table[number] = Self.item(number) }
        #expect(table.count == 7)
        #expect(table.numbers == [1, 2, 3, 5_000_000, 1 << 40, 1 << 62, Self.highest])
        #expect(table.lastNumber == Self.highest)
        #expect(table[1 << 40]?.label == "\(UInt64(1) << 40)")
        #expect(table[(1 << 40) + 1] == nil)
        table[1 << 40] = Self.item(1 << 40)
        #expect(table.count == 7, "replacing an item kept aside does not add one")
        table[1 << 62] = nil
        table[2] = nil
        #expect(table.numbers == [1, 3, 5_000_000, 1 << 40, Self.highest])
        for number in table.numbers { table[number] = nil }
        #expect(table.isEmpty)
        #expect(table.lastNumber == nil)
    }

    @Test func itemsAfterAJumpKeepTheirOrderAndTheSlotsFillAgainAfterwards() {
        var table = ItemTable()
        for number: UInt64 in 1...10 { table[number] = Self.item(number) }
        // Far past the end, and then going on from there, in order, and before it out of order.
        for number: UInt64 in 1_000_000...1_000_010 { table[number] = Self.item(number) }
        table[500_000] = Self.item(500_000)
        for number: UInt64 in 11...20 { table[number] = Self.item(number) }
        let expected = Array(UInt64(1)...20) + [500_000] + Array(UInt64(1_000_000)...1_000_010)
        #expect(table.numbers == expected)
        #expect(expected.allSatisfy { table[$0]?.number == $0 })
        #expect(table.count == expected.count)
    }
}
