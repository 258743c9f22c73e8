// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a binary keyring (version 0) that gnome-keyring-daemon unlocks and serves with every
/// item's label, attributes and secret exact (docs/migration.md, "gnome-keyring binary").
extension GnomeKeyringBinary: ForeignFileWriter {
    /// SHA-256 rounds of the key derivation. gnome-keyring picks 1000-4095 when it saves; a file
    /// that sits on a disk as an export gets more (gnome-keyring reads any count, and rewrites
    /// with its own at its next save).
    public static let exportIterations: UInt32 = 100_000

    /// The file's bytes, encrypted under `passcode`.
    ///
    /// - Throws: ``ForeignFormatError/cannotCross(_:)`` for a label, attribute name or value
    ///   holding a NUL character (gnome-keyring's strings cannot), an attribute name of
    ///   gnome-keyring's own `gkr:compat:` space other than a uint32 marker, or more than 2³² items.
    public static func write(_ collection: PortableCollection, passcode: SecureBytes) throws(ForeignFormatError)
        -> [UInt8]
    {
        try write(collection, passcode: passcode, iterations: exportIterations, salt: SecureRandom.bytes(8))
    }

    /// ``write(_:passcode:)`` with a chosen iteration count and salt (tests).
    static func write(
        _ collection: PortableCollection, passcode: SecureBytes, iterations: UInt32, salt: [UInt8]
    ) throws(ForeignFormatError) -> [UInt8] {
        guard collection.items.count < Int(UInt32.max) else { throw .cannotCross("more than 2^32 items") }
        let now = UInt64(max(0, time(nil)))
        let items = try collection.items.enumerated().map { (index, item) throws(ForeignFormatError) in
            try Prepared(item, number: index + 1)
        }
        try checkText(collection.label, "the collection's name")

        var file = magic
        file.append(contentsOf: [0, 0, 0, 0])  // version 0.0, AES, MD5
        file.appendString(collection.label)
        // gnome-keyring reads the first time as Created (its own writer swaps them).
        file.appendTime(collection.created ?? now)
        file.appendTime(collection.modified ?? collection.created ?? now)
        file.appendUInt32(0)  // flags: no lock on idle, no lock after
        file.appendUInt32(0)  // lock timeout
        file.appendUInt32(iterations)
        file.append(contentsOf: salt)
        for _ in 0..<4 { file.appendUInt32(0) }
        file.appendUInt32(UInt32(items.count))
        for (index, item) in items.enumerated() {
            file.appendUInt32(UInt32(index + 1))  // gnome-keyring's ids are numbers
            file.appendUInt32(item.type)
            file.appendUInt32(UInt32(item.attributes.count))
            for attribute in item.attributes {
                file.appendString(attribute.name)
                switch try GnomeKeyringFields.hashed(attribute.value) {
                case .string(let hash):
                    file.appendUInt32(0)
                    file.appendString(hash)
                case .uint32(let hash):
                    file.appendUInt32(1)
                    file.appendUInt32(hash)
                }
            }
        }
        let body = SecureBytes(count: items.reduce(0) { $0 + $1.encryptedSize }) { output in
            var writer = GnomeKeyringBufferWriter(output)
            for item in items { item.write(into: &writer, now: now) }
        }
        let ciphertext = try GnomeKeyringCipher.seal(body, passcode: passcode, salt: salt, iterations: iterations)
        file.appendUInt32(UInt32(ciphertext.count))
        file.append(contentsOf: ciphertext)
        return file
    }

    static func checkText(_ text: String, _ what: @autoclosure () -> String) throws(ForeignFormatError) {
        if text.utf8.contains(0) { throw .cannotCross("\(what()) holds a NUL character") }
    }

    /// One item checked and laid out for writing.
    struct Prepared {
        let item: PortableItem
        let type: UInt32
        let attributes: [(name: String, value: GnomeKeyringFields.Value)]

        init(_ item: PortableItem, number: Int) throws(ForeignFormatError) {
            let name = "item \(number)"
            try checkText(item.label, "\(name)'s label")
            for (attribute, value) in item.attributes {
                try checkText(attribute, "\(name)'s attribute name")
                try checkText(value, "\(name)'s attribute value")
                if attribute.hasPrefix(GnomeKeyringFields.compatPrefix) {
                    let base = attribute.dropFirst(GnomeKeyringFields.uint32Prefix.count)
                    guard attribute.hasPrefix(GnomeKeyringFields.uint32Prefix), value.isEmpty,
                        let number = item.attributes[String(base)], GnomeKeyringFields.decimalUInt32(number) != nil
                    else {
                        throw .cannotCross("\(name)'s attribute \(attribute) is a name gnome-keyring keeps for itself")
                    }
                }
            }
            guard item.secret.count < Int(GnomeKeyringBufferReader.lengthLimit) else {
                throw .cannotCross("\(name)'s secret is 2 GiB or more")
            }
            self.item = item
            attributes = GnomeKeyringFields.stored(item.attributes)
            type = GnomeKeyringFields.type(forSchema: item.attributes[GnomeKeyringFields.schema])
        }

        /// The bytes ``write(into:now:)`` writes.
        var encryptedSize: Int {
            let attributeBytes = attributes.reduce(0) { total, attribute in
                switch attribute.value {
                case .uint32: total + 4 + attribute.name.utf8.count + 4 + 4
                case .string(let text): total + 4 + attribute.name.utf8.count + 4 + 4 + text.utf8.count
                }
            }
            // label, secret, two times, NULL reserved string, 4 reserved words, attributes, ACL count
            return 4 + item.label.utf8.count + 4 + item.secret.count + 16 + 4 + 16 + 4 + attributeBytes + 4
        }

        func write(into writer: inout GnomeKeyringBufferWriter, now: UInt64) {
            writer.string(item.label)
            item.secret.withUnsafeBytes { writer.byteArray($0) }
            writer.time(item.created ?? now)
            writer.time(item.modified ?? item.created ?? now)
            writer.string(nil)
            for _ in 0..<4 { writer.uint32(0) }
            writer.uint32(UInt32(attributes.count))
            for attribute in attributes {
                writer.string(attribute.name)
                switch attribute.value {
                case .string(let text):
                    writer.uint32(0)
                    writer.string(text)
                case .uint32(let number):
                    writer.uint32(1)
                    writer.uint32(number)
                }
            }
            writer.uint32(0)  // no access list
        }
    }
}
