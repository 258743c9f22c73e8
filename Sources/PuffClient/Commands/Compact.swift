// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl compact [COLLECTION]`.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a collection's journal with only its live records.",
        discussion: "With no COLLECTION, compacts every collection. Prints the bytes reclaimed."
    )

    @Argument(help: "The collection's id; every collection when left out.")
    var collection: String?

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        // Compact takes "" for all collections (io.puff.Control1.xml).
        let reclaimed = try await connection.connect().compact(collection ?? "")
        Console.out("reclaimed \(reclaimed) bytes")
    }
}
