// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffService

/// Transit slots' keys wrapped by OpenBao's transit engine (docs/fleet.md, "Transit slots"),
/// for ``SecretService``: this machine's token encrypts a slot's fresh key when the slot is added,
/// and decrypts it at each unlock with no person. A token whose policy lost
/// `transit/decrypt/<key>` is refused with 403, and the slot then fails like a TPM that refuses.
public struct OpenBaoTransit: TransitSealing {
    let client: OpenBaoClient
    /// The transit engine's mount.
    let mount: String
    public let keyName: String?

    /// - Parameters:
    ///   - keyName: `[store.openbao] transit_key`, the key new slots use; nil: none can be added
    ///     (existing slots name their own key).
    public init(client: OpenBaoClient, keyName: String?, mount: String = "transit") {
        self.client = client
        self.keyName = keyName
        self.mount = mount
    }

    public func seal(_ secret: SecureBytes, key: String) async throws(HardwareError) -> String {
        do {
            return try await client.encrypt(secret, key: key, mount: mount)
        } catch {
            throw refusal(error, key: key, doing: "encrypt")
        }
    }

    public func unseal(_ ciphertext: String, key: String) async throws(HardwareError) -> SecureBytes {
        do {
            return try await client.decrypt(ciphertext, key: key, mount: mount)
        } catch {
            throw refusal(error, key: key, doing: "decrypt")
        }
    }

    /// OpenBao's failure in words naming the server and the key, never the token.
    private func refusal(_ error: OpenBaoError, key: String, doing: String) -> HardwareError {
        let address = client.address
        return switch error {
        case .denied:
            .transit(
                "OpenBao at \(address) refused to \(doing) with transit key '\(key)' (permission denied: "
                    + "this machine's token lacks \(mount)/\(doing)/\(key))")
        case .notFound:
            .transit("OpenBao at \(address) has no transit key '\(key)' at \(mount)/")
        case .unreachable(_, let reason):
            .transit("OpenBao at \(address) is unreachable: \(reason)")
        case .server(let status, let message):
            .transit("OpenBao at \(address) could not \(doing) with transit key '\(key)' (\(status): \(message))")
        case .casMismatch, .refused:
            .transit("OpenBao at \(address) could not \(doing) with transit key '\(key)': \(error)")
        }
    }
}
