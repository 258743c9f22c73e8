// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// Names one collection's files: 16 random bytes, so a file name says nothing about the collection.
public struct SpaceID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes.
    public let bytes: [UInt8]

    /// A new random identifier.
    public static func random() -> SpaceID {
        SpaceID(unchecked: SecureRandom.bytes(16))
    }

    /// The identifier spelled `hex` (32 lowercase hex digits), or nil.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex), bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The identifier made of exactly 16 `bytes`, or nil.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// 32 lowercase hex digits.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }
}

/// Lowercase hexadecimal, for file names and the catalog.
enum Hex {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = nibble(high), let l = nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
