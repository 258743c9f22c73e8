// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// RecoveryCode: the text a person writes down for a recovery slot and types back.
@Suite struct RecoveryCodeTests {
    /// Vectors from Python's `base64.b32encode` with RFC 4648's alphabet translated to Crockford's.
    static let vectors: [(hex: String, text: String)] = [
        ("0000000000000000000000000000000000000000", "0000-0000-0000-0000-0000-0000-0000-0000"),
        ("ffffffffffffffffffffffffffffffffffffffff", "ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ"),
        ("000102030405060708090a0b0c0d0e0f10111213", "000G-40R4-0M30-E209-185G-R38E-1W81-24GK"),
        ("f0e1d2c3b4a5968778695a4b3c2d1e0f00112233", "Y3GX-5GXM-MPB8-EY39-B95K-RB8Y-1W01-28HK"),
    ]

    static func secure(_ text: String) -> SecureBytes { SecureBytes(unwipedCopyOf: text.utf8) }
    static func text(_ bytes: SecureBytes) -> String { String(decoding: bytes.unprotectedArray(), as: UTF8.self) }

    @Test func generateGivesTwentyFreshBytes() {
        let first = RecoveryCode.generate()
        let second = RecoveryCode.generate()
        #expect(first.count == 20)
        #expect(!first.constantTimeEquals(second))
    }

    @Test(arguments: vectors)
    func formatWritesEightGroupsOfFourCrockfordCharacters(vector: (hex: String, text: String)) throws {
        let code = SecureBytes(unwipedCopyOf: [UInt8](hex: vector.hex))
        let formatted = RecoveryCode.format(code)
        #expect(formatted.count == RecoveryCode.formattedCount)
        #expect(Self.text(formatted) == vector.text)
        let parsed = try #require(RecoveryCode.parse(formatted))
        #expect(parsed.unprotectedArray() == code.unprotectedArray())
    }

    @Test func randomCodesSurviveFormatThenParse() throws {
        for _ in 0..<200 {
            let code = RecoveryCode.generate()
            let text = Self.text(RecoveryCode.format(code))
            #expect(text.split(separator: "-").map(\.count) == Array(repeating: 4, count: 8))
            #expect(text.utf8.allSatisfy { RecoveryCode.alphabet.contains($0) || $0 == UInt8(ascii: "-") })
            let parsed = try #require(RecoveryCode.parse(Self.secure(text)))
            #expect(parsed.constantTimeEquals(code))
        }
    }

    @Test(arguments: [
        "000g-40r4-0m30-e209-185g-r38e-1w81-24gk",
        "000G40R40M30E209185GR38E1W8124GK",
        "000G 40R4 0M30 E209 185G R38E 1W81 24GK",
        "  000G-40R4 - 0M30-E209\t185G-R38E-1W81-24GK\n",
        "OOOG-4OR4-OM3O-E2O9-I85G-R38E-LW8I-24GK",
        "ooog-4or4-om3o-e2o9-i85g-r38e-lw8i-24gk",
        "0-0-0-G-40R40M30E209185GR38E1W8124GK",
    ])
    func parseIgnoresCaseDashesAndSpacesAndReadsLookalikesAsDigits(typed: String) throws {
        let parsed = try #require(RecoveryCode.parse(Self.secure(typed)))
        #expect(parsed.unprotectedArray() == [UInt8](hex: "000102030405060708090a0b0c0d0e0f10111213"))
    }

    @Test(arguments: [
        "",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24G",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24GKK",
        "000G-40R4-0M30-E209-185G-R38E-1W81",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24GU",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24Gu",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24G*",
        "000G_40R4_0M30_E209_185G_R38E_1W81_24GK",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24Gé",
        "000G-40R4-0M30-E209-185G-R38E-1W81-24G\u{0}K",
        "correct horse battery staple",
    ])
    func parseRefusesAnythingButThirtyTwoCodeCharacters(typed: String) {
        #expect(RecoveryCode.parse(Self.secure(typed)) == nil)
    }

    /// Checks the branch-free mapping against a plain dictionary for every byte value.
    @Test func everyByteMapsAsCrockfordSays() {
        var expected: [UInt8: UInt8] = [:]
        for (index, character) in "0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8.enumerated() {
            expected[character] = UInt8(index)
            expected[character | 0x20] = UInt8(index)
        }
        for (letter, value) in [("O", 0), ("o", 0), ("I", 1), ("i", 1), ("L", 1), ("l", 1)] {
            expected[UInt8(ascii: Unicode.Scalar(letter)!)] = UInt8(value)
        }
        for byte in UInt8.min...UInt8.max {
            let (value, isSymbol) = RecoveryCode.value(of: byte)
            if let want = expected[byte] {
                #expect(isSymbol == 0xff && value == want, "byte \(byte)")
            } else {
                #expect(isSymbol == 0 && value == 0, "byte \(byte)")
            }
            let isSeparator = "- \t\r\n".utf8.contains(byte)
            #expect(RecoveryCode.separatorMask(byte) == (isSeparator ? 0xff : 0), "byte \(byte)")
        }
    }
}
