// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// Sealed audit entries open only with their key, in their log, at their position.
struct AuditRecordTests {
    let space = SpaceID.random()
    let sealer = SecretSealer()
    let fields = AuditFields(
        action: 1, result: 2, time: 1_700_000_000, item: 7, label: "GitHub ✓", executable: "/usr/bin/secret-tool",
        client: ":1.42", pid: 4242)

    @Test func anEntryOpensToItsFields() throws {
        let record = AuditRecord(sequence: 3, fields: fields, space: space, sealer: sealer)
        let decoded = try AuditRecord(decoding: record.encoded())
        #expect(decoded.sequence == 3)
        #expect(decoded.open(space: space, sealer: sealer) == fields)
    }

    @Test func anEntryMovedToAnotherLogOrPositionOrKeyDoesNotOpen() throws {
        let bytes = AuditRecord(sequence: 3, fields: fields, space: space, sealer: sealer).encoded()
        let record = try AuditRecord(decoding: bytes)
        #expect(record.open(space: SpaceID.random(), sealer: sealer) == nil)
        #expect(record.open(space: space, sealer: SecretSealer()) == nil)
        var renumbered = bytes
        renumbered[0] = 4
        #expect(try AuditRecord(decoding: renumbered).open(space: space, sealer: sealer) == nil)
    }

    /// Little-endian `u16`, `u32`, `u64` and `u32 length | bytes`, as vault-format.md spells them.
    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
    private static func string(_ value: String) -> [UInt8] { le(UInt32(value.utf8.count)) + Array(value.utf8) }

    /// An entry as puffd wrote it before issue 28 (format version 1: no app), spelled out by hand.
    private func versionOneEntry(sequence: UInt64) -> [UInt8] {
        let plaintext =
            [1, 2] + Self.le(UInt64(1_700_000_000)) + Self.le(UInt64(7)) + Self.string("GitHub ✓")
            + Self.string("/usr/bin/secret-tool") + Self.string(":1.42") + Self.le(UInt32(4242))
        let associatedData =
            Array("puff.audit".utf8) + Self.le(UInt16(1)) + Self.le(sequence) + Self.string(space.hex)
        let box = sealer.seal(SecureBytes(unwipedCopyOf: plaintext), associatedData: associatedData)
        return Self.le(sequence) + box
    }

    @Test func aVersionOneEntryStillOpensWithNoApp() throws {
        let record = try AuditRecord(decoding: versionOneEntry(sequence: 5))
        #expect(record.open(space: space, sealer: sealer) == fields)
        #expect(record.open(space: space, sealer: sealer)?.app == "")
    }

    @Test func aVersionTwoEntryCarriesTheCallersApp() throws {
        var withApp = fields
        withApp.app = "org.example.App"
        withApp.executable = "/usr/bin/xdg-dbus-proxy"
        let record = try AuditRecord(
            decoding: AuditRecord(sequence: 6, fields: withApp, space: space, sealer: sealer).encoded())
        #expect(record.open(space: space, sealer: sealer) == withApp)
    }

    @Test func aVersionTwoEntryIsSealedAsVersionTwoSoAnOlderReaderCannotMisreadIt() throws {
        // What a version 1 reader does: open under version 1's associated data.
        let bytes = AuditRecord(sequence: 8, fields: fields, space: space, sealer: sealer).encoded()
        let associatedData =
            Array("puff.audit".utf8) + Self.le(UInt16(1)) + Self.le(UInt64(8)) + Self.string(space.hex)
        #expect(throws: CryptoError.invalidCiphertext) {
            try sealer.open(Array(bytes.dropFirst(8)), associatedData: associatedData)
        }
        let versionTwo =
            Array("puff.audit".utf8) + Self.le(UInt16(2)) + Self.le(UInt64(8)) + Self.string(space.hex)
        #expect(try sealer.open(Array(bytes.dropFirst(8)), associatedData: versionTwo).count > 0)
    }

    @Test func aTruncatedEntryIsMalformed() {
        #expect(throws: VaultFormatError.malformed(offset: 8, what: "box")) {
            try AuditRecord(decoding: [UInt8](repeating: 1, count: 20))
        }
    }
}
