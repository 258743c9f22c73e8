// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffFormats

extension OpenBaoClient {
    /// Encrypts `plaintext` with transit key `key` (`POST <mount>/encrypt/<key>`); the plaintext
    /// goes out base64-encoded from locked memory.
    ///
    /// - Returns: OpenBao's ciphertext (`vault:v1:…`), which is not secret.
    /// - Throws: ``OpenBaoError/denied(path:)`` when the token's policy does not allow it,
    ///   ``OpenBaoError/unreachable(address:reason:)``, ``OpenBaoError/server(status:message:)``.
    public func encrypt(_ plaintext: SecureBytes, key: String, mount: String = "transit")
        async throws(OpenBaoError) -> String
    {
        let path = try KVPath.escaped("\(mount)/encrypt/\(key)")
        let body = JSONBody.object([("plaintext", .secret(Base64.encode(plaintext)))])
        return try await call(.post, path, body: body) { (document) throws(OpenBaoError) in
            guard let ciphertext = document.string(document.root["data"]?["ciphertext"]) else {
                throw .server(status: 200, message: "the answer for \(path) has no ciphertext")
            }
            return ciphertext
        }
    }

    /// Decrypts a transit `ciphertext` with key `key` (`POST <mount>/decrypt/<key>`) straight into
    /// locked memory.
    ///
    /// - Throws: ``OpenBaoError/denied(path:)`` when the token's policy does not allow it (a
    ///   revoked machine), ``OpenBaoError/unreachable(address:reason:)``,
    ///   ``OpenBaoError/server(status:message:)`` (a ciphertext of another key, for one).
    public func decrypt(_ ciphertext: String, key: String, mount: String = "transit")
        async throws(OpenBaoError) -> SecureBytes
    {
        let path = try KVPath.escaped("\(mount)/decrypt/\(key)")
        return try await call(.post, path, body: .object([("ciphertext", .text(ciphertext))])) {
            (document) throws(OpenBaoError) in
            guard let encoded = document.secret(document.root["data"]?["plaintext"]),
                let plaintext = Base64.decode(encoded)
            else { throw .server(status: 200, message: "the answer for \(path) has no base64 plaintext") }
            return plaintext
        }
    }
}
