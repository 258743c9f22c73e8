// SPDX-License-Identifier: Apache-2.0

/// Reads little-endian fields from a byte buffer, failing with a message instead of trapping when
/// the bytes run out (every length in a foreign file is untrusted).
struct ByteCursor {
    private let bytes: UnsafeRawBufferPointer
    /// Where the next read starts.
    private(set) var position: Int

    init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    /// A copy of the bytes in `range` (already read, so known to be in bounds).
    func copy(_ range: Range<Int>) -> [UInt8] { Array(bytes[range]) }

    mutating func bytes(_ count: Int, _ what: String) throws(ForeignFormatError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw .damaged("\(what) runs past the end of the file") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    mutating func array(_ count: Int, _ what: String) throws(ForeignFormatError) -> [UInt8] {
        Array(try bytes(count, what))
    }

    mutating func uint8(_ what: String) throws(ForeignFormatError) -> UInt8 {
        try bytes(1, what)[0]
    }

    mutating func uint16(_ what: String) throws(ForeignFormatError) -> UInt16 {
        UInt16(truncatingIfNeeded: try littleEndian(2, what))
    }

    mutating func uint32(_ what: String) throws(ForeignFormatError) -> UInt32 {
        UInt32(truncatingIfNeeded: try littleEndian(4, what))
    }

    mutating func uint64(_ what: String) throws(ForeignFormatError) -> UInt64 {
        try littleEndian(8, what)
    }

    private mutating func littleEndian(_ count: Int, _ what: String) throws(ForeignFormatError) -> UInt64 {
        let raw = try bytes(count, what)
        return raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Little-endian encodings for the writer.
enum LittleEndian {
    static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
