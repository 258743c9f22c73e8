// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

/// Base64 between locked buffers (transit plaintexts): the same text as the array version, and
/// the same refusals.
struct Base64SecureTests {
    @Test func secureEncodingGivesTheSameTextAsTheArrayVersionAndDecodesBack() {
        for length in [0, 1, 2, 3, 4, 31, 32, 33, 256] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            let encoded = Base64.encode(SecureBytes(unwipedCopyOf: bytes))
            #expect(encoded.unprotectedArray() == Array(Base64.encode(bytes).utf8), "length \(length)")
            #expect(Base64.decode(encoded)?.unprotectedArray() == bytes, "length \(length)")
        }
    }

    @Test func textThatIsNotPaddedStandardBase64DecodesToNothing() {
        for text in ["A", "AAE", "AA=A", "AA E", "AA-_", "AAE=\n", "===="] {
            #expect(Base64.decode(SecureBytes(unwipedCopyOf: Array(text.utf8))) == nil, "\(text.debugDescription)")
        }
    }
}
