// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// The `plain` transfer algorithm (secret-service.md §5.1).
    public static let plainAlgorithm = "plain"
    /// The DH transfer algorithm (secret-service.md §5.2).
    public static let dhAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// Opens a transfer session owned by `client`.
    ///
    /// - Returns: `.string("")` for `plain`; the service's 128-byte DH public key for the DH algorithm.
    /// - Throws: ``ServiceError/unsupportedAlgorithm`` for other algorithms,
    ///   ``ServiceError/plainSessionsTurnedOff`` for `plain` when ``allowsPlainSessions`` is off;
    ///   ``ServiceError/invalidArgument(_:)`` when the DH input is not bytes or not a valid key;
    ///   ``ServiceError/limitExceeded(_:)`` when the service holds too many sessions (checked before
    ///   any key agreement is computed).
    ///
    /// A client at its own limit loses its least recently used session instead of being refused
    /// (``SessionTable/makeRoom(for:limits:)``).
    public func openSession(
        algorithm: String, input: SessionInput, client: ClientID
    ) throws(ServiceError) -> (output: SessionOutput, session: SessionID) {
        // The least recently used session must count the reads answered on the bus thread: a
        // session used there and not yet recorded would look idle and be closed first (CI ci66).
        flushFastReads()
        if try sessions.makeRoom(for: client, limits: limits) != nil {
            logger.debug(
                "Closed a client's least recently used session to make room",
                metadata: ["client": "\(client)", "limit": "\(limits.sessionsPerClient)"])
        }
        let transport: Session.Transport
        let output: SessionOutput
        switch algorithm {
        case Self.plainAlgorithm:
            guard allowsPlainSessions else { throw .plainSessionsTurnedOff }
            // GK insists on `s`; clients only ever send `s ""`, so any input is accepted.
            transport = .plain
            output = .string("")
        case Self.dhAlgorithm:
            guard case .bytes(let peerKey) = input else {
                throw .invalidArgument("the DH algorithm takes a byte array")
            }
            do {
                let agreed = try DHTransport.agree(peerPublicKey: peerKey)
                transport = .dh(key: agreed.key)
                output = .bytes(agreed.publicKey)
            } catch {
                throw .invalidArgument("invalid DH public key (\(peerKey.count) bytes)")
            }
        default:
            throw .unsupportedAlgorithm
        }
        return (output, sessions.open(transport, for: client))
    }

    /// Closes a session and drops its key.
    ///
    /// - Throws: ``ServiceError/noSession`` when unknown; ``ServiceError/accessDenied`` when another
    ///   client owns it (secret-service.md §5.4).
    public func closeSession(_ id: SessionID, client: ClientID) throws(ServiceError) {
        try sessions.close(id, client: client)
    }

    /// Forgets everything `client` owned after it left the bus: its sessions and its prompts.
    ///
    /// Running prompters are cancelled (a pinentry asking for the client is ended); the prompts
    /// emit no `Completed`, which is unicast to its owner and nobody is left to hear it.
    public func clientVanished(_ client: ClientID) {
        sessions.forget(client)
        for (id, prompt) in prompts.forget(client) {
            prompt.work?.cancel()
            prompt.timer?.cancel()
            logger.info("Prompt dismissed", metadata: ["prompt.id": "\(id)", "reason": "its client left"])
        }
    }

    /// The session `id` if `client` owns it; a session of another client is as good as absent.
    func session(_ id: SessionID, client: ClientID) throws(ServiceError) -> Session {
        try sessions.use(id, client: client)
    }

    /// Turns a secret from the bus into plaintext using the session named inside it (§6.3).
    func decode(_ secret: TransportSecret, client: ClientID) throws(ServiceError) -> SecureBytes {
        let session = try session(secret.session, client: client)
        // Ciphertext is at most one padding block longer than its plaintext.
        try checkSecretSize(max(0, secret.value.count - DHTransport.blockSize))
        switch session.transport {
        case .plain:
            guard secret.parameters.isEmpty else {
                throw .invalidArgument("a plain session takes no parameters")
            }
            try checkSecretSize(secret.value.count)
            return secret.value
        case .dh(let key):
            let plaintext: SecureBytes
            do {
                plaintext = try DHTransport.decrypt(
                    ciphertext: secret.value.unprotectedArray(), iv: secret.parameters, key: key)
            } catch {
                throw .invalidArgument("the secret is not validly encrypted for its session")
            }
            try checkSecretSize(plaintext.count)
            return plaintext
        }
    }

    /// Opens a stored secret and encodes it for `session` with a fresh IV.
    func encode(
        _ record: StoredItem, of item: ItemID, in state: CollectionVault, session: Session, sessionID id: SessionID
    ) throws(ServiceError) -> TransportSecret {
        let opened = try opened(record, item, in: state)
        do {
            return try session.transport.encode(
                opened.secret, contentType: Self.outgoingContentType(opened.contentType), session: id)
        } catch {
            logger.error("Encrypting a secret for transfer failed", metadata: ["error": "\(error)"])
            throw .failed("the secret could not be encrypted")
        }
    }

    /// libsecret accepts only exactly `text/plain` as a password (secret-service.md §9.4).
    static func outgoingContentType(_ stored: String) -> String {
        stored.isEmpty || stored.hasPrefix("text/plain") ? "text/plain" : stored
    }
}

extension SecretService {
    /// Whether `id` is an open session; object trees use it to decide whether a path exists.
    public func hasSession(_ id: SessionID) -> Bool {
        sessions.contains(id)
    }

    /// Whether `id` is a prompt that has not completed yet.
    public func hasPrompt(_ id: PromptID) -> Bool {
        prompts[id] != nil
    }
}
