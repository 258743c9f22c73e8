// SPDX-License-Identifier: Apache-2.0

/// How an identifier becomes one element of an object path (secret-service.md §1.2): ASCII
/// letters and digits pass, every other byte becomes `_` and two lower-case hex digits
/// (gnome-keyring's scheme, so `_` is `_5f`). puffd builds paths with it and puffctl reads them.
public enum PathElement {
    /// The element for `identifier`; `_` for the empty one, which the service never produces but
    /// which must still make a valid path.
    public static func encode(_ identifier: String) -> String {
        if identifier.isEmpty { return "_" }
        var out = ""
        for byte in identifier.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("_")
                out.unicodeScalars.append(hexDigit(byte >> 4))
                out.unicodeScalars.append(hexDigit(byte & 0xf))
            }
        }
        return out
    }

    /// Reverses ``encode(_:)``; any `_` not followed by two hex digits is kept as it is.
    public static func decode(_ element: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(element.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "_"), utf8.count >= 2, let high = hexValue(utf8[utf8.startIndex]),
                let low = hexValue(utf8[utf8.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ nibble: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
    }

    // Upper-case digits decode too, as `UInt8(_:radix:)` did before this moved here.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
