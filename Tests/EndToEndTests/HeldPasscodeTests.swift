// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

/// Passcode pipes that are slow to close, and the key derivations behind them, never stop other
/// clients: they wait outside Swift's cooperative pool, which has only one thread per core.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct HeldPasscodeTests {
    static let held = 4

    func unlock(_ read: UnixFD) -> OutgoingMessage {
        .methodCall(
            destination: TestDaemon.controlName, path: ObjectPath("/io/puff/Control")!,
            interface: "io.puff.Control1",
            member: "Unlock", [.string("login"), .unixFD(read)])
    }

    /// The pipe inodes `pid` holds open, from `/proc/<pid>/fd`.
    static func pipeInodes(of pid: Int32) -> Set<String> {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return Set(
            fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
                .filter { $0.hasPrefix("pipe:") })
    }

    @Test func fourUnlocksWaitingOnTheirPipesLeaveOtherClientsServed() async throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-held-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDir) }
        // The pipes may stay open as long as the test's own hang guards: the default 5 s is a
        // budget a busy machine can overrun between the first call and the writes.
        let puffd = try await TestDaemon(arguments: [
            "--data-dir", dataDir.path, "--kdf", "interactive",
            "--passcode-pipe-timeout", String(HangGuard.driver.components.seconds),
        ])
        let initialize = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: puffd.clientEnvironment,
            input: Data("held pass\n".utf8))
        #expect(initialize.status == 0)

        var writers: [Int32] = []
        var inodes: Set<String> = []
        var calls: [Task<IncomingMessage, any Error>] = []
        for _ in 0..<Self.held {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            var info = stat()
            fstat(ends[0], &info)
            inodes.insert("pipe:[\(info.st_ino)]")
            writers.append(ends[1])
            let connection = try await BusConnection.connect(address: puffd.bus.address)
            let message = unlock(UnixFD(taking: ends[0]))
            calls.append(Task { try await connection.call(message, timeout: HangGuard.driver) })
        }
        // Hold point: puffd has received every read end (the calls are in their handlers).
        let pid = puffd.processIdentifier
        let pipes = inodes
        let received = await poll(limit: HangGuard.step, every: .milliseconds(10)) {
            pipes.isSubset(of: Self.pipeInodes(of: pid))
        }
        #expect(received, "puffd never got the pipes")

        // Another client is served while all four still wait.
        let other = try await BusConnection.connect(address: puffd.bus.address)
        let served = try await other.call(
            .methodCall(
                destination: "org.freedesktop.secrets", path: ObjectPath("/org/freedesktop/secrets")!,
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string("org.freedesktop.Secret.Service"), .string("Collections")]),
            timeout: HangGuard.step)
        #expect(served.arguments.count == 1)
        #expect(inodes.isSubset(of: Self.pipeInodes(of: pid)), "served while puffd still held every pipe")

        // Release: each writer sends the passcode and closes; every unlock then succeeds.
        for fd in writers {
            _ = "held pass".withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        for call in calls {
            let reply = try await call.value
            #expect(reply.arguments.first?.string == "login")
        }
        #expect(puffd.isRunning)
    }
}
