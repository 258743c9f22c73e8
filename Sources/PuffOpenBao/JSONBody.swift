// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto

/// A request body for OpenBao's API: a JSON object written straight into locked memory, since some
/// hold a secret (an AppRole secret id, a transit plaintext). Strings are escaped as RFC 8259 asks.
package enum JSONBody: Sendable {
    case object([(String, JSONBody)])
    case text(String)
    /// A secret's bytes (UTF-8 text, base64 for binary), written as a JSON string.
    case secret(SecureBytes)
    case number(UInt64)
    case strings([String])

    /// The JSON text in locked memory: measured once, then written.
    var encoded: SecureBytes {
        var length = 0
        write { _ in length += 1 }
        return SecureBytes(count: length) { (output: UnsafeMutableRawBufferPointer) -> Void in
            var index = 0
            write { byte in
                output[index] = byte
                index += 1
            }
        }
    }

    /// Calls `emit` with each byte of the JSON text.
    func write(_ emit: (UInt8) -> Void) {
        switch self {
        case .object(let members):
            emit(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { emit(UInt8(ascii: ",")) }
                Self.string(key.utf8, emit)
                emit(UInt8(ascii: ":"))
                value.write(emit)
            }
            emit(UInt8(ascii: "}"))
        case .text(let text):
            Self.string(text.utf8, emit)
        case .secret(let bytes):
            bytes.withUnsafeBytes { Self.string($0, emit) }
        case .number(let number):
            for byte in String(number).utf8 { emit(byte) }
        case .strings(let strings):
            emit(UInt8(ascii: "["))
            for (index, string) in strings.enumerated() {
                if index > 0 { emit(UInt8(ascii: ",")) }
                Self.string(string.utf8, emit)
            }
            emit(UInt8(ascii: "]"))
        }
    }

    /// `bytes` as a JSON string: quotes, backslashes and control characters escaped.
    static func string(_ bytes: some Sequence<UInt8>, _ emit: (UInt8) -> Void) {
        let digits = Array("0123456789abcdef".utf8)
        emit(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                emit(UInt8(ascii: "\\"))
                emit(byte)
            case 0..<0x20:
                for escaped in Array("\\u00".utf8) + [digits[Int(byte >> 4)], digits[Int(byte & 15)]] {
                    emit(escaped)
                }
            default:
                emit(byte)
            }
        }
        emit(UInt8(ascii: "\""))
    }
}
