// SPDX-License-Identifier: Apache-2.0
import CDBus
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
        .bytes([0, 1, 2, 255]),
        .bytes([]),
        .stringDictionary(["service": "example.com", "user": "alice"]),
        .dictionary(
            key: "s",
            value: "v",
            [
                .init(.string("org.freedesktop.Secret.Item.Label"), .variant(.string("x"))),
                .init(.string("org.freedesktop.Secret.Item.Attributes"), .variant(.stringDictionary(["a": "b"]))),
            ]
        ),
        .structure([.objectPath(.root), .bytes([1]), .bytes([2, 3]), .string("text/plain")]),
        .dictionary(
            key: "o",
            value: "(oayays)",
            [
                .init(
                    .objectPath(.root),
                    .structure([.objectPath(.root), .bytes([]), .bytes([9]), .string("")]))
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
        let decoded = try WireCodec.decode(try WireCodec.encode([.bytes(payload)]))
        #expect(decoded.arguments.first?.bytes == payload)
    }

    @Test func dictionaryAccessorsReadWhatConstructorsWrote() throws {
        let attributes = ["ü": "✓", "k": ""]
        let decoded = try WireCodec.decode(try WireCodec.encode([.stringDictionary(attributes)]))
        #expect(decoded.arguments.first?.stringDictionary == attributes)
        #expect(decoded.signature == "a{ss}")
    }

    /// libdbus's `DBUS_TYPE_*` are `((int) 's')` macros, which Swift cannot import; their
    /// `DBUS_TYPE_*_AS_STRING` twins are string literals, which it can.
    @Test(arguments: [
        (TypeCode.byte, DBUS_TYPE_BYTE_AS_STRING), (TypeCode.boolean, DBUS_TYPE_BOOLEAN_AS_STRING),
        (TypeCode.int16, DBUS_TYPE_INT16_AS_STRING), (TypeCode.uint16, DBUS_TYPE_UINT16_AS_STRING),
        (TypeCode.int32, DBUS_TYPE_INT32_AS_STRING), (TypeCode.uint32, DBUS_TYPE_UINT32_AS_STRING),
        (TypeCode.int64, DBUS_TYPE_INT64_AS_STRING), (TypeCode.uint64, DBUS_TYPE_UINT64_AS_STRING),
        (TypeCode.double, DBUS_TYPE_DOUBLE_AS_STRING), (TypeCode.string, DBUS_TYPE_STRING_AS_STRING),
        (TypeCode.objectPath, DBUS_TYPE_OBJECT_PATH_AS_STRING), (TypeCode.signature, DBUS_TYPE_SIGNATURE_AS_STRING),
        (TypeCode.unixFD, DBUS_TYPE_UNIX_FD_AS_STRING), (TypeCode.array, DBUS_TYPE_ARRAY_AS_STRING),
        (TypeCode.variant, DBUS_TYPE_VARIANT_AS_STRING), (TypeCode.struct, DBUS_TYPE_STRUCT_AS_STRING),
        (TypeCode.dictEntry, DBUS_TYPE_DICT_ENTRY_AS_STRING),
    ])
    func typeCodesMatchLibdbusMacros(_ code: Int32, _ libdbus: String) {
        #expect(libdbus.utf8.count == 1)
        #expect(code == Int32(libdbus.utf8.first ?? 0))
    }

    @Test func aSecretFieldIsDecodedIntoLockedMemoryAndOtherByteArraysAreNot() throws {
        let secret: DBusValue = .structure([.objectPath(.root), .bytes([1]), .bytes([7, 8]), .string("text/plain")])
        let policy = DecodePolicy(secretFields: ["(oayays)": 2])
        let decoded = try WireCodec.decode(try WireCodec.encode([secret, .bytes([9])]), policy: policy)
        let fields = try #require(decoded.arguments.first?.fields)
        #expect(fields[1].bytes == [1], "the IV stays ordinary bytes")
        #expect(fields[2].secret?.unprotectedArray() == [7, 8], "the value is a secret")
        #expect(fields[2].bytes == nil)
        #expect(decoded.arguments.last?.bytes == [9])
        let plain = try WireCodec.decode(try WireCodec.encode([secret]))
        #expect(plain.arguments.first?.fields?[2].bytes == [7, 8], "without the policy nothing is secret")
    }

    /// Found by `make fuzz` (fuzz/crashes/unknown-message-type-as-signal): libdbus accepts message
    /// types the specification does not define, which must then be ignored, not taken for signals.
    @Test func aMessageOfAnUnknownTypeIsNotTakenForASignal() throws {
        let bytes: [UInt8] = [0x6c, 0x3a, 0x01, 0x01, 0, 0, 0, 0, 0, 0x3a, 0x23, 0x74, 0, 0, 0, 0]
        let message = try WireCodec.decode(bytes)
        #expect(message.kind == .unknown)
        #expect(message.arguments.isEmpty)
    }

    @Test func decodingStopsAtTheValueAndByteLimitsAndSaysWhich() throws {
        let many = DBusValue.array(element: "ay", Array(repeating: .bytes([1]), count: 1000))
        let tight = DecodePolicy(maxValues: 500)
        let refused = try WireCodec.decode(try WireCodec.encode([many]), policy: tight)
        #expect(refused.arguments.isEmpty)
        #expect(refused.undecodedBody == .limitExceeded("a message may hold at most 500 values"))
        let big = DBusValue.string(String(repeating: "x", count: 2000))
        let small = DecodePolicy(maxBytes: 1000)
        let tooBig = try WireCodec.decode(try WireCodec.encode([big]), policy: small)
        #expect(tooBig.undecodedBody == .limitExceeded("a message may carry at most 1000 bytes of strings and arrays"))
        #expect(try WireCodec.decode(try WireCodec.encode([many, big])).undecodedBody == nil)
    }

    @Test(arguments: ["/", "/org/freedesktop/secrets", "/a_1/B2"])
    func validPathsAreAccepted(_ text: String) {
        #expect(ObjectPath(text) != nil)
    }

    @Test(arguments: ["", "org", "/a/", "//", "/a//b", "/a-b", "/ü", "/a\u{0}b"])
    func invalidPathsAreRejectedWithoutTrapping(_ text: String) {
        #expect(ObjectPath(text) == nil)
    }

    @Test(arguments: [("a{sv}(oayays)b", true), ("a{vs}", false), ("(", false), ("", true), ("sa{hh}(h)", true)])
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
