// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection default C`.
struct SetDefaultCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default",
        abstract: "Make a collection the default one, where applications store new items."
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await connection.connect().setDefault(collection)
    }
}
