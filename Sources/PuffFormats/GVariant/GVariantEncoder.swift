// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// A GVariant value to serialise: the shapes ``GVariantType`` names.
indirect enum GVariantValue {
    case byte(UInt8)
    case uint32(UInt32)
    case uint64(UInt64)
    case string(String)
    /// An `ay` that is not secret (a salt, a hash, ciphertext).
    case bytes([UInt8])
    case array(GVariantType, [GVariantValue])
    case tuple([GVariantValue])
    case dictEntry(GVariantValue, GVariantValue)

    /// The value's type.
    var type: GVariantType {
        switch self {
        case .byte: .byte
        case .uint32: .uint32
        case .uint64: .uint64
        case .string: .string
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .tuple(let members): .tuple(members.map(\.type))
        case .dictEntry(let key, let value): .dictEntry(key.type, value.type)
        }
    }
}

/// Serialises ``GVariantValue``s in GLib's normal form, byte for byte what `g_variant_store`
/// writes, so GLib readers (libsecret) take them.
enum GVariantEncoder {
    /// The serialised bytes of `value`.
    static func encode(_ value: GVariantValue) -> [UInt8] {
        switch value {
        case .byte(let byte): return [byte]
        case .uint32(let number): return littleEndian(UInt64(number), width: 4)
        case .uint64(let number): return littleEndian(number, width: 8)
        case .string(let text): return Array(text.utf8) + [0]
        case .bytes(let bytes): return bytes
        case .array(let element, let values): return array(element, values.map(encode))
        case .tuple(let members): return tuple(members.map { ($0.type, encode($0)) })
        case .dictEntry(let key, let value): return tuple([(key.type, encode(key)), (value.type, encode(value))])
        }
    }

    /// A tuple whose members are `prefix` followed by one last `ay` holding `secret`, serialised
    /// straight into secure memory (the secret never passes through an ordinary array).
    static func tuple(_ prefix: [GVariantValue], trailingSecret secret: SecureBytes) -> SecureBytes {
        let body = layout(prefix.map { ($0.type, encode($0)) }, lastIsFramed: true)
        let (size, width) = GVariantLayout.total(body: body.bytes.count + secret.count, offsets: body.ends.count)
        return SecureBytes(count: size) { (output: UnsafeMutableRawBufferPointer) in
            output.copyBytes(from: body.bytes)
            secret.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: output[body.bytes.count...]).copyMemory(from: source)
            }
            let trailer = offsets(body.ends.reversed(), width: width)
            UnsafeMutableRawBufferPointer(rebasing: output[(size - trailer.count)...]).copyBytes(from: trailer)
        }
    }

    private static func array(_ element: GVariantType, _ encoded: [[UInt8]]) -> [UInt8] {
        if element.fixedSize != nil { return encoded.flatMap { $0 } }
        var body: [UInt8] = []
        var ends: [Int] = []
        for bytes in encoded {
            pad(&body, to: element.alignment)
            body += bytes
            ends.append(body.count)
        }
        let (_, width) = GVariantLayout.total(body: body.count, offsets: ends.count)
        return body + offsets(ends, width: width)
    }

    private static func tuple(_ members: [(GVariantType, [UInt8])]) -> [UInt8] {
        let type = GVariantType.tuple(members.map(\.0))
        var (body, ends) = layout(members, lastIsFramed: false)
        if let size = type.fixedSize {
            pad(&body, to: type.alignment)
            precondition(body.count == size, "fixed-size tuple laid out wrongly")
            return body
        }
        let (_, width) = GVariantLayout.total(body: body.count, offsets: ends.count)
        return body + offsets(ends.reversed(), width: width)
    }

    /// Members laid out at their alignments, and the end offsets of the framed ones (variable-size
    /// and not last), in member order; the last one too where more follows (a trailing secret).
    private static func layout(_ members: [(GVariantType, [UInt8])], lastIsFramed: Bool) -> (
        bytes: [UInt8], ends: [Int]
    ) {
        var body: [UInt8] = []
        var ends: [Int] = []
        for (index, (type, bytes)) in members.enumerated() {
            pad(&body, to: type.alignment)
            body += bytes
            if type.fixedSize == nil, lastIsFramed || index < members.count - 1 { ends.append(body.count) }
        }
        return (body, ends)
    }

    private static func pad(_ bytes: inout [UInt8], to alignment: Int) {
        bytes += [UInt8](repeating: 0, count: GVariantLayout.align(bytes.count, alignment) - bytes.count)
    }

    private static func offsets(_ ends: some Sequence<Int>, width: Int) -> [UInt8] {
        ends.flatMap { littleEndian(UInt64($0), width: width) }
    }

    private static func littleEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
