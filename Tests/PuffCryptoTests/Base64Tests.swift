// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// Base64 as KDBX files hold it (RFC 4648 §4, padded), through libsodium instead of Foundation.
struct Base64Tests {
    /// RFC 4648 §10's vectors.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test func theRFCVectorsEncodeAndDecode() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func everyByteValueRoundTripsThroughTheStandardAlphabet() {
        let bytes = (0...255).map(UInt8.init)
        let text = Base64.encode(bytes)
        #expect(text.contains("+") && text.contains("/"))
        #expect(Base64.decode(text) == bytes)
    }

    @Test(arguments: ["Zm9v YmFy", "Zm9vYmFy\n", "Zm9vYg", "Zm9v-_", "Zm9vY?==", "Zg==Zg=="])
    func anythingButPaddedStandardBase64IsRefused(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
