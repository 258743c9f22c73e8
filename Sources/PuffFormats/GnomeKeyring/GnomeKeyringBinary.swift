// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// gnome-keyring's binary keyring file, version 0 (`~/.local/share/keyrings/NAME.keyring` of a
/// collection with a password), read as gnome-keyring 42 reads it (gkm-secret-binary.c): what
/// ``read(_:passcode:)`` returns is what a gnome-keyring-daemon unlocking the file serves over
/// D-Bus (docs/migration.md, "gnome-keyring binary").
public enum GnomeKeyringBinary: ForeignFileReader {
    public static let format = ForeignFormat.gnomeKeyring

    /// The file's first 16 bytes.
    static let magic: [UInt8] = Array("GnomeKeyring\n\r\u{0}\n".utf8)

    /// The content type gnome-keyring serves for every secret: it keeps none in its files.
    public static let contentType = "text/plain"

    /// The magic and major version 0: libsecret's file format shares the magic with version 1.
    public static func recognises(_ prefix: [UInt8]) -> Bool { prefix.starts(with: magic + [0]) }

    public static func needsPasscode(_ bytes: [UInt8]) -> Bool { true }

    /// The clear part of a file: the header and each item's id and type.
    struct Header {
        var label: String?
        var created: UInt64
        var modified: UInt64
        var iterations: UInt32
        var salt: [UInt8]
        var items: [(id: UInt32, type: UInt32)]
        var ciphertext: [UInt8]
    }

    /// Reads the whole file; a nil passcode is tried as the empty password, as gnome-keyring does.
    ///
    /// - Throws: ``ForeignFormatError/notThisFormat(_:)`` without the magic,
    ///   ``ForeignFormatError/unsupported(_:)`` for another version or cipher,
    ///   ``ForeignFormatError/wrongPasscode`` when the MD5 check fails,
    ///   ``ForeignFormatError/damaged(_:)`` naming the part and byte that does not parse.
    public static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection {
        let header = try readHeader(bytes)
        let plaintext = try GnomeKeyringCipher.open(
            header.ciphertext, passcode: passcode, salt: header.salt, iterations: header.iterations)
        let items = try plaintext.withUnsafeBytes { (decrypted: UnsafeRawBufferPointer) throws(ForeignFormatError) in
            var reader = GnomeKeyringBufferReader(decrypted, offset: 16, part: "the encrypted part")
            var items: [PortableItem] = []
            let progress = ReadProgress.current
            for (index, clear) in header.items.enumerated() {
                progress?(.items, index, of: header.items.count)
                items.append(try readItem(&reader, type: clear.type, number: index + 1, of: header.items.count))
            }
            progress?(.items, items.count, of: header.items.count)
            return items
        }
        // gnome-keyring reads the header's first time as Created; its writer puts Modified there
        // (docs/migration.md), so what it serves swaps at each save. Served is what is read.
        return PortableCollection(
            label: header.label ?? "", items: items, created: header.created, modified: header.modified)
    }

