// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// What every slot change starts with: puffd reached, the collection found, and the passcode or
/// recovery code that opens it now read, in that order (a name that is wrong is said before
/// anything is asked).
struct SlotProof {
    let client: ControlClient
    let target: CollectionStatus
    /// Where the proof was read: a new passcode that comes from the same place follows on it.
    let channel: any PasscodeChannel
    let proof: SecureBytes

    /// Connects with `connection`, finds `collection` and reads its proof from `source`.
    static func read(
        _ collection: String, from source: PasscodeSource, connection: ConnectionOptions
    ) async throws(ClientError) -> SlotProof {
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        let channel = try source.open()
        let proof = try PasscodePrompt.existing(from: channel, prompt: "Passcode or recovery code for \(target.id):")
        return SlotProof(client: client, target: target, channel: channel, proof: proof)
    }

    /// A security key's PIN: one line of descriptor `fd` when given, else asked on the terminal.
    static func pin(fd: Int32?) throws(ClientError) -> SecureBytes {
        let channel: any PasscodeChannel =
            if let fd { try PasscodeSource.descriptor(fd).open() } else { try TerminalChannel() }
        return try channel.readPasscode(prompt: "PIN of the security key:")
    }
}
