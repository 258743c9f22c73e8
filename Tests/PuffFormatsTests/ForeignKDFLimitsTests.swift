// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffFormats

/// A hostile file a person imports chooses its own key-derivation cost; a cost no tool writes is
/// refused as unsupported before any of it runs (docs/migration.md, "Key derivation costs").
struct ForeignKDFLimitsTests {
    static let passcode = SecureBytes(unwipedCopyOf: Array("fuzz".utf8))

    /// Where `needle` first starts in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    @Test func aGnomeKeyringAskingForBillionsOfHashRoundsIsRefusedBeforeItHashes() throws {
        let bytes = try GnomeKeyringBinary.write(
            PortableCollection(label: "Login", items: []), passcode: Self.passcode, iterations: 1000,
            salt: [UInt8](repeating: 7, count: 8))
        let at = 16 + 4 + 9 + 16 + 8  // magic, version, name "Login", two times, two words
        #expect(Array(bytes[at..<at + 4]) == [0, 0, 0x03, 0xe8], "1000 where the layout says")
        // Just above the bound, so that without it this test runs a million rounds and fails
        // with wrongPasscode rather than hanging; the bound also covers 2^32-1.
        let above = ForeignKDFLimits.gnomeKeyringIterations + 1
        var file = bytes
        file.replaceSubrange(at..<at + 4, with: withUnsafeBytes(of: above.bigEndian) { Array($0) })
        #expect(throws: ForeignFormatError.unsupported("\(above) hash iterations")) {
            try GnomeKeyringBinary.read(file, passcode: Self.passcode)
        }
        file.replaceSubrange(at..<at + 4, with: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: ForeignFormatError.unsupported("\(UInt32.max) hash iterations")) {
            try GnomeKeyringBinary.read(file, passcode: Self.passcode)
        }
    }

    /// The KDBX 4 header's Argon2 parameters after a cheap export, with `key`'s UInt64 replaced.
    static func kdbx(setting key: UInt8, to value: UInt64) throws -> [UInt8] {
        let settings = KDBXWriter.Settings(
            argon2: .id, parameters: .init(iterations: 2, memoryKiB: 1024, parallelism: 2), cipher: .aes256)
        var bytes = try KDBXWriter.write(
            PortableCollection(label: "", items: []), passcode: Self.passcode, settings: settings)
        // A variant dictionary UInt64 entry: type 0x05, key length 1, the key, value length 8.
        let entry = try #require(Self.find([0x05, 1, 0, 0, 0, key, 8, 0, 0, 0], in: bytes))
        bytes.replaceSubrange((entry + 10)..<(entry + 18), with: withUnsafeBytes(of: value.littleEndian) { Array($0) })
        return bytes
    }

    static func header(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            _ = try KDBXHeader.read(&cursor)
        }
    }

    @Test func aKDBXAskingForBillionsOfArgon2PassesIsRefusedBeforeItRuns() throws {
        // 2^32-1 passes over 1 MiB: about a day of Argon2; within the old per-field limits.
        let passes = try Self.kdbx(setting: UInt8(ascii: "I"), to: UInt64(UInt32.max))
        #expect(throws: ForeignFormatError.unsupported("Argon2 parameters out of range")) {
            try Self.header(passes)
        }
        // The largest memory with as many passes as the bound allows is read.
        let most = try Self.kdbx(setting: UInt8(ascii: "M"), to: ForeignKDFLimits.argon2MemoryBytes)
        #expect(throws: Never.self) { try Self.header(most) }
        let over = try Self.kdbx(setting: UInt8(ascii: "M"), to: ForeignKDFLimits.argon2MemoryBytes + 1024)
        #expect(throws: ForeignFormatError.unsupported("Argon2 parameters out of range")) {
            try Self.header(over)
        }
    }
}
