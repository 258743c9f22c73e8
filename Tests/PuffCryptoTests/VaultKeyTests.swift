// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// Argon2id passcode keys, the master key's wrap and sub-keys, and record bindings.
@Suite struct VaultKeyTests {
    static let salt = Array("puff-test-salt16".utf8)

    /// Computed with argon2-cffi 21.1 (Debian's python3-argon2), an implementation independent of
    /// libsodium: `hash_secret_raw(P, salt, time_cost=2, memory_cost=65536, parallelism=1,
    /// hash_len=32, type=Type.ID, version=19)`.
    @Test(arguments: [
        ("correct horse battery staple", "f67055ec862bbec06011cb8620531aec9f3a878ef17234499f44b3332926be33"),
        ("", "e790e11ce29ae3dfb58b5ae08d757b94e03336fed388a3b391b20f696c70ae19"),
    ])
    func argon2idMatchesAnIndependentImplementation(_ passcode: String, _ expected: String) throws {
        let key = try PasscodeKDF.key(
            for: SecureBytes(unwipedCopyOf: passcode.utf8), salt: Self.salt, parameters: .interactive)
        #expect(key.unprotectedArray().hex == expected)
    }

    @Test func parametersBelowInteractiveOrAboveTheMaximumAreRefused() {
        #expect(throws: CryptoError.invalidParameters) { _ = try KDFParameters(operations: 1, memoryBytes: 1 << 26) }
        #expect(throws: CryptoError.invalidParameters) { _ = try KDFParameters(operations: 2, memoryBytes: 1 << 20) }
        #expect(throws: CryptoError.invalidParameters) { _ = try KDFParameters(operations: 17, memoryBytes: 1 << 26) }
        #expect(throws: CryptoError.invalidParameters) { _ = try KDFParameters(operations: 2, memoryBytes: 1 << 31) }
        #expect(throws: CryptoError.invalidParameters) {
            _ = try PasscodeKDF.key(for: SecureBytes.empty, salt: [1, 2, 3], parameters: .interactive)
        }
        #expect((try? KDFParameters(operations: 3, memoryBytes: 1 << 28)) == .moderate)
    }

    @Test func aWrappedMasterKeyOpensOnlyWithItsPasscodeAndBinding() throws {
        let master = MasterKey()
        let right = try PasscodeKDF.key(
            for: SecureBytes(unwipedCopyOf: "right".utf8), salt: Self.salt, parameters: .interactive)
        let wrong = try PasscodeKDF.key(
            for: SecureBytes(unwipedCopyOf: "wrong".utf8), salt: Self.salt, parameters: .interactive)
        let binding = Array("login/v1".utf8)
        let wrapped = try master.wrapped(under: right, associatedData: binding)
        #expect(try MasterKey.unwrap(wrapped, under: right, associatedData: binding).isSame(as: master))
        #expect(throws: CryptoError.wrongKey) {
            _ = try MasterKey.unwrap(wrapped, under: wrong, associatedData: binding)
        }
        #expect(throws: CryptoError.wrongKey) {
            _ = try MasterKey.unwrap(wrapped, under: right, associatedData: Array("other/v1".utf8))
        }
        var flipped = wrapped
        flipped[flipped.count / 2] ^= 0x01
        #expect(throws: CryptoError.wrongKey) {
            _ = try MasterKey.unwrap(flipped, under: right, associatedData: binding)
        }
        #expect(throws: CryptoError.wrongKey) {
            _ = try MasterKey.unwrap([1, 2], under: right, associatedData: binding)
        }
        #expect(!MasterKey().isSame(as: master))
    }

    @Test func subkeysAreStableAndDifferPerPurposeAndNumber() {
        let master = MasterKey()
        #expect(master.subkey(.records).constantTimeEquals(master.subkey(.records)))
        #expect(!master.subkey(.records).constantTimeEquals(master.subkey(.blindIndex)))
        #expect(!master.subkey(.records, id: 1).constantTimeEquals(master.subkey(.records, id: 2)))
        #expect(!master.subkey(.records).constantTimeEquals(MasterKey().subkey(.records)))
        #expect(master.subkey(.blindIndex).count == 32)
    }

    @Test func aRecordOpensOnlyWithTheBindingItWasSealedWith() throws {
        let sealer = try SecretSealer(key: MasterKey().subkey(.records))
        let binding = RecordBinding(recordID: 7, kind: 1, collection: "login", formatVersion: 1)
        let sealed = sealer.seal(SecureBytes(unwipedCopyOf: "s3cret".utf8), associatedData: binding.associatedData)
        #expect(
            try sealer.open(sealed, associatedData: binding.associatedData).unprotectedArray() == Array("s3cret".utf8))
        let others = [
            RecordBinding(recordID: 8, kind: 1, collection: "login", formatVersion: 1),
            RecordBinding(recordID: 7, kind: 2, collection: "login", formatVersion: 1),
            RecordBinding(recordID: 7, kind: 1, collection: "work", formatVersion: 1),
            RecordBinding(recordID: 7, kind: 1, collection: "login", formatVersion: 2),
        ]
        for other in others {
            #expect(throws: CryptoError.invalidCiphertext) {
                _ = try sealer.open(sealed, associatedData: other.associatedData)
            }
        }
        #expect(sealed.count == 6 + SecretSealer.overhead)
        #expect(!sealed.contains(subsequence: Array("s3cret".utf8)))
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
