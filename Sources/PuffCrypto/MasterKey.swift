// SPDX-License-Identifier: Apache-2.0
import CSodium

/// A collection's master key: random, never derived from the passcode (architecture.md Part A
/// item 2); a passcode change replaces it and seals every record again (issue 24 item 5). Records,
/// the audit log and a header-less blind index use sub-keys of it.
public struct MasterKey: Sendable {
    /// What a sub-key is for; each use gets its own `crypto_kdf` context.
    public enum Purpose: Sendable {
        /// Sealing records (`puffrec_`).
        case records
        /// Keying the blind attribute index (`puffidx_`).
        case blindIndex
        /// Sealing the collection's audit log (`puffaud_`).
        case audit
        /// Keying the header MAC of a slotted header, version 3 (`puffhdr_`).
        case header
        /// Wrapping the blind index key of a header whose locked search is TPM-sealed (`puffixw_`).
        case indexWrap

        /// The 8-byte `crypto_kdf` context.
        var context: String {
            switch self {
            case .records: "puffrec_"
            case .blindIndex: "puffidx_"
            case .audit: "puffaud_"
            case .header: "puffhdr_"
            case .indexWrap: "puffixw_"
            }
        }
    }

    private let key: SecureBytes

    /// A new random master key (wraps `crypto_kdf_keygen`).
    public init() {
        _ = Sodium.ready
        key = SecureBytes(count: Int(crypto_kdf_KEYBYTES)) { (out: UnsafeMutableRawBufferPointer) -> Void in
            crypto_kdf_keygen(out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    private init(key: SecureBytes) {
        self.key = key
    }

    /// A master key brought back from outside the vault (``KernelKeyring``), checked only for its
    /// length: whoever restores it proves it by opening the collection's records.
    ///
    /// - Throws: ``CryptoError/wrongKey`` when it has the wrong length.
    public init(restoring key: SecureBytes) throws(CryptoError) {
        guard key.count == Int(crypto_kdf_KEYBYTES) else { throw .wrongKey }
        self.key = key
    }

    /// The key itself, to keep in the kernel keyring (``KernelKeyring``); nowhere else.
    public var keyForKeyring: SecureBytes { key }

    /// The master key sealed under `passcodeKey` (from ``PasscodeKDF``), bound to
    /// `associatedData` (for example the collection id and header version).
    public func wrapped(under passcodeKey: SecureBytes, associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        try SecretSealer(key: passcodeKey).seal(key, associatedData: associatedData)
    }

    /// Opens a master key made by ``wrapped(under:associatedData:)``.
    ///
    /// - Throws: ``CryptoError/wrongKey`` when the passcode key or the associated data differ, or
    ///   the wrapped bytes were altered (the three cannot be told apart, by design).
    public static func unwrap(
        _ wrapped: [UInt8], under passcodeKey: SecureBytes, associatedData: [UInt8]
    ) throws(CryptoError) -> MasterKey {
        let opened: SecureBytes
        do {
            opened = try SecretSealer(key: passcodeKey).open(wrapped, associatedData: associatedData)
        } catch {
            throw .wrongKey
        }
        guard opened.count == Int(crypto_kdf_KEYBYTES) else { throw .wrongKey }
        return MasterKey(key: opened)
    }

    /// The sub-key number `id` for `purpose` (wraps `crypto_kdf_derive_from_key`), 32 bytes.
    public func subkey(_ purpose: Purpose, id: UInt64 = 1) -> SecureBytes {
        SecureBytes(count: 32) { (out: UnsafeMutableRawBufferPointer) -> Void in
            key.withUnsafeBytes { master in
                // Cannot fail for a 32-byte sub-key and an 8-byte context.
                _ = crypto_kdf_derive_from_key(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, id, purpose.context,
                    master.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    /// Whether two master keys are the same key (constant time).
    public func isSame(as other: MasterKey) -> Bool {
        key.constantTimeEquals(other.key)
    }
}

/// What a sealed record is bound to (its associated data): the record's id, kind, collection and
/// the format version, so a record moved to another place, collection or format fails to open.
public struct RecordBinding: Sendable, Equatable {
    public let recordID: UInt64
    public let kind: UInt8
    public let collection: String
    public let formatVersion: UInt16

    /// Creates a binding.
    public init(recordID: UInt64, kind: UInt8, collection: String, formatVersion: UInt16) {
        self.recordID = recordID
        self.kind = kind
        self.collection = collection
        self.formatVersion = formatVersion
    }

    /// The associated-data bytes: a fixed prefix, then each field, the collection length-prefixed.
    public var associatedData: [UInt8] {
        var bytes = Array("puff.record".utf8)
        withUnsafeBytes(of: formatVersion.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(kind)
        withUnsafeBytes(of: recordID.littleEndian) { bytes.append(contentsOf: $0) }
        let name = Array(collection.utf8)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: name.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: name)
        return bytes
    }
}
