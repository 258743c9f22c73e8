// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus

/// The encrypted Secret Service session puffctl opens around each secret it reads or writes
/// (secret-service.md §5.2), as libsecret does: the secret crosses the bus under AES with a key
/// from a Diffie-Hellman exchange, never in the clear where `dbus-monitor` could read it.
extension ControlClient {
    static let serviceObject = ObjectPath(unchecked: SecretPaths.service)
    static let serviceInterface = SecretInterfaces.service
    static let sessionInterface = SecretInterfaces.session
    /// The spec's only encrypting algorithm; `plain` would put the secret on the bus.
    static let algorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// Opens a session, runs `body` with its path and key, and closes it whatever happens.
    func withSession<T>(
        _ body: (ObjectPath, SecureBytes) async throws(ClientError) -> T
    ) async throws(ClientError) -> T {
        let exchange: DHTransport.ClientExchange
        do throws(CryptoError) {
            exchange = try DHTransport.ClientExchange()
        } catch {
            throw .failed(name: "", message: "could not start the key exchange: \(error)")
        }
        let opened = try await call(
            "OpenSession", on: Self.serviceObject, interface: Self.serviceInterface,
            [.string(Self.algorithm), .variant(.bytes(exchange.publicKey))], expecting: "vo")
        guard case .bytes(let servicePublicKey)? = opened[0].variantContents, let session = opened[1].objectPath
        else { throw .unexpectedReply(member: "OpenSession") }

        let result: Result<T, ClientError>
        do throws(ClientError) {
            let key: SecureBytes
            do throws(CryptoError) {
                key = try exchange.sessionKey(servicePublicKey: servicePublicKey)
            } catch {
                throw .failed(name: "", message: "puffd sent an unusable session key: \(error)")
            }
            result = .success(try await body(session, key))
        } catch {
            result = .failure(error)
        }
        // Best effort: puffd also closes a session when its client leaves the bus.
        _ = try? await call("Close", on: session, interface: Self.sessionInterface, expecting: "")
        return try result.get()
    }

    /// The `(oayays)` Secret carrying `secret` encrypted under the session's `key`.
    static func encrypted(
        _ secret: SecureBytes, session: ObjectPath, key: SecureBytes, contentType: String
    ) throws(ClientError) -> DBusValue {
        do throws(CryptoError) {
            let (iv, ciphertext) = try DHTransport.encrypt(secret, key: key)
            return .structure([.objectPath(session), .bytes(iv), .bytes(ciphertext), .string(contentType)])
        } catch {
            throw .failed(name: "", message: "the secret could not be encrypted for the bus: \(error)")
        }
    }
}
