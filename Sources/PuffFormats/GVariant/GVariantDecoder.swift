// SPDX-License-Identifier: Apache-2.0

/// Reads serialised GVariant values in place: it hands back byte ranges of the buffer it is
/// given, so a secret inside one is copied only by its caller, and only into secure memory.
/// Every offset is checked against its container; anything out of place is ``ForeignFormatError/damaged(_:)``
/// (GLib itself would quietly read a default value instead).
struct GVariantDecoder {
    /// The whole serialised buffer.
    let bytes: UnsafeRawBufferPointer
    /// Said in errors: which part of which file this is ("item 3").
    var context: String

    /// The ranges of a tuple's (or dictionary entry's) members, in order.
    func members(of range: Range<Int>, _ type: GVariantType) throws(ForeignFormatError) -> [Range<Int>] {
        let types = type.members
        let framed = types.dropLast().filter { $0.fixedSize == nil }.count
        let width = GVariantLayout.offsetSize(forContainer: range.count)
        let frameEnd = range.upperBound - width * framed
        guard frameEnd >= range.lowerBound else { throw damaged("a tuple shorter than its offsets") }
        var position = range.lowerBound
        var offsetIndex = 0
        var result: [Range<Int>] = []
        for (index, member) in types.enumerated() {
            position = range.lowerBound + GVariantLayout.align(position - range.lowerBound, member.alignment)
            let end: Int
            if let size = member.fixedSize {
                end = position + size
            } else if index == types.count - 1 {
                end = frameEnd
            } else {
                offsetIndex += 1
                end = range.lowerBound + readOffset(at: range.upperBound - width * offsetIndex, width: width)
            }
            guard position <= end, end <= frameEnd else { throw damaged("a tuple member out of bounds") }
            result.append(position..<end)
            position = end
        }
        return result
    }

    /// The ranges of an array's elements, in order.
    func elements(of range: Range<Int>, _ element: GVariantType) throws(ForeignFormatError) -> [Range<Int>] {
        if let size = element.fixedSize {
            guard range.count % size == 0 else { throw damaged("an array of fixed elements with a ragged end") }
            return stride(from: range.lowerBound, to: range.upperBound, by: size).map { $0..<($0 + size) }
        }
        guard !range.isEmpty else { return [] }
        let width = GVariantLayout.offsetSize(forContainer: range.count)
        guard range.count >= width else { throw damaged("an array shorter than its offsets") }
        let tableStart = range.lowerBound + readOffset(at: range.upperBound - width, width: width)
        guard tableStart >= range.lowerBound, tableStart <= range.upperBound,
            (range.upperBound - tableStart) % width == 0
        else { throw damaged("an array's offset table out of bounds") }
        var result: [Range<Int>] = []
        var position = range.lowerBound
        for slot in stride(from: tableStart, to: range.upperBound, by: width) {
            position = range.lowerBound + GVariantLayout.align(position - range.lowerBound, element.alignment)
            let end = range.lowerBound + readOffset(at: slot, width: width)
            guard position <= end, end <= tableStart else { throw damaged("an array element out of bounds") }
            result.append(position..<end)
            position = end
        }
        return result
    }

    /// A string's text (its bytes up to the closing NUL, which must be the last byte and the only NUL).
    func string(_ range: Range<Int>) throws(ForeignFormatError) -> String {
        guard let last = range.last, bytes[last] == 0 else { throw damaged("a string without its closing NUL") }
        let text = UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<last])
        guard !text.contains(0), let string = String(validating: text, as: UTF8.self) else {
            throw damaged("a string that is not UTF-8")
        }
        return string
    }

    /// A little-endian unsigned integer of the range's size (1, 4 or 8 bytes).
    func integer(_ range: Range<Int>) -> UInt64 {
        readLittleEndian(at: range.lowerBound, width: range.count)
    }

    /// The bytes of an `ay` as an ordinary array (for values that are not secret: salts, hashes).
    func byteArray(_ range: Range<Int>) -> [UInt8] {
        Array(bytes[range])
    }

    private func readOffset(at position: Int, width: Int) -> Int {
        Int(clamping: readLittleEndian(at: position, width: width))
    }

    private func readLittleEndian(at position: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<width).reversed() { value = value << 8 | UInt64(bytes[position + index]) }
        return value
    }

    private func damaged(_ what: String) -> ForeignFormatError {
        .damaged(context.isEmpty ? what : "\(context): \(what)")
    }
}
