// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffFormats

/// libsecret's file format read from files the real `secret-tool` wrote, and Puff's files read
/// back by the real `secret-tool` (docs/migration.md).
@Suite struct LibsecretFileTests {
    static let allBytes = (0...255).map { UInt8($0) }
    /// 64 KiB of text (libsecret's API takes a large secret as a string).
    static let large = (0..<(64 * 1024)).map { UInt8(0x21 + $0 % 90) }
    static let manyAttributes = (0..<50).map { ("attribute-\($0)", "value \($0) ü") }

    @Test func itemsSecretToolStoredReadBackExactlyWithTheirLabelsAttributesSecretsAndTimes() async throws {
        let fixture = try LibsecretFixture()
        defer { fixture.remove() }
        try await fixture.store(
            label: "Mail für Jürgen 🔑", attributes: [("service", "mail"), ("empty", "")], secret: Array("hunter2".utf8),
            at: "2019-03-04 05:06:07")
        try await fixture.store(label: "binary", attributes: [("kind", "bytes")], secret: Self.allBytes)
        try await fixture.storeThroughLibsecret(
            schema: "io.puff.Large", label: "large", attributes: ["kind": "large"],
            text: String(decoding: Self.large, as: UTF8.self))
        try await fixture.store(label: "many", attributes: Self.manyAttributes, secret: Array("m".utf8))

        let collection = try LibsecretFile.read(try fixture.bytes(), passcode: fixture.passcode)

        #expect(collection.items.count == 4)
        let byLabel = Dictionary(uniqueKeysWithValues: collection.items.map { ($0.label, $0) })
        let mail = try #require(byLabel["Mail für Jürgen 🔑"])
        #expect(mail.attributes == ["service": "mail", "empty": ""])
        #expect(mail.secret.unprotectedArray() == Array("hunter2".utf8))
        #expect(mail.contentType == "text/plain")
        #expect(mail.created == 1_551_675_967)
        #expect(mail.modified == 1_551_675_967)
        #expect(try #require(byLabel["binary"]).secret.unprotectedArray() == Self.allBytes)
        let large = try #require(byLabel["large"])
        #expect(large.secret.unprotectedArray() == Self.large)
        // libsecret 0.20's file backend does not keep the schema's name: the file holds `kind` alone.
        #expect(large.attributes == ["kind": "large"])
        #expect(try #require(byLabel["many"]).attributes == Dictionary(uniqueKeysWithValues: Self.manyAttributes))
    }

    @Test func aWrongPasswordIsSaidAsSuchAndReadsNothing() async throws {
        let fixture = try LibsecretFixture()
        defer { fixture.remove() }
        try await fixture.store(label: "a", attributes: [("n", "1")], secret: Array("s1".utf8))
        try await fixture.store(label: "b", attributes: [("n", "2")], secret: Array("s2".utf8))

        #expect(throws: ForeignFormatError.wrongPasscode) {
            try LibsecretFile.read(try fixture.bytes(), passcode: SecureBytes(unwipedCopyOf: Array("wrong".utf8)))
        }
    }

    @Test func aByteFlippedInALaterItemIsDamageNamingThatItem() async throws {
        let fixture = try LibsecretFixture()
        defer { fixture.remove() }
        try await fixture.store(label: "a", attributes: [("n", "1")], secret: Array("s1".utf8))
        try await fixture.store(label: "b", attributes: [("n", "2")], secret: Array("s2".utf8))
        var bytes = try fixture.bytes()
        // The second item's blob ends just before the file's last framing offsets.
        bytes[bytes.count - 40] ^= 0x01

        #expect(throws: ForeignFormatError.damaged("item 2 fails its integrity check")) {
            try LibsecretFile.read(bytes, passcode: fixture.passcode)
        }
    }

    @Test func aTruncatedFileIsDamageNotACrash() async throws {
        let fixture = try LibsecretFixture()
        defer { fixture.remove() }
        try await fixture.store(label: "a", attributes: [("n", "1")], secret: Array("s1".utf8))
        let bytes = try fixture.bytes()
        for length in stride(from: 18, to: bytes.count, by: 7) {
            do {
                _ = try LibsecretFile.read(Array(bytes.prefix(length)), passcode: fixture.passcode)
                Issue.record("a file cut to \(length) bytes was read")
            } catch {
                switch error {
                case .damaged, .unsupported, .wrongPasscode: break
                default: Issue.record("a file cut to \(length) bytes: \(error)")
                }
            }
        }
    }

    @Test func aFilePuffWritesIsReadBySecretToolExactly() async throws {
        let fixture = try LibsecretFixture()
        defer { fixture.remove() }
        let items = [
            PortableItem(
                label: "Mail für Jürgen 🔑", attributes: ["service": "mail", "empty": ""],
                secret: SecureBytes(unwipedCopyOf: Array("hunter2".utf8)), created: 1_551_675_967,
                modified: 1_551_675_968),
            PortableItem(
                label: "binary", attributes: ["kind": "bytes"], secret: SecureBytes(unwipedCopyOf: Self.allBytes)),
            PortableItem(label: "large", attributes: ["kind": "large"], secret: SecureBytes(unwipedCopyOf: Self.large)),
            PortableItem(
                label: "many", attributes: Dictionary(uniqueKeysWithValues: Self.manyAttributes),
                secret: SecureBytes(unwipedCopyOf: Array("m".utf8))),
        ]
        try fixture.write(
            try LibsecretFile.write(PortableCollection(label: "", items: items), passcode: fixture.passcode))

        #expect(try await fixture.lookup([("service", "mail")]) == Array("hunter2".utf8))
        #expect(try await fixture.lookup([("kind", "bytes")]) == Self.allBytes)
        #expect(try await fixture.lookup([("kind", "large")]) == Self.large)
        #expect(try await fixture.lookup(Self.manyAttributes) == Array("m".utf8))
        let listing = try await fixture.search([("service", "mail")])
        #expect(listing.contains("label = Mail für Jürgen 🔑"))
        #expect(listing.split(separator: "\n").contains { $0.hasSuffix("attribute.empty = ") })
        #expect(listing.contains("created = 2019-03-04 05:06:07"))
        #expect(listing.contains("modified = 2019-03-04 05:06:08"))
    }

    @Test func aContentTypeOtherThanTextCrossesInOo7sAttribute() throws {
        let item = PortableItem(
            label: "key", attributes: ["a": "b"], secret: SecureBytes(unwipedCopyOf: [1, 2]),
            contentType: "application/octet-stream")
        let passcode = SecureBytes(unwipedCopyOf: Array("p".utf8))
        let bytes = try LibsecretFile.write(PortableCollection(label: "", items: [item]), passcode: passcode)

        let back = try LibsecretFile.read(bytes, passcode: passcode).items[0]
        #expect(back.contentType == "application/octet-stream")
        #expect(back.attributes == ["a": "b"])
    }

    @Test func aLabelHoldingANulCannotCrossAndNothingIsWritten() {
        let item = PortableItem(label: "a\u{0}b", attributes: [:], secret: SecureBytes(unwipedCopyOf: [1]))
        #expect(throws: ForeignFormatError.cannotCross("item 1: a label or attribute holding a NUL character")) {
            try LibsecretFile.write(
                PortableCollection(label: "", items: [item]), passcode: SecureBytes(unwipedCopyOf: [1]))
        }
    }
}
