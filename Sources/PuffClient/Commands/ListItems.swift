// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl list [--collection C] [--json]`: items, never their secrets.
struct ListItems: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List items: path, kind, name, times and attributes, never secrets.",
        discussion: """
            Lists every visible collection unless --collection names one. Items are named by \
            their kind, which puffd's schema mappers derive from the attributes: internet \
            passwords as protocol://user@server:port/path, generic ones as service / account, \
            notes and others by label. --json adds kind and the typed fields. A locked \
            collection that was not unlocked since puffd started lists paths only.
            """
    )

    @Option(
        help: ArgumentHelp("List only the collection with id C.", valueName: "C"),
        completion: .custom(Completions.collections))
    var collection: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        let status = try await client.status()
        guard status.isInitialized else { throw ClientError.notInitialized }
        let collections = if let collection { [try status.target(collection)] } else { status.collections }
        var items: [ItemSummary] = []
        for collection in collections {
            items += try await client.listItems(in: collection.id)
        }
        Console.out(output.json ? ItemOutput.json(items) : ItemOutput.text(items))
    }
}
