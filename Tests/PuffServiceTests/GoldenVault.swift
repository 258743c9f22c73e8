// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting

/// The golden vaults: what `Fixtures/vault-v1` (and `vault-v2`) hold, written once by
/// ``GoldenVaultWriter`` through the real service and file store, and opened by
/// ``GoldenVaultTests`` ever after (Fixtures/README.md says when it may be rewritten: never).
///
/// Everything here describes the committed files; changing a value makes the test fail against
/// them, which is the point.
enum GoldenVault {
    /// One item as a client sees it after unlocking. Its description leaves the secret out, so a
    /// failed expectation never prints it.
    struct Item: CustomStringConvertible {
        let number: UInt64
        let label: String
        let attributes: Attributes
        /// The stored `Type` (the reported one is `xdg:schema` when present).
        let type: String
        let secret: [UInt8]
        let contentType: String
        let created: UInt64
        let modified: UInt64

        var reportedType: String { attributes["xdg:schema"] ?? type }
        var description: String { "item \(number) (\(label))" }
    }

    /// One collection and the passcode that opens it; its description is its id alone.
    struct Collection: CustomStringConvertible {
        let id: CollectionID
        let label: String
        let passcode: String
        let isPrivate: Bool
        let isHidden: Bool
        let created: UInt64
        let modified: UInt64
        let items: [Item]
        /// Numbers of items created and then deleted (an `itemDeleted` record each).
        let deleted: [UInt64]
        /// Whether its items are found while it is locked (header version 2; version 1 has
        /// `always` for visible collections, `never` for private ones).
        var lockedSearch: LockedSearch = .always

        var description: String { id.rawValue }
    }

    /// The fixture's clock starts here; every change advances it by a known amount.
    static let start: UInt64 = 1_700_000_000

    /// Not UTF-8: a NUL, an overlong lead byte, a lone continuation byte, a bad two-byte sequence.
    static let binarySecret: [UInt8] = [0x00, 0xFF, 0xFE, 0x80, 0xC3, 0x28, 0x0A, 0x7F, 0x00]

    static let login = Collection(
        id: .login, label: "Login", passcode: "golden-login-passcode", isPrivate: false, isHidden: false,
        created: start, modified: start + 80,
        items: [
            Item(
                number: 1, label: "GitHub token",
                attributes: [
                    "xdg:schema": "org.freedesktop.Secret.Generic", "service": "github.com", "username": "octocat",
                ],
                type: "", secret: Array("ghp-golden-token".utf8), contentType: "text/plain", created: start + 10,
                modified: start + 70),
            Item(
                number: 2, label: "Signing key", attributes: ["purpose": "signing", "algorithm": "ed25519"],
                type: "org.example.Key", secret: binarySecret, contentType: "application/octet-stream",
                created: start + 20, modified: start + 20),
            Item(
                number: 4, label: "Café ☕ Wi-Fi",
                attributes: ["ssid": "Café ☕", "security": "wpa2-psk", "note": "ünïcødé, with spaces = signs"],
                type: "", secret: Array("second-wifi-secret".utf8),
                contentType: "application/x-wifi-psk; charset=utf-8",
                created: start + 40, modified: start + 60),
            Item(
                number: 5, label: "", attributes: [:], type: "", secret: [], contentType: "text/plain",
                created: start + 80, modified: start + 80),
        ],
        deleted: [3])

    static let work = Collection(
        id: CollectionID("Work"), label: "Work accounts", passcode: "golden-work-passcode", isPrivate: false,
        isHidden: false, created: start + 100, modified: start + 120,
        items: [
            Item(
                number: 1, label: "VPN", attributes: ["service": "vpn.example.com", "username": "alice"], type: "",
                secret: Array("vpn-secret".utf8), contentType: "text/plain", created: start + 110,
                modified: start + 110)
        ],
        deleted: [])

    static let diary = Collection(
        id: CollectionID("Diary"), label: "Diary", passcode: "golden-diary-passcode", isPrivate: true,
        isHidden: false, created: start + 200, modified: start + 210,
        items: [
            Item(
                number: 1, label: "Entry", attributes: ["day": "2023-11-14"], type: "",
                secret: Array("dear diary".utf8), contentType: "text/plain", created: start + 210,
                modified: start + 210)
        ],
        deleted: [])

