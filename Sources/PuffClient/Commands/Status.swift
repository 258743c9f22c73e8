// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl status [--json]`.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the vault and its collections.",
        discussion: "Hidden collections appear only while they are unlocked."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let status = try await connection.connect().status()
        Console.out(output.json ? StatusOutput.json(status) : StatusOutput.text(status))
    }
}
