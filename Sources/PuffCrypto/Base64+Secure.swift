// SPDX-License-Identifier: Apache-2.0
import CSodium

extension Base64 {
    /// `bytes` as padded standard base64, written straight into locked memory: for a secret a
    /// peer wants in base64 (OpenBao's transit plaintext), never passing through a `String`.
    public static func encode(_ bytes: SecureBytes) -> SecureBytes {
        _ = Sodium.ready
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        // sodium_base64_encoded_len counts the terminating NUL, which the result leaves out.
        let length = sodium_base64_encoded_len(bytes.count, variant) - 1
        let terminated = bytes.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> SecureBytes in
            // At least the NUL: never an empty buffer.
            SecureBytes(count: length + 1) { (output: UnsafeMutableRawBufferPointer) -> Void in
                _ = sodium_bin2base64(
                    output.baseAddress!.assumingMemoryBound(to: CChar.self), output.count,
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, variant)
            }
        }
        return terminated.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[..<length])) }
    }

    /// The bytes of padded standard base64 `text`, decoded straight into locked memory; nil when
    /// it is anything else (whitespace included).
    public static func decode(_ text: SecureBytes) -> SecureBytes? {
        _ = Sodium.ready
        guard !text.isEmpty else { return .empty }
        guard text.count % 4 == 0 else { return nil }
        let padding = text.withUnsafeBytes { raw in raw.suffix(2).filter { $0 == UInt8(ascii: "=") }.count }
        let length = text.count / 4 * 3 - padding
        return text.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> SecureBytes? in
            var decoded = 0
            var end: UnsafePointer<CChar>?
            let start = input.baseAddress?.assumingMemoryBound(to: CChar.self)
            // Four characters or more, two of them padding at most: at least one byte.
            let output = SecureBytes(count: length) { (output: UnsafeMutableRawBufferPointer) -> Void in
                let result = sodium_base642bin(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count, start, input.count, nil,
                    &decoded, &end, Int32(sodium_base64_VARIANT_ORIGINAL))
                if result != 0 { decoded = -1 }
            }
            // It stops at the first character outside the alphabet: every one must have been read.
            guard decoded == length, end == start.map({ $0 + input.count }) else { return nil }
            return output
        }
    }
}
