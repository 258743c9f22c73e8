// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// The vault's catalog: the visible collections in order, the aliases, and the key-derivation
/// salt hidden collections share (so one Argon2id run tries a passcode on all of them).
///
/// It never names a hidden collection. Its text form is one entry per line:
/// `puff-catalog 1`, then `collection <space hex> <id>`, `alias <name> <id>` and
/// `hidden-kdf <salt hex> <operations> <memory bytes>`.
public struct Catalog: Sendable, Equatable {
    /// One visible collection.
    public struct Entry: Sendable, Equatable {
        public var space: SpaceID
        public var id: String

        public init(space: SpaceID, id: String) {
            self.space = space
            self.id = id
        }
    }

    public var collections: [Entry]
    public var aliases: [String: String]
    public var hiddenSalt: [UInt8]
    public var hiddenKDF: KDFParameters

    /// An empty catalog with a fresh hidden salt.
    public init(hiddenKDF: KDFParameters) {
        collections = []
        aliases = [:]
        hiddenSalt = PasscodeKDF.newSalt()
        self.hiddenKDF = hiddenKDF
    }

    /// The catalog's bytes.
    public func encoded() -> [UInt8] {
        var lines = ["puff-catalog 1"]
        for entry in collections { lines.append("collection \(entry.space.hex) \(entry.id)") }
        for (name, id) in aliases.sorted(by: { $0.key < $1.key }) { lines.append("alias \(name) \(id)") }
        lines.append("hidden-kdf \(Hex.encode(hiddenSalt)) \(hiddenKDF.operations) \(hiddenKDF.memoryBytes)")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Parses a catalog.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)`` with the byte offset of the bad line.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .malformed(offset: 0, what: "catalog is not UTF-8")
        }
        collections = []
        aliases = [:]
        var salt: [UInt8]?
        var kdf: KDFParameters?
        var offset: UInt64 = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            defer { offset += UInt64(line.utf8.count + 1) }
            let fields = line.split(separator: " ").map(String.init)
            switch (number, fields.first) {
            case (0, _):
                guard fields == ["puff-catalog", "1"] else { throw .malformed(offset: 0, what: "catalog version") }
            case (_, nil):
                continue
            case (_, "collection"?) where fields.count == 3:
                guard let space = SpaceID(hex: fields[1]) else { throw .malformed(offset: offset, what: "space id") }
                collections.append(Entry(space: space, id: fields[2]))
            case (_, "alias"?) where fields.count == 3:
                aliases[fields[1]] = fields[2]
            case (_, "hidden-kdf"?) where fields.count == 4:
                guard let bytes = Hex.decode(fields[1]), bytes.count == PasscodeKDF.saltBytes,
                    let operations = UInt64(fields[2]), let memory = Int(fields[3]),
                    let parameters = try? KDFParameters(operations: operations, memoryBytes: memory)
                else { throw .malformed(offset: offset, what: "hidden-kdf") }
                salt = bytes
                kdf = parameters
            default:
                throw .malformed(offset: offset, what: "catalog line")
            }
        }
        guard let salt, let kdf else { throw .malformed(offset: offset, what: "missing hidden-kdf") }
        hiddenSalt = salt
        hiddenKDF = kdf
    }
}
