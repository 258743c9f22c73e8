// SPDX-License-Identifier: Apache-2.0
import CSodium

/// ChaCha20 (IETF, 96-bit nonce) and Salsa20 keystreams through libsodium, as KDBX uses them: the
/// KDBX 4 payload cipher and both inner streams that hide protected values. A value: it remembers
/// how far into the keystream it is, so consecutive calls continue one stream, as KeePass's
/// protected values do in document order.
public struct StreamCipher: Sendable {
    /// The stream ciphers KDBX names.
    public enum Algorithm: Sendable {
        /// ChaCha20 with a 12-byte nonce and a 32-bit block counter (RFC 8439).
        case chacha20
        /// Salsa20/20 with an 8-byte nonce.
        case salsa20

        var nonceLength: Int {
            switch self {
            case .chacha20: 12
            case .salsa20: 8
            }
        }
    }

    private let algorithm: Algorithm
    private let key: SecureBytes
    private let nonce: [UInt8]
    /// Bytes of keystream used so far.
    public private(set) var offset: UInt64 = 0

    /// A stream at its start.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for a key that is not 32 bytes or a nonce of the
    ///   wrong length.
    public init(_ algorithm: Algorithm, key: SecureBytes, nonce: [UInt8]) throws(CryptoError) {
        guard key.count == 32, nonce.count == algorithm.nonceLength else { throw .invalidParameters }
        self.algorithm = algorithm
        self.key = key
        self.nonce = nonce
    }

    /// Decrypts `ciphertext` (the next bytes of the stream) into secure memory.
    public mutating func decrypt(_ ciphertext: [UInt8]) throws(CryptoError) -> SecureBytes {
        let start = offset
        let input = SecureBytes(unwipedCopyOf: ciphertext)
        let result = try SecureBytes(count: input.count) {
            (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            try input.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(CryptoError) in
                try xor(bytes, into: output, at: start)
            }
        }
        offset += UInt64(ciphertext.count)
        return result
    }

    /// Encrypts `plaintext` (the next bytes of the stream); the ciphertext is not secret.
    public mutating func encrypt(_ plaintext: SecureBytes) throws(CryptoError) -> [UInt8] {
        let start = offset
        // The ciphertext is written in secure memory too and copied out once whole, so no
        // partial plaintext ever sits in an ordinary array.
        let ciphertext = try SecureBytes(count: plaintext.count) {
            (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            try plaintext.withUnsafeBytes { (input: UnsafeRawBufferPointer) throws(CryptoError) in
                try xor(input, into: output, at: start)
            }
        }
        offset += UInt64(plaintext.count)
        return ciphertext.unprotectedArray()
    }

    /// XORs `input` with the keystream from byte `start` into `output` (same length). libsodium
    /// starts at a block boundary, so the partial first block is worked in a secure scratch buffer.
    private func xor(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, at start: UInt64
    ) throws(CryptoError) {
        guard !input.isEmpty else { return }
        let block = start / 64
        let skip = Int(start % 64)
        if algorithm == .chacha20, block + UInt64(input.count + skip) / 64 + 1 > UInt64(UInt32.max) {
            throw .invalidParameters
        }
        let scratch = try SecureBytes(count: skip + input.count) {
            (buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            UnsafeMutableRawBufferPointer(rebasing: buffer[skip...]).copyMemory(from: input)
            let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let status = key.withUnsafeBytes { (keyBytes: UnsafeRawBufferPointer) -> Int32 in
                nonce.withUnsafeBufferPointer { nonceBytes in
                    let keyBase = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    return switch algorithm {
                    case .chacha20:
                        crypto_stream_chacha20_ietf_xor_ic(
                            bytes, bytes, UInt64(buffer.count), nonceBytes.baseAddress!, UInt32(block), keyBase)
                    case .salsa20:
                        crypto_stream_salsa20_xor_ic(
                            bytes, bytes, UInt64(buffer.count), nonceBytes.baseAddress!, block, keyBase)
                    }
                }
            }
            guard status == 0 else { throw .library("crypto_stream xor failed") }
        }
        scratch.withUnsafeBytes { output.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[skip...])) }
    }
}
