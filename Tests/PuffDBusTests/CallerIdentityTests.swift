// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffSystem
import PuffTesting
import Testing

@testable import PuffDBus

/// Issue 28: a caller's sandbox is read once per connection, and a process that started after its
/// connection appeared on the bus (a reused pid) is unverified: the bound is the moment the bus
/// said the name appeared, noted on the bus thread before any call of it is handled.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct CallerIdentityTests {
    /// `/who` answers the caller's sandbox as the server saw it.
    private struct Tree: ObjectTree {
        func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
            ResolvedObject(
                interfaces: [
                    Interface(
                        "org.puff.Who",
                        methods: [
                            Method("Who", in: [], out: [Argument("sandbox", "s")]) { call in
                                [.string("\(call.context.sandbox)")]
                            }
                        ])
                ], object: "who")
        }
        func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
    }

    /// A folder laid out as `/proc` holding this test process's pid with a chosen start time.
    private final class FakeProc {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("puff-proc-\(UUID().uuidString)").path

        init() throws {
            try FileManager.default.createDirectory(
                atPath: "\(path)/\(getpid())/root", withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func started(at ticks: UInt64) throws {
            let middle = Array(repeating: "0", count: 18).joined(separator: " ")
            try "\(getpid()) (test) S \(middle) \(ticks) 0\n"
                .write(toFile: "\(path)/\(getpid())/stat", atomically: true, encoding: .utf8)
        }
    }

    private static let nameOwnerChanged =
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"

    private func who(_ client: BusConnection) async throws -> String? {
        let reply = try await client.call(
            .methodCall(
                destination: "org.puff.WhoTest", path: ObjectPath("/who")!, interface: "org.puff.Who", member: "Who", []
            ))
        return reply.arguments.first?.string
    }

    /// Serves `/who` with a directory reading `procRoot`, subscribed at `subscribedAt`.
    private func serve(_ bus: TestBus, procRoot: String, subscribedAt: UInt64?) async throws -> (
        BusConnection, Task<Void, Never>
    ) {
        let server = try await BusConnection.connect(address: bus.address)
        let callers = CallerDirectory(connection: server, procRoot: procRoot)
        try await server.addMatch(Self.nameOwnerChanged)
        if let subscribedAt { callers.noteSubscribed(at: subscribedAt) }
        #expect(try await server.requestName(BusName("org.puff.WhoTest")!, replace: false) == .primaryOwner)
        let serving = Task {
            await ObjectServer(
                connection: server, router: Router(tree: Tree()) { _ in DBusError(.failed, "") }, callers: callers
            ).run()
        }
        return (server, serving)
    }

    @Test func aHostCallerIsReadFromTheRealProc() async throws {
        let bus = try TestBus()
        let (server, serving) = try await serve(bus, procRoot: "/proc", subscribedAt: ProcessIdentity.bootTicks())
        let client = try await BusConnection.connect(address: bus.address)
        defer {
            serving.cancel()
            server.close()
            client.close()
        }
        #expect(try await who(client) == "host")
    }

    @Test func theBoundIsWhenTheCallersNameAppearedNotWhenTheWatchBegan() async throws {
        let bus = try TestBus()
        let proc = try FakeProc()
        // The process "started" now, after the watch began (tick 0) and before its name appears.
        try proc.started(at: ProcessIdentity.bootTicks())
        let (server, serving) = try await serve(bus, procRoot: proc.path, subscribedAt: 0)
        let client = try await BusConnection.connect(address: bus.address)
        defer {
            serving.cancel()
            server.close()
            client.close()
        }
        #expect(try await who(client) == "host")
    }

    @Test func aProcessThatStartedAfterItsNameAppearedIsAReusedPid() async throws {
        let bus = try TestBus()
        let proc = try FakeProc()
        let (server, serving) = try await serve(bus, procRoot: proc.path, subscribedAt: 0)
        let client = try await BusConnection.connect(address: bus.address)
        defer {
            serving.cancel()
            server.close()
            client.close()
        }
        // What runs under the pid now started long after the connection appeared.
        try proc.started(at: ProcessIdentity.bootTicks() + 1_000_000)
        #expect(try await who(client) == "unverified(\"pid reused\")")
    }

    @Test func aNameOlderThanTheWatchIsBoundByTheWatchsStart() async throws {
        let bus = try TestBus()
        let proc = try FakeProc()
        let client = try await BusConnection.connect(address: bus.address)
        try proc.started(at: 1000)
        // The client connected before the match: no arrival is noted, so the watch's start (tick
        // 500 here) bounds it, and a start at tick 1000 is after it.
        let (server, serving) = try await serve(bus, procRoot: proc.path, subscribedAt: 500)
        defer {
            serving.cancel()
            server.close()
            client.close()
        }
        #expect(try await who(client) == "unverified(\"pid reused\")")
    }
}
