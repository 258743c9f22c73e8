// SPDX-License-Identifier: Apache-2.0
import Glibc
public import PuffCrypto

/// Writes a collection as a KDBX 4.0 database that KeePassXC (`keepassxc-cli`) and pykeepass open:
/// Argon2id or Argon2d, AES-256 or ChaCha20, gzip, ChaCha20 inner stream. Labels are titles,
/// `user` and `url` the UserName and URL fields, other attributes custom fields; a text/plain
/// secret is the Password, any other the `FDO_SECRETS_DATA` attachment with its content type in
/// `FDO_SECRETS_CONTENT_TYPE`, as KeePassXC's own Secret Service stores it (docs/migration.md).
public enum KDBXWriter: ForeignFileWriter {
    /// How the file is protected.
    public struct Settings: Sendable {
        /// The payload cipher.
        public enum Cipher: Sendable { case aes256, chacha20 }

        public var argon2: Argon2.Variant
        public var parameters: Argon2.Parameters
        public var cipher: Cipher

        public init(argon2: Argon2.Variant, parameters: Argon2.Parameters, cipher: Cipher) {
            self.argon2 = argon2
            self.parameters = parameters
            self.cipher = cipher
        }

        /// Argon2id, 64 MiB, 8 passes, 2 lanes; AES-256.
        public static let standard = Settings(
            argon2: .id, parameters: Argon2.Parameters(iterations: 8, memoryKiB: 65536, parallelism: 2),
            cipher: .aes256)
    }

    public static let format = ForeignFormat.kdbx

    public static func write(_ collection: PortableCollection, passcode: SecureBytes) throws(ForeignFormatError)
        -> [UInt8]
    {
        try write(collection, passcode: passcode, settings: .standard)
    }

    /// The names KeePass gives its own fields; an attribute by one of these names has no place.
    static let reservedNames = KDBXDocument.standardFields

