// SPDX-License-Identifier: Apache-2.0

/// Appends little-endian integers and length-prefixed strings (the vault's encoding).
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func raw(_ value: some Collection<UInt8>) { bytes.append(contentsOf: value) }

    /// A `u32` length, then the bytes.
    mutating func blob(_ value: some Collection<UInt8>) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// A `u32` length, then the UTF-8 bytes.
    mutating func string(_ value: String) { blob(value.utf8) }
}

/// Reads what ``ByteWriter`` wrote, checking every bound: bad bytes throw, never trap. Reads
/// borrowed memory, so a secret inside never gets copied into an ordinary array.
struct ByteReader {
    /// Why bytes could not be read; the offset is relative to the start of the reader's bytes.
    struct Malformed: Error {
        let offset: Int
        let what: String
    }

    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int, _ what: String) throws(Malformed) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw Malformed(offset: offset, what: what) }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func u8(_ what: String) throws(Malformed) -> UInt8 { try take(1, what)[0] }

    mutating func u16(_ what: String) throws(Malformed) -> UInt16 {
        UInt16(littleEndian: try take(2, what).loadUnaligned(as: UInt16.self))
    }

    mutating func u32(_ what: String) throws(Malformed) -> UInt32 {
        UInt32(littleEndian: try take(4, what).loadUnaligned(as: UInt32.self))
    }

    mutating func u64(_ what: String) throws(Malformed) -> UInt64 {
        UInt64(littleEndian: try take(8, what).loadUnaligned(as: UInt64.self))
    }

    mutating func blob(_ what: String, max: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        let count = Int(try u32(what))
        guard count <= max else { throw Malformed(offset: offset - 4, what: what) }
        return try take(count, what)
    }

    /// A length-prefixed string that must be valid UTF-8.
    mutating func string(_ what: String, max: Int = 1 << 20) throws(Malformed) -> String {
        let start = offset
        let raw = try blob(what, max: max)
        guard let text = String(validating: raw, as: UTF8.self) else { throw Malformed(offset: start, what: what) }
        return text
    }

    func expectEnd(_ what: String) throws(Malformed) {
        guard isAtEnd else { throw Malformed(offset: offset, what: what) }
    }
}

extension ByteReader.Malformed {
    var formatError: VaultFormatError { .malformed(offset: UInt64(offset), what: what) }
}

/// Runs `parse` over `bytes`, turning any failure into a ``VaultFormatError``.
func parsing<R>(_ bytes: [UInt8], _ parse: (inout ByteReader) throws -> R) throws(VaultFormatError) -> R {
    do {
        return try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            return try parse(&reader)
        }
    } catch let error as ByteReader.Malformed {
        throw error.formatError
    } catch let error as VaultFormatError {
        throw error
    } catch {
        throw .malformed(offset: 0, what: "\(error)")
    }
}
