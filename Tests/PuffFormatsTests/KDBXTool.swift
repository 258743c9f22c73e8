// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto

/// Runs Tests/EndToEndTests/Clients/kdbx_tool.py (pykeepass and keepassxc-cli, Debian's
/// python3-pykeepass and keepassxc): fixtures are made by the real tools when the tests run, and
/// Puff's exports are read back by them.
enum KDBXTool {
    /// ASCII, so no locale decides how keepassxc-cli turns it into key bytes.
    static let password = "fixture password 7"
    static var passcode: SecureBytes { SecureBytes(unwipedCopyOf: Array(password.utf8)) }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("EndToEndTests/Clients/kdbx_tool.py").path

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A private folder for one test's files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("puff-kdbx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    /// Runs `kdbx_tool.py COMMAND FILE` with the password on stdin; returns stdout.
    @discardableResult
    static func run(_ command: String, _ file: URL, password: String = password) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, command, file.path]
        let input = Pipe()
        let output = Pipe()
        // stderr goes to a file, so only one pipe needs draining while the tool runs.
        let errorsFile = file.deletingLastPathComponent().appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        let errors = try FileHandle(forWritingTo: errorsFile)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data((password + "\n").utf8))
        try input.fileHandleForWriting.close()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: (try? Data(contentsOf: errorsFile)) ?? Data(), as: UTF8.self)
            throw Failure(description: "kdbx_tool.py \(command) exited \(process.terminationStatus): \(message)")
        }
        return stdout
    }

    /// Fixtures made once per test run (each costs the tools' KDF several times).
    private static let made: [String: Result<[UInt8], any Error>] = Dictionary(
        uniqueKeysWithValues: ["make-cli", "make-cli-rm", "make-py"].map { command in
            (command, Result { try makeNow(command) })
        })

    /// A fixture made by `make-cli` (keepassxc-cli, KDBX 3.1), `make-cli-rm` (the same after an
    /// `rm`, KDBX 4.1) or `make-py` (pykeepass, KDBX 4).
    static func make(_ command: String) throws -> [UInt8] {
        guard let result = made[command] else { throw Failure(description: "no fixture \(command)") }
        return try result.get()
    }

    private static func makeNow(_ command: String) throws -> [UInt8] {
        let file = try folder().appendingPathComponent("fixture.kdbx")
        try run(command, file)
        return [UInt8](try Data(contentsOf: file))
    }

    /// Writes `bytes` to a private file and returns the tool's JSON dump of it.
    static func dump(_ command: String, _ bytes: [UInt8]) throws -> [String: Any] {
        let file = try folder().appendingPathComponent("export.kdbx")
        try Data(bytes).write(to: file)
        let json = try JSONSerialization.jsonObject(with: try run(command, file))
        guard let object = json as? [String: Any] else { throw Failure(description: "not a JSON object") }
        return object
    }
}
