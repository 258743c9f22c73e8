// SPDX-License-Identifier: Apache-2.0
import Foundation
import FoundationXML
import PuffDBus
import PuffTesting
import Testing

/// `dbus/org.freedesktop.Secrets.xml` is the source of truth for the interfaces Puff serves (kept by
/// hand from secret-service.md §3); the running daemon is checked against it, parsed as XML, so a
/// change to an interface table that the file does not share fails here.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct IntrospectionTests {
    static let referenceFile = TestBus.repositoryRoot.appendingPathComponent("dbus/org.freedesktop.Secrets.xml")

    /// Each `<interface>` of a document as sorted lines describing its members, parsed with libxml2
    /// (FoundationXML), so formatting and ordering do not matter, names, types and directions do.
    static func interfaceBlocks(_ xml: String) throws -> [String: [String]] {
        let document = try XMLDocument(xmlString: xml, options: [])
        var blocks: [String: [String]] = [:]
        for interface in try document.nodes(forXPath: "/node/interface") {
            guard let element = interface as? XMLElement, let name = element.attribute(forName: "name")?.stringValue
            else { continue }
            var lines: [String] = []
            for member in element.children ?? [] {
                guard let member = member as? XMLElement, let kind = member.name else { continue }
                let memberName = member.attribute(forName: "name")?.stringValue ?? ""
                var line = "\(kind) \(memberName)"
                if kind == "property" {
                    line += " \(member.attribute(forName: "type")?.stringValue ?? "")"
                    line += " \(member.attribute(forName: "access")?.stringValue ?? "")"
                }
                for argument in member.elements(forName: "arg") {
                    let direction = argument.attribute(forName: "direction")?.stringValue ?? "out"
                    let type = argument.attribute(forName: "type")?.stringValue ?? ""
                    line += " \(direction):\(type)"
                }
                lines.append(line)
            }
            blocks[name] = lines.sorted()
        }
        return blocks
    }

    @Test func theReferenceFileDescribesTheFiveSecretInterfaces() throws {
        let reference = try Self.interfaceBlocks(try String(contentsOf: Self.referenceFile, encoding: .utf8))
        #expect(
            Set(reference.keys) == [
                "org.freedesktop.Secret.Service", "org.freedesktop.Secret.Collection", "org.freedesktop.Secret.Item",
                "org.freedesktop.Secret.Session", "org.freedesktop.Secret.Prompt",
            ])
        // Spot checks against secret-service.md §3: the signatures clients depend on.
        #expect(reference["org.freedesktop.Secret.Item"]?.contains("method GetSecret in:o out:(oayays)") == true)
        #expect(
            reference["org.freedesktop.Secret.Collection"]?.contains(
                "method CreateItem in:a{sv} in:(oayays) in:b out:o out:o") == true)
        #expect(reference["org.freedesktop.Secret.Prompt"]?.contains("signal Completed out:b out:v") == true)
    }

    @Test func theRunningDaemonServesExactlyTheReferenceInterfaces() async throws {
        let daemon = try await TestDaemon()
        let reference = try Self.interfaceBlocks(try String(contentsOf: Self.referenceFile, encoding: .utf8))
        #expect(reference.count == 5)
        let client = try await BusConnection.connect(address: daemon.bus.address)
        defer { client.close() }

        // A session and an item make every object kind exist at once.
        let opened = try await client.call(
            .methodCall(
                destination: "org.freedesktop.secrets", path: ObjectPath("/org/freedesktop/secrets")!,
                interface: "org.freedesktop.Secret.Service", member: "OpenSession",
                [.string("plain"), .variant(.string(""))]))
        let session = try #require(opened.arguments.last?.objectPath)
        let created = try await client.call(
            .methodCall(
                destination: "org.freedesktop.secrets", path: ObjectPath("/org/freedesktop/secrets/aliases/default")!,
                interface: "org.freedesktop.Secret.Collection", member: "CreateItem",
                [
                    .dictionary(
                        key: "s", value: "v",
                        [.init(.string("org.freedesktop.Secret.Item.Label"), .variant(.string("x")))]),
                    .structure([.objectPath(session), .bytes([]), .bytes([1]), .string("text/plain")]),
                    .boolean(false),
                ]))
        let item = try #require(created.arguments.first?.objectPath)

        let expectations: [(String, String)] = [
            ("/org/freedesktop/secrets", "org.freedesktop.Secret.Service"),
            ("/org/freedesktop/secrets/collection/login", "org.freedesktop.Secret.Collection"),
            ("/org/freedesktop/secrets/aliases/default", "org.freedesktop.Secret.Collection"),
            (item.rawValue, "org.freedesktop.Secret.Item"),
            (session.rawValue, "org.freedesktop.Secret.Session"),
        ]
        for (path, interface) in expectations {
            let reply = try await client.call(
                .methodCall(
                    destination: "org.freedesktop.secrets", path: ObjectPath(path)!,
                    interface: "org.freedesktop.DBus.Introspectable", member: "Introspect"))
            let served = try Self.interfaceBlocks(try #require(reply.arguments.first?.string))
            #expect(served[interface] == reference[interface], "\(interface) at \(path)")
            let secretInterfaces = served.keys.filter { $0.hasPrefix("org.freedesktop.Secret.") }
            #expect(secretInterfaces == [interface], "\(path) serves \(secretInterfaces)")
        }
    }

    @Test func theRunningDaemonServesControl1AsItsInterfaceFileSays() async throws {
        let file = TestBus.repositoryRoot.appendingPathComponent("dbus/io.puff.Control1.xml")
        let reference = try Self.interfaceBlocks(try String(contentsOf: file, encoding: .utf8))
        let daemon = try await TestDaemon()
        let client = try await BusConnection.connect(address: daemon.bus.address)
        defer { client.close() }
        let reply = try await client.call(
            .methodCall(
                destination: TestDaemon.controlName, path: ObjectPath("/io/puff/Control")!,
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect"))
        let served = try Self.interfaceBlocks(try #require(reply.arguments.first?.string))
        let control = try #require(reference["io.puff.Control1"])
        #expect(control.contains("method Init in:a{sv} in:h"))
        #expect(served["io.puff.Control1"] == control)
    }
}
