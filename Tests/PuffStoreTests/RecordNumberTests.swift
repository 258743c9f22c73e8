// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// Item numbers read from a journal stay below 2^63, so nothing that counts on from them can
/// overflow (fuzz/crashes/vault/item-number-overflow-in-scan).
@Suite struct RecordNumberTests {
    /// A format 1 record's bytes with `number` in its clear prefix: kind, number, no tags, a
    /// 40-byte box (format 2 adds the chain after the number; the limit is the same).
    static func record(kind: UInt8 = 1, number: UInt64) -> [UInt8] {
        [kind] + withUnsafeBytes(of: number.littleEndian, Array.init) + [0, 0] + [UInt8](repeating: 9, count: 40)
    }

    @Test(arguments: [UInt64.max, VaultRecord.numberLimit, VaultRecord.numberLimit + 1])
    func aRecordNumberedFromTwoToTheSixtyThreeUpIsMalformed(number: UInt64) {
        #expect(throws: VaultFormatError.malformed(offset: 1, what: "item number")) {
            try VaultRecord(decoding: Self.record(number: number), format: 1)
        }
    }

    @Test(arguments: [UInt64(0), 1, VaultRecord.numberLimit - 1])
    func everyNumberBelowTheLimitDecodes(number: UInt64) throws {
        let record = try VaultRecord(decoding: Self.record(number: number), format: 1)
        #expect(record.number == number)
        #expect(record.encoded() == Self.record(number: number))
    }

    @Test func aCollectionRecordPromisingANumberPastTheLimitIsMalformed() throws {
        let fits = CollectionFields(
            id: "c", label: "C", created: 1, modified: 2, nextItemNumber: VaultRecord.numberLimit, aliases: [])
        #expect(try CollectionFields(parsing: fits.plaintext()) == fits)
        var past = fits
        past.nextItemNumber = VaultRecord.numberLimit + 1
        // id (4 + 1), label (4 + 1), created and modified (8 each): the counter starts at 26.
        #expect(throws: VaultFormatError.malformed(offset: 26, what: "next item number")) {
            try CollectionFields(parsing: past.plaintext())
        }
    }
}
