// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// An item's fields as sealed in its record: everything but the secret.
public struct ItemFields: Sendable {
    public var label: String
    public var attributes: AttributeList
    public var type: String
    public var contentType: String
    public var created: UInt64
    public var modified: UInt64

    public init(
        label: String, attributes: AttributeList, type: String, contentType: String, created: UInt64, modified: UInt64
    ) {
        self.label = label
        self.attributes = attributes
        self.type = type
        self.contentType = contentType
        self.created = created
        self.modified = modified
    }

    /// The plaintext of an item record: these fields, then the secret, in locked memory.
    public func plaintext(secret: SecureBytes) -> SecureBytes {
        var writer = ByteWriter()
        writer.u64(created)
        writer.u64(modified)
        writer.string(label)
        writer.string(type)
        writer.string(contentType)
        writer.u32(UInt32(attributes.count))
        for pair in attributes.pairs {
            writer.string(pair.name)
            writer.string(pair.value)
        }
        let fields = writer.bytes
        return SecureBytes(count: fields.count + 4 + secret.count) { (out: UnsafeMutableRawBufferPointer) -> Void in
            out.copyBytes(from: fields)
            withUnsafeBytes(of: UInt32(secret.count).littleEndian) {
                UnsafeMutableRawBufferPointer(rebasing: out[fields.count..<fields.count + 4]).copyBytes(from: $0)
            }
            secret.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[(fields.count + 4)...]).copyBytes(from: $0)
            }
        }
    }

    /// Parses an opened item record into its fields and (if `wantsSecret`) its secret. Without
    /// `attributes` they are stepped over, not decoded, and come back empty: a secret read needs
    /// only the label and the content type.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public static func parse(_ plaintext: SecureBytes, wantsSecret: Bool, attributes: Bool = true)
        throws(VaultFormatError) -> (fields: ItemFields, secret: SecureBytes?)
    {
        do {
            return try plaintext.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                let fields = try fields(&reader, attributes: attributes)
                let secretLength = Int(try reader.u32("secret length"))
                guard secretLength == reader.remaining else {
                    throw ByteReader.Malformed(offset: reader.offset - 4, what: "secret length")
                }
                guard wantsSecret else { return (fields, nil) }
                // Straight from locked memory to locked memory.
                let secret = try reader.take(secretLength, "secret")
                return (fields, SecureBytes(copying: secret))
            }
        } catch let error as ByteReader.Malformed {
            throw error.formatError
        } catch {
            throw .malformed(offset: 0, what: "item")
        }
    }

    private static func fields(_ reader: inout ByteReader, attributes: Bool) throws -> ItemFields {
        let created = try reader.u64("created")
        let modified = try reader.u64("modified")
        let label = try reader.string("label")
        let type = try reader.string("type")
        let contentType = try reader.string("content type")
        let count = Int(try reader.u32("attribute count"))
        guard count <= 4096 else { throw ByteReader.Malformed(offset: reader.offset - 4, what: "attributes") }
        guard attributes else {
            for _ in 0..<2 * count { _ = try reader.blob("attribute", max: 1 << 20) }
            return ItemFields(
                label: label, attributes: AttributeList([:]), type: type, contentType: contentType, created: created,
                modified: modified)
        }
        var pairs: [String: String] = [:]
        for _ in 0..<count {
            let name = try reader.string("attribute name")
            pairs[name] = try reader.string("attribute value")
        }
        guard pairs.count == count else { throw ByteReader.Malformed(offset: reader.offset, what: "attributes") }
        return ItemFields(
            label: label, attributes: AttributeList(pairs), type: type, contentType: contentType,
            created: created, modified: modified)
    }
}

/// A collection's own fields as sealed in its collection record.
public struct CollectionFields: Sendable, Equatable {
    public var id: String
    public var label: String
    public var created: UInt64
    public var modified: UInt64
    public var nextItemNumber: UInt64
    /// Aliases naming the collection; only a hidden collection keeps them here (others: catalog).
    public var aliases: [String]

    public init(id: String, label: String, created: UInt64, modified: UInt64, nextItemNumber: UInt64, aliases: [String])
    {
        self.id = id
        self.label = label
        self.created = created
        self.modified = modified
        self.nextItemNumber = nextItemNumber
        self.aliases = aliases
    }

    /// The record plaintext.
    public func plaintext() -> SecureBytes {
        var writer = ByteWriter()
        writer.string(id)
        writer.string(label)
        writer.u64(created)
        writer.u64(modified)
        writer.u64(nextItemNumber)
        writer.u32(UInt32(aliases.count))
        for alias in aliases { writer.string(alias) }
        return SecureBytes(unwipedCopyOf: writer.bytes)
    }

    /// Parses an opened collection record.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(parsing plaintext: SecureBytes) throws(VaultFormatError) {
        self = try parsing(plaintext.unprotectedArray()) { reader in
            let id = try reader.string("collection id", max: 4096)
            let label = try reader.string("collection label")
            let created = try reader.u64("created")
            let modified = try reader.u64("modified")
            let next = try reader.u64("next item number")
            guard next <= VaultRecord.numberLimit else {
                throw ByteReader.Malformed(offset: reader.offset - 8, what: "next item number")
            }
            let count = Int(try reader.u32("alias count"))
            guard count <= 256 else { throw ByteReader.Malformed(offset: reader.offset - 4, what: "aliases") }
            var aliases: [String] = []
            for _ in 0..<count { aliases.append(try reader.string("alias", max: 4096)) }
            try reader.expectEnd("trailing bytes")
            return CollectionFields(
                id: id, label: label, created: created, modified: modified, nextItemNumber: next, aliases: aliases)
        }
    }
}

/// The plaintext of a deletion record: when the item was deleted.
public enum DeletionPayload {
    public static func plaintext(time: UInt64) -> SecureBytes {
        var writer = ByteWriter()
        writer.u64(time)
        return SecureBytes(unwipedCopyOf: writer.bytes)
    }

    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public static func time(_ plaintext: SecureBytes) throws(VaultFormatError) -> UInt64 {
        try parsing(plaintext.unprotectedArray()) { reader in
            let time = try reader.u64("deletion time")
            try reader.expectEnd("trailing bytes")
            return time
        }
    }
}
