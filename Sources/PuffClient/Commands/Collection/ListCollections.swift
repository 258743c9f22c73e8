// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection list [--json]`.
struct ListCollections: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the collections.",
        discussion: "Hidden collections appear only while they are unlocked."
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let status = try await connection.connect().status()
        guard status.isInitialized else { throw ClientError.notInitialized }
        Console.out(
            output.json ? StatusOutput.json(status.collections) : StatusOutput.collectionsText(status.collections))
    }
}
