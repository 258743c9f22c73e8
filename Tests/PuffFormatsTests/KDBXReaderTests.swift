// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import Testing

@testable import PuffFormats

/// KDBX files made by the real tools when the tests run (keepassxc-cli: KDBX 3.1; pykeepass:
/// KDBX 4), read as issue 25 maps them.
@Suite(.serialized) struct KDBXReaderTests {
    static let bigValue = String(repeating: "€", count: 21845) + "x"
    static let allBytes = (0...255).map { UInt8($0) }

    func text(_ secret: SecureBytes) -> String { String(decoding: secret.unprotectedArray(), as: UTF8.self) }

    func item(_ collection: PortableCollection, _ label: String) throws -> PortableItem {
        try #require(collection.items.first { $0.label == label }, "no item labelled \(label)")
    }

    @Test func keepassxcCLIWritesKDBX31WithTheAESKDFOnDebian12() throws {
        let bytes = try KDBXTool.make("make-cli")
        var header: KDBXHeader?
        try bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            header = try KDBXHeader.read(&cursor)
        }
        let read = try #require(header)
        #expect(read.major == 3 && read.minor == 1)
        guard case .aes(_, let rounds) = read.kdf else {
            Issue.record("keepassxc-cli's KDF is \(read.kdf), not AES-KDF")
            return
        }
        #expect(rounds == 1_000_000)
        #expect(read.cipher == .aes256 && read.innerStreamID == 2)
    }

    @Test func afterARecycleBinMoveKeepassxcWritesKDBX41AndTheBinIsSkipped() throws {
        let bytes = try KDBXTool.make("make-cli-rm")
        var header: KDBXHeader?
        try bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            header = try KDBXHeader.read(&cursor)
        }
        let read = try #require(header)
        #expect(read.major == 4 && read.minor == 1)
        guard case .aes(_, let rounds) = read.kdf else {
            Issue.record("the KDF is \(read.kdf), not AES-KDF")
            return
        }
        #expect(rounds == 1_000_000)
        let collection = try KDBXReader.read(bytes, passcode: KDBXTool.passcode)
        #expect(collection.items.map(\.label).sorted() == ["Grüße 🔑", "big", "binary", "empty fields", "inner"])
        #expect(try item(collection, "binary").secret.unprotectedArray() == Self.allBytes)
    }

    @Test func aKeepassxcCLIDatabaseReadsAsMapped() throws {
        let collection = try KDBXReader.read(try KDBXTool.make("make-cli"), passcode: KDBXTool.passcode)
        #expect(
            collection.items.map(\.label).sorted() == ["Grüße 🔑", "big", "binary", "deleted", "empty fields", "inner"])
        let unicode = try item(collection, "Grüße 🔑")
        #expect(unicode.attributes == ["user": "ålice", "url": "https://example.org/ü"])
        #expect(text(unicode.secret) == "pässword 🔐" && unicode.contentType == "text/plain")
        #expect(unicode.created != nil && unicode.modified != nil)
        let empty = try item(collection, "empty fields")
        #expect(empty.attributes.isEmpty && empty.secret.isEmpty)
        #expect(text(try item(collection, "big").secret) == Self.bigValue)
        let binary = try item(collection, "binary")
        #expect(binary.secret.unprotectedArray() == Self.allBytes)
        // keepassxc-cli cannot set FDO_SECRETS_CONTENT_TYPE: KeePassXC's own fallback applies.
        #expect(binary.contentType == "application/octet-stream")
        #expect(binary.leftBehind.count == 3)
        #expect(binary.leftBehind.contains { $0.contains("photo.png") && $0.contains("16 bytes") })
        #expect(binary.leftBehind.contains("notes"))
        #expect(binary.leftBehind.contains { $0.contains("Password field") })
        #expect(text(try item(collection, "inner").secret) == "inner secret")
    }

    @Test func aPykeepassDatabaseReadsAsMapped() throws {
        let collection = try KDBXReader.read(try KDBXTool.make("make-py"), passcode: KDBXTool.passcode)
        #expect(
            collection.items.map(\.label).sorted() == [
                "Grüße 🔑 ünïcødé", "big", "binary secret", "empty values", "fifty", "inner",
            ])
        let unicode = try item(collection, "Grüße 🔑 ünïcødé")
        #expect(
            unicode.attributes == [
                "xdg:schema": "org.example.Test", "ключ": "значение ✓", "user": "ålice", "url": "https://example.org/ü",
            ])
        #expect(text(unicode.secret) == "pässword 🔐" && unicode.contentType == "text/plain")
        #expect(unicode.created == 1_457_067_967 && unicode.modified == 1_565_345_472)
        let empty = try item(collection, "empty values")
        #expect(empty.attributes == ["empty": ""] && empty.secret.isEmpty)
        #expect(empty.created == 1_457_067_967 && empty.modified == 1_457_067_967)
        let fifty = try item(collection, "fifty")
        var expected = ["user": "u"]
        for index in 0..<50 { expected[String(format: "attr%02d", index)] = "value \(index)" }
        #expect(fifty.attributes == expected && text(fifty.secret) == "p")
        #expect(text(try item(collection, "big").secret) == Self.bigValue)
        let binary = try item(collection, "binary secret")
        #expect(binary.secret.unprotectedArray() == Self.allBytes)
        #expect(binary.contentType == "application/x-puff-test")
        #expect(binary.attributes == ["service": "ssh"])
        #expect(binary.leftBehind.count == 2)
        #expect(binary.leftBehind.contains { $0.contains("photo.png") })
        // The history holds "inner secret"; the entry itself is what counts.
        #expect(text(try item(collection, "inner").secret) == "inner secret v2")
    }

    @Test func aWrongPasswordIsWrongPasscodeInBothVersions() throws {
        let wrong = SecureBytes(unwipedCopyOf: Array("fixture password 8".utf8))
        for command in ["make-cli", "make-py"] {
            let bytes = try KDBXTool.make(command)
            #expect(throws: ForeignFormatError.wrongPasscode) { try KDBXReader.read(bytes, passcode: wrong) }
            #expect(throws: ForeignFormatError.wrongPasscode) { try KDBXReader.read(bytes, passcode: nil) }
        }
    }

    @Test func anEmptyPasswordOpensADatabaseMadeWithoutOne() throws {
        let file = try KDBXTool.folder().appendingPathComponent("nopass.kdbx")
        try KDBXTool.run("make-py", file, password: "")
        let bytes = [UInt8](try Data(contentsOf: file))
        #expect(try KDBXReader.read(bytes, passcode: .empty).items.count == 6)
        #expect(try KDBXReader.read(bytes, passcode: nil).items.count == 6)
        #expect(throws: ForeignFormatError.wrongPasscode) { try KDBXReader.read(bytes, passcode: KDBXTool.passcode) }
    }

    @Test func theRegistryFindsKDBXByContent() throws {
        let bytes = try KDBXTool.make("make-cli")
        #expect(try ForeignFormats.reader(for: bytes, format: nil).format == .kdbx)
        #expect(ForeignFormats.writer(for: .kdbx).map { $0.format } == .kdbx)
    }

    func damage(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
        var copy = bytes
        copy[offset] ^= 0x40
        return copy
    }

    /// What the reader says is damaged in `bytes`, or why it is not damage.
    func damageReported(_ bytes: [UInt8]) -> String? {
        do {
            _ = try KDBXReader.read(bytes, passcode: KDBXTool.passcode)
            return nil
        } catch {
            if case .damaged(let what) = error { return what }
            return "not damage: \(error)"
        }
    }

    @Test func aFlippedByteInAKDBX4FileIsDamageNamingWhere() throws {
        let bytes = try KDBXTool.make("make-py")
        let payload = damageReported(damage(bytes, at: bytes.count - 100))
        #expect(payload == "block 0 of the payload fails its HMAC")
        // Byte 40 is in the master seed: the header's SHA-256 catches it before the key is tried.
        let header = damageReported(damage(bytes, at: 40))
        #expect(header == "the header fails its SHA-256")
    }

    @Test func aFlippedByteInAKDBX31PayloadIsDamageNamingTheBlock() throws {
        let bytes = try KDBXTool.make("make-cli")
        let what = damageReported(damage(bytes, at: bytes.count / 2))
        #expect(what == "hashed block 0 fails its SHA-256")
    }

    @Test func aTwofishDatabaseIsUnsupported() throws {
        var bytes = try KDBXTool.make("make-py")
        let cipherField = try #require(findSubsequence(KDBXHeader.Cipher.aes256ID, in: bytes))
        bytes.replaceSubrange(cipherField..<(cipherField + 16), with: KDBXHeader.Cipher.twofishID)
        #expect(throws: ForeignFormatError.unsupported("the Twofish cipher")) {
            try KDBXReader.read(bytes, passcode: KDBXTool.passcode)
        }
    }

    @Test func everyTruncationReadsAsDamagedNeitherATrapNorAWrongPassword() throws {
        for command in ["make-cli", "make-py"] {
            let bytes = try KDBXTool.make(command)
            var headerLength = 0
            try bytes.withUnsafeBytes { raw in
                var cursor = ByteCursor(raw)
                _ = try KDBXHeader.read(&cursor)
                headerLength = cursor.position
            }
            // Every cut inside the header fails before the KDF; a few past it pay the KDF once each.
            // A cut file is damaged, never "wrong password": the person would retype a right one.
            for length in Array(0...headerLength) + [headerLength + 40, headerLength + 70, bytes.count - 1] {
                let error = #expect(throws: ForeignFormatError.self) {
                    try KDBXReader.read(Array(bytes.prefix(length)), passcode: KDBXTool.passcode)
                }
                let isDamaged = if case .damaged = error { true } else { false }
                #expect(
                    isDamaged || error == .notThisFormat(.kdbx),
                    "\(command) cut at \(length): \(String(describing: error))")
            }
        }
    }

    @Test func aKDFCostNoToolOffersIsRefusedBeforeItRuns() throws {
        // KDBX 3.1 keeps the AES-KDF rounds in header field 6, eight bytes little-endian.
        var bytes = try KDBXTool.make("make-cli")
        let rounds = try #require(
            findSubsequence([0x06, 0x08, 0x00] + LittleEndian.bytes(UInt64(1_000_000)), in: bytes))
        bytes.replaceSubrange((rounds + 3)..<(rounds + 11), with: LittleEndian.bytes(UInt64(1) << 40))
        // The header alone, so that without the limit this fails at once instead of running 2^40 rounds.
        #expect(throws: ForeignFormatError.unsupported("more than 2^32-1 AES-KDF rounds")) {
            try bytes.withUnsafeBytes { raw in
                var cursor = ByteCursor(raw)
                _ = try KDBXHeader.read(&cursor)
            }
        }
    }

    @Test func otherBytesAreNotKDBX() {
        let gnomeKeyring = Array("GnomeKeyring\n\r\0\n".utf8) + [UInt8](repeating: 0, count: 64)
        #expect(!KDBXReader.recognises(gnomeKeyring))
        #expect(throws: ForeignFormatError.notThisFormat(.kdbx)) {
            try KDBXReader.read(gnomeKeyring, passcode: KDBXTool.passcode)
        }
        #expect(KDBXReader.recognises([0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5]))
    }

    func findSubsequence(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
