// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The clear outer header of a KDBX file (3.1 and 4), as KeePassXC's Kdbx3Reader/Kdbx4Reader and
/// pykeepass read it: signatures, version, then type-length-value fields up to an end field.
struct KDBXHeader {
    /// The payload cipher.
    enum Cipher: Equatable {
        case aes256, chacha20

        static let aes256ID: [UInt8] = [
            0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF,
        ]
        static let chacha20ID: [UInt8] = [
            0xD6, 0x03, 0x8A, 0x2B, 0x8B, 0x6F, 0x4C, 0xB5, 0xA5, 0x24, 0x33, 0x9A, 0x31, 0xDB, 0xB5, 0x9A,
        ]
        static let twofishID: [UInt8] = [
            0xAD, 0x68, 0xF2, 0x9F, 0x57, 0x6F, 0x4B, 0xB9, 0xA3, 0x6A, 0xD4, 0x7A, 0xF9, 0x65, 0x34, 0x6C,
        ]

        var id: [UInt8] { self == .aes256 ? Self.aes256ID : Self.chacha20ID }
        var ivLength: Int { self == .aes256 ? 16 : 12 }
    }

    /// The key derivation.
    enum KDF: Equatable {
        case aes(seed: [UInt8], rounds: UInt64)
        case argon2(Argon2.Variant, salt: [UInt8], parameters: Argon2.Parameters)

        static let aesID: [UInt8] = [
            0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA,
        ]
        static let argon2dID: [UInt8] = [
            0xEF, 0x63, 0x6D, 0xDF, 0x8C, 0x29, 0x44, 0x4B, 0x91, 0xF7, 0xA9, 0xA4, 0x03, 0xE3, 0x0A, 0x0C,
        ]
        static let argon2idID: [UInt8] = [
            0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6,
        ]
    }

    static let signature1: UInt32 = 0x9AA2_D903
    static let signature2: UInt32 = 0xB54B_FB67
    /// KeePass 1.x (.kdb) shares the first signature.
    static let signatureKDB: UInt32 = 0xB54B_FB65

    var major: UInt16
    var minor: UInt16
    var cipher: Cipher
    var compressed: Bool
    var masterSeed: [UInt8]
    var encryptionIV: [UInt8]
    var kdf: KDF
    /// KDBX 3.1 only (KDBX 4 keeps these in the encrypted inner header).
    var protectedStreamKey: [UInt8] = []
    var streamStartBytes: [UInt8] = []
    var innerStreamID: UInt32 = 0
    /// The header's exact bytes, which SHA-256 and (KDBX 4) the HMAC cover.
    var bytes: [UInt8] = []

    /// A KDBX 4 header for the writer.
    init(
        major: UInt16, minor: UInt16, cipher: Cipher, compressed: Bool, masterSeed: [UInt8], encryptionIV: [UInt8],
        kdf: KDF
    ) {
        self.major = major
        self.minor = minor
        self.cipher = cipher
        self.compressed = compressed
        self.masterSeed = masterSeed
        self.encryptionIV = encryptionIV
        self.kdf = kdf
    }

    /// Whether `prefix` starts with the KDBX signatures (any version).
    static func hasSignature(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 8 && prefix[0..<4].elementsEqual(LittleEndian.bytes(signature1))
            && (prefix[4..<8].elementsEqual(LittleEndian.bytes(signature2))
                || prefix[4..<8].elementsEqual(LittleEndian.bytes(signatureKDB)))
    }

    /// Reads the header at the start of `file`; `cursor` is left just after it.
    static func read(_ cursor: inout ByteCursor) throws(ForeignFormatError) -> KDBXHeader {
        let start = cursor.position
        guard try cursor.uint32("signature") == signature1 else { throw .notThisFormat(.kdbx) }
        let second = try cursor.uint32("signature")
        if second == signatureKDB { throw .unsupported("KeePass 1 databases (.kdb)") }
        guard second == signature2 else { throw .notThisFormat(.kdbx) }
        let minor = try cursor.uint16("version")
        let major = try cursor.uint16("version")
        guard major == 3 || major == 4 else { throw .unsupported("KDBX version \(major).\(minor)") }
        var fields: [UInt8: [UInt8]] = [:]
        while true {
            let id = try cursor.uint8("header field")
            let length = major == 3 ? Int(try cursor.uint16("header field")) : Int(try cursor.uint32("header field"))
            let value = try cursor.array(length, "header field \(id)")
            if id == 0 { break }
            fields[id] = value
        }
        var header = try KDBXHeader(major: major, minor: minor, fields: fields)
        header.bytes = cursor.copy(start..<cursor.position)
        return header
    }

