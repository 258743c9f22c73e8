// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Base64 with the standard alphabet and padding (RFC 4648 §4), through libsodium's
/// `sodium_bin2base64`/`sodium_base642bin`: what KDBX files hold, without Foundation's `Data`.
public enum Base64 {
    /// `bytes` as padded standard base64.
    public static func encode(_ bytes: [UInt8]) -> String {
        _ = Sodium.ready
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        var text = [CChar](repeating: 0, count: sodium_base64_encoded_len(bytes.count, variant))
        _ = sodium_bin2base64(&text, text.count, bytes, bytes.count, variant)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of padded standard base64 `text`; nil when it is anything else (whitespace included).
    public static func decode(_ text: String) -> [UInt8]? {
        _ = Sodium.ready
        let characters = Array(text.utf8)
        guard !characters.isEmpty else { return [] }
        var bytes = [UInt8](repeating: 0, count: characters.count / 4 * 3 + 3)
        var length = 0
        let complete = characters.withUnsafeBufferPointer { text in
            text.withMemoryRebound(to: CChar.self) { input in
                var end: UnsafePointer<CChar>?
                let result = sodium_base642bin(
                    &bytes, bytes.count, input.baseAddress, input.count, nil, &length, &end,
                    Int32(sodium_base64_VARIANT_ORIGINAL))
                // It stops at the first character outside the alphabet: every one must have been read.
                return result == 0 && end == input.baseAddress.map { $0 + input.count }
            }
        }
        return complete ? Array(bytes.prefix(length)) : nil
    }
}
