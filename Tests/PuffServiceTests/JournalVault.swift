// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A file vault in a folder of its own for the tests that tamper with its files
/// (JournalChainAttackTests, ChainDigestTests, JournalUnderfootTests, SnapshotSealTests): services
/// over it as puffd starts them, items by key, `login`'s files and its journal's records. Attacks
/// that restart work on a copy (``trial``) of what a service wrote in ``pristine``, so the writing
/// service's lock on its folder never matters.
struct JournalVault {
    /// The passcode of `login`.
    static let passcode = "one pass"

    let client: ClientID
    let folder: URL

    /// A vault in a new folder named after `name`, used by the client `client`.
    init(_ name: String, client: String) {
        self.client = ClientID(client)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-\(name)-\(UUID().uuidString)")
    }

    /// Where the vault is written when the attack works on a copy.
    var pristine: URL { folder.appendingPathComponent("pristine") }
    /// The copy the attack changes.
    var trial: URL { folder.appendingPathComponent("trial") }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A service over the vault at `path`, as puffd starts it; `wrap` puts a test decorator
    /// around its store.
    func service(at path: URL, wrap: (FileRecordStore) -> any RecordStore = { $0 }) async throws -> SecretService {
        try await SecretService(
            store: wrap(try await FileRecordStore.reopening(folder: path.path)), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }

    /// A new vault at `path`, its `login` under ``passcode`` and unlocked.
    func initialized(at path: URL) async throws -> SecretService {
        let service = try await service(at: path)
        try await service.initialize(passcode: Fixture.passcode(Self.passcode))
        return service
    }

    /// Unlocks `login` with ``passcode``.
    func unlock(_ service: SecretService) async throws {
        _ = try await service.unlock(.login, passcode: Fixture.passcode(Self.passcode))
    }

    /// Writes a vault in ``pristine`` whose `login` holds `a`, given the secret "old" and then
    /// "new", and with `another`, then `b` holding "other".
    func writeWithASecretChanged(another: Bool = false) async throws -> (a: ItemID, b: ItemID?) {
        let service = try await initialized(at: pristine)
        let a = try await store("a", "old", in: service)
        try await store("a", "new", in: service)
        return (a, another ? try await store("b", "other", in: service) : nil)
    }

    /// Writes a vault in ``pristine`` whose `login` held `gone`, deleted, then holds `later`: its
    /// journal's records are the collection, an item, a deletion and an item. Returns `gone`.
    func writeWithADeletion() async throws -> ItemID {
        let service = try await initialized(at: pristine)
        let gone = try await store("gone", "secret", in: service)
        try await service.deleteItem(gone)
        try await store("later", "secret", in: service)
        return gone
    }

    /// Stores (or replaces) the item `["k": key]`, labelled `key`, holding `secret`.
    @discardableResult
    func store(_ key: String, _ secret: String, in service: SecretService) async throws(ServiceError) -> ItemID {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: client)
        return try await service.createItem(
            in: .login, label: key, attributes: ["k": key], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: true, client: client)
    }

    /// The secret of `item`, as text.
    func read(_ item: ItemID, in service: SecretService) async throws(ServiceError) -> String {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: client)
        let secret = try await service.secret(of: item, session: session.session, caller: Caller(client))
        return String(decoding: secret.value.unprotectedArray(), as: UTF8.self)
    }

    /// What `Status` says is wrong with `login`; nil when it is not listed.
    func damage(in service: SecretService) async -> String? {
        await service.vaultStatus.collections.first { $0.id == "login" }?.damage
    }

    /// `login`'s file ending in `suffix` (`.journal`, `.index`) in the vault at `path`: the one
    /// beside the header that names `login`.
    func loginFile(_ suffix: String, at path: URL) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: path.path)
        let login = try names.filter { $0.hasSuffix(".header") }.first { name in
            try Data(contentsOf: path.appendingPathComponent(name)).range(of: Data("login".utf8)) != nil
        }
        return path.appendingPathComponent(String(try #require(login).dropLast(7)) + suffix)
    }

    /// Copies the pristine vault, without its lock, to the trial folder and returns the bytes of
    /// `login`'s journal there with its records (each with its offset).
    func copyToTrial() throws -> (bytes: [UInt8], records: [JournalReplay.Record]) {
        try FileManager.default.createDirectory(at: trial, withIntermediateDirectories: false)
        for name in try FileManager.default.contentsOfDirectory(atPath: pristine.path) where name != "lock" {
            try FileManager.default.copyItem(
                at: pristine.appendingPathComponent(name), to: trial.appendingPathComponent(name))
        }
        let bytes = [UInt8](try Data(contentsOf: try loginFile(".journal", at: trial)))
        return (bytes, try JournalFraming.parse(bytes, file: "journal").records)
    }
}

extension ServiceError? {
    /// Whether this is ``ServiceError/damaged(_:)``.
    var isDamage: Bool {
        if case .damaged? = self { true } else { false }
    }
}
