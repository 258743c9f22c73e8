// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffText

/// `puffctl search TEXT [--collection C] [--json]`: items whose label or an attribute value
/// holds TEXT, ignoring case; printed as `list` prints them.
struct SearchItems: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find items whose label or attribute values contain TEXT, ignoring case.",
        discussion: """
            Searches the unlocked collections (or only --collection C) and prints the matches as \
            `puffctl list` does, control characters escaped. Secrets are never searched or \
            fetched. Locked collections are not searched: their labels and most attributes are \
            sealed; standard error names them. Exits with 4 when nothing matches.
            """
    )

    @Argument(help: ArgumentHelp("The text to look for.", valueName: "TEXT"))
    var text: String

    @Option(
        help: ArgumentHelp("Search only the collection with id C.", valueName: "C"),
        completion: .custom(Completions.collections))
    var collection: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !text.isEmpty else { throw ValidationError("give the text to search for") }
    }

    func run() async throws {
        let client = try await connection.connect()
        let status = try await client.status()
        guard status.isInitialized else { throw ClientError.notInitialized }
        let collections = if let collection { [try status.target(collection)] } else { status.collections }
        var found: [ItemSummary] = []
        for collection in collections {
            guard !collection.isLocked else {
                Console.error("puffctl: \(TerminalText.escaped(collection.id)) is locked and was not searched")
                continue
            }
            found += try await client.listItems(in: collection.id).filter { ItemSearch.matches($0, text) }
        }
        guard !found.isEmpty else { throw ClientError.noMatch(query: "'\(text)'", unsearched: []) }
        Console.out(output.json ? ItemOutput.json(found) : ItemOutput.text(found))
    }
}
