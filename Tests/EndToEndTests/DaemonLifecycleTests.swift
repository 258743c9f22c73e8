// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(1)))
struct DaemonLifecycleTests {
    private let testName = "org.puff.LifecycleTest"

    @Test func aSecondDaemonRefusesToStartWhileTheNameIsOwned() async throws {
        let first = try await TestDaemon(busName: testName)
        let second = try await ChildProcess.run(
            TestDaemon.executablePath, ["--address", first.bus.address, "--bus-name", testName],
            environment: first.clientEnvironment, timeout: .seconds(20))
        #expect(second.status == 1)
        #expect(second.output.contains("already owns \(testName)"))
        #expect(first.isRunning)
    }

    @Test func replaceTakesTheNameOverAndTheOldDaemonStops() async throws {
        let first = try await TestDaemon(busName: testName)
        let second = try await TestDaemon(arguments: ["--replace"], busName: testName, on: first.bus)
        for _ in 0..<100 where first.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!first.isRunning)
        #expect(second.isRunning)
    }

    @Test func sigtermStopsTheDaemonCleanly() async throws {
        let daemon = try await TestDaemon(busName: testName)
        #expect(await daemon.terminate() == 0)
        #expect(daemon.log.contains("stopped serving"))
    }

    @Test func badOptionsGetAClearMessage() async throws {
        let result = try await ChildProcess.run(
            TestDaemon.executablePath, ["--vault", "nope"], environment: ["PATH": "/usr/bin:/bin"],
            timeout: .seconds(20))
        #expect(result.status != 0)
        #expect(result.output.contains("unknown vault 'nope'"))
    }
}