    static let hidden = Collection(
        id: CollectionID("Vault_13"), label: "Vault 13", passcode: "golden-hidden-passcode", isPrivate: true,
        isHidden: true, created: start + 300, modified: start + 310,
        items: [
            Item(
                number: 1, label: "Hidden note", attributes: ["kind": "note"], type: "",
                secret: Array("hidden-secret".utf8), contentType: "text/plain", created: start + 310,
                modified: start + 310)
        ],
        deleted: [])

    /// Visible collections in catalog order (version 1).
    static let visible = [login, work, diary]

    /// Visible collections in catalog order in the vault of `version`: from version 2 on, `Work`
    /// is searched only after its first unlock (issue 24 item 6) and `Diary` reads as `never`.
    static func visible(version: UInt16) -> [Collection] {
        guard version >= 2 else { return visible }
        var work = work
        work.lockedSearch = .afterUnlock
        var diary = diary
        diary.lockedSearch = .never
        return [login, work, diary]
    }
    /// Version 3 (issue 26): the slots each collection has beyond its passcode, added in this order
    /// after everything else, proved by its passcode. The TPM and the security key are PuffTesting's
    /// fakes made from fixed seeds, so the committed blobs and credential open again.
    enum V3 {
        static let tpmSeed = [UInt8](repeating: 0x54, count: 32)
        static let keySeed = [UInt8](repeating: 0x4B, count: 32)
        /// `Work`'s login slot's password and its fido2+passcode slot's passcode.
        static let loginPassword = "golden-work-login-password"
        static let keyPasscode = "golden-work-key-passcode"
        /// `login`'s recovery code as the writer showed it (test data, nothing else).
        static let recoveryCode = "12ER-H0J9-K3DG-2NGD-V9TZ-CB98-25WV-KTNA"

        /// The slots of each visible collection in the version 3 vault, as `slot list` shows them.
        static let slots: [CollectionID: [SlotInfo]] = [
            .login: [
                SlotInfo(id: 1, kind: .passcode, label: "passcode"),
                SlotInfo(id: 2, kind: .recovery, label: "paper"),
                SlotInfo(id: 3, kind: .tpm2, label: "this machine", pcrMask: 1 << 7),
                SlotInfo(id: 4, kind: .fido2, label: "yubikey", fido2Flags: .presence),
            ],
            CollectionID("Work"): [
                SlotInfo(id: 1, kind: .passcode, label: "passcode"),
                SlotInfo(id: 2, kind: .login, label: "login password"),
                SlotInfo(id: 3, kind: .fido2Passcode, label: "key and passcode", fido2Flags: .presence),
            ],
            CollectionID("Diary"): [SlotInfo(id: 1, kind: .passcode, label: "passcode")],
        ]

        static func tpm() -> FakeTPM { FakeTPM(seed: tpmSeed) }
        static func keys() -> FakeSecurityKeys { FakeSecurityKeys(seed: keySeed) }
    }

    /// Aliases the catalog holds.
    static let aliases: [String: CollectionID] = ["default": .login, "login": .login, "work": work.id]

    /// The committed fixture folder of `version`, found from this file's path (no bundle needed).
    static func folder(version: UInt16, file: String = #filePath) -> String {
        URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Fixtures/vault-v\(version)")
            .path
    }

    /// The regular files of `folder`, sorted by name.
    static func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Copies `folder`'s vault files into a fresh temporary folder: opening takes a lock file and
    /// may cut a torn tail, which must never touch the committed files.
    static func copy(_ folder: String) throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("puff-golden-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for name in try files(in: folder) where name != "lock" {
            try FileManager.default.copyItem(atPath: "\(folder)/\(name)", toPath: "\(copy)/\(name)")
        }
        return copy
    }

    /// A passcode in locked memory.
    static func passcode(_ collection: Collection) -> SecureBytes {
        SecureBytes(unwipedCopyOf: Array(collection.passcode.utf8))
    }

    /// A persistent service (Argon2id at libsodium's interactive limits) over the file store in
    /// `folder`, its clock at `time`.
    static func service(
        folder: String, time: SettableTime, logs: InMemoryLogHandler, tpm: FakeTPM? = nil,
        keys: FakeSecurityKeys? = nil
    ) async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: folder), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter(), promptTimeout: .seconds(30), tpm: tpm, securityKeys: keys, now: time.now,
            logger: InMemoryLogHandler.logger(store: logs), events: { _ in })
    }
}
