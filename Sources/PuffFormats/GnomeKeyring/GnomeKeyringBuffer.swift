// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// Reads gnome-keyring's binary encoding (egg-buffer.c): big-endian uint32s, strings and byte
/// arrays as a uint32 length and the bytes, 0xffffffff for NULL. Works on borrowed bytes, so the
/// decrypted part is read where it lies in secure memory.
struct GnomeKeyringBufferReader {
    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    private(set) var offset: Int
    /// Which part is being read, for the damage message ("the header", "the encrypted part").
    let part: String

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, part: String) {
        self.bytes = bytes
        self.offset = offset
        self.part = part
    }

    /// egg-buffer refuses lengths from 0x7fffffff up (other than NULL's 0xffffffff).
    static let nullLength: UInt32 = 0xffff_ffff
    static let lengthLimit: UInt32 = 0x7fff_ffff

    var remaining: Int { bytes.count - offset }

    func damage(_ what: String) -> ForeignFormatError {
        .damaged("\(part), byte \(offset): \(what)")
    }

    mutating func uint32(_ what: @autoclosure () -> String) throws(ForeignFormatError) -> UInt32 {
        guard remaining >= 4 else { throw damage("\(what()) is cut off") }
        var value: UInt32 = 0
        for index in 0..<4 { value = value << 8 | UInt32(bytes[offset + index]) }
        offset += 4
        return value
    }

    /// A time as gnome-keyring writes it: two uint32s, the high half first.
    mutating func time(_ what: @autoclosure () -> String) throws(ForeignFormatError) -> UInt64 {
        let high = try uint32(what())
        let low = try uint32(what())
        return UInt64(high) << 32 | UInt64(low)
    }

    /// The raw bytes of the next byte array; nil for NULL.
    mutating func byteArray(_ what: @autoclosure () -> String) throws(ForeignFormatError) -> UnsafeRawBufferPointer? {
        let length = try uint32(what())
        if length == Self.nullLength { return nil }
        guard length < Self.lengthLimit else { throw damage("\(what()) has an impossible length") }
        guard Int(length) <= remaining else { throw damage("\(what()) is cut off") }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)])
        offset += Int(length)
        return slice
    }

    /// A UTF-8 string without NUL bytes, as gnome-keyring requires; nil for NULL.
    mutating func string(_ what: @autoclosure () -> String) throws(ForeignFormatError) -> String? {
        guard let raw = try byteArray(what()) else { return nil }
        guard !raw.contains(0), let text = String(validating: raw, as: UTF8.self) else {
            throw damage("\(what()) is not UTF-8 text")
        }
        return text
    }

    mutating func skip(_ count: Int, _ what: @autoclosure () -> String) throws(ForeignFormatError) {
        guard remaining >= count else { throw damage("\(what()) is cut off") }
        offset += count
    }
}

/// Writes gnome-keyring's binary encoding into a buffer sized in advance (secure memory for the
/// encrypted part). Writing past the end is a programming error: the writer computes the size
/// from the same fields first.
struct GnomeKeyringBufferWriter {
    let bytes: UnsafeMutableRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeMutableRawBufferPointer) { self.bytes = bytes }

    mutating func uint32(_ value: UInt32) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        offset += 4
    }

    mutating func time(_ value: UInt64) {
        uint32(UInt32(truncatingIfNeeded: value >> 32))
        uint32(UInt32(truncatingIfNeeded: value))
    }

    mutating func raw(_ data: UnsafeRawBufferPointer) {
        guard !data.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<offset + data.count]).copyMemory(from: data)
        offset += data.count
    }

    mutating func byteArray(_ data: UnsafeRawBufferPointer?) {
        guard let data else { return uint32(GnomeKeyringBufferReader.nullLength) }
        uint32(UInt32(data.count))
        raw(data)
    }

    mutating func string(_ text: String?) {
        guard var text else { return uint32(GnomeKeyringBufferReader.nullLength) }
        text.withUTF8 { byteArray(UnsafeRawBufferPointer($0)) }
    }
}

/// Array-backed writing for the clear parts of a file (header, hashed items).
extension [UInt8] {
    mutating func appendUInt32(_ value: UInt32) {
        append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    mutating func appendTime(_ value: UInt64) {
        appendUInt32(UInt32(truncatingIfNeeded: value >> 32))
        appendUInt32(UInt32(truncatingIfNeeded: value))
    }

    mutating func appendString(_ text: String?) {
        guard let text else { return appendUInt32(GnomeKeyringBufferReader.nullLength) }
        appendUInt32(UInt32(text.utf8.count))
        append(contentsOf: text.utf8)
    }
}

/// `Array.withUnsafeBytes` with a typed error; the standard library's version rethrows untyped.
func withBytes<R>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(ForeignFormatError) -> R
) throws(ForeignFormatError) -> R {
    let result = array.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<R, ForeignFormatError> in
        do throws(ForeignFormatError) { return .success(try body(bytes)) } catch { return .failure(error) }
    }
    return try result.get()
}
