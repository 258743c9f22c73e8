// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Real clients store items in their own shapes; they read back what they stored, and
/// `puffctl list --json` shows each item's kind and typed fields and never its secret
/// (issue 16, "Done when"). Secrets are compared as Booleans, never printed.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct TypedItemClientTests {
    func secretTool(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    @Test func secretToolWithNetworkPasswordAndGenericAttributesReadsBackAndListsTyped() async throws {
        let daemon = try await TestDaemon()
        let network = [
            "xdg:schema", "org.gnome.keyring.NetworkPassword", "protocol", "smtp", "server", "mail.example",
            "user", "dora@example", "port", "587", "domain", "", "authtype", "plain",
        ]
        let generic = ["xdg:schema", "org.freedesktop.Secret.Generic", "service", "backup", "account", "nightly"]
        let shapeOnly = ["service", "chat", "username", "erin"]
        let stores: [([String], String)] = [
            (network, "net-secret-4fa1"), (generic, "gen-secret-9c2e"), (shapeOnly, "shape-secret-77d0"),
        ]
        for (attributes, secret) in stores {
            let store = try await secretTool(daemon, ["store", "--label=typed"] + attributes, input: secret)
            #expect(store.status == 0)
            let lookup = try await secretTool(daemon, ["lookup"] + attributes)
            let same = lookup.output == secret
            #expect(same, "secret-tool lookup returns the stored secret")
        }
        let listing = try await TypedListing(of: daemon)
        let mail = try listing.entry(["server": "mail.example"])
        #expect(mail.kind == "internet")
        #expect(
            mail.textFields == [
                "protocol": "smtp", "server": "mail.example", "user": "dora@example", "port": "587",
                "authtype": "plain",
            ])
        #expect(mail.fields["port"] as? Int == 587)
        // The attributes come back verbatim, empty domain included.
        #expect(mail.attributes["domain"] == "" && mail.attributes.count == 7)
        let backup = try listing.entry(["service": "backup"])
        #expect(backup.kind == "generic" && backup.textFields == ["service": "backup", "account": "nightly"])
        let chat = try listing.entry(["service": "chat"])
        #expect(chat.kind == "generic" && chat.textFields == ["service": "chat", "account": "erin"])
        for (_, secret) in stores {
            let leaked = listing.contains(secret)
            #expect(!leaked, "puffctl list printed a secret")
        }
        let table = try await ChildProcess.run(VaultFlowTests.puffctl, ["list"], environment: daemon.clientEnvironment)
        #expect(table.output.contains("smtp://dora%40example@mail.example:587"))
        #expect(table.output.contains("backup / nightly"))
    }

    @Test func pythonSecretstorageStoresChromiumNetworkManagerAndNoteShapes() async throws {
        let daemon = try await TestDaemon()
        // Each line: the attributes as JSON; the secret comes from the line's index, never printed.
        let script = """
            import json, sys, secretstorage
            bus = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(bus)
            for number, line in enumerate(sys.stdin):
                attributes = json.loads(line)
                secret = ("ss-secret-%d-c0ffee" % number).encode()
                item = collection.create_item("typed %d" % number, attributes, secret)
                found = list(collection.search_items(attributes))
                same = len(found) == 1 and found[0].get_secret() == secret and found[0].get_attributes() == attributes
                print(("ok " if same else "FAIL ") + str(number))
            """
        let shapes: [[String: String]] = [
            [
                "xdg:schema": "chrome_libsecret_password_schema", "origin_url": "https://shop.example/login",
                "username_value": "frank", "signon_realm": "https://shop.example/", "application": "chrome-1",
            ],
            [
                "xdg:schema": "org.freedesktop.NetworkManager.Connection", "connection-uuid": "0b4c-typed",
                "setting-name": "802-11-wireless-security", "setting-key": "psk",
            ],
            ["xdg:schema": "org.gnome.keyring.Note", "note-id": "n1"],
        ]
        let input = try shapes.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let run = try await ChildProcess.run(
            ClientDriver.python, ["-c", script], environment: daemon.clientEnvironment,
            input: Data(input.joined(separator: "\n").utf8))
        #expect(run.status == 0 && run.output == "ok 0\nok 1\nok 2\n", "\(run.output.suffix(500))")
        let listing = try await TypedListing(of: daemon)
        let shop = try listing.entry(["username_value": "frank"])
        #expect(shop.kind == "internet")
        #expect(shop.textFields == ["protocol": "https", "server": "shop.example", "user": "frank", "path": "/login"])
        let wifi = try listing.entry(["connection-uuid": "0b4c-typed"])
        #expect(wifi.kind == "generic")
        #expect(wifi.textFields == ["service": "0b4c-typed", "account": "802-11-wireless-security.psk"])
        let note = try listing.entry(["note-id": "n1"])
        #expect(note.kind == "note" && note.fields.isEmpty)
        let leaked = (0..<3).contains { listing.contains("ss-secret-\($0)-c0ffee") }
        #expect(!leaked, "puffctl list printed a secret")
    }
}
