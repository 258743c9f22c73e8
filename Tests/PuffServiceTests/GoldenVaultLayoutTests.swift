// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffService
import PuffStore
import Testing

/// The committed golden files byte for byte, read here without the vault code: magics, versions,
/// framing and record prefixes as docs/vault-format.md spells them, so a silent format change
/// fails even where the reader and the writer would change together.
@Suite struct GoldenVaultLayoutTests {
    @Test func theVersion1FilesHaveTheirMagicsVersionsAndRecordPrefixes() throws {
        try Self.checkFileLayout(in: GoldenVault.folder(version: 1))
    }

    /// Libsodium's INTERACTIVE limits, as the fixture's headers and catalog must spell them.
    static let interactiveOperations: UInt64 = 2
    static let interactiveMemory: UInt64 = 64 << 20

    /// Checks every file of the golden vault in `folder` (also run by ``GoldenVaultWriter``).
    static func checkFileLayout(in folder: String) throws {
        let names = try GoldenVault.files(in: folder)
        let spaces = names.filter { $0.hasSuffix(".header") }.map { String($0.dropLast(".header".count)) }
        #expect(spaces.count == 4)
        #expect(names == (spaces.flatMap { ["\($0).header", "\($0).journal"] } + ["catalog"]).sorted())

        // The catalog: magic, one frame, text lines.
        let catalog = try read("\(folder)/catalog")
        let catalogText = String(decoding: try framedPayload(catalog, magic: "PUFFCAT"), as: UTF8.self)
        let lines = catalogText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 9, "\(lines.count) catalog lines")
        #expect(lines[0] == "puff-catalog 1")
        #expect(lines[8] == "", "the catalog ends with a newline")
        var spaceOf: [String: String] = [:]
        for (line, collection) in zip(lines[1...3], GoldenVault.visible) {
            let fields = line.split(separator: " ").map(String.init)
            try #require(fields.count == 3 && fields[0] == "collection", "catalog line \(line)")
            #expect(fields[2] == collection.id.rawValue)
            #expect(spaces.contains(fields[1]))
            spaceOf[collection.id.rawValue] = fields[1]
        }
        #expect(Array(lines[4...6]) == ["alias default login", "alias login login", "alias work Work"])
        let hiddenKDF = lines[7].split(separator: " ").map(String.init)
        try #require(hiddenKDF.count == 4 && hiddenKDF[0] == "hidden-kdf", "catalog line \(lines[7])")
        #expect(hiddenKDF[1].count == 32)
        #expect(Array(hiddenKDF[2...]) == ["\(interactiveOperations)", "\(interactiveMemory)"])
        let hiddenSpaces = spaces.filter { !spaceOf.values.contains($0) }
        try #require(hiddenSpaces.count == 1)
        spaceOf[GoldenVault.hidden.id.rawValue] = hiddenSpaces[0]

