// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// The harness's fixed keys and headers: the same on every run, so an input that authenticates
/// once always does (libFuzzer needs a deterministic target), and seeds sealed by
/// ``FuzzSeeds`` open.
///
/// Nothing here is secret; it is a test vault's key material.
enum FuzzKeys {
    /// The passcode key every header's wrapped master key is tried under.
    static let passcodeKey = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x5A, count: PasscodeKDF.keyBytes))
    /// The fuzz collection's space (part of every record's associated data).
    static let space = SpaceID(bytes: Array(0..<16))!
    /// The visible header's blind index key.
    static let indexKey = [UInt8](repeating: 0x1D, count: 32)
    /// The collection id the harness opens records as.
    static let collection = CollectionID("fuzz")

    /// The fixed master key: fixed bytes wrapped and unwrapped through the public API (a master
    /// key is otherwise always random).
    static let master: MasterKey = {
        let context = Array("puff.fuzz.master".utf8)
        let bytes = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0xA5, count: 32))
        guard let sealer = try? SecretSealer(key: passcodeKey),
            let key = try? MasterKey.unwrap(
                sealer.seal(bytes, associatedData: context), under: passcodeKey, associatedData: context)
        else { fatalError("PuffFuzzVault: the fixed master key cannot be made") }
        return key
    }()

    /// Seals records as the fuzz collection's would be sealed.
    static let sealer: SecretSealer = {
        guard let sealer = try? SecretSealer(key: master.subkey(.records)) else {
            fatalError("PuffFuzzVault: the record key cannot be made")
        }
        return sealer
    }()

    /// A visible collection's header (blind index key in the clear, tags checked on open).
    static let visibleHeader = header(flags: [])
    /// A private collection's header (no index key, no tags).
    static let privateHeader = header(flags: [.private])

    /// A header of `flags` whose wrapped key opens under ``passcodeKey`` to ``master``.
    static func header(flags: VaultHeader.Flags) -> VaultHeader {
        var header = VaultHeader(
            flags: flags, kdf: .interactive, salt: [UInt8](repeating: 7, count: PasscodeKDF.saltBytes), space: space,
            indexKey: flags.contains(.private) ? nil : indexKey,
            collectionID: flags.contains(.hidden) ? nil : collection.rawValue)
        guard let wrapped = try? header.wrapMaster(master, for: header.slots[0], kek: passcodeKey) else {
            fatalError("PuffFuzzVault: the fixed header cannot be made")
        }
        header.slots[0].wrappedMaster = wrapped
        return header
    }

    /// The blind index tags the visible header gives `attributes` (what the daemon writes).
    static func tags(of attributes: AttributeList) -> [UInt8] {
        guard let hasher = try? KeyedHash(key: SecureBytes(unwipedCopyOf: indexKey)) else { return [] }
        return AttributeIndex(hasher: hasher).tags(of: attributes)
    }
}

/// Reads a fuzz input's own structure (lengths, selectors) without ever trapping: past the end
/// every read gives nil or fewer bytes.
struct InputCursor {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A little-endian `u16`.
    mutating func u16() -> Int? {
        guard let low = byte(), let high = byte() else { return nil }
        return Int(low) | Int(high) << 8
    }

    /// A little-endian `u64`.
    mutating func u64() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) {
            guard let next = byte() else { return nil }
            value |= UInt64(next) << UInt64(shift)
        }
        return value
    }

    /// Up to `count` bytes.
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return Array(bytes[min(offset, end)..<end])
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        take(bytes.count - offset)
    }

    /// The rest as chunks of `u16 length | bytes` (the last one possibly short).
    mutating func chunks() -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        while let length = u16() { chunks.append(take(length)) }
        return chunks
    }
}
