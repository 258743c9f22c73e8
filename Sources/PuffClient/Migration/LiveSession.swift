// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffFormats
import PuffText

/// The Secret Service session `import --bus` reads secrets under: `dh-ietf1024-sha256-aes128-cbc-pkcs7`
/// as libsecret opens it, so no secret crosses the other bus in plain; `plain` only when the
/// provider refuses that algorithm (``isPlain``, which puffctl says).
struct LiveSession: Sendable {
    let path: ObjectPath
    let provider: String
    /// The AES key agreed with the provider; nil for a plain session.
    let key: SecureBytes?

    var isPlain: Bool { key == nil }

    /// One secret as the provider released it.
    struct Secret: Sendable {
        var value: SecureBytes
        var contentType: String
    }

    /// Opens the session on `provider`.
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` when the provider refuses both algorithms or
    ///   sends an unusable key.
    static func open(on provider: String, bus: LiveBus) async throws(ClientError) -> LiveSession {
        let exchange: DHTransport.ClientExchange
        do throws(CryptoError) {
            exchange = try DHTransport.ClientExchange()
        } catch {
            throw .liveSource("could not start the key exchange: \(error)")
        }
        let answer = try await bus.attempt(
            "OpenSession", on: LiveProviderSource.servicePath, interface: LiveProviderSource.serviceInterface,
            [.string(ControlClient.algorithm), .variant(.bytes(exchange.publicKey))], expecting: "vo",
            provider: provider)
        switch answer {
        case .reply(let opened):
            guard case .bytes(let providerKey)? = opened[0].variantContents, let path = opened[1].objectPath else {
                throw .liveSource("a malformed reply: OpenSession's output is not a byte array and a path")
            }
            do throws(CryptoError) {
                let key = try exchange.sessionKey(servicePublicKey: providerKey)
                return LiveSession(path: path, provider: provider, key: key)
            } catch {
                throw .liveSource("the provider sent an unusable session key: \(error)")
            }
        case .refused(let error) where error.name == .notSupported:
            let opened = try await bus.call(
                "OpenSession", on: LiveProviderSource.servicePath, interface: LiveProviderSource.serviceInterface,
                [.string("plain"), .variant(.string(""))], expecting: "vo", provider: provider)
            let path = try opened[1].objectPath.orFail("OpenSession's output has no session path")
            // Plain secrets are decoded straight into locked memory.
            bus.connection.setDecodePolicy(
                DecodePolicy(
                    maxValues: LiveLimits.maximumValues, maxBytes: LiveLimits.maximumReplyBytes,
                    secretFields: ["(oayays)": 2], methodSignatures: [:]))
            return LiveSession(path: path, provider: provider, key: nil)
        case .refused(let error):
            throw .liveSource(
                "the provider refused OpenSession: \(TerminalText.escaped(error.message)) (\(error.name.rawValue))")
        case .tooLarge(let limit):
            throw .liveSource("the reply to OpenSession is too large (\(limit))")
        }
    }

    /// Closes the session without waiting (the provider also closes it when we leave its bus).
    func close(bus: LiveBus) {
        bus.connection.send(
            .methodCall(
                destination: provider, path: path, interface: SecretInterfaces.session, member: "Close"))
    }

    /// The secrets of `items` by path (`GetSecrets`, ``LiveLimits/secretsPerCall`` at a time). An
    /// item the provider leaves out of its reply is missing here; one it adds is ignored.
    func secrets(of items: [ObjectPath], bus: LiveBus) async throws(ClientError) -> [String: Secret] {
        var found: [String: Secret] = [:]
        var total = 0
        var start = 0
        while start < items.count {
            let batch = Array(items[start..<min(start + LiveLimits.secretsPerCall, items.count)])
            try await fetch(batch, into: &found, total: &total, bus: bus)
            start += batch.count
        }
        return found
    }

    /// One `GetSecrets`; a reply over the limits is asked for again in halves, down to one item.
    private func fetch(_ batch: [ObjectPath], into found: inout [String: Secret], total: inout Int, bus: LiveBus)
        async throws(ClientError)
    {
        let answer = try await bus.attempt(
            "GetSecrets", on: LiveProviderSource.servicePath, interface: LiveProviderSource.serviceInterface,
            [.objectPaths(batch), .objectPath(path)], expecting: "a{o(oayays)}", provider: provider)
        switch answer {
        case .reply(let reply):
            let wanted = Set(batch.map(\.rawValue))
            guard case .dictionary(_, _, let entries) = reply[0] else {
                throw .liveSource("a malformed reply: GetSecrets' output is not a dictionary")
            }
            for entry in entries {
                guard let item = entry.key.objectPath?.rawValue, wanted.contains(item) else { continue }
                let secret = try open(entry.value, item: item)
                total += secret.value.count
                guard total <= LiveLimits.maximumSecretBytes else {
                    throw .liveSource(
                        "the provider's secrets add up to more than \(LiveLimits.maximumSecretBytes >> 20) MiB")
                }
                found[item] = secret
            }
        case .tooLarge where batch.count > 1:
            let half = batch.count / 2
            try await fetch(Array(batch[..<half]), into: &found, total: &total, bus: bus)
            try await fetch(Array(batch[half...]), into: &found, total: &total, bus: bus)
        case .tooLarge(let limit):
            throw .liveSource("the provider's secret of one item is too large (\(limit))")
        case .refused(let error):
            throw .liveSource(
                "the provider refused GetSecrets: \(TerminalText.escaped(error.message)) (\(error.name.rawValue))")
        }
    }

    /// A `(oayays)` Secret opened with the session key (or taken as it is in a plain session).
    private func open(_ value: DBusValue, item: String) throws(ClientError) -> Secret {
        guard let fields = value.fields, fields.count == 4, let contentType = fields[3].string else {
            throw .liveSource("a malformed reply: the secret of \(item) is not (oayays)")
        }
        let checkedType = try LiveText.checked(contentType, "the content type of \(item)")
        let secret: SecureBytes
        if let key {
            guard let iv = fields[1].bytes, let ciphertext = fields[2].bytes else {
                throw .liveSource("a malformed reply: the secret of \(item) is not (oayays)")
            }
            do throws(CryptoError) {
                secret = try DHTransport.decrypt(ciphertext: ciphertext, iv: iv, key: key)
            } catch {
                throw .liveSource("the secret of \(item) did not decrypt with the session key: \(error)")
            }
        } else {
            secret = try (fields[2].secret ?? fields[2].bytes.map { SecureBytes(unwipedCopyOf: $0) }).orFail(
                "the secret of \(item) is not a byte array")
        }
        guard secret.count <= PortableBatch.maximumSecretBytes else {
            throw .liveSource("the secret of \(item) is larger than \(PortableBatch.maximumSecretBytes >> 20) MiB")
        }
        return Secret(value: secret, contentType: checkedType.isEmpty ? "text/plain" : checkedType)
    }
}
