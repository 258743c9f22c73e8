// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection rename C LABEL`.
struct RenameCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Change a collection's label; its id stays."
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @Argument(help: "The new label.")
    var label: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await connection.connect().renameCollection(collection, to: label)
    }
}
