// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl repair COLLECTION`.
struct Repair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep every record of a damaged collection that still authenticates.",
        discussion: """
            Rewrites the collection's journal with the records that authenticate in their place, \
            keeps the old journal beside it (<space>.journal.damaged-<time>, never deleted) and \
            prints what was lost. The collection must be unlocked; it is locked afterwards, and \
            its next unlock reads what was kept.
            """
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let report = try await connection.connect().repair(collection)
        Console.out("kept \(report.kept) records; the old journal is kept at \(report.keptAt)")
        if report.lost.isEmpty {
            Console.out("nothing was lost")
        } else {
            for line in report.lost { Console.out("lost: \(line)") }
        }
    }
}