        // Headers and journals, per collection.
        let expected: [(GoldenVault.Collection, flags: UInt16, records: [Prefix])] = [
            (
                GoldenVault.login, 0,
                [
                    Prefix(3, 0, 0), Prefix(1, 1, 4), Prefix(1, 2, 3), Prefix(1, 3, 3), Prefix(1, 4, 4),
                    Prefix(2, 3, 0), Prefix(1, 4, 4), Prefix(1, 1, 4), Prefix(1, 5, 1),
                ]
            ),
            (GoldenVault.work, 0, [Prefix(3, 0, 0), Prefix(1, 1, 3), Prefix(3, 0, 0)]),
            (GoldenVault.diary, 1, [Prefix(3, 0, 0), Prefix(1, 1, 0)]),
            (GoldenVault.hidden, 3, [Prefix(3, 0, 0), Prefix(1, 1, 0)]),
        ]
        for (collection, flags, records) in expected {
            let space = try #require(spaceOf[collection.id.rawValue])
            let header = try framedPayload(try read("\(folder)/\(space).header"), magic: "PUFFHDR")
            try checkHeader(
                header, space: space, flags: flags, id: collection.isHidden ? "" : collection.id.rawValue,
                hiddenSalt: collection.isHidden ? hiddenKDF[1] : nil)
            #expect(try journalPrefixes(try read("\(folder)/\(space).journal")) == records, "\(collection.id)")
        }
    }

    /// A record's clear prefix: kind, item number, tag count.
    struct Prefix: Equatable, CustomStringConvertible {
        let kind: UInt8
        let number: UInt64
        let tags: UInt16
        init(_ kind: UInt8, _ number: UInt64, _ tags: UInt16) {
            self.kind = kind
            self.number = number
            self.tags = tags
        }
        var description: String { "(\(kind), \(number), \(tags))" }
    }

    private static func checkHeader(
        _ bytes: [UInt8], space: String, flags: UInt16, id: String, hiddenSalt: String?
    ) throws {
        try #require(bytes.count >= 73, "\(bytes.count) header bytes")
        #expect(Array(bytes.prefix(11)) == Array("puff.header".utf8))
        #expect(integer(bytes, at: 11, size: 2) == 1, "format version 1")
        #expect(integer(bytes, at: 13, size: 2) == UInt64(flags))
        #expect(integer(bytes, at: 15, size: 8) == interactiveOperations)
        #expect(integer(bytes, at: 23, size: 8) == interactiveMemory)
        #expect(integer(bytes, at: 31, size: 4) == 16, "salt length")
        if let hiddenSalt { #expect(hex(bytes[35..<51]) == hiddenSalt, "hidden collections share the catalog's salt") }
        #expect(bytes[51] == 0 && bytes[52] == 1, "passcode policy: any, at least one byte")
        #expect(hex(bytes[53..<69]) == space)
        let indexKeyLength = Int(integer(bytes, at: 69, size: 4))
        #expect(indexKeyLength == (flags == 0 ? 32 : 0), "a private collection keeps no index key")
        let idStart = 73 + indexKeyLength
        let idLength = Int(integer(bytes, at: idStart, size: 4))
        #expect(String(decoding: bytes[(idStart + 4)..<min(bytes.count, idStart + 4 + idLength)], as: UTF8.self) == id)
        let wrapStart = idStart + 4 + idLength
        #expect(integer(bytes, at: wrapStart, size: 4) == 72, "24-byte nonce, 32-byte key, 16-byte MAC")
        #expect(bytes.count == wrapStart + 4 + 72)
    }

    /// The record prefixes of a journal, framing read by hand.
    private static func journalPrefixes(_ journal: [UInt8]) throws -> [Prefix] {
        #expect(Array(journal.prefix(16)) == Array("PUFFJNL".utf8) + [1, 1, 0, 0, 0, 0, 0, 0, 0])
        var prefixes: [Prefix] = []
        var offset = 16
        while offset < journal.count {
            try #require(offset + 20 <= journal.count, "a frame header at \(offset)")
            let length = Int(integer(journal, at: offset, size: 4))
            let payload = Array(journal[(offset + 20)..<min(journal.count, offset + 20 + length)])
            try #require(payload.count == length && length >= 11, "a whole frame at \(offset)")
            let prefix = Prefix(payload[0], integer(payload, at: 1, size: 8), UInt16(integer(payload, at: 9, size: 2)))
            let box = length - 11 - 16 * Int(prefix.tags)
            #expect(box >= 40, "nonce and MAC at least")
            if prefix.kind == 2 { #expect(box == 24 + 8 + 16, "a deletion seals one u64") }
            prefixes.append(prefix)
            offset += 20 + length
        }
        return prefixes
    }

    /// The payload of a file that is `magic`, a format byte of 1, then one frame.
    private static func framedPayload(_ file: [UInt8], magic: String) throws -> [UInt8] {
        #expect(Array(file.prefix(8)) == Array(magic.utf8) + [1], "\(magic) magic and format byte")
        try #require(file.count >= 28)
        #expect(integer(file, at: 8, size: 4) == UInt64(file.count - 28), "one frame to the end")
        return Array(file[28...])
    }

    private static func read(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path), "\(path)"))
    }

    /// A little-endian integer of `size` bytes at `offset` (0 past the end).
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        guard offset >= 0, offset + size <= bytes.count else { return 0 }
        return bytes[offset..<offset + size].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

