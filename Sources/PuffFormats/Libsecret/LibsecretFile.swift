// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto

/// libsecret's file backend and oo7's keyrings, file format version 1 (docs/migration.md):
/// the 16-byte magic `GnomeKeyring\n\r\0\n`, version bytes 1 and 0, then one GVariant
/// `(uayutua(a{say}ay))`: salt size, salt, PBKDF2 rounds, modified time, usage count, and the
/// items, each its attributes' names with HMACs of their values and one encrypted blob.
/// The key is PBKDF2-HMAC-SHA256 of the password (16 bytes); a blob is AES-128-CBC ciphertext of
/// the GVariant `(a{ss}sttay)` (attributes, label, created, modified, secret), then its IV, then
/// HMAC-SHA256 over ciphertext and IV.
public enum LibsecretFile: ForeignFileReader, ForeignFileWriter {
    public static let format = ForeignFormat.libsecret

    /// The magic both gnome-keyring's binary keyrings and this format begin with.
    static let magic: [UInt8] = Array("GnomeKeyring\n\r\u{0}\n".utf8)
    /// Format version 1.0: what sets this format apart from gnome-keyring's (version 0).
    static let version: [UInt8] = [1, 0]
    static let fileType = GVariantType.tuple([
        .uint32, .array(.byte), .uint32, .uint64, .uint32, .array(itemType),
    ])
    static let itemType = GVariantType.tuple([.array(.dictEntry(.string, .array(.byte))), .array(.byte)])
    static let plaintextType = GVariantType.tuple([
        .array(.dictEntry(.string, .string)), .string, .uint64, .uint64, .array(.byte),
    ])
    static let keySize = 16
    static let macSize = 32
    static let saltSize = 32
    /// libsecret's and oo7's count.
    static let iterations = 100_000
    /// oo7 keeps a secret's content type in this attribute; it becomes the item's content type.
    static let contentTypeAttribute = "xdg:content-type"

    public static func recognises(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: magic + version)
    }

    public static func needsPasscode(_ bytes: [UInt8]) -> Bool { true }

    public static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection {
        guard bytes.starts(with: magic), bytes.count >= magic.count + 2 else { throw .notThisFormat(format) }
        guard bytes[magic.count..<magic.count + 2].elementsEqual(version) else {
            if bytes[magic.count] == 0 { throw .notThisFormat(format) }  // gnome-keyring's own format
            throw .unsupported("libsecret file version \(bytes[magic.count]).\(bytes[magic.count + 1])")
        }
        guard let passcode else { throw .wrongPasscode }
        let header = try readHeader(bytes)
        let key: SecureBytes
        do {
            key = try ForeignDigest.pbkdf2(
                .sha256, passcode: passcode, salt: header.salt, iterations: header.iterations, length: keySize)
        } catch { throw .unsupported("key derivation failed: \(error)") }
        var items: [PortableItem] = []
        let progress = ReadProgress.current
        for (index, blob) in header.blobs.enumerated() {
            progress?(.items, index, of: header.blobs.count)
            guard let plaintext = try open(blob, key: key, index: index) else {
                // Every blob is sealed under the one key: none opening is a wrong password, the
                // first opening and a later one not is damage.
                if index > 0 { throw .damaged("item \(index + 1) fails its integrity check") }
                try requireNoneOpen(header.blobs.dropFirst(), key: key)
                throw .wrongPasscode
            }
            items.append(try item(from: plaintext, index: index))
        }
        progress?(.items, items.count, of: header.blobs.count)
        return PortableCollection(label: "", items: items, modified: header.modified)
    }

    public static func write(_ collection: PortableCollection, passcode: SecureBytes) throws(ForeignFormatError)
        -> [UInt8]
    {
        try write(collection, passcode: passcode, iterations: iterations)
    }

    /// ``write(_:passcode:)`` with another round count (the fuzzer's cheap seeds).
    static func write(
        _ collection: PortableCollection, passcode: SecureBytes, iterations: Int
    ) throws(ForeignFormatError) -> [UInt8] {
        let salt = SecureRandom.bytes(saltSize)
        let key: SecureBytes
        do {
            key = try ForeignDigest.pbkdf2(
                .sha256, passcode: passcode, salt: salt, iterations: iterations, length: keySize)
        } catch { throw .cannotCross("key derivation failed: \(error)") }
        let now = UInt64(max(0, time(nil)))
        var items: [GVariantValue] = []
        for (index, item) in collection.items.enumerated() {
            items.append(try sealed(item, index: index, key: key, now: now))
        }
        let file = GVariantValue.tuple([
            .uint32(UInt32(saltSize)), .bytes(salt), .uint32(UInt32(iterations)),
            .uint64(collection.modified ?? now), .uint32(UInt32(clamping: items.count)),
            .array(itemType, items),
        ])
        return magic + version + GVariantEncoder.encode(file)
    }
}
