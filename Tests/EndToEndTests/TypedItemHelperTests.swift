// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// git's and docker's credential helpers against the built puffd: what they store they get back,
/// and `puffctl list --json` shows it as an internet password with its typed fields and no secret.
/// Secrets are compared as Booleans, never printed.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct TypedItemHelperTests {
    /// Debian's git contrib source of the helper (`make deps` installs git and libsecret-1-dev).
    static let gitSource = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"
    /// Debian 12's golang-docker-credential-helpers (in the Makefile's APT_PACKAGES).
    static let dockerHelper = "/usr/bin/docker-credential-secretservice"

    /// Builds git-credential-libsecret into a folder of its own (RealClientTests builds another
    /// copy through its driver, so the two never write one file at once).
    static func gitHelper() async throws -> String {
        let folder = TestBus.repositoryRoot.appendingPathComponent(".build/e2e-tools/typed")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let helper = folder.appendingPathComponent("git-credential-libsecret").path
        let build = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c", "gcc -O2 -o \"$1\" \"$2\" $(pkg-config --cflags --libs glib-2.0 libsecret-1)", "sh", helper,
                gitSource,
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(build.status == 0, "building git-credential-libsecret: \(build.output.suffix(400))")
        return helper
    }

    func run(_ tool: String, _ arguments: [String], _ input: String, on daemon: TestDaemon) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            tool, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    @Test func gitsHelperStoresAndGetsWithAndWithoutAPortAndListsInternetPasswords() async throws {
        let daemon = try await TestDaemon()
        let helper = try await Self.gitHelper()
        let credentials = [
            ("protocol=https\nhost=github.com\nusername=alice\n", "git-secret-a1f3"),
            ("protocol=https\nhost=example.com:8443\nusername=bob\n", "git-secret-b2e4"),
        ]
        for (credential, secret) in credentials {
            let store = try await run(helper, ["store"], credential + "password=\(secret)\n\n", on: daemon)
            #expect(store.status == 0)
            let get = try await run(helper, ["get"], credential + "\n", on: daemon)
            let same = get.status == 0 && get.output.split(separator: "\n").contains("password=\(secret)")
            #expect(same, "git-credential-libsecret get returns the stored password")
        }
        let listing = try await TypedListing(of: daemon)
        let github = try listing.entry(["server": "github.com"])
        #expect(github.kind == "internet")
        #expect(github.textFields == ["protocol": "https", "server": "github.com", "user": "alice"])
        let example = try listing.entry(["server": "example.com"])
        #expect(example.kind == "internet")
        #expect(example.textFields == ["protocol": "https", "server": "example.com", "user": "bob", "port": "8443"])
        #expect(example.fields["port"] as? Int == 8443)
        let leaked = credentials.contains { listing.contains($0.1) }
        #expect(!leaked, "puffctl list printed a secret")
    }

    @Test func dockersHelperStoresGetsListsAndErasesAnInternetPassword() async throws {
        let daemon = try await TestDaemon()
        #expect(FileManager.default.isExecutableFile(atPath: Self.dockerHelper), "run make deps: \(Self.dockerHelper)")
        let server = "https://registry.example:5000/v2/"
        let secret = "docker-secret-c3d5"
        let store = try await run(
            Self.dockerHelper, ["store"], #"{"ServerURL":"\#(server)","Username":"carol","Secret":"\#(secret)"}"#,
            on: daemon)
        #expect(store.status == 0, "docker-credential-secretservice store exited \(store.status)")
        let get = try await run(Self.dockerHelper, ["get"], server, on: daemon)
        let reply = try JSONSerialization.jsonObject(with: get.bytes) as? [String: String]
        let same = reply?["Secret"] == secret && reply?["Username"] == "carol"
        #expect(same, "docker-credential-secretservice get returns the stored secret and user")
        let list = try await run(Self.dockerHelper, ["list"], "", on: daemon)
        #expect(try JSONSerialization.jsonObject(with: list.bytes) as? [String: String] == [server: "carol"])

        let listing = try await TypedListing(of: daemon)
        let entry = try listing.entry(["server": server])
        #expect(entry.kind == "internet")
        #expect(
            entry.textFields == [
                "protocol": "https", "server": "registry.example", "port": "5000", "path": "/v2/", "user": "carol",
            ])
        let leaked = listing.contains(secret)
        #expect(!leaked, "puffctl list printed a secret")

        #expect(try await run(Self.dockerHelper, ["erase"], server, on: daemon).status == 0)
        #expect(try await TypedListing(of: daemon).entries.isEmpty)
    }
}
