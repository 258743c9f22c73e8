// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A slot's bytes in a version 3 header (docs/vault-format.md "Header"):
/// `u16 id | u8 type | u8 flags (0) | string label | blob parameters | blob wrapped master`.
extension KeySlot {
    /// The most bytes a label has.
    public static let maximumLabelBytes = 64
    /// The most bytes a slot's encoded parameters have.
    public static let maximumParameterBytes = 2048
    /// The most bytes a slot's wrapped master key has.
    public static let maximumWrapBytes = 256
    /// The most bytes of a FIDO2 relying party id and of a credential id.
    static let maximumRelyingPartyBytes = 255
    static let maximumCredentialIDBytes = 1024
    /// Bytes of a FIDO2 `hmac-secret` salt.
    public static let fido2SaltBytes = 32
    /// The TPM primary-key templates this version knows.
    static let knownTemplates: Set<UInt8> = [1]

    /// Whether `label` can name a slot: 1–64 bytes of UTF-8 with no control characters.
    public static func isValidLabel(_ label: String) -> Bool {
        (1...maximumLabelBytes).contains(label.utf8.count)
            && !label.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    func encode(into writer: inout ByteWriter) {
        writer.u16(id)
        writer.u8(kind.rawValue)
        writer.u8(0)
        writer.string(label)
        writer.blob(parameters.encoded())
        writer.blob(wrappedMaster)
    }

    /// Reads one slot; the offsets in errors count from the start of `reader`.
    static func decode(from reader: inout ByteReader) throws -> KeySlot {
        let id = try reader.u16("slot id")
        let type = try reader.u8("slot type")
        guard let kind = Kind(rawValue: type) else { throw VaultFormatError.unsupportedSlotType(type) }
        guard try reader.u8("slot flags") == 0 else {
            throw ByteReader.Malformed(offset: reader.offset - 1, what: "slot flags")
        }
        let labelOffset = reader.offset
        let label = try reader.string("slot label", max: maximumLabelBytes)
        guard isValidLabel(label) else { throw ByteReader.Malformed(offset: labelOffset, what: "slot label") }
        let parametersOffset = reader.offset + 4
        let raw = try reader.blob("slot parameters", max: maximumParameterBytes)
        let parameters: Parameters
        do throws(ByteReader.Malformed) {
            var inner = ByteReader(raw)
            parameters = try Parameters.decode(kind, from: &inner)
        } catch {
            throw ByteReader.Malformed(offset: parametersOffset + error.offset, what: error.what)
        }
        let wrapped = Array(try reader.blob("wrapped master", max: maximumWrapBytes))
        return KeySlot(id: id, label: label, parameters: parameters, wrappedMaster: wrapped)
    }
}

extension KeySlot.Parameters {
    /// The parameter bytes (the blob's contents), as the slot associated data binds them.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 96)
        switch self {
        case .passcode(let typed), .login(let typed): typed.encode(into: &writer)
        case .recovery(let salt): writer.raw(salt)
        case .tpm2(let tpm): tpm.encode(into: &writer)
        case .fido2(let fido): fido.encode(into: &writer)
        case .fido2Passcode(let fido, let typed):
            fido.encode(into: &writer)
            typed.encode(into: &writer)
        case .transit(let transit): transit.encode(into: &writer)
        }
        return writer.bytes
    }

    /// Reads the parameters of `kind`, which must fill the reader exactly.
    static func decode(_ kind: KeySlot.Kind, from reader: inout ByteReader) throws(ByteReader.Malformed) -> Self {
        let parameters: Self =
            switch kind {
            case .passcode: .passcode(try .decode(from: &reader))
            case .recovery: .recovery(salt: Array(try reader.take(PasscodeKDF.saltBytes, "recovery salt")))
            case .login: .login(try .decode(from: &reader))
            case .tpm2: .tpm2(try .decode(from: &reader))
            case .fido2: .fido2(try .decode(from: &reader))
            case .fido2Passcode: .fido2Passcode(try .decode(from: &reader), try .decode(from: &reader))
            case .transit: .transit(try .decode(from: &reader))
            }
        try reader.expectEnd("slot parameters")
        return parameters
    }
}

extension KeySlot.Typed {
    /// `u64 operations | u64 memory | 16 salt`.
    func encode(into writer: inout ByteWriter) {
        writer.u64(kdf.operations)
        writer.u64(UInt64(kdf.memoryBytes))
        writer.raw(salt)
    }

