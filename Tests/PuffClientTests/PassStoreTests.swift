// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffClient
import PuffCrypto
import PuffFormats
import PuffTesting
import Testing

/// A pass store the real `pass` made (Debian's pass, a throwaway gpg key without a passphrase in
/// a temporary GNUPGHOME, entries added with `pass insert -m`), read through the real gpg.
@Suite(
    .enabled(if: PassStoreFixture.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct PassStoreTests {
    /// A temporary GNUPGHOME with one key and a store initialised for it.
    struct Store {
        let root: URL
        var gnupg: String { root.appendingPathComponent("gnupg").path }
        var store: String { root.appendingPathComponent("store").path }
        var environment: [String: String] {
            ["GNUPGHOME": gnupg, "PASSWORD_STORE_DIR": store, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        }

        init() async throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("puff-pass-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                atPath: root.appendingPathComponent("gnupg").path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try await run(
                "/usr/bin/gpg",
                [
                    "--batch", "--passphrase", "", "--quick-gen-key", "Puff Test <puff@example.invalid>", "default",
                    "default",
                    "never",
                ])
            try await run("/usr/bin/pass", ["init", "puff@example.invalid"])
        }

        func run(_ program: String, _ arguments: [String], input: [UInt8] = []) async throws {
            let result = try await ChildProcess.run(
                program, arguments, environment: environment, input: Data(input), timeout: HangGuard.driver)
            try #require(result.status == 0, "\(program) \(arguments.first ?? "") exited \(result.status)")
        }

        /// `pass insert -m NAME` with `content` on its standard input.
        func insert(_ name: String, _ content: [UInt8]) async throws {
            try await run("/usr/bin/pass", ["insert", "-m", name], input: content)
        }

        func remove() async {
            _ = try? await ChildProcess.run("/usr/bin/gpgconf", ["--kill", "gpg-agent"], environment: environment)
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test func everyEntryArrivesWithItsPathFirstLineUserAndUrl() async throws {
        let store = try await Store()
        let wait = { await store.remove() }
        do {
            try await store.insert(
                "Wëb/exämple ✓.org", Array("pw ✓\nlogin: alice\nurl: https://example.org\nnote\n".utf8))
            try await store.insert("empty-first", Array("\nusername: bob\n".utf8))
            try await store.insert("deep/er/one", Array("only line".utf8))
            // Not an entry of the store: a hidden folder (pass's git), a link.
            try FileManager.default.createDirectory(
                atPath: store.store + "/.git", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: store.store + "/.git/hidden.gpg"))
            try FileManager.default.createSymbolicLink(
                atPath: store.store + "/link.gpg", withDestinationPath: store.store + "/empty-first.gpg")

            let reading = try await PassStore.read(store.store, gnupgHome: store.gnupg)
            let items = reading.items
            #expect(items.map(\.label) == ["Wëb/exämple ✓.org", "deep/er/one", "empty-first"])
            let web = try #require(items.first { $0.label == "Wëb/exämple ✓.org" })
            #expect(web.secret.unprotectedArray() == Array("pw ✓".utf8))
            #expect(web.attributes == ["user": "alice", "url": "https://example.org"])
            #expect(web.leftBehind == ["1 more line of the file"])
            let empty = try #require(items.first { $0.label == "empty-first" })
            #expect(empty.secret.isEmpty)
            #expect(empty.attributes == ["user": "bob"])
            #expect(items.first { $0.label == "deep/er/one" }?.secret.unprotectedArray() == Array("only line".utf8))
            #expect(reading.skipped == [PortableSkip(label: "link.gpg", reason: "a symbolic link (not followed)")])
        } catch {
            await wait()
            throw error
        }
        await wait()
    }

    @Test func anEntryGpgCannotDecryptFailsTheReadNamingIt() async throws {
        let store = try await Store()
        do {
            try await store.insert("good", Array("a\n".utf8))
            try Data("not an OpenPGP message".utf8).write(to: URL(fileURLWithPath: store.store + "/brökèn.gpg"))
            await #expect {
                try await PassStore.read(store.store, gnupgHome: store.gnupg)
            } throws: { error in
                guard case PassStore.Failure.notDecrypted(let entry, _) = error else { return false }
                return entry == "brökèn"
            }
        } catch {
            await store.remove()
            throw error
        }
        await store.remove()
    }

    @Test func aFolderWithoutGpgIdIsNotAStore() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-notpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(PassStore.recognises(folder.path) == false)
        await #expect(throws: PassStore.Failure.notAStore(folder.path)) {
            try await PassStore.read(folder.path)
        }
    }
}
