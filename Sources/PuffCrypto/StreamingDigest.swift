// SPDX-License-Identifier: Apache-2.0
import CSodium

/// An unkeyed BLAKE2b-256 fed piece by piece (`crypto_generichash_init/update/final`): the
/// checksums of a backup archive, computed while it streams (docs/backup.md).
public final class StreamingDigest {
    /// The digest's length in bytes.
    public static let length = 32

    private let memory: UnsafeMutableRawPointer

    /// A digest of nothing yet.
    public init() {
        _ = Sodium.ready
        // The state is an aligned struct Swift imports as opaque: give it raw, aligned memory.
        memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        _ = crypto_generichash_init(OpaquePointer(memory), nil, 0, Self.length)
    }

    deinit {
        memory.deallocate()
    }

    /// Adds `bytes`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = crypto_generichash_update(
            OpaquePointer(memory), base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// Adds `bytes`.
    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything added; the digest must not be used afterwards.
    public func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.length)
        _ = crypto_generichash_final(OpaquePointer(memory), &out, Self.length)
        return out
    }
}
