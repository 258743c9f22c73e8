// SPDX-License-Identifier: Apache-2.0
import CSodium
import Glibc
import SystemPackage

/// An unkeyed BLAKE2b-256 of a whole file (wraps `crypto_generichash` without a key), read in
/// chunks: what identifies an executable's contents in access rules (docs/vault-format.md).
public enum ContentDigest {
    /// The digest's length in bytes.
    public static let length = 32

    /// The digest of everything `descriptor` reads from its current offset to end of file.
    ///
    /// - Returns: nil when a read fails.
    public static func digest(readingToEnd descriptor: Int32) -> [UInt8]? {
        _ = Sodium.ready
        // The state is an aligned struct Swift imports as opaque: give it raw, aligned memory.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        defer { memory.deallocate() }
        let state = OpaquePointer(memory)
        _ = crypto_generichash_init(state, nil, 0, length)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            guard let count = try? FileDescriptor(rawValue: descriptor).read(into: chunk) else { return nil }
            if count == 0 { break }
            _ = crypto_generichash_update(state, chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(count))
        }
        var out = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash_final(state, &out, length)
        return out
    }

    /// The digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        _ = Sodium.ready
        var out = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&out, length, bytes, UInt64(bytes.count), nil, 0)
        return out
    }
}
