// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl copy` with a real `xclip` on a headless X server: the secret reaches the clipboard,
/// and the background clearer empties it, unless the clipboard changed meanwhile.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && XServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct CopyCommandTests {
    let items = ItemCommandsTests()
    let secret = Array("clip-s3cret-ü".utf8)

    func copy(_ puffd: TestDaemon, _ x: XServer, clearAfter: Int) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, ["copy", "service=copy-e2e", "--clear-after", "\(clearAfter)"],
            environment: x.environment(puffd.clientEnvironment))
    }

    // Two tests, not one: with a short delay a slow machine may clear the clipboard before the
    // test reads it, so "held" is checked under a delay no machine reaches.
    @Test func copyPutsTheSecretOnTheClipboard() async throws {
        let x = try XServer()
        let puffd = try await items.daemon(storing: [("Clip", ["service", "copy-e2e"], secret)])
        let copied = try await copy(puffd, x, clearAfter: 3600)
        #expect(copied.status == 0, "\(copied.output)")
        #expect(copied.output.contains("Copied 'Clip' to the clipboard; it will be cleared in 3600 s."))
        let held = try await x.clipboard() == Data(secret)
        #expect(held, "the clipboard does not hold the secret right after copy")
        for clearer in x.clearers() { kill(clearer, SIGTERM) }
    }

    @Test func theClearerEmptiesTheClipboardAfterTheDelay() async throws {
        let x = try XServer()
        let puffd = try await items.daemon(storing: [("Clip", ["service", "copy-e2e"], secret)])
        let copied = try await copy(puffd, x, clearAfter: 1)
        #expect(copied.status == 0, "\(copied.output)")
        // Empty, not absent: absent would also be what a copy that never set it leaves.
        let cleared = try await poll(limit: HangGuard.step, every: .milliseconds(100)) {
            try await x.clipboard() == Data()
        }
        #expect(cleared, "the clipboard was not emptied after the 1 s delay")
        #expect(await poll(limit: HangGuard.step, every: .milliseconds(100)) { x.clearers().isEmpty })
    }

    @Test func aClipboardThatChangedMeanwhileIsLeftAlone() async throws {
        let x = try XServer()
        let puffd = try await items.daemon(storing: [("Clip", ["service", "copy-e2e"], secret)])
        #expect(try await copy(puffd, x, clearAfter: 3).status == 0)
        let clearers = x.clearers()
        #expect(clearers.count == 1, "one clearer runs for this display")
        #expect(try await x.setClipboard("someone else's text"))
        // The clearer's exit, not a guessed sleep, says it has made its decision.
        #expect(
            await poll(limit: HangGuard.step, every: .milliseconds(100)) { x.clearers().isEmpty },
            "the clearer did not finish")
        #expect(try await x.clipboard() == Data("someone else's text".utf8))
    }

    @Test func copyWithoutAnyClipboardExitsWithOneBeforeReadingTheSecret() async throws {
        let puffd = try await items.daemon(storing: [("Clip", ["service", "copy-e2e"], secret)])
        let copied = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["copy", "service=copy-e2e"], environment: puffd.clientEnvironment)
        #expect(copied.status == 1)
        #expect(copied.output.contains("xclip") && copied.output.contains("DISPLAY"), "\(copied.output)")
    }
}
