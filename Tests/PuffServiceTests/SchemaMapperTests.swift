// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffService
import PuffTesting
import Testing

/// One row of the schema table: attributes in, the expected classification out.
struct SchemaCase: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        case internet, generic
        case other(String?)
    }
    let name: String
    let attributes: Attributes
    let expected: Expected
    var testDescription: String { name }

    static let all: [SchemaCase] = [
        SchemaCase(
            name: "libsecret network password", expected: .internet,
            attributes: [
                "xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice", "server": "example.com",
                "protocol": "https", "port": "8443", "domain": "", "object": "/x", "authtype": "basic",
            ]),
        SchemaCase(
            name: "git credential helper", expected: .internet,
            attributes: [
                "xdg:schema": "org.git.Password", "user": "bob", "server": "github.com", "protocol": "https",
                "path": "a/b",
            ]),
        SchemaCase(
            name: "schemaless server and protocol", expected: .internet,
            attributes: ["server": "h", "protocol": "ftp", "port": "08080"]),
        SchemaCase(
            name: "python keyring", expected: .generic,
            attributes: ["application": "Python keyring library", "service": "svc", "username": "u"]),
        SchemaCase(name: "go keyring", expected: .generic, attributes: ["service": "svc", "username": "u"]),
        SchemaCase(
            name: "generic schema", expected: .generic,
            attributes: ["xdg:schema": "org.freedesktop.Secret.Generic", "service": "s", "username": ""]),
        SchemaCase(
            name: "secret-tool pairs", expected: .other(nil), attributes: ["service": "example.com", "user": "alice"]),
        SchemaCase(
            name: "note", expected: .other("org.gnome.keyring.Note"),
            attributes: ["xdg:schema": "org.gnome.keyring.Note"]),
        SchemaCase(name: "empty", expected: .other(nil), attributes: [:]),
        SchemaCase(
            name: "unknown schema with network shape", expected: .other("org.example.X"),
            attributes: ["xdg:schema": "org.example.X", "server": "h", "protocol": "p"]),
    ]

    init(name: String, expected: Expected, attributes: Attributes) {
        self.name = name
        self.expected = expected
        self.attributes = attributes
    }
}

@Suite struct SchemaMapperTests {
    @Test(arguments: SchemaCase.all)
    func theStandardMapperClassifiesAndRoundTripsLosslessly(row: SchemaCase) {
        let mapper = StandardSchemaMapper()
        let item = mapper.item(from: row.attributes)
        #expect(mapper.attributes(for: item) == row.attributes)
        switch (row.expected, item) {
        case (.internet, .internetPassword), (.generic, .genericPassword): break
        case (.other(let schema), .other(let found, _)): #expect(found == schema)
        default: Issue.record("\(row.name) classified as \(item)")
        }
    }

    @Test func typedFieldsReadFromTheVerbatimMap() {
        let mapper = StandardSchemaMapper()
        guard case .internetPassword(let net) = mapper.item(from: SchemaCase.all[0].attributes) else {
            Issue.record("not a network password")
            return
        }
        #expect(net.server == "example.com")
        #expect(net.protocol == "https")
        #expect(net.port == 8443)
        #expect(net.user == "alice")
        #expect(net.authType == "basic")
        guard case .genericPassword(let generic) = mapper.item(from: ["service": "svc", "username": "u"]) else {
            Issue.record("not a generic password")
            return
        }
        #expect(generic.service == "svc")
        #expect(generic.account == "u")
    }

    @Test func theServiceReportsAnItemsKind() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["service": "svc", "username": "u"])
        guard case .genericPassword = try await fixture.service.kind(of: item) else {
            Issue.record("wrong kind")
            return
        }
    }

    @Test func theDismissingPrompterDismissesAtOnceAndLogsAHint() async throws {
        let logs = InMemoryLogHandler.Store()
        let prompter = DismissingPrompter(logger: InMemoryLogHandler.logger(store: logs))
        let reply = try await prompter.prompt(
            PromptRequest(purpose: .unlock(collection: .login, label: "Login"), caller: Fixture.alice, windowID: ""))
        guard case .dismissed = reply else {
            Issue.record("not dismissed")
            return
        }
        #expect(logs.entries.count == 1)
        #expect(logs.entries.first?.contains("To unlock, run: puffctl unlock login") == true)
        #expect(DismissingPrompter.kind == "none")
    }
}
