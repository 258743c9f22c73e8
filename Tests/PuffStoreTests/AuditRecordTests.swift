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

    @Test func aTruncatedEntryIsMalformed() {
        #expect(throws: VaultFormatError.malformed(offset: 8, what: "box")) {
            try AuditRecord(decoding: [UInt8](repeating: 1, count: 20))
        }
    }
}
