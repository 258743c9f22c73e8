// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffFormats

/// Puff's GVariant serialisation against GLib's own (through python3-gi): byte for byte, with
/// framing offsets of 1, 2 and 4 bytes.
@Suite struct GVariantTests {
    /// The bytes GLib serialises for `expression` (Python, `GLib` in scope).
    func glib(_ type: String, _ expression: String) async throws -> [UInt8] {
        let script = """
            import sys
            from gi.repository import GLib
            sys.stdout.write(GLib.Variant('\(type)', \(expression)).get_data_as_bytes().get_data().hex())
            """
        let result = try await ChildProcess.run(
            "/usr/bin/python3", ["-c", script], environment: ["PATH": "/usr/bin:/bin"])
        try #require(result.status == 0, "\(result.output)")
        let digits = Array(result.output.utf8)
        return try stride(from: 0, to: digits.count - 1, by: 2).map { index in
            try #require(UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16))
        }
    }

    func fileValue(items count: Int, blob: Int) -> GVariantValue {
        let items: [GVariantValue] = (0..<count).map { index in
            .tuple([
                .array(
                    .dictEntry(.string, .array(.byte)),
                    (0..<3).map {
                        .dictEntry(.string("name\($0)"), .bytes([UInt8](repeating: UInt8(index % 256), count: 32)))
                    }
                ),
                .bytes([UInt8](repeating: UInt8((index * 7) % 256), count: blob)),
            ])
        }
        return .tuple([
            .uint32(32), .bytes((0..<32).map { UInt8($0) }), .uint32(100_000), .uint64(1_551_675_967),
            .uint32(UInt32(count)),
            .array(LibsecretFile.itemType, items),
        ])
    }

    func fileExpression(items count: Int, blob: Int) -> String {
        """
        (32, bytes(range(32)), 100000, 1551675967, \(count), \
        [({'name%d' % j: bytes([i % 256] * 32) for j in range(3)}, bytes([(i * 7) % 256] * \(blob))) for i in range(\(count))])
        """
    }

    @Test(arguments: [(0, 0), (1, 10), (3, 100), (300, 300)])
    func aKeyringFileSerialisesAsGLibDoes(items: Int, blob: Int) async throws {
        let ours = GVariantEncoder.encode(fileValue(items: items, blob: blob))
        #expect(ours == (try await glib("(uayutua(a{say}ay))", fileExpression(items: items, blob: blob))))
    }

    @Test(arguments: [0, 1, 200, 70_000])
    func anItemWithItsSecretLastSerialisesAsGLibDoes(secretSize: Int) async throws {
        let secret = SecureBytes(unwipedCopyOf: (0..<secretSize).map { UInt8(truncatingIfNeeded: $0) })
        let ours = GVariantEncoder.tuple(
            [
                .array(
                    .dictEntry(.string, .string),
                    [.dictEntry(.string("a"), .string("b")), .dictEntry(.string("cc"), .string(""))]),
                .string("läbel"), .uint64(1), .uint64(2),
            ], trailingSecret: secret)
        let theirs = try await glib(
            "(a{ss}sttay)", "([('a', 'b'), ('cc', '')], 'läbel', 1, 2, bytes(i % 256 for i in range(\(secretSize))))")
        #expect(ours.unprotectedArray() == theirs)
    }

    @Test func aTupleWithSeveralFramedMembersSerialisesAsGLibDoes() async throws {
        let ours = GVariantEncoder.encode(.tuple([.string("a"), .uint64(7), .string("bb"), .string("ccc")]))
        #expect(ours == (try await glib("(stss)", "('a', 7, 'bb', 'ccc')")))
    }

    @Test func whatTheEncoderWritesTheDecoderReadsBack() throws {
        let bytes = GVariantEncoder.encode(fileValue(items: 300, blob: 300))
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            let decoder = GVariantDecoder(bytes: buffer, context: "")
            let fields = try decoder.members(of: 0..<buffer.count, LibsecretFile.fileType)
            #expect(decoder.integer(fields[2]) == 100_000)
            #expect(decoder.integer(fields[3]) == 1_551_675_967)
            let items = try decoder.elements(of: fields[5], LibsecretFile.itemType)
            #expect(items.count == 300)
            let last = try decoder.members(of: items[299], LibsecretFile.itemType)
            let names = try decoder.elements(of: last[0], .dictEntry(.string, .array(.byte)))
            #expect(
                try decoder.string(try decoder.members(of: names[2], .dictEntry(.string, .array(.byte)))[0]) == "name2")
            #expect(decoder.byteArray(last[1]) == [UInt8](repeating: UInt8((299 * 7) % 256), count: 300))
        }
    }

    @Test func anOffsetPointingOutsideItsContainerIsDamage() {
        // "(sy)" with the string's end offset 9 in a 3-byte container.
        let bytes: [UInt8] = [0x61, 0x00, 0x09]
        bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            let decoder = GVariantDecoder(bytes: buffer, context: "x")
            #expect(throws: ForeignFormatError.damaged("x: a tuple member out of bounds")) {
                try decoder.members(of: 0..<3, .tuple([.string, .byte]))
            }
        }
    }
}