    static func decode(from reader: inout ByteReader) throws(ByteReader.Malformed) -> Self {
        let start = reader.offset
        let operations = try reader.u64("KDF operations")
        let memory = try reader.u64("KDF memory")
        guard memory <= UInt64(Int.max), let kdf = try? KDFParameters(operations: operations, memoryBytes: Int(memory))
        else { throw ByteReader.Malformed(offset: start, what: "KDF parameters") }
        return Self(kdf: kdf, salt: Array(try reader.take(PasscodeKDF.saltBytes, "salt")))
    }
}

extension KeySlot.TPM2 {
    /// `u32 PCR mask | u8 template | blob sealed object`.
    func encode(into writer: inout ByteWriter) {
        writer.u32(pcrMask)
        writer.u8(template)
        writer.blob(blob)
    }

    /// PCRs 0–23 of the sha256 bank are the ones a PC's TPM has.
    static let pcrMaskLimit: UInt32 = 1 << 24

    static func decode(from reader: inout ByteReader) throws(ByteReader.Malformed) -> Self {
        let mask = try reader.u32("PCR mask")
        guard mask < pcrMaskLimit else { throw ByteReader.Malformed(offset: reader.offset - 4, what: "PCR mask") }
        let template = try reader.u8("TPM template")
        guard KeySlot.knownTemplates.contains(template) else {
            throw ByteReader.Malformed(offset: reader.offset - 1, what: "TPM template")
        }
        let start = reader.offset
        let blob = Array(try reader.blob("TPM blob", max: KeySlot.maximumParameterBytes))
        guard !blob.isEmpty else { throw ByteReader.Malformed(offset: start, what: "TPM blob") }
        return Self(pcrMask: mask, template: template, blob: blob)
    }
}

extension KeySlot.FIDO2 {
    /// `string relying party | blob credential id | 32 salt | u8 flags`.
    func encode(into writer: inout ByteWriter) {
        writer.string(relyingParty)
        writer.blob(credentialID)
        writer.raw(salt)
        writer.u8(flags.rawValue)
    }

    static let knownFlags: Flags = [.presence, .verification, .pin]

    static func decode(from reader: inout ByteReader) throws(ByteReader.Malformed) -> Self {
        let rpStart = reader.offset
        let party = try reader.string("relying party", max: KeySlot.maximumRelyingPartyBytes)
        guard !party.isEmpty else { throw ByteReader.Malformed(offset: rpStart, what: "relying party") }
        let idStart = reader.offset
        let credential = Array(try reader.blob("credential id", max: KeySlot.maximumCredentialIDBytes))
        guard !credential.isEmpty else { throw ByteReader.Malformed(offset: idStart, what: "credential id") }
        let salt = Array(try reader.take(KeySlot.fido2SaltBytes, "hmac-secret salt"))
        let flags = Flags(rawValue: try reader.u8("FIDO2 flags"))
        guard knownFlags.isSuperset(of: flags) else {
            throw ByteReader.Malformed(offset: reader.offset - 1, what: "FIDO2 flags")
        }
        return Self(relyingParty: party, credentialID: credential, salt: salt, flags: flags)
    }
}

extension KeySlot.Transit {
    /// The most bytes of a transit key name and of a ciphertext (a 32-byte secret's is ~70).
    static let maximumKeyBytes = 128
    static let maximumCiphertextBytes = 1024

    /// Whether `name` can name a transit key in a URL path: 1–128 of `[A-Za-z0-9_.-]`, not `.`/`..`.
    public static func isValidKeyName(_ name: String) -> Bool {
        (1...maximumKeyBytes).contains(name.utf8.count) && name != "." && name != ".."
            && name.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            }
    }

    /// `string key name | string ciphertext`.
    func encode(into writer: inout ByteWriter) {
        writer.string(key)
        writer.string(ciphertext)
    }

    static func decode(from reader: inout ByteReader) throws(ByteReader.Malformed) -> Self {
        let keyStart = reader.offset
        let key = try reader.string("transit key", max: maximumKeyBytes)
        guard isValidKeyName(key) else { throw ByteReader.Malformed(offset: keyStart, what: "transit key") }
        let textStart = reader.offset
        let ciphertext = try reader.string("transit ciphertext", max: maximumCiphertextBytes)
        guard ciphertext.hasPrefix("vault:v"), ciphertext.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ByteReader.Malformed(offset: textStart, what: "transit ciphertext")
        }
        return Self(key: key, ciphertext: ciphertext)
    }
}
