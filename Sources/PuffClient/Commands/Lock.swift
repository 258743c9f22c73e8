// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl lock [COLLECTION | --all]`.
struct Lock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock a collection, or every collection.",
        discussion: "With no COLLECTION and no --all, locks the default collection."
    )

    @Argument(help: "The collection's id; the default collection when left out.")
    var collection: String?

    @Flag(help: "Lock every collection.")
    var all = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if all, collection != nil { throw ValidationError("give a collection or --all, not both") }
    }

    func run() async throws {
        let client = try await connection.connect()
        if all {
            // Lock with an empty list locks every collection (io.puff.Control1.xml).
            try await client.lock([])
        } else if let collection {
            try await client.lock([collection])
        } else {
            try await client.lock([try await client.status().target(nil).id])
        }
    }
}
