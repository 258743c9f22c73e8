// SPDX-License-Identifier: Apache-2.0
public import Foundation
import PuffDBus

/// A private `dbus-daemon` for one test, started from `dbus/test-session.conf` and stopped when
/// the value is released (gnome-keyring's tests run the same way under their own bus).
public final class TestBus: @unchecked Sendable {
    // @unchecked: `process` is set once in init and only read afterwards.
    private let process: Process
    /// The address clients connect to (`DBUS_SESSION_BUS_ADDRESS`).
    public let address: String

    /// Whether bus tests can run here. With `PUFF_REQUIRE_BUS=1` (CI) a missing daemon is a test
    /// failure, reported by ``start()``, never a silent skip.
    public static var isAvailable: Bool { canRun(needing: [daemonPath]) }

    /// Whether tests that need the programs at `paths` (installed by `make deps`) run here: when
    /// every one is there, and always with `PUFF_REQUIRE_BUS=1` (CI), where a missing one must fail
    /// the tests that need it, not skip them.
    public static func canRun(needing paths: [String]) -> Bool {
        ProcessInfo.processInfo.environment["PUFF_REQUIRE_BUS"] == "1"
            || paths.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let daemonPath = "/usr/bin/dbus-daemon"

    /// The repository's root, found from this source file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Starts a bus and waits until it prints its address. With `socketIn`, the bus listens on
    /// the path socket `folder/bus` instead of an abstract one: a sandbox can be given that file
    /// alone (``Sandbox``), and cannot reach the bus otherwise.
    public init(socketIn folder: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.daemonPath)
        let config = Self.repositoryRoot.appendingPathComponent("dbus/test-session.conf").path
        let listen = folder.map { ["--address=unix:path=\($0.appendingPathComponent("bus").path)"] } ?? []
        process.arguments = ["--config-file=\(config)", "--nofork", "--print-address=1"] + listen
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // dbus-daemon prints the address as its first line once it is listening.
        let line = Self.firstLine(of: output)
        guard !line.isEmpty else {
            process.terminate()
            throw TestBusError.noAddress
        }
        address = line
    }

    deinit {
        // Not waitUntilExit(): it spins a run loop, which hangs on a Swift concurrency thread.
        // Foundation reaps the child on its own monitoring thread. SIGKILL, not SIGTERM: the
        // child inherits the test runner's signal mask, which blocks SIGTERM, and a bus daemon
        // has nothing to flush.
        // Only while it runs: a reaped pid may already name another test's process.
        if !process.hasExited { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Why a test bus could not start.
public enum TestBusError: Error {
    case noAddress
}

extension TestBus {
    /// The first line a child writes to `pipe` (without its newline), read as it arrives; what
    /// came before the pipe closed when no newline did. Helpers that print where they listen
    /// (dbus-daemon's address, Xvfb's display) say so on their first line.
    public static func firstLine(of pipe: Pipe) -> String {
        var collected = Data()
        while !collected.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            collected.append(chunk)
        }
        return String(decoding: collected, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }
}

extension TestBus {
    /// Polls `NameHasOwner` until `name` has an owner, or `running` says the program that should
    /// take it has exited, for at most ``HangGuard/step`` (a hang guard). Returns whether the name
    /// is owned. Polling the bus, not sleeping a guessed time, is what makes start-up waits reliable.
    public func waitForOwner(_ name: String, while running: @escaping @Sendable () -> Bool) async throws -> Bool {
        let probe = try await BusConnection.connect(address: address)
        defer { probe.close() }
        return try await poll(limit: HangGuard.step, every: .milliseconds(50)) {
            let reply = try await probe.call(
                .methodCall(
                    destination: "org.freedesktop.DBus", path: ObjectPath("/org/freedesktop/DBus")!,
                    interface: "org.freedesktop.DBus", member: "NameHasOwner", [.string(name)]))
            return reply.arguments.first?.bool == true || !running()
        }
    }
}
