// SPDX-License-Identifier: Apache-2.0

/// A small file written whole (a header, the catalog): an 8-byte magic, then one journal-style
/// frame, so a flipped byte is caught before the contents are parsed. `package` for the vault fuzz
/// target, which decodes untrusted files through it.
package enum ChecksummedFile {
    /// The magic of a collection header file.
    package static let headerMagic = Array("PUFFHDR\u{1}".utf8)
    /// The magic of the catalog file.
    package static let catalogMagic = Array("PUFFCAT\u{1}".utf8)
    /// The magic of the wrong-passcode file (``PasscodeAttempts``).
    package static let attemptsMagic = Array("PUFFATT\u{1}".utf8)
    /// The magic of the `fleet` file (``FleetMap``).
    package static let fleetMagic = Array("PUFFFLT\u{1}".utf8)

    /// `bytes` framed after `magic`; no bytes is the magic alone (a frame holds at least one byte:
    /// an empty attempts file, written once the last wrong passcode is followed by the right one).
    package static func encode(_ bytes: [UInt8], magic: [UInt8]) -> [UInt8] {
        bytes.isEmpty ? magic : magic + JournalFraming.frame(bytes)
    }

    /// The contents of a file made by ``encode(_:magic:)``.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming `file`.
    package static func decode(_ file: [UInt8], magic: [UInt8], name: String) throws(StoreError) -> [UInt8] {
        guard file.starts(with: magic) else {
            throw .damaged(file: name, offset: 0, reason: "not a Puff file of this kind and format version")
        }
        if file.count == magic.count { return [] }
        let framed = JournalFraming.preamble + file.dropFirst(magic.count)
        let parsed = try JournalFraming.parse(Array(framed), file: name)
        let consumed = parsed.goodEnd - JournalFraming.preamble.count + magic.count
        guard parsed.records.count == 1, consumed == file.count else {
            throw .damaged(
                file: name, offset: UInt64(max(magic.count, min(consumed, file.count))),
                reason: "checksum or length does not match")
        }
        return parsed.records[0].bytes
    }
}
