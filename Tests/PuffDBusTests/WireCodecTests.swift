// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffDBus

@Suite struct WireCodecTests {
    /// A value of every shape the Secret Service puts on the wire.
    static let samples: [DBusValue] = [
        .string("ünï ✓"),
        .objectPath(ObjectPath(unchecked: "/org/freedesktop/secrets/collection/login/1")),
        .boolean(true),
        .uint64(1_795_370_655),
        .publicBytes([0, 1, 2, 255]),
        .publicBytes([]),
        .stringDictionary(["service": "example.com", "user": "alice"]),
        .dictionary(
            key: "s",
            value: "v",
            [
                .init(.string("org.freedesktop.Secret.Item.Label"), .variant(.string("x"))),
                .init(.string("org.freedesktop.Secret.Item.Attributes"), .variant(.stringDictionary(["a": "b"]))),
            ]
        ),
        .structure([.objectPath(.root), .publicBytes([1]), .publicBytes([2, 3]), .string("text/plain")]),
        .dictionary(
            key: "o",
            value: "(oayays)",
            [
                .init(
                    .objectPath(.root),
                    .structure([.objectPath(.root), .publicBytes([]), .publicBytes([9]), .string("")]))
            ]
        ),
        .objectPaths([]),
        .variant(.variant(.objectPaths([.root]))),
        .array(element: "a{ss}", [.stringDictionary([:])]),
        .int32(-5), .uint32(7), .int16(-2), .uint16(2), .int64(-9), .double(1.5), .byte(8),
        .signature("a{sv}"),
    ]

    @Test func everySampleSurvivesMarshallingWithItsSignature() throws {
        let bytes = try WireCodec.encode(Self.samples)
        let decoded = try WireCodec.decode(bytes).arguments
        #expect(decoded.count == Self.samples.count)
        for (original, back) in zip(Self.samples, decoded) {
            #expect(original.signatureText == back.signatureText)
        }
        // Encoding the decoded values again must give the identical byte stream.
        #expect(try WireCodec.encode(decoded) == bytes)
    }

    @Test func byteArraysComeBackByteExact() throws {
        let payload = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let decoded = try WireCodec.decode(try WireCodec.encode([.publicBytes(payload)]))
        #expect(decoded.arguments.first?.bytes?.unprotectedArray() == payload)
    }

    @Test func dictionaryAccessorsReadWhatConstructorsWrote() throws {
        let attributes = ["ü": "✓", "k": ""]
        let decoded = try WireCodec.decode(try WireCodec.encode([.stringDictionary(attributes)]))
        #expect(decoded.arguments.first?.stringDictionary == attributes)
        #expect(decoded.signature == "a{ss}")
    }

    @Test func typeCodesMatchLibdbusMacros() {
        #expect(TypeCode.string == Int32(UInt8(ascii: "s")))
        #expect(TypeCode.dictEntry == Int32(UInt8(ascii: "e")))
        #expect(TypeCode.struct == Int32(UInt8(ascii: "r")))
    }

    @Test(arguments: ["/", "/org/freedesktop/secrets", "/a_1/B2"])
    func validPathsAreAccepted(_ text: String) {
        #expect(ObjectPath(text) != nil)
    }

    @Test(arguments: ["", "org", "/a/", "//", "/a//b", "/a-b", "/ü", "/a\u{0}b"])
    func invalidPathsAreRejectedWithoutTrapping(_ text: String) {
        #expect(ObjectPath(text) == nil)
    }

    @Test(arguments: [("a{sv}(oayays)b", true), ("a{vs}", false), ("(", false), ("", true)])
    func signaturesAreValidated(_ text: String, _ valid: Bool) {
        #expect((Signature(text) != nil) == valid)
    }

    @Test func singleCompleteTypesAreTold() {
        let one: String = "v"
        let two: String = "ss"
        #expect(Signature(one)?.isSingleCompleteType == true)
        #expect(Signature(two)?.isSingleCompleteType == false)
    }
}