    /// Whether the item's secret goes into the Password field: text/plain exactly, valid UTF-8,
    /// and only characters XML allows (pykeepass drops the others from protected values).
    static func fitsPasswordField(_ item: PortableItem) -> Bool {
        guard item.contentType == "text/plain", item.secret.isValidUTF8 else { return false }
        return item.secret.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            // Checked on the bytes, so no String copy of the secret is made: a byte below 0x20
            // other than tab, LF and CR is the only way valid UTF-8 can hold a character XML
            // refuses, apart from U+FFFE and U+FFFF (EF BF BE, EF BF BF).
            for (index, byte) in bytes.enumerated() {
                if byte < 0x20 && byte != 0x9 && byte != 0xA && byte != 0xD { return false }
                if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                    return false
                }
            }
            return true
        }
    }

    /// Refuses, before anything is written, what cannot cross into KDBX.
    static func check(_ collection: PortableCollection) throws(ForeignFormatError) {
        guard KDBXXMLWriter.isXMLSafe(collection.label) else {
            throw .cannotCross("the collection's name holds a character XML cannot carry")
        }
        for (index, item) in collection.items.enumerated() {
            let which = "item \(index + 1)"
            guard KDBXXMLWriter.isXMLSafe(item.label) else {
                throw .cannotCross("\(which)'s label holds a character XML cannot carry")
            }
            guard KDBXXMLWriter.isXMLSafe(item.contentType) else {
                throw .cannotCross("\(which)'s content type holds a character XML cannot carry")
            }
            for (name, value) in item.attributes {
                guard !name.isEmpty else { throw .cannotCross("\(which) has an attribute with an empty name") }
                guard !reservedNames.contains(name) else {
                    throw .cannotCross("\(which) has an attribute named \(name), which is a KeePass field")
                }
                guard KDBXXMLWriter.isXMLSafe(name), KDBXXMLWriter.isXMLSafe(value) else {
                    throw .cannotCross("\(which) has an attribute holding a character XML cannot carry")
                }
                if name == KDBXMapping.contentTypeField && !fitsPasswordField(item) {
                    throw .cannotCross("\(which) has an attribute named \(name), which KeePassXC uses itself")
                }
            }
        }
    }

    /// The file, with explicit settings (tests use cheap ones).
    public static func write(
        _ collection: PortableCollection, passcode: SecureBytes, settings: Settings, now: UInt64? = nil
    ) throws(ForeignFormatError) -> [UInt8] {
        try check(collection)
        let cipher: KDBXHeader.Cipher = settings.cipher == .aes256 ? .aes256 : .chacha20
        let salt = SecureRandom.bytes(32)
        let kdfID = settings.argon2 == .d ? KDBXHeader.KDF.argon2dID : KDBXHeader.KDF.argon2idID
        let kdfParameters = VariantDictionary.write([
            ("$UUID", .bytes(kdfID)), ("S", .bytes(salt)), ("P", .uint32(settings.parameters.parallelism)),
            ("M", .uint64(UInt64(settings.parameters.memoryKiB) * 1024)),
            ("I", .uint64(UInt64(settings.parameters.iterations))), ("V", .uint32(settings.parameters.version)),
        ])
        var header = KDBXHeader(
            major: 4, minor: 0, cipher: cipher, compressed: true, masterSeed: SecureRandom.bytes(32),
            encryptionIV: SecureRandom.bytes(cipher.ivLength),
            kdf: .argon2(settings.argon2, salt: salt, parameters: settings.parameters))
        header.bytes = headerBytes(header, kdfParameters: kdfParameters)
        let keys = try KDBXKeys(passcode: passcode, header: header)

        let streamKey = SecureRandom.secureBytes(64)
        guard let stream = try KDBXReader.innerStream(3, key: streamKey) else { throw .cannotCross("inner stream") }
        var document = KDBXXMLWriter(stream: stream, now: now ?? currentTime())
        try document.write(collection)
        let payload = innerHeader(streamKey: streamKey, pool: document.pool, xml: Array(document.xml.utf8))
        let compressed: SecureBytes
        do { compressed = try Gzip.compress(payload) } catch { throw .cannotCross("gzip failed (\(error))") }
        let ciphertext: [UInt8]
        do throws(CryptoError) {
            switch cipher {
            case .aes256:
                ciphertext = try AESCBC.encrypt(
                    compressed, key: keys.cipherKey, iv: header.encryptionIV, padding: .pkcs7)
            case .chacha20:
                var payloadStream = try StreamCipher(.chacha20, key: keys.cipherKey, nonce: header.encryptionIV)
                ciphertext = try payloadStream.encrypt(compressed)
            }
        } catch {
            throw .cannotCross("encryption failed (\(error))")
        }
        return header.bytes + (try KDBXReader.digest(header.bytes)) + (try keys.headerHMAC(header.bytes))
            + (try KDBXBlocks.writeHMACStream(ciphertext, keys: keys))
    }

    private static func headerBytes(_ header: KDBXHeader, kdfParameters: [UInt8]) -> [UInt8] {
        var out = LittleEndian.bytes(KDBXHeader.signature1) + LittleEndian.bytes(KDBXHeader.signature2)
        out += LittleEndian.bytes(UInt16(0)) + LittleEndian.bytes(UInt16(4))
        let fields: [(UInt8, [UInt8])] = [
            (2, header.cipher.id), (3, [1, 0, 0, 0]), (4, header.masterSeed), (7, header.encryptionIV),
            (11, kdfParameters), (0, [0x0D, 0x0A, 0x0D, 0x0A]),
        ]
        for (id, value) in fields { out += [id] + LittleEndian.bytes(UInt32(value.count)) + value }
        return out
    }

    /// The inner header (ChaCha20 stream ID and key, the attachments) followed by the XML, in
    /// secure memory: the attachments are secrets.
    private static func innerHeader(streamKey: SecureBytes, pool: [SecureBytes], xml: [UInt8]) -> SecureBytes {
        let total = 9 + 5 + streamKey.count + pool.reduce(0) { $0 + 6 + $1.count } + 5 + xml.count
        return SecureBytes(count: total) { (out: UnsafeMutableRawBufferPointer) in
            var at = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: out[at..<(at + bytes.count)]).copyMemory(from: bytes)
                at += bytes.count
            }
            func put(_ bytes: [UInt8]) { bytes.withUnsafeBytes { put($0) } }
            put([1] + LittleEndian.bytes(UInt32(4)) + LittleEndian.bytes(UInt32(3)))
            put([2] + LittleEndian.bytes(UInt32(streamKey.count)))
            streamKey.withUnsafeBytes { put($0) }
            for data in pool {
                put([3] + LittleEndian.bytes(UInt32(data.count + 1)) + [1])
                data.withUnsafeBytes { put($0) }
            }
            put([0] + LittleEndian.bytes(UInt32(0)))
            put(xml)
        }
    }

    private static func currentTime() -> UInt64 {
        UInt64(max(0, time(nil)))
    }
}
