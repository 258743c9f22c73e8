// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl show`, `get` and `copy` against the built puffd, on items `secret-tool` stored.
/// Secrets are compared as Booleans, never printed.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ItemCommandsTests {
    let commands = VaultFlowTests()

    /// A daemon with an initialized vault holding `secrets` as (label, attributes, bytes).
    func daemon(storing secrets: [(String, [String], [UInt8])]) async throws -> TestDaemon {
        let puffd = try await commands.daemon()
        #expect(try await commands.puffctl(puffd, ["init", "--stdin"], input: "item pass\n").status == 0)
        for (label, attributes, secret) in secrets {
            let store = try await ChildProcess.run(
                "/usr/bin/secret-tool", ["store", "--label=\(label)"] + attributes,
                environment: puffd.clientEnvironment, input: Data(secret))
            #expect(store.status == 0, "secret-tool store \(label): \(store.output)")
        }
        return puffd
    }

    @Test func getPrintsExactlyTheStoredBytesAndShowNeverTheSecret() async throws {
        let plain = Array("no-newline-at-end".utf8)
        let binary: [UInt8] = [0x63, 0x61, 0x66, 0xc3, 0xa9, 0x20, 0xe2, 0x9c, 0x93, 0xff, 0x0a, 0x0a]
        let puffd = try await daemon(storing: [
            ("Plain", ["service", "get-e2e", "kind", "plain"], plain),
            ("Binary", ["service", "get-e2e", "kind", "binary"], binary),
        ])
        let byAttributes = try await commands.puffctl(puffd, ["get", "service=get-e2e", "kind=plain"])
        #expect(byAttributes.status == 0)
        let plainSame = byAttributes.bytes == Data(plain)
        #expect(plainSame, "get's output differs from the stored secret (no newline may be added)")
        let byNumber = try await commands.puffctl(puffd, ["get", "login/2"])
        let binarySame = byNumber.bytes == Data(binary)
        #expect(binarySame, "get's output differs from the stored non-UTF-8 secret")
        let newline = try await commands.puffctl(puffd, ["get", "login/1", "--newline"])
        let newlineSame = newline.bytes == Data(plain + [0x0a])
        #expect(newlineSame, "--newline adds exactly one newline")

        let show = try await commands.puffctl(puffd, ["show", "/org/freedesktop/secrets/collection/login/2"])
        #expect(show.status == 0)
        #expect(show.output.contains("label:      Binary") && show.output.contains("kind=binary"), "\(show.output)")
        let leaks = show.bytes.range(of: Data(binary.prefix(6))) != nil
        #expect(!leaks, "show printed the secret")
        let json = try await commands.puffctl(puffd, ["show", "kind=plain", "--json"])
        let object = try JSONSerialization.jsonObject(with: json.bytes) as? [String: Any]
        #expect(object?["label"] as? String == "Plain")
        #expect(object?["collection"] as? String == "login")
        #expect(object?["created"] is Int)
    }

    @Test func attributesMatchingSeveralItemsExitWithFourListingThemOldestFirst() async throws {
        let puffd = try await daemon(storing: [
            ("amb-first", ["service", "amb-e2e", "user", "a"], [1]),
            ("amb-second", ["service", "amb-e2e", "user", "b"], [2]),
            ("amb-third", ["service", "amb-e2e", "user", "c"], [3]),
        ])
        let ambiguous = try await commands.puffctl(puffd, ["get", "service=amb-e2e"])
        #expect(ambiguous.status == 4)
        let order = ["amb-first", "amb-second", "amb-third"].map { ambiguous.output.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! }, "\(ambiguous.output)")
        #expect(ambiguous.output.contains("/org/freedesktop/secrets/collection/login/1"))
        #expect(ambiguous.bytes.count < 2000 && !ambiguous.bytes.contains(2), "nothing but the candidates")
        #expect(try await commands.puffctl(puffd, ["show", "service=amb-e2e", "user=b"]).status == 0)
        let none = try await commands.puffctl(puffd, ["show", "service=amb-e2e", "user=z"])
        #expect(none.status == 4 && none.output.contains("no item matches"), "\(none.output)")
    }

    @Test func aLockedCollectionExitsWithThreeAndSaysHowToUnlock() async throws {
        let puffd = try await daemon(storing: [("Locked one", ["service", "lock-e2e"], Array("s".utf8))])
        #expect(try await commands.puffctl(puffd, ["lock"]).status == 0)
        let get = try await commands.puffctl(puffd, ["get", "service=lock-e2e"])
        #expect(get.status == 3)
        #expect(get.output.contains("puffctl unlock login"), "\(get.output)")
        // show needs no secret: the item's metadata stays visible after Lock.
        #expect(try await commands.puffctl(puffd, ["show", "login/1"]).status == 0)
    }
}
