// SPDX-License-Identifier: Apache-2.0
import CSodium

extension Checksum {
    /// Checks many frames' checksums with one hashing state: no allocation per frame, for a walk
    /// over a whole journal (design core-reshaped §4.3). One thread at a time.
    public final class Verifier {
        private let memory: UnsafeMutableRawPointer

        public init() {
            _ = Sodium.ready
            memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        }

        deinit { memory.deallocate() }

        /// Whether the checksum of `first` then `second` is the 16 bytes of `expected`.
        public func matches(
            _ expected: UnsafeRawBufferPointer, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer
        ) -> Bool {
            let state = OpaquePointer(memory)
            var sum = (UInt64(0), UInt64(0))
            _ = crypto_generichash_init(state, nil, 0, 16)
            for part in [first, second] {
                _ = crypto_generichash_update(
                    state, part.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
            }
            return withUnsafeMutableBytes(of: &sum) { out in
                _ = crypto_generichash_final(state, out.baseAddress!.assumingMemoryBound(to: UInt8.self), 16)
                return UnsafeRawBufferPointer(out).elementsEqual(expected)
            }
        }
    }
}
