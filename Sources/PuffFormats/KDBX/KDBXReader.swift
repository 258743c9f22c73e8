// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Reads KeePass databases, KDBX 3.1 (AES-KDF, AES-256, Salsa20 inner stream, as keepassxc-cli
/// creates them) and KDBX 4 (Argon2d/Argon2id or AES-KDF, AES-256 or ChaCha20, ChaCha20 inner
/// stream, as pykeepass and KeePassXC's GUI create them), with a password only (no key file).
/// The mapping is in docs/migration.md.
public enum KDBXReader: ForeignFileReader {
    public static let format = ForeignFormat.kdbx

    public static func recognises(_ prefix: [UInt8]) -> Bool {
        KDBXHeader.hasSignature(prefix)
    }

    /// Always: even a database made without a password is opened with "none" said explicitly.
    public static func needsPasscode(_ bytes: [UInt8]) -> Bool { true }

    /// Opens the database; `passcode` nil means a database made with no password at all. An empty
    /// passcode that does not open it is tried as no password, since KeePassXC and pykeepass make
    /// a database "without a password" when given an empty one.
    public static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection {
        do {
            return try open(bytes, passcode: passcode)
        } catch .wrongPasscode where passcode?.isEmpty == true {
            return try open(bytes, passcode: nil)
        }
    }

    private static func open(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection
    {
        try withBytes(of: bytes) { (raw: UnsafeRawBufferPointer) throws(ForeignFormatError) -> PortableCollection in
            var cursor = ByteCursor(raw)
            let header = try KDBXHeader.read(&cursor)
            let keys = try KDBXKeys(passcode: passcode, header: header)
            let document: KDBXDocument
            let pool: [Int: SecureBytes]
            if header.major == 4 {
                (document, pool) = try readVersion4(&cursor, header: header, keys: keys)
            } else {
                document = try readVersion3(&cursor, header: header, keys: keys)
                pool = document.metaBinaries
            }
            return try KDBXMapping.collection(document, pool: pool)
        }
    }

    private static func readVersion4(
        _ cursor: inout ByteCursor, header: KDBXHeader, keys: KDBXKeys
    ) throws(ForeignFormatError) -> (KDBXDocument, [Int: SecureBytes]) {
        let sha = try cursor.array(32, "header hash")
        guard digestsEqual(sha, try digest(header.bytes)) else { throw .damaged("the header fails its SHA-256") }
        let mac = try cursor.array(32, "header HMAC")
        guard digestsEqual(mac, try keys.headerHMAC(header.bytes)) else { throw .wrongPasscode }
        let ciphertext = try KDBXBlocks.readHMACStream(&cursor, keys: keys)
        let plain = try decrypt(ciphertext, header: header, keys: keys)
        let inflated = try inflate(plain, header: header)
        return try inflated.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(ForeignFormatError) in
            var inner = ByteCursor(raw)
            var streamID: UInt32 = 0
            var streamKey: SecureBytes = .empty
            var pool: [Int: SecureBytes] = [:]
            reading: while true {
                let type = try inner.uint8("inner header")
                let field = try inner.bytes(Int(try inner.uint32("inner header")), "inner header field \(type)")
                switch type {
                case 0: break reading
                case 1:
                    guard field.count == 4 else { throw .damaged("the inner stream ID is not 4 bytes") }
                    streamID = field.reversed().reduce(0) { $0 << 8 | UInt32($1) }
                case 2: streamKey = SecureBytes(copying: field)
                case 3:
                    // One flags byte (bit 0: protect in memory), then the attachment's bytes.
                    guard !field.isEmpty else { throw .damaged("an inner attachment has no flags byte") }
                    pool[pool.count] = SecureBytes(copying: UnsafeRawBufferPointer(rebasing: field[1...]))
                default: break
                }
            }
            let stream = try innerStream(streamID, key: streamKey)
            let xml = UnsafeRawBufferPointer(rebasing: raw[inner.position...])
            return (try KDBXXMLParser.parse(xml, stream: stream), pool)
        }
    }

