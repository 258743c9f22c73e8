// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// A `pass` store made by the real `pass` (Debian's) for a throwaway gpg key made without a
/// passphrase (`%no-protection`) in a temporary GNUPGHOME: the fixture of `puffctl import` of a
/// pass store. ``remove()`` stops the gpg-agent the key's use started and deletes everything.
public struct PassStoreFixture: Sendable {
    public let root: URL
    public var gnupgHome: String { root.appendingPathComponent("gnupg").path }
    public var store: String { root.appendingPathComponent("store").path }
    /// What `pass` and `gpg` run with; `puffctl` needs `GNUPGHOME` from it.
    public var environment: [String: String] {
        ["GNUPGHOME": gnupgHome, "PASSWORD_STORE_DIR": store, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
    }

    /// Whether tests with a pass store run here: Debian's pass and gpg are installed, or CI
    /// requires them (``TestBus/canRun(needing:)``).
    public static var isAvailable: Bool { TestBus.canRun(needing: ["/usr/bin/pass", "/usr/bin/gpg"]) }

    /// The parameters of `gpg --batch --generate-key`: an ed25519 key with a cv25519 subkey for
    /// encryption, no passphrase, no expiry.
    static let keyParameters = """
        %no-protection
        Key-Type: eddsa
        Key-Curve: ed25519
        Key-Usage: sign
        Subkey-Type: ecdh
        Subkey-Curve: cv25519
        Subkey-Usage: encrypt
        Name-Real: Puff Test
        Name-Email: puff@example.invalid
        Expire-Date: 0
        %commit

        """

    /// A fresh GNUPGHOME with one key, and a store at ``store`` initialised for it.
    public init() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("puff-pass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            atPath: root.appendingPathComponent("gnupg").path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try await run("/usr/bin/gpg", ["--batch", "--generate-key"], input: Array(Self.keyParameters.utf8))
        try await run("/usr/bin/pass", ["init", "puff@example.invalid"])
    }

    /// Runs `program` in the fixture's environment; throws when it fails.
    public func run(_ program: String, _ arguments: [String], input: [UInt8] = [], store: String? = nil)
        async throws
    {
        var environment = environment
        if let store { environment["PASSWORD_STORE_DIR"] = store }
        let result = try await ChildProcess.run(
            program, arguments, environment: environment, input: Data(input), timeout: HangGuard.driver)
        guard result.status == 0 else {
            throw FixtureError(description: "\(program) \(arguments.first ?? "") exited \(result.status)")
        }
    }

    /// `pass insert -m NAME` with `content` on its standard input, into ``store`` or `store`.
    public func insert(_ name: String, _ content: [UInt8], store: String? = nil) async throws {
        try await run("/usr/bin/pass", ["insert", "-m", name], input: content, store: store)
    }

    /// A second store for the same key at `path` (somewhere an entry of ``store`` must not reach).
    public func initialiseStore(at path: String) async throws {
        try await run("/usr/bin/pass", ["init", "puff@example.invalid"], store: path)
    }

    public func remove() async {
        _ = try? await ChildProcess.run("/usr/bin/gpgconf", ["--kill", "gpg-agent"], environment: environment)
        try? FileManager.default.removeItem(at: root)
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
    }
}
