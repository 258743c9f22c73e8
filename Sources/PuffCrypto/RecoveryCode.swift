// SPDX-License-Identifier: Apache-2.0

/// A recovery slot's code (docs/design/unlock-slots.md §3): 20 random bytes, shown once as 32
/// Crockford base32 characters in 8 groups of 4, `XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX`.
///
/// 160 bits need no key stretching, so the code has no checksum: all 32 characters carry key
/// bits, and a mistyped code simply opens nothing. The code, its text and every intermediate stay in
/// ``SecureBytes``; nothing here makes a Swift `String`. Characters are mapped without table lookups
/// indexed by them and without early exits on their values, so the time taken depends only on the
/// length and on where the separators are.
public enum RecoveryCode {
    /// The code's size in bytes.
    public static let byteCount = 20
    /// The number of base32 characters that carry it.
    public static let symbolCount = 32
    /// Characters per group in ``format(_:)``.
    public static let groupLength = 4
    /// The length of ``format(_:)``'s text: 32 characters and 7 dashes.
    public static let formattedCount = symbolCount + symbolCount / groupLength - 1

    /// Crockford's alphabet: digits and capitals without I, L, O and U.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// Letters Crockford reads as digits: O as 0; I and L as 1.
    static let aliases: [(letter: UInt8, value: UInt8)] = [
        (UInt8(ascii: "O"), 0), (UInt8(ascii: "I"), 1), (UInt8(ascii: "L"), 1),
    ]
    /// Bytes a person may type between characters: dashes and white space.
    static let separators = Array("- \t\r\n".utf8)

    /// A fresh code: 20 bytes from libsodium's CSPRNG, straight into secure memory.
    public static func generate() -> SecureBytes {
        SecureRandom.secureBytes(byteCount)
    }

    /// The text shown to the person, ASCII in secure memory.
    ///
    /// - Precondition: `code` holds ``byteCount`` bytes.
    public static func format(_ code: SecureBytes) -> SecureBytes {
        precondition(code.count == byteCount, "a recovery code has \(byteCount) bytes")
        return code.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SecureBytes in
            SecureBytes(count: formattedCount) { (text: UnsafeMutableRawBufferPointer) -> Void in
                var accumulator: UInt32 = 0
                var bits = 0
                var symbols = 0
                var position = 0
                for byte in bytes {
                    accumulator = (accumulator << 8) | UInt32(byte)
                    bits += 8
                    while bits >= 5 {
                        bits -= 5
                        if symbols > 0, symbols % groupLength == 0 {
                            text[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        text[position] = symbol(for: UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)) & 0x1f)
                        position += 1
                        symbols += 1
                    }
                    accumulator &= (1 << UInt32(bits)) - 1
                }
                accumulator = 0
            }
        }
    }

    /// The code a person typed, or nil when `typed` is not one: anything but exactly 32 Crockford
    /// characters (either case; O read as 0, I and L as 1) among dashes and white space.
    public static func parse(_ typed: SecureBytes) -> SecureBytes? {
        typed.withUnsafeBytes { (text: UnsafeRawBufferPointer) -> SecureBytes? in
            var symbols = 0
            var refused: UInt8 = 0
            for byte in text {
                let (_, isSymbol) = value(of: byte)
                let isSeparator = separatorMask(byte)
                symbols += Int(isSymbol & 1)
                refused |= ~(isSymbol | isSeparator)
            }
            guard refused == 0, symbols == symbolCount else { return nil }
            return SecureBytes(count: byteCount) { (code: UnsafeMutableRawBufferPointer) -> Void in
                var accumulator: UInt32 = 0
                var bits = 0
                var position = 0
                for byte in text {
                    let (value, isSymbol) = value(of: byte)
                    // Branches on whether a byte is a separator, which the person typed in the open.
                    guard isSymbol != 0 else { continue }
                    accumulator = (accumulator << 5) | UInt32(value)
                    bits += 5
                    if bits >= 8 {
                        bits -= 8
                        code[position] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        position += 1
                        accumulator &= (1 << UInt32(bits)) - 1
                    }
                }
                accumulator = 0
            }
        }
    }

    /// 0xff when `left == right`, else 0, computed without a branch.
    @inline(__always)
    static func equalMask(_ left: UInt8, _ right: UInt8) -> UInt8 {
        let difference = UInt32(left ^ right)
        // difference - 1 borrows into bit 8 only when difference is 0.
        return UInt8(truncatingIfNeeded: ((difference &- 1) >> 8) & 1) &* 0xff
    }

    /// The alphabet's character for a 5-bit value, found by visiting every entry.
    static func symbol(for value: UInt8) -> UInt8 {
        var result: UInt8 = 0
        for index in 0..<symbolCount {
            result |= equalMask(value, UInt8(index)) & alphabet[index]
        }
        return result
    }

    /// The 5-bit value of a typed byte and 0xff when it is a code character (else 0 and 0), checking
    /// every alphabet entry, alias and case.
    static func value(of byte: UInt8) -> (value: UInt8, isSymbol: UInt8) {
        // Folds ASCII lower case onto upper case; other bytes keep bit 5 and so match nothing.
        let isLower = greaterOrEqualMask(byte, UInt8(ascii: "a")) & ~greaterOrEqualMask(byte, UInt8(ascii: "z") + 1)
        let upper = byte ^ (isLower & 0x20)
        var value: UInt8 = 0
        var isSymbol: UInt8 = 0
        for index in 0..<symbolCount {
            let hit = equalMask(upper, alphabet[index])
            value |= hit & UInt8(index)
            isSymbol |= hit
        }
        for alias in aliases {
            let hit = equalMask(upper, alias.letter)
            value |= hit & alias.value
            isSymbol |= hit
        }
        return (value, isSymbol)
    }

    /// 0xff when `byte` is a dash or white space, else 0.
    static func separatorMask(_ byte: UInt8) -> UInt8 {
        var result: UInt8 = 0
        for separator in separators { result |= equalMask(byte, separator) }
        return result
    }

    /// 0xff when `left >= right`, else 0, computed without a branch.
    @inline(__always)
    static func greaterOrEqualMask(_ left: UInt8, _ right: UInt8) -> UInt8 {
        // left - right borrows into bit 8 exactly when left < right.
        let borrow = ((UInt32(left) &- UInt32(right)) >> 8) & 1
        return UInt8(truncatingIfNeeded: borrow ^ 1) &* 0xff
    }
}