    private static func readVersion3(
        _ cursor: inout ByteCursor, header: KDBXHeader, keys: KDBXKeys
    ) throws(ForeignFormatError) -> KDBXDocument {
        let ciphertext = try cursor.array(cursor.remaining, "payload")
        // KDBX 3.1 has no header HMAC: the 32 start bytes, the first two blocks, are what tells the
        // key. Checked before the padding, so a file cut short (bad padding under the right key)
        // reads as damaged, not as a wrong password.
        // ChaCha20 has no padding to fail, so the check after decryption below suffices for it.
        if header.cipher == .aes256 { try checkAESStartBytes(ciphertext, header: header, keys: keys) }
        let plain = try decrypt(ciphertext, header: header, keys: keys)
        let startMatches =
            plain.count >= 32
            && plain.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                digestsEqual(Array(bytes[0..<32]), header.streamStartBytes)
            }
        guard startMatches else { throw .wrongPasscode }
        let joined = try KDBXBlocks.readHashedStream(plain, from: 32)
        let inflated = try inflate(joined, header: header)
        let stream = try innerStream(header.innerStreamID, key: SecureBytes(unwipedCopyOf: header.protectedStreamKey))
        return try inflated.withUnsafeBytes { (xml: UnsafeRawBufferPointer) throws(ForeignFormatError) in
            try KDBXXMLParser.parse(xml, stream: stream)
        }
    }

    /// Throws ``ForeignFormatError/wrongPasscode`` unless the payload's first 32 bytes decrypt to
    /// the header's stream start bytes; ``ForeignFormatError/damaged(_:)`` when there are not 32.
    private static func checkAESStartBytes(
        _ ciphertext: [UInt8], header: KDBXHeader, keys: KDBXKeys
    ) throws(ForeignFormatError) {
        guard ciphertext.count >= 32 else {
            throw .damaged("the payload is shorter than its start bytes")
        }
        let start: SecureBytes
        do {
            start = try AESCBC.decrypt(
                Array(ciphertext[0..<32]), key: keys.cipherKey, iv: header.encryptionIV, padding: .none)
        } catch { throw .damaged("the payload does not decrypt (\(error))") }
        let matches = start.withUnsafeBytes { digestsEqual(Array($0), header.streamStartBytes) }
        guard matches else { throw .wrongPasscode }
    }

    private static func decrypt(
        _ ciphertext: [UInt8], header: KDBXHeader, keys: KDBXKeys
    ) throws(ForeignFormatError) -> SecureBytes {
        do throws(CryptoError) {
            switch header.cipher {
            case .aes256:
                return try AESCBC.decrypt(ciphertext, key: keys.cipherKey, iv: header.encryptionIV, padding: .pkcs7)
            case .chacha20:
                var stream = try StreamCipher(.chacha20, key: keys.cipherKey, nonce: header.encryptionIV)
                return try stream.decrypt(ciphertext)
            }
        } catch {
            throw .damaged("the payload does not decrypt (\(error))")
        }
    }

    private static func inflate(_ plain: SecureBytes, header: KDBXHeader) throws(ForeignFormatError) -> SecureBytes {
        guard header.compressed else { return plain }
        do {
            return try Gzip.decompress(plain, limit: ForeignInflateLimit.bytes(forCompressed: plain.count))
        } catch { throw .damaged("the payload does not decompress (\(error))") }
    }

    /// The inner stream that hides protected values: 2 = Salsa20 (key SHA-256 of the stream key,
    /// KeePass's fixed nonce), 3 = ChaCha20 (key and nonce from SHA-512 of the stream key).
    static func innerStream(_ id: UInt32, key: SecureBytes) throws(ForeignFormatError) -> StreamCipher? {
        switch id {
        case 0, 2, 3: break
        case 1: throw .unsupported("the ArcFour inner stream")
        default: throw .unsupported("inner stream \(id)")
        }
        do throws(CryptoError) {
            switch id {
            case 2:
                let streamKey = try ForeignDigest.hash(.sha256, secret: [key])
                return try StreamCipher(
                    .salsa20, key: streamKey, nonce: [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A])
            case 3:
                let hash = try ForeignDigest.hash(.sha512, secret: [key])
                return try hash.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(CryptoError) in
                    try StreamCipher(
                        .chacha20, key: SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<32])),
                        nonce: Array(bytes[32..<44]))
                }
            default: return nil
            }
        } catch {
            throw .damaged("the inner stream key is unusable (\(error))")
        }
    }

    static func digest(_ bytes: [UInt8]) throws(ForeignFormatError) -> [UInt8] {
        do { return try ForeignDigest.hash(.sha256, bytes) } catch { throw .damaged("hashing failed (\(error))") }
    }
}
