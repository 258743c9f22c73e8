// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// An owned libcrypto `BIGNUM`, cleared with `BN_clear_free` when it goes out of scope.
///
/// Non-copyable so that exactly one owner frees it, and so that a private exponent cannot be
/// duplicated into memory nobody wipes.
struct BigNumber: ~Copyable {
    /// The underlying `BIGNUM *`; valid for the lifetime of `self`, never to be freed by callers.
    let pointer: OpaquePointer

    /// A new zero value in libcrypto's secure heap where one is configured (wraps `BN_secure_new`).
    init() throws(CryptoError) {
        pointer = try Self.allocate()
    }

    /// Takes ownership of a `BIGNUM *` returned by libcrypto; `function` names the call for errors.
    init(taking pointer: OpaquePointer?, from function: String) throws(CryptoError) {
        guard let pointer else { throw .openSSL(function) }
        self.pointer = pointer
    }

    /// Reads an unsigned big-endian integer (wraps `BN_bin2bn`); an empty buffer reads as zero.
    init(bigEndian bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        // No delegation to init(): a non-copyable `self` cannot be thrown away once initialised.
        let pointer = try Self.allocate()
        if let failure = Self.read(bytes, into: pointer) {
            BN_clear_free(pointer)
            throw failure
        }
        self.pointer = pointer
    }

    /// Reads an unsigned big-endian integer from an array slice; for public values.
    init(bigEndian bytes: ArraySlice<UInt8>) throws(CryptoError) {
        let pointer = try Self.allocate()
        let failure = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> CryptoError? in
            Self.read(buffer, into: pointer)
        }
        if let failure {
            BN_clear_free(pointer)
            throw failure
        }
        self.pointer = pointer
    }

    /// A small value (wraps `BN_set_word`).
    init(word: UInt) throws(CryptoError) {
        let pointer = try Self.allocate()
        guard BN_set_word(pointer, word) == 1 else {
            BN_clear_free(pointer)
            throw .openSSL("BN_set_word")
        }
        self.pointer = pointer
    }

    /// Replaces the value with the unsigned big-endian integer in `bytes` (wraps `BN_bin2bn`).
    func load(bigEndian bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        if let failure = Self.read(bytes, into: pointer) { throw failure }
    }

    private static func allocate() throws(CryptoError) -> OpaquePointer {
        guard let pointer = BN_secure_new() else { throw .openSSL("BN_secure_new") }
        return pointer
    }

    private static func read(_ bytes: UnsafeRawBufferPointer, into pointer: OpaquePointer) -> CryptoError? {
        guard bytes.count <= Int(Int32.max) else { return .library("BN_bin2bn: input too long") }
        let source = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return BN_bin2bn(source, Int32(bytes.count), pointer) == nil ? .openSSL("BN_bin2bn") : nil
    }

    deinit {
        BN_clear_free(pointer)
    }

    /// Marks the value secret so libcrypto takes its constant-time code paths (`BN_FLG_CONSTTIME`).
    func markConstantTime() {
        BN_set_flags(pointer, BN_FLG_CONSTTIME)
    }

    /// Three-way comparison of the magnitudes (wraps `BN_cmp`).
    func compare(_ other: borrowing BigNumber) -> Int32 {
        BN_cmp(pointer, other.pointer)
    }

    /// Writes the value big-endian, left-padded with zeros to exactly `buffer.count` bytes
    /// (wraps `BN_bn2binpad`).
    ///
    /// - Throws: ``CryptoError/library(_:)`` if the value does not fit.
    func write(paddedTo buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        guard let base = buffer.baseAddress, buffer.count <= Int(Int32.max) else {
            throw .library("BN_bn2binpad: bad output buffer")
        }
        let written = BN_bn2binpad(pointer, base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
        guard written == Int32(buffer.count) else { throw .openSSL("BN_bn2binpad") }
    }

    /// The value big-endian, left-padded to exactly `length` bytes. Only for public values.
    func paddedBytes(length: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        // Array's closure APIs rethrow untyped errors, so carry the typed one out by hand.
        var failure: CryptoError?
        bytes.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Void in
            do throws(CryptoError) { try write(paddedTo: buffer) } catch { failure = error }
        }
        if let failure { throw failure }
        return bytes
    }
}

/// An owned `BN_CTX` scratch pool, freed (its temporaries cleared) when it goes out of scope.
struct BigNumberContext: ~Copyable {
    /// The underlying `BN_CTX *`.
    let pointer: OpaquePointer

    /// A context whose temporaries live in the secure heap where one is configured
    /// (wraps `BN_CTX_secure_new`); modular exponentiation leaves secret intermediates in it.
    init() throws(CryptoError) {
        guard let pointer = BN_CTX_secure_new() else { throw .openSSL("BN_CTX_secure_new") }
        self.pointer = pointer
    }

    deinit {
        BN_CTX_free(pointer)
    }
}