    private init(major: UInt16, minor: UInt16, fields: [UInt8: [UInt8]]) throws(ForeignFormatError) {
        self.major = major
        self.minor = minor
        guard let cipherID = fields[2] else { throw .damaged("the header names no cipher") }
        switch cipherID {
        case Cipher.aes256ID: cipher = .aes256
        case Cipher.chacha20ID: cipher = .chacha20
        case Cipher.twofishID: throw .unsupported("the Twofish cipher")
        default: throw .unsupported("an unknown cipher")
        }
        guard let flags = fields[3], flags.count == 4 else { throw .damaged("the compression field is missing") }
        switch flags[0] {
        case 0: compressed = false
        case 1: compressed = true
        default: throw .unsupported("compression algorithm \(flags[0])")
        }
        guard let seed = fields[4], seed.count == 32 else { throw .damaged("the master seed is not 32 bytes") }
        masterSeed = seed
        guard let iv = fields[7], iv.count == cipher.ivLength else {
            throw .damaged("the cipher's IV has the wrong size")
        }
        encryptionIV = iv
        if major == 3 {
            guard let transformSeed = fields[5], transformSeed.count == 32, let rounds = fields[6], rounds.count == 8
            else { throw .damaged("the AES-KDF seed or rounds are missing") }
            let count = rounds.reversed().reduce(0) { $0 << 8 | UInt64($1) }
            guard count <= UInt64(UInt32.max) else { throw .unsupported("more than 2^32-1 AES-KDF rounds") }
            kdf = .aes(seed: transformSeed, rounds: count)
            guard let streamKey = fields[8], let startBytes = fields[9], startBytes.count == 32,
                let streamID = fields[10],
                streamID.count == 4
            else { throw .damaged("the protected stream fields are missing") }
            protectedStreamKey = streamKey
            streamStartBytes = startBytes
            innerStreamID = streamID.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        } else {
            guard let parameters = fields[11] else { throw .damaged("the KDF parameters are missing") }
            kdf = try Self.readKDF(VariantDictionary.read(parameters))
        }
    }

    private static func readKDF(_ dictionary: [String: VariantDictionary.Value]) throws(ForeignFormatError) -> KDF {
        guard case .bytes(let uuid) = dictionary["$UUID"] else { throw .damaged("the KDF has no UUID") }
        switch uuid {
        case KDF.aesID:
            guard case .bytes(let seed) = dictionary["S"], seed.count == 32, case .uint64(let rounds) = dictionary["R"]
            else { throw .damaged("the AES-KDF parameters are incomplete") }
            guard rounds <= UInt64(UInt32.max) else { throw .unsupported("more than 2^32-1 AES-KDF rounds") }
            return .aes(seed: seed, rounds: rounds)
        case KDF.argon2dID, KDF.argon2idID:
            guard case .bytes(let salt) = dictionary["S"], case .uint64(let iterations) = dictionary["I"],
                case .uint64(let memory) = dictionary["M"], case .uint32(let lanes) = dictionary["P"],
                case .uint32(let version) = dictionary["V"]
            else { throw .damaged("the Argon2 parameters are incomplete") }
            // The header gives bytes; the library takes KiB. Costs no tool offers are refused, not
            // tried: a planted file could ask for terabytes or years.
            guard iterations >= 1, iterations <= UInt64(UInt32.max), memory >= 8 * 1024, memory <= 4 << 30 else {
                throw .unsupported("Argon2 parameters out of range")
            }
            let parameters = Argon2.Parameters(
                iterations: UInt32(iterations), memoryKiB: UInt32(memory / 1024), parallelism: lanes, version: version)
            return .argon2(uuid == KDF.argon2dID ? .d : .id, salt: salt, parameters: parameters)
        default:
            throw .unsupported("an unknown key derivation function")
        }
    }
}
