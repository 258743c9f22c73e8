// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing

@testable import PuffCrypto

/// SecureBytes of up to 4 KiB come from shared slab pages: no memory mapping (and no system calls)
/// each, contents kept apart, slots wiped before reuse.
@Suite struct SecureSlabTests {
    /// Lines of `/proc/self/maps`: the process's memory mappings.
    static func mappings() -> Int {
        guard let file = fopen("/proc/self/maps", "r") else { return -1 }
        defer { fclose(file) }
        var lines = 0
        while true {
            let c = getc(file)
            if c == EOF { return lines }
            if c == 0x0A { lines += 1 }
        }
    }

    static func value(_ count: Int, byte: UInt8) -> SecureBytes {
        SecureBytes(count: count) { (buffer: UnsafeMutableRawBufferPointer) -> Void in
            buffer.initializeMemory(as: UInt8.self, repeating: byte)
        }
    }

    @Test func recordSizedValuesShareSlabPagesInsteadOfAMappingEach() {
        // A vault record's plaintext (label, attributes, secret) is a few hundred bytes; opening
        // 100,000 of them must not make 100,000 sodium_malloc regions of ~4 mappings each.
        let before = Self.mappings()
        let values = (0..<256).map { Self.value(65 + 15 * $0, byte: UInt8($0)) }  // 65 ... 3,890 bytes
        let after = Self.mappings()
        #expect(after - before < 100, "256 values of 65 B to 3.8 KiB added \(after - before) mappings")
        for (index, value) in values.enumerated() {
            #expect(value.count == 65 + 15 * index)
            #expect(value.unprotectedArray().allSatisfy { $0 == UInt8(index) })
        }
    }

    @Test(arguments: [(1, 0), (64, 0), (65, 1), (256, 1), (257, 2), (1024, 2), (1025, 3), (4096, 3)])
    func aValueTakesTheSmallestSlotItFits(count: Int, sizeClass: Int) {
        #expect(SecureSlab.sizeClass(for: count) == sizeClass)
    }

    @Test func valuesLargerThanTheLargestSlotGetARegionOfTheirOwn() {
        #expect(SecureSlab.sizeClass(for: 4097) == nil)
        let large = Self.value(10_000, byte: 7)
        #expect(large.unprotectedArray() == [UInt8](repeating: 7, count: 10_000))
    }

    @Test func aReleasedSlotIsWipedBeforeItIsHandedOutAgain() {
        let slab = SecureSlab()
        let first = slab.allocate(sizeClass: 1)
        first.initializeMemory(as: UInt8.self, repeating: 0xA5, count: 256)
        slab.release(first, sizeClass: 1)
        let second = slab.allocate(sizeClass: 1)
        #expect(second == first)
        #expect(UnsafeRawBufferPointer(start: second, count: 256).allSatisfy { $0 == 0 })
        slab.release(second, sizeClass: 1)
    }
}
