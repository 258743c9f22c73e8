// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// A thief with the files changes one byte of a slotted header: whatever byte it is, the header
/// is refused, the slot that byte belongs to stops opening, or the MAC fails once another slot
/// opens it (docs/design/unlock-slots.md §2). Nothing changes unseen.
@Suite struct VaultHeaderTamperTests {
    let master = MasterKey()

    /// How a changed header fared: refused, a slot no longer opening, or the MAC failing.
    enum Caught: Equatable { case decode, unwrap, mac }

    func caught(_ bytes: [UInt8]) -> Caught? {
        guard let read = try? VaultHeader(decoding: bytes) else { return .decode }
        guard SlotSamples.everySlotOpens(read, to: master) else { return .unwrap }
        guard (try? read.verifyMAC(with: master)) != nil else { return .mac }
        return nil
    }

    @Test(arguments: [VaultHeader.IndexStorage.clear, .tpm2])
    func flippingAnyByteOfAHeaderWithAllSixSlotTypesIsCaught(storage: VaultHeader.IndexStorage) throws {
        let bytes = try SlotSamples.header(master: master, storage: storage).encoded()
        #expect(caught(bytes) == nil, "the unchanged header opens and verifies")
        var counts: [Caught: Int] = [:]
        for offset in bytes.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var changed = bytes
                changed[offset] ^= flip
                let result = caught(changed)
                #expect(result != nil, "byte \(offset) flipped by \(flip) went unseen")
                if let result { counts[result, default: 0] += 1 }
            }
        }
        // Each way of catching it happens: the test reaches all three checks.
        #expect(counts[.decode, default: 0] > 0 && counts[.unwrap, default: 0] > 0 && counts[.mac, default: 0] > 0)
    }

    @Test func aHeaderCutShortOrGrownIsRefused() throws {
        let bytes = try SlotSamples.header(master: master).encoded()
        for length in 0..<bytes.count {
            // Refused as malformed at a place within the bytes it was given, never read on.
            let refused = SlotSamples.malformed(Array(bytes.prefix(length)))
            #expect(refused.map { $0.offset <= length } == true, "a header cut to \(length) bytes")
        }
        #expect(throws: VaultFormatError.malformed(offset: UInt64(bytes.count), what: "trailing bytes")) {
            try VaultHeader(decoding: bytes + [0])
        }
    }
}
