// SPDX-License-Identifier: Apache-2.0
import PuffStore
import Testing

/// The torn-tail scan's work, counted in bytes hashed (not time): a planted tail costs a bounded
/// multiple of its size whatever its bytes (issue 24 item 13).
struct JournalFramingScanTests {
    /// A journal of one good record, then `kib` KiB planted by someone who can write the folder:
    /// a first length that runs past the end (so the tail looks torn), then every fourth position
    /// reading as a frame half the tail long, so each one is whole and must be hashed to be ruled out.
    static func plantedJournal(kib: Int) -> (bytes: [UInt8], tailStart: Int) {
        let good = JournalFraming.preamble + JournalFraming.frame([1, 2, 3])
        let size = kib << 10
        var tail = [UInt8](repeating: 0, count: size)
        let long = UInt32(size / 2)
        for position in stride(from: 0, to: size - 3, by: 4) {
            withUnsafeBytes(of: long.littleEndian) { tail.replaceSubrange(position..<position + 4, with: $0) }
        }
        withUnsafeBytes(of: UInt32(size).littleEndian) { tail.replaceSubrange(0..<4, with: $0) }
        return (good + tail, good.count)
    }

    @Test(arguments: [16, 64, 512])
    func aPlantedTailCostsAtMostALinearMultipleOfItsSizeAndIsCutAsTorn(kib: Int) throws {
        let (bytes, tailStart) = Self.plantedJournal(kib: kib)
        var cost = FramingCost()
        let parsed = try JournalFraming.parse(bytes, file: "planted.journal", cost: &cost)
        #expect(parsed.records.map(\.bytes) == [[1, 2, 3]])
        #expect(parsed.goodEnd == tailStart, "the planted bytes are a torn tail: cut, kept and logged")
        let tail = bytes.count - tailStart
        // The good record once, then at most 8 times the tail plus each candidate's 4 length bytes.
        #expect(cost.bytesHashed <= 100 + 12 * tail, "hashed \(cost.bytesHashed) bytes for a \(kib) KiB tail")
    }

    @Test func aFlippedLengthFollowedByAMebibyteOfRecordsIsStillDamage() throws {
        var records: [[UInt8]] = [Array(repeating: 7, count: 300)]
        for index in 0..<4000 { records.append((0..<250).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }) }
        var bytes = JournalFraming.preamble
        for record in records { bytes += JournalFraming.frame(record) }
        let damaged = JournalFraming.preamble.count
        // The first record's length now runs past the end of the file.
        bytes[damaged + 2] = 0x1f
        var cost = FramingCost()
        #expect(
            throws: StoreError.damaged(
                file: "flipped.journal", offset: UInt64(damaged),
                reason: "record length \(0x1f_012c) runs past the end, but a record follows at \(damaged + 320)")
        ) {
            try JournalFraming.parse(bytes, file: "flipped.journal", cost: &cost)
        }
        #expect(cost.bytesHashed <= 8 * bytes.count)
    }
}
