// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Runs one of the real-client drivers in `Clients/` against a daemon and checks its verdict.
///
/// Each driver prints `ok <case>` or `FAIL <case>: <reason>` per case (never a secret or an
/// attribute value) and ends with `N passed, M failed`.
enum ClientDriver {
    static let directory = TestBus.repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Clients")

    /// Debian's python, which has secretstorage, keyring and dbus; a pyenv `python3` earlier on
    /// PATH has none of them.
    static let python = "/usr/bin/python3"

    /// Runs `driver` with `arguments` and records a failure for every FAIL line, a non-zero exit
    /// or a run that passed no case at all. Returns the number of cases that passed.
    @discardableResult
    static func expectPasses(
        _ driver: String,
        _ arguments: [String] = [],
        against daemon: TestDaemon,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int {
        let passed = try await expectPasses(
            driver, arguments, environment: daemon.clientEnvironment, sourceLocation: sourceLocation)
        #expect(
            daemon.isRunning, "puffd died during \(driver):\n\(daemon.log.suffix(2000))", sourceLocation: sourceLocation
        )
        return passed
    }

    /// Runs `driver` with `arguments` in `environment`, for drivers that start `puffd` themselves;
    /// under `wrapper` (a command that runs the rest, such as `unshare --mount`, or a
    /// ``Sandbox``'s `wrapper`) when given, with `input` on its standard input.
    @discardableResult
    static func expectPasses(
        _ driver: String,
        _ arguments: [String] = [],
        environment: [String: String],
        input: Data = Data(),
        timeout: Duration = HangGuard.driver,
        wrapper: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int {
        let lines = try await expectOutput(
            driver, arguments, environment: environment, input: input, timeout: timeout, wrapper: wrapper,
            sourceLocation: sourceLocation)
        return lines.filter { $0.hasPrefix("ok ") }.count
    }

    /// Runs `driver` as ``expectPasses(_:_:environment:input:timeout:wrapper:sourceLocation:)``
    /// does and returns every line it printed, for drivers that also print a value to compare
    /// (a digest keyed with the test's salt, never a secret).
    static func expectOutput(
        _ driver: String,
        _ arguments: [String] = [],
        environment: [String: String],
        input: Data = Data(),
        timeout: Duration = HangGuard.driver,
        wrapper: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let path = directory.appendingPathComponent(driver).path
        let (interpreter, leading) = driver.hasSuffix(".py") ? (python, [path]) : ("/bin/bash", [path])
        let command = wrapper + [interpreter] + leading + arguments
        let result = try await ChildProcess.run(
            command[0], Array(command.dropFirst()), environment: environment, input: input, timeout: timeout)
        let lines = result.output.split(separator: "\n").map(String.init)
        for failure in lines where failure.hasPrefix("FAIL") {
            Issue.record("\(driver): \(failure)", sourceLocation: sourceLocation)
        }
        let passed = lines.filter { $0.hasPrefix("ok ") }.count
        #expect(
            result.status == 0, "\(driver) exited \(result.status); last lines: \(lines.suffix(3))",
            sourceLocation: sourceLocation)
        #expect(passed > 0, "\(driver) passed no case; output: \(lines.suffix(5))", sourceLocation: sourceLocation)
        return lines
    }
}
