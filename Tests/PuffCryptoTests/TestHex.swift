// SPDX-License-Identifier: Apache-2.0

/// Hex helpers for fixtures; test-only, so secrets passing through here are fixture values.
extension Array where Element == UInt8 {
    /// Parses hex, ignoring whitespace; traps on malformed fixtures.
    init(hex: String) {
        let digits = hex.filter { !$0.isWhitespace }
        precondition(digits.count % 2 == 0, "odd hex fixture")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { preconditionFailure("bad hex fixture") }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }

    /// Lower-case hex without separators.
    var hex: String {
        map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}