extension GoldenVaultLayoutTests {
    /// The version 2 files by hand: each header's version, locked-search byte and index key (only
    /// `login`, whose locked search is `always`, keeps one), the journals' format 2 preamble and
    /// their heads, and item records tagged only where the mode is `always` (``GoldenVaultWriter``
    /// runs it on what it writes).
    ///
    /// With `headerVersion` 3 the same of the slotted headers, whose fields sit elsewhere: space at
    /// 17, locked search at 33, index storage at 34 (1 with a clear key), the key's length at 35.
    static func checkVersion2Layout(in folder: String, headerVersion: UInt16 = 2) throws {
        let names = try GoldenVault.files(in: folder)
        let spaces = names.filter { $0.hasSuffix(".header") }.map { String($0.dropLast(".header".count)) }
        #expect(spaces.count == 4)
        for space in spaces {
            #expect(names.contains("\(space).journal") && names.contains("\(space).head"), "\(space)")
        }
        let catalog = try read("\(folder)/catalog")
        let catalogText = String(decoding: try framedPayload(catalog, magic: "PUFFCAT"), as: UTF8.self)
        var spaceOf: [String: String] = [:]
        for line in catalogText.split(separator: "\n") where line.hasPrefix("collection ") {
            let fields = line.split(separator: " ").map(String.init)
            try #require(fields.count == 3, "catalog line \(line)")
            spaceOf[fields[2]] = fields[1]
        }
        let hiddenSpaces = spaces.filter { !spaceOf.values.contains($0) }
        try #require(hiddenSpaces.count == 1)
        spaceOf[GoldenVault.hidden.id.rawValue] = hiddenSpaces[0]
        for collection in GoldenVault.visible(version: headerVersion) + [GoldenVault.hidden] {
            let space = try #require(spaceOf[collection.id.rawValue], "\(collection.id)")
            let header = try framedPayload(try read("\(folder)/\(space).header"), magic: "PUFFHDR")
            try #require(header.count > 74, "\(header.count) header bytes")
            #expect(Array(header.prefix(11)) == Array("puff.header".utf8))
            #expect(integer(header, at: 11, size: 2) == UInt64(headerVersion), "header version \(headerVersion)")
            let slotted = headerVersion >= 3
            let spaceAt = slotted ? 17 : 53
            #expect(hex(header[spaceAt..<spaceAt + 16]) == space)
            let mode = collection.isPrivate ? LockedSearch.never : collection.lockedSearch
            #expect(header[spaceAt + 16] == mode.rawValue, "\(collection.id): locked search \(mode)")
            if slotted { #expect(header[34] == (mode == .always ? 1 : 0), "\(collection.id): index storage") }
            let keyLength = integer(header, at: slotted ? 35 : 70, size: 4)
            #expect(keyLength == (mode == .always ? 32 : 0), "\(collection.id): index key only for always")

            let journal = try read("\(folder)/\(space).journal")
            #expect(Array(journal.prefix(16)) == Array("PUFFJNL".utf8) + [1, 2, 0, 0, 0, 0, 0, 0, 0])
            // Format 2 records: kind, number, sequence, previous tag, tag count.
            var offset = 16
            var sequence: UInt64 = 0
            while offset + 20 < journal.count {
                let length = Int(integer(journal, at: offset, size: 4))
                let payload = Array(journal[(offset + 20)..<min(journal.count, offset + 20 + length)])
                try #require(payload.count == length && length >= 35, "\(collection.id): a whole frame at \(offset)")
                sequence += 1
                #expect(integer(payload, at: 9, size: 8) == sequence, "\(collection.id): records numbered 1, 2, 3 …")
                let tags = integer(payload, at: 33, size: 2)
                // An item record of an `always` collection tags each pair and the whole set.
                let tagged = payload[0] == 1 && mode == .always
                #expect(tagged ? tags >= 1 : tags == 0, "\(collection.id): record \(sequence) has \(tags) tags")
                offset += 20 + length
            }
            #expect(offset == journal.count, "\(collection.id): frames to the end")
        }
    }
}