    static func readHeader(_ bytes: [UInt8]) throws(ForeignFormatError) -> Header {
        guard bytes.starts(with: magic) else { throw .notThisFormat(.gnomeKeyring) }
        return try withBytes(of: bytes) { (raw: UnsafeRawBufferPointer) throws(ForeignFormatError) -> Header in
            var reader = GnomeKeyringBufferReader(raw, offset: magic.count, part: "the header")
            guard reader.remaining >= 4 else { throw reader.damage("the version is cut off") }
            let version = Array(raw[magic.count..<magic.count + 4])
            guard version == [0, 0, 0, 0] else {
                throw .unsupported(
                    "gnome-keyring file version \(version[0]).\(version[1]), cipher \(version[2]), hash \(version[3])")
            }
            try reader.skip(4, "the version")
            let label = try reader.string("the keyring's name")
            let created = try reader.time("the keyring's first time")
            let modified = try reader.time("the keyring's second time")
            _ = try reader.uint32("the flags")
            _ = try reader.uint32("the lock timeout")
            let iterations = try reader.uint32("the hash iteration count")
            // Checked before the salt: a planted file must not hold puffctl for hours of SHA-256.
            guard iterations <= ForeignKDFLimits.gnomeKeyringIterations else {
                throw .unsupported("\(iterations) hash iterations")
            }
            guard reader.remaining >= GnomeKeyringCipher.saltLength else { throw reader.damage("the salt is cut off") }
            let salt = Array(raw[reader.offset..<reader.offset + GnomeKeyringCipher.saltLength])
            try reader.skip(GnomeKeyringCipher.saltLength, "the salt")
            try reader.skip(16, "the reserved words")
            let count = try reader.uint32("the item count")
            var items: [(id: UInt32, type: UInt32)] = []
            reader = GnomeKeyringBufferReader(reader.bytes, offset: reader.offset, part: "the clear item list")
            for number in stride(from: 1, through: Int(count), by: 1) {
                let id = try reader.uint32("item \(number)'s id")
                let type = try reader.uint32("item \(number)'s type")
                _ = try readAttributes(&reader, of: "item \(number)")
                items.append((id, type))
            }
            reader = GnomeKeyringBufferReader(reader.bytes, offset: reader.offset, part: "the file")
            let size = try reader.uint32("the encrypted part's size")
            guard size % 16 == 0 else { throw reader.damage("the encrypted part's size \(size) is not whole blocks") }
            guard Int(size) <= reader.remaining else {
                throw reader.damage("the encrypted part is cut off (\(reader.remaining) of \(size) bytes)")
            }
            let ciphertext = Array(raw[reader.offset..<reader.offset + Int(size)])
            return Header(
                label: label, created: created, modified: modified, iterations: iterations, salt: salt,
                items: items, ciphertext: ciphertext)
        }
    }

    /// One item of the decrypted part, mapped as gnome-keyring serves it.
    static func readItem(
        _ reader: inout GnomeKeyringBufferReader, type: UInt32, number: Int, of count: Int
    ) throws(ForeignFormatError) -> PortableItem {
        let name = "item \(number) of \(count)"
        let label = try reader.string("\(name)'s label")
        let secretBytes = try reader.byteArray("\(name)'s secret")
        let secret = secretBytes.map { SecureBytes(copying: $0) } ?? .empty
        let created = try reader.time("\(name)'s created time")
        let modified = try reader.time("\(name)'s modified time")
        _ = try reader.string("\(name)'s reserved string")
        try reader.skip(16, "\(name)'s reserved words")
        let stored = try readAttributes(&reader, of: name)
        let accessCount = try reader.uint32("\(name)'s access list")
        for entry in 0..<accessCount {
            _ = try reader.uint32("\(name)'s access entry \(entry + 1)")
            for field in ["name", "path", "reserved string"] {
                _ = try reader.string("\(name)'s access entry \(entry + 1) \(field)")
            }
            _ = try reader.uint32("\(name)'s access entry \(entry + 1)")
        }
        return PortableItem(
            label: label ?? "", attributes: GnomeKeyringFields.served(stored, type: type), secret: secret,
            contentType: contentType, created: created, modified: modified,
            leftBehind: accessCount == 0 ? [] : ["an access list of \(accessCount) application(s)"])
    }

    /// An attribute list; attributes without a name are left out, as gnome-keyring leaves them.
    static func readAttributes(
        _ reader: inout GnomeKeyringBufferReader, of name: String
    ) throws(ForeignFormatError) -> [(name: String, value: GnomeKeyringFields.Value?)] {
        let count = try reader.uint32("\(name)'s attribute count")
        var attributes: [(name: String, value: GnomeKeyringFields.Value?)] = []
        for index in 0..<count {
            let what = "\(name)'s attribute \(index + 1)"
            let attributeName = try reader.string("\(what)'s name")
            let value: GnomeKeyringFields.Value?
            switch try reader.uint32("\(what)'s type") {
            case 0: value = try reader.string("\(what)'s value").map { .string($0) }
            case 1: value = .uint32(try reader.uint32("\(what)'s value"))
            case let other: throw reader.damage("\(what) has the unknown type \(other)")
            }
            if let attributeName { attributes.append((attributeName, value)) }
        }
        return attributes
    }
}
