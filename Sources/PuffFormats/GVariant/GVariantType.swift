// SPDX-License-Identifier: Apache-2.0

/// The part of GLib's GVariant type system that other stores' files use (libsecret's file
/// backend, oo7's keyrings): bytes, 32- and 64-bit unsigned integers, strings, arrays, tuples and
/// dictionary entries. Serialised as GLib's "GVariant Serialisation" note says (little-endian).
indirect enum GVariantType: Equatable, Sendable {
    case byte
    case uint32
    case uint64
    case string
    case array(GVariantType)
    case tuple([GVariantType])
    case dictEntry(GVariantType, GVariantType)

    /// The alignment of the type's serialised form.
    var alignment: Int {
        switch self {
        case .byte, .string: 1
        case .uint32: 4
        case .uint64: 8
        case .array(let element): element.alignment
        case .tuple(let members): members.map(\.alignment).max() ?? 1
        case .dictEntry(let key, let value): max(key.alignment, value.alignment)
        }
    }

    /// The size of every value of the type, or nil where values differ in size.
    var fixedSize: Int? {
        switch self {
        case .byte: return 1
        case .uint32: return 4
        case .uint64: return 8
        case .string, .array: return nil
        case .tuple(let members): return Self.fixedSize(of: members, alignment: alignment)
        case .dictEntry(let key, let value): return Self.fixedSize(of: [key, value], alignment: alignment)
        }
    }

    /// The members of a tuple or dictionary entry.
    var members: [GVariantType] {
        switch self {
        case .tuple(let members): members
        case .dictEntry(let key, let value): [key, value]
        default: []
        }
    }

    private static func fixedSize(of members: [GVariantType], alignment: Int) -> Int? {
        // The unit type "()" has size 1 by the specification; no format here uses it.
        guard !members.isEmpty else { return 1 }
        var offset = 0
        for member in members {
            guard let size = member.fixedSize else { return nil }
            offset = GVariantLayout.align(offset, member.alignment) + size
        }
        return GVariantLayout.align(offset, alignment)
    }
}

/// Arithmetic shared by the decoder and the encoder.
enum GVariantLayout {
    /// `offset` rounded up to a multiple of `alignment`.
    static func align(_ offset: Int, _ alignment: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
    }

    /// The size of the framing offsets in a container of `size` bytes, as a reader finds it.
    static func offsetSize(forContainer size: Int) -> Int {
        switch size {
        case 0: 0
        case ...0xff: 1
        case ...0xffff: 2
        case ...0xffff_ffff: 4
        default: 8
        }
    }

    /// The container's total size and offset size for a body of `body` bytes followed by `count`
    /// framing offsets, as a writer chooses them (the smallest that fits).
    static func total(body: Int, offsets count: Int) -> (size: Int, offsetSize: Int) {
        if count == 0 { return (body, 0) }
        for width in [1, 2, 4] where body + width * count <= (1 << (8 * width)) - 1 {
            return (body + width * count, width)
        }
        return (body + 8 * count, 8)
    }
}
