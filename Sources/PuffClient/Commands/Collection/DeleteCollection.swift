// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection delete C`.
struct DeleteCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a collection and every item in it."
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await connection.connect().deleteCollection(collection)
    }
}
