// SPDX-License-Identifier: Apache-2.0
import CArgon2

/// Argon2d and Argon2id through the reference library (Debian's libargon2), as KDBX 4 derives its
/// key: KeePassXC and pykeepass use Argon2d, which libsodium does not offer. Never for the vault.
public enum Argon2 {
    /// The two variants KDBX 4 names.
    public enum Variant: Sendable {
        case d, id
    }

    /// The parameters a KDBX 4 header carries (its `I`, `M`, `P` and `V` fields).
    public struct Parameters: Sendable, Equatable {
        /// Passes over memory.
        public var iterations: UInt32
        /// Memory in KiB.
        public var memoryKiB: UInt32
        /// Lanes.
        public var parallelism: UInt32
        /// Algorithm version: 0x10 or 0x13.
        public var version: UInt32

        /// Parameters as a header gives them.
        public init(iterations: UInt32, memoryKiB: UInt32, parallelism: UInt32, version: UInt32 = 0x13) {
            self.iterations = iterations
            self.memoryKiB = memoryKiB
            self.parallelism = parallelism
            self.version = version
        }
    }

    /// The `length`-byte raw hash of `password` under `salt`, into secure memory. The library wipes
    /// its working memory before freeing it.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for parameters the library refuses (too little
    ///   memory for the lanes, an unknown version, a short salt).
    public static func hash(
        _ variant: Variant, password: SecureBytes, salt: [UInt8], parameters: Parameters, length: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        guard parameters.version == 0x10 || parameters.version == 0x13, length >= 4, length <= 1024 else {
            throw .invalidParameters
        }
        let type: argon2_type =
            switch variant {
            case .d: Argon2_d
            case .id: Argon2_id
            }
        return try SecureBytes(count: length) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            let status = password.withUnsafeBytes { (pass: UnsafeRawBufferPointer) -> Int32 in
                salt.withUnsafeBytes { (saltBytes: UnsafeRawBufferPointer) in
                    argon2_hash(
                        parameters.iterations, parameters.memoryKiB, parameters.parallelism,
                        pass.baseAddress, pass.count, saltBytes.baseAddress, saltBytes.count,
                        output.baseAddress, output.count, nil, 0, type, parameters.version)
                }
            }
            guard status == ARGON2_OK.rawValue else {
                if status == ARGON2_MEMORY_ALLOCATION_ERROR.rawValue { throw .library("argon2: out of memory") }
                throw .invalidParameters
            }
        }
    }
}
