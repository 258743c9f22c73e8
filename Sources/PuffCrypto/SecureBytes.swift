// SPDX-License-Identifier: Apache-2.0
import CSodium

/// An immutable run of bytes kept in `sodium_malloc`'d memory: guard pages around it, locked out of
/// swap where the kernel allows, and wiped by `sodium_free` when the last reference goes away.
///
/// Secrets, passcodes and keys travel through Puff only as `SecureBytes`, never as `[UInt8]`:
/// arrays are copied and regrown freely and nothing wipes the old storage.
///
/// The bytes are written once, inside an initialiser, and never change afterwards, which is what
/// makes sharing one instance between tasks safe.
///
/// Values of up to 4 KiB share `sodium_malloc`'d pages (``SecureSlab``); larger ones get a region
/// of their own. Either way the memory is locked and wiped when freed.
public final class SecureBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    /// The ``SecureSlab`` size class of `base`'s slot; nil for a region of its own.
    private let sizeClass: Int?
    /// The number of bytes held.
    public let count: Int

    /// Allocates `count` bytes and lets `fill` write them before anyone else can see them.
    ///
    /// - Throws: whatever `fill` throws; the buffer is wiped and freed first.
    public init<E: Error>(
        count: Int,
        fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        precondition(count >= 0, "negative SecureBytes size")
        _ = Sodium.ready
        self.count = count
        if count == 0 {
            base = nil
            sizeClass = nil
            try fill(UnsafeMutableRawBufferPointer(start: nil, count: 0))
            return
        }
        let slot = SecureSlab.sizeClass(for: count)
        let memory: UnsafeMutableRawPointer
        if let slot {
            memory = SecureSlab.shared.allocate(sizeClass: slot)
        } else {
            // sodium_malloc only returns nil when the process is out of memory or address space.
            guard let region = sodium_malloc(count) else { fatalError("sodium_malloc(\(count)) failed") }
            memory = region
        }
        // Fill before storing `base`: once every stored property is set, a throw runs deinit, which
        // would free the memory a second time.
        do {
            try fill(UnsafeMutableRawBufferPointer(start: memory, count: count))
        } catch {
            if let slot { SecureSlab.shared.release(memory, sizeClass: slot) } else { sodium_free(memory) }
            throw error
        }
        base = memory
        sizeClass = slot
    }

    /// Copies `bytes` into secure memory. The caller remains responsible for the source buffer.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count) { (target: UnsafeMutableRawBufferPointer) -> Void in
            if let src = bytes.baseAddress, let dst = target.baseAddress {
                dst.copyMemory(from: src, byteCount: bytes.count)
            }
        }
    }

    /// Copies `bytes` into secure memory through an ordinary array that nobody wipes.
    ///
    /// - Warning: The label says it: use it only for values that were never secret in the first
    ///   place (test fixtures, ciphertext) or whose source the caller wipes.
    public convenience init(unwipedCopyOf bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self.init(count: array.count) { (target: UnsafeMutableRawBufferPointer) -> Void in
            for (index, byte) in array.enumerated() { target[index] = byte }
        }
    }

    /// An empty value; allocates nothing.
    public static let empty = SecureBytes(count: 0) { (_: UnsafeMutableRawBufferPointer) -> Void in }

    deinit {
        guard let base else { return }
        // Both paths zero the bytes: the slab before reuse, sodium_free before unmapping.
        if let sizeClass { SecureSlab.shared.release(base, sizeClass: sizeClass) } else { sodium_free(base) }
    }

    /// Whether no bytes are held.
    public var isEmpty: Bool { count == 0 }

    /// Gives read access to the bytes; the pointer must not escape `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Compares in time that depends only on the lengths, never on the contents (wraps `sodium_memcmp`).
    public func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        guard let base, let otherBase = other.base else { return true }
        return sodium_memcmp(base, otherBase, count) == 0
    }

    /// Copies the bytes out into an ordinary array.
    ///
    /// - Warning: The copy is not wiped. Use it only for data that is not secret (ciphertext, public
    ///   keys, IVs) or in tests.
    public func unprotectedArray() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Whether the bytes are valid UTF-8, checked without copying them.
    public var isValidUTF8: Bool {
        withUnsafeBytes { raw in
            var decoder = UTF8()
            var iterator = raw.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// Never the contents: a log line or error message that interpolates a secret shows only its size.
    public var description: String { "<\(count) secret bytes>" }
    /// Same as ``description``.
    public var debugDescription: String { description }
}

extension SecureBytes {
    /// Zeroes `bytes` in place with `sodium_memzero` (which the compiler cannot leave out), for
    /// plaintext that had to pass through an ordinary array: an unencrypted export read whole.
    /// Copies the array made earlier are not reached.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { sodium_memzero(base, raw.count) }
        }
    }
}
