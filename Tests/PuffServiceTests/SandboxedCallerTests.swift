// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffService
import PuffStore
import PuffSystem
import PuffTesting
import Testing

/// Issue 28: a Flatpak app is named by its app id where a caller is shown (audit entries), and its
/// executable (xdg-dbus-proxy's, or a path in its own sandbox) is never hashed to admit it.
struct SandboxedCallerTests {
    static let app = AppID(rawValue: "org.example.App")!
    static let proxy = "/usr/bin/xdg-dbus-proxy"
    /// This test process stands in for the proxy: its executable can be read and hashed.
    static let sandboxed = Caller(
        ClientID(":1.7"), executable: proxy, pid: UInt32(getpid()), sandbox: .app(app, instance: "1234567890"))
    static let host = Caller(ClientID(":1.8"), executable: "/usr/bin/secret-tool", pid: UInt32(getpid()))

    @Test func anAppsExecutableIsNeverHashedAndNoDigestCanAdmitIt() async {
        let gate = AccessGate(AccessConfiguration(mode: .ask, hashesExecutables: true))
        #expect(await gate.contents(of: Self.sandboxed, for: ItemSettings()) == .unreadable)
        let unverified = Caller(
            ClientID(":1.9"), executable: Self.proxy, pid: UInt32(getpid()), sandbox: .unverified("pid reused"))
        #expect(await gate.contents(of: unverified, for: ItemSettings()) == .unreadable)
        #expect(gate.digests.cachedCount == 0, "nothing was read")
        // The same process as a host caller is hashed.
        if case .digest = await gate.contents(of: Self.host, for: ItemSettings()) {
        } else {
            Issue.record("a host caller's executable was not hashed")
        }
        #expect(gate.digests.cachedCount == 1)
    }

    @Test func anAuditEntryNamesTheAppBesideTheExecutableThatCarriedItsCall() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], label: "Shared")
        for caller in [Self.sandboxed, Self.host] {
            let session = try await fixture.plainSession(caller.client)
            _ = try await fixture.service.secret(of: id, session: session, caller: caller)
        }
        let reads = try await fixture.service.auditEntries().entries.filter { $0.action == .read }
        #expect(reads.map(\.app) == ["org.example.App", nil])
        #expect(reads.map(\.executable) == [Self.proxy, "/usr/bin/secret-tool"])
        #expect(reads.map(\.client) == [":1.7", ":1.8"])
    }

    @Test func aPersonIsAskedAboutTheAppNotTheProxy() async throws {
        let fixture = try await Fixture(script: [.reply(.confirmed)], access: AccessConfiguration(mode: .open))
        let item = try await fixture.store(["service": "mail"], label: "mail alice")
        try await fixture.service.setProtected(true, of: item)
        let session = try await fixture.plainSession(Self.sandboxed.client)
        _ = try await fixture.service.secret(of: item, session: session, caller: Self.sandboxed)
        let request = try #require(await fixture.prompter.requests.first)
        #expect(request.application == "org.example.App")
        #expect(request.purpose == .confirmRead(item: item, label: "mail alice"))
        #expect(Self.sandboxed.description == "org.example.App")
        #expect(Self.host.application == "/usr/bin/secret-tool")
    }
}
