// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// A record not sealed yet: ``SecretService/persist(_:in:obsoleting:)`` seals it at its
/// collection's next place in the chain, once the write turn is held.
struct RecordDraft {
    let kind: VaultRecord.Kind
    let number: UInt64
    let tags: [UInt8]
    let plaintext: SecureBytes
}
