// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

@testable import PuffDBus

/// `h` across a real `dbus-daemon`: libdbus negotiates descriptor passing on a Unix socket by
/// itself, and a connection that cannot pass descriptors refuses to send one with a clear error.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct UnixFDBusTests {
    /// Serves `/io/puff/Control` with one method shaped like `io.puff.Control1.Unlock`: it reads
    /// the passcode descriptor to end of file and answers with the collection and the passcode
    /// reversed, so the reply proves the server read it through the descriptor.
    private struct Tree: ObjectTree {
        static let interface = Interface(
            "io.puff.Test",
            methods: [
                Method(
                    "Unlock", in: [Argument("collection", "s"), Argument("passcode", "h")],
                    out: [Argument("echo", "s")]
                ) { call in
                    guard let collection = call.arguments.first?.string, let fd = call.arguments.last?.unixFD else {
                        throw DBusError(.invalidArgs, "expected (sh)")
                    }
                    let passcode = try Descriptors.readToEnd(fd.rawValue)
                    return [.string(collection + ":" + String(String(decoding: passcode, as: UTF8.self).reversed()))]
                }
            ]
        )

        func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
            path.rawValue == "/io/puff/Control" ? ResolvedObject(interfaces: [Self.interface], object: "control") : nil
        }
        func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
    }

    private static func unlock(_ collection: String, _ passcode: UnixFD) -> OutgoingMessage {
        .methodCall(
            destination: "io.puff.FDTest", path: ObjectPath("/io/puff/Control")!, interface: "io.puff.Test",
            member: "Unlock", [.string(collection), .unixFD(passcode)])
    }

    @Test func aServedMethodReadsThePayloadThroughADescriptorPassedByAnotherConnection() async throws {
        let bus = try TestBus()
        let server = try await BusConnection.connect(address: bus.address)
        let client = try await BusConnection.connect(address: bus.address)
        #expect(try await server.requestName(BusName("io.puff.FDTest")!, replace: false) == .primaryOwner)
        let router = Router(tree: Tree()) { _ in DBusError(.failed, "") }
        // As puffd does: only the served signatures are decoded, and "sh" must be one of them.
        server.setDecodePolicy(DecodePolicy(methodSignatures: router.methodSignatures(serving: [Tree.interface])))
        let serving = Task {
            await ObjectServer(connection: server, router: router, callers: CallerDirectory(connection: server)).run()
        }
        defer {
            serving.cancel()
            server.close()
            client.close()
        }

        let passcode = try Descriptors.readEnd(holding: Array("hunter2 ✓".utf8))
        let reply = try await client.call(Self.unlock("login", passcode))
        #expect(reply.arguments.first?.string == "login:" + String("hunter2 ✓".reversed()))
    }

    @Test func sendingADescriptorOverAConnectionThatCannotPassThemFailsWithNotSupported() async throws {
        let bus = try TCPBus()
        let client = try await BusConnection.connect(address: bus.address)
        defer { client.close() }
        let passcode = try Descriptors.readEnd(holding: [1])
        let refused = await #expect(throws: DBusError.self) {
            _ = try await client.call(Self.unlock("login", passcode))
        }
        #expect(refused?.name == .notSupported)
        // The connection itself still works.
        #expect(try await client.requestName(BusName("io.puff.FDTest")!, replace: false) == .primaryOwner)
    }
}

/// A private `dbus-daemon` listening on TCP with anonymous authentication, a transport that
/// cannot carry descriptors; stopped when released.
private final class TCPBus: @unchecked Sendable {
    // @unchecked: both properties are set once in init and only read afterwards.
    private let process: Process
    private let config: URL
    let address: String

    init() throws {
        config = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tcp-bus-\(UUID()).conf")
        try Data(Self.configuration.utf8).write(to: config)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var collected = Data()
        while !collected.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            collected.append(chunk)
        }
        address = String(decoding: collected, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard address.hasPrefix("tcp:") else { throw TestBusError.noAddress }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(at: config)
    }

    private static let configuration = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>tcp:host=127.0.0.1,bind=127.0.0.1,port=0</listen>
          <auth>ANONYMOUS</auth>
          <allow_anonymous/>
          <policy context="default">
            <allow send_destination="*"/>
            <allow own="*"/>
            <allow receive_sender="*"/>
          </policy>
        </busconfig>
        """
}
