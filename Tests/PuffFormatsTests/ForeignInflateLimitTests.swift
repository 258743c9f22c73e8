// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import Testing

@testable import PuffFormats

/// A small KDBX file must not make the importer inflate far more than its size (gzip bombs,
/// docs/migration.md "Sizes"): a compressed part may grow ``ForeignInflateLimit/ratio`` times.
struct ForeignInflateLimitTests {
    @Test func theLimitGrowsWithTheCompressedSizeFromAFloorToACap() {
        #expect(ForeignInflateLimit.bytes(forCompressed: 0) == 1 << 20)
        #expect(ForeignInflateLimit.bytes(forCompressed: 100 << 10) == 10_240_000)
        #expect(ForeignInflateLimit.bytes(forCompressed: 100 << 20) == 1 << 30)
        #expect(ForeignInflateLimit.bytes(forCompressed: Int.max) == 1 << 30)
    }

    /// The bomb: one attribute of 48 MiB of one letter, which gzip packs into a database of
    /// about 50 KiB. Before the limit was tied to the compressed size (1 GiB for any file), the
    /// reader inflated all of it.
    @Test func aSmallDatabaseWhosePayloadInflatesAThousandTimesIsRefusedAsDamage() throws {
        let bomb = PortableItem(
            label: "bomb", attributes: ["note": String(repeating: "a", count: 48 << 20)],
            secret: SecureBytes(unwipedCopyOf: Array("s".utf8)))
        let file = try KDBXWriter.write(
            PortableCollection(label: "bomb", items: [bomb]), passcode: KDBXTool.passcode,
            settings: KDBXWriterTests.settings[0])
        #expect(file.count < 1 << 20, "the bomb is small: \(file.count) bytes")
        #expect(throws: ForeignFormatError.damaged("the payload does not decompress (tooLarge)")) {
            try KDBXReader.read(file, passcode: KDBXTool.passcode)
        }
    }

    /// KDBX 3.1's pooled attachment, gzip inside the XML (the XML is what the database's author
    /// wrote behind the HMAC): 16 MiB of zeros in 16 KiB of base64.
    @Test func aPooledAttachmentThatInflatesAThousandTimesIsRefusedAsDamage() throws {
        let zeros = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0, count: 16 << 20))
        let packed = try Gzip.compress(zeros).unprotectedArray()
        let xml = Array(
            ("<?xml version=\"1.0\" encoding=\"utf-8\"?><KeePassFile><Meta><Binaries>"
                + "<Binary ID=\"0\" Compressed=\"True\">\(Data(packed).base64EncodedString())</Binary>"
                + "</Binaries></Meta><Root><Group><Name>g</Name></Group></Root></KeePassFile>").utf8)
        #expect(throws: ForeignFormatError.damaged("attachment 0 does not decompress")) {
            try xml.withUnsafeBytes { raw in _ = try KDBXXMLParser.parse(raw, stream: nil) }
        }
    }

    /// 200 ordinary entries, with secrets that do not compress: a database such as people have
    /// reads as before.
    @Test func aDatabaseThatCompressesLikeRealOnesStillReads() throws {
        var items: [PortableItem] = []
        for index in 0..<200 {
            items.append(
                PortableItem(
                    label: "item \(index)",
                    attributes: ["user": "user\(index)", "url": "https://host\(index).example"],
                    secret: SecureBytes(unwipedCopyOf: (0..<32).map { _ in UInt8.random(in: 0...255) })))
        }
        let file = try KDBXWriter.write(
            PortableCollection(label: "ordinary", items: items), passcode: KDBXTool.passcode,
            settings: KDBXWriterTests.settings[0])
        #expect(try KDBXReader.read(file, passcode: KDBXTool.passcode).items.count == 200)
    }
}
