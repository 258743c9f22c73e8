// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl compact [COLLECTION] [--json]`.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a collection's journal with only its live records.",
        discussion: """
            With no COLLECTION, compacts every collection. Prints the bytes reclaimed. On a \
            terminal, a progress bar on standard error shows the records done, the rate and the \
            time left, and is erased at the end; with --json, progress lines on standard error \
            instead; on a pipe, nothing.
            """
    )

    @Argument(help: "The collection's id; every collection when left out.")
    var collection: String?

    @Flag(help: "Print {\"reclaimed\": N}, and progress as JSON lines on standard error.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let progress = ProgressReporter.forCommand("compact", json: json)
        defer { progress.finish() }
        // Compact takes "" for all collections (io.puff.Control1.xml).
        let reclaimed = try await connection.connect().compact(collection ?? "", progress: progress.update)
        progress.finish()
        Console.out(json ? "{\"reclaimed\":\(reclaimed)}" : "reclaimed \(reclaimed) bytes")
    }
}
