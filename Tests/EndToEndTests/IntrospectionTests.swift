// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(1)))
struct IntrospectionTests {
    static let referenceFile = TestBus.repositoryRoot.appendingPathComponent("dbus/org.freedesktop.Secrets.xml")

    /// The `<interface>` blocks of an introspection document, keyed by name.
    static func interfaceBlocks(_ xml: String) -> [String: String] {
        var blocks: [String: String] = [:]
        var current: (name: String, lines: [String])?
        for line in xml.split(separator: "\n").map(String.init) {
            if line.hasPrefix("  <interface name=\"") {
                let name = line.dropFirst("  <interface name=\"".count).prefix { $0 != "\"" }
                current = (String(name), [line])
            } else if var open = current {
                open.lines.append(line)
                if line == "  </interface>" {
                    blocks[open.name] = open.lines.joined(separator: "\n")
                    current = nil
                } else {
                    current = open
                }
            }
        }
        return blocks
    }

    @Test func theReferenceFileIsWhatPuffdGenerates() async throws {
        let result = try await ChildProcess.run(
            TestDaemon.executablePath, ["--print-introspection"], environment: ["PATH": "/usr/bin:/bin"],
            timeout: .seconds(20))
        #expect(result.status == 0)
        let file = try String(contentsOf: Self.referenceFile, encoding: .utf8)
        #expect(
            result.output == file, "regenerate with: puffd --print-introspection > dbus/org.freedesktop.Secrets.xml")
    }

    @Test func theRunningDaemonServesExactlyTheReferenceInterfaces() async throws {
        let daemon = try await TestDaemon()
        let reference = Self.interfaceBlocks(try String(contentsOf: Self.referenceFile, encoding: .utf8))
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
            let served = Self.interfaceBlocks(try #require(reply.arguments.first?.string))
            #expect(served[interface] == reference[interface], "\(interface) at \(path)")
            let secretInterfaces = served.keys.filter { $0.hasPrefix("org.freedesktop.Secret.") }
            #expect(secretInterfaces == [interface], "\(path) serves \(secretInterfaces)")
        }
    }
}
