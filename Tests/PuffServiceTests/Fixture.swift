// SPDX-License-Identifier: Apache-2.0
import InMemoryLogging
import Logging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A service wired to test doubles, plus the handles tests need to drive and observe it.
struct Fixture {
    static let alice = ClientID(":1.10")
    static let bob = ClientID(":1.11")
    static let timeout = Duration.seconds(30)

    let service: SecretService
    /// The vault's records: a memory store behind test controls (fail or hold writes, count appends).
    let storage: FaultyRecordStore
    /// The audit logs' store: every fixture keeps them, as puffd does by default.
    let audit: MemoryAuditStore
    let prompter: ScriptedPrompter
    let clock: ManualClock
    let recorder: EventRecorder
    let time: SettableTime
    let logs: InMemoryLogHandler

    init(
        script: [ScriptedPrompter.Step] = [],
        storage: any RecordStore = MemoryRecordStore(),
        audit: MemoryAuditStore = MemoryAuditStore(),
        mode: VaultMode = .ephemeral,
        limits: ServiceLimits = ServiceLimits(),
        autoLock: AutoLockSettings = .never,
        itemRules: ItemRules = ItemRules(),
        access: AccessConfiguration = .open,
        allowsPlainSessions: Bool = true,
        timeout: Duration = Fixture.timeout,
        keyKeeper: (any UnlockedKeyKeeper)? = nil,
        tpm: (any TPMSealing)? = nil,
        securityKeys: (any SecurityKeys)? = nil,
        transit: (any TransitSealing)? = nil,
        counting: CountingRecordStore? = nil,
        auditStore: (any AuditStore)? = nil
    ) async throws {
        self.storage = storage as? FaultyRecordStore ?? FaultyRecordStore(storage)
        self.audit = audit
        prompter = ScriptedPrompter(script)
        clock = ManualClock()
        recorder = EventRecorder()
        time = SettableTime()
        logs = InMemoryLogHandler()
        service = try await SecretService(
            store: counting ?? self.storage, mode: mode, prompter: prompter, itemRules: itemRules,
            promptTimeout: timeout,
            limits: limits, autoLock: autoLock, keyKeeper: keyKeeper, tpm: tpm, securityKeys: securityKeys,
            transit: transit, audit: auditStore ?? audit,
            access: access,
            allowsPlainSessions: allowsPlainSessions,
            clock: clock,
            now: time.now,
            logger: InMemoryLogHandler.logger(store: logs), events: recorder.sink)
    }

    /// A persistent vault (Argon2id at libsodium's interactive limits) initialized with `passcode`.
    static func persistent(
        passcode: String = "correct horse", storage: any RecordStore = MemoryRecordStore(),
        audit: MemoryAuditStore = MemoryAuditStore(), autoLock: AutoLockSettings = .never,
        limits: ServiceLimits = ServiceLimits(), tpm: (any TPMSealing)? = nil, securityKeys: (any SecurityKeys)? = nil,
        transit: (any TransitSealing)? = nil, auditStore: (any AuditStore)? = nil
    ) async throws -> Fixture {
        let fixture = try await Fixture(
            storage: storage, audit: audit, mode: .persistent(kdf: .interactive), limits: limits, autoLock: autoLock,
            tpm: tpm, securityKeys: securityKeys, transit: transit, auditStore: auditStore)
        if await !fixture.service.isInitialized {
            try await fixture.service.initialize(passcode: Fixture.passcode(passcode))
        }
        return fixture
    }

    /// A passcode in locked memory.
    static func passcode(_ text: String) -> SecureBytes {
        SecureBytes(unwipedCopyOf: Array(text.utf8))
    }

    /// A new service over the same storage, as after a restart (persistent mode).
    func restarted(
        tpm: (any TPMSealing)? = nil, securityKeys: (any SecurityKeys)? = nil, transit: (any TransitSealing)? = nil
    ) async throws -> Fixture {
        try await Fixture(
            storage: storage, audit: audit, mode: .persistent(kdf: .interactive), tpm: tpm, securityKeys: securityKeys,
            transit: transit)
    }

    /// Opens a plain session for `client`.
    func plainSession(_ client: ClientID = Fixture.alice) async throws(ServiceError) -> SessionID {
        try await service.openSession(algorithm: "plain", input: .string(""), client: client).session
    }

    /// A plain-session transport secret holding `bytes`.
    static func plain(_ bytes: [UInt8], session: SessionID, contentType: String = "text/plain") -> TransportSecret {
        TransportSecret(
            session: session, parameters: [], value: SecureBytes(unwipedCopyOf: bytes), contentType: contentType)
    }

    /// Stores `secret` in `collection` through a fresh plain session of `client`.
    @discardableResult
    func store(
        _ attributes: Attributes, secret: String = "s3cret", label: String = "label",
        in collection: CollectionID = .login,
        replace: Bool = true, client: ClientID = Fixture.alice
    ) async throws(ServiceError) -> ItemID {
        let session = try await plainSession(client)
        return try await service.createItem(
            in: collection, label: label, attributes: attributes, type: "",
            secret: Self.plain(Array(secret.utf8), session: session), replace: replace, client: client)
    }

    /// Reads a secret back as a string through a plain session.
    func read(_ item: ItemID, client: ClientID = Fixture.alice) async throws -> String {
        let session = try await plainSession(client)
        let secret = try await service.secret(of: item, session: session, caller: Caller(client))
        return String(decoding: secret.value.unprotectedArray(), as: UTF8.self)
    }

    static func reference(_ collection: CollectionID) -> ObjectReference {
        .collection(collection)
    }
}

/// The client half of the DH exchange, using PuffCrypto's package-level test entry points.
struct DHClient {
    let privateExponent = SecureRandom.bytes(32)
    var publicKey: [UInt8] { get throws { try DHTransport.publicKey(privateExponent: privateExponent) } }

    func key(serverPublicKey: [UInt8]) throws -> SecureBytes {
        try DHTransport.agree(peerPublicKey: serverPublicKey, privateExponent: privateExponent).key
    }
}

extension Result where Failure == ServiceError {
    /// The error of a failed call, for `#expect(... == .noSession)`.
    var failure: ServiceError? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// Runs `body` and returns its typed error, or nil when it succeeded.
func serviceError<T>(_ body: () async throws(ServiceError) -> T) async -> ServiceError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

extension SecretService {
    /// `CreateCollection` where no prompt is needed (an ephemeral vault, or an alias that
    /// resolves): the collection. A prompt coming back fails the test.
    func createCollectionAtOnce(label: String, alias: String?, client: ClientID) async throws(ServiceError)
        -> CollectionID
    {
        let (id, prompt) = try await createCollection(label: label, alias: alias, client: client)
        guard let id, prompt == nil else {
            Issue.record("CreateCollection handed out prompt \(String(describing: prompt)) where none was expected")
            throw .failed("a prompt came back")
        }
        return id
    }
}
