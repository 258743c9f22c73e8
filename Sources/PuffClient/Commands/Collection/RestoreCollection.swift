// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection restore [C]`.
struct RestoreCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back a deleted collection, or list those that can be.",
        discussion: """
            Deleted collections are kept sealed for [vault] keep_deleted_days days (default 7), then \
            purged when puffd starts. A restored collection comes back locked, with every item it \
            held; its passcode opens it. A collection of the same id must not exist meanwhile.
            """
    )

    @Argument(help: "The deleted collection's id (the one deleted last), or its NAME from the list; none to list.")
    var collection: String?

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        guard let collection else {
            let kept = try await client.deletedCollections()
            guard !kept.isEmpty else {
                Console.out("No deleted collections are kept")
                return
            }
            var table = TextTable("ID", "ITEMS", "DELETED", "NAME")
            for entry in kept {
                table.append(
                    entry.id.isEmpty ? "(hidden)" : entry.id, "\(entry.itemCount)", AuditTime.shown(entry.deletedAt),
                    entry.name)
            }
            Console.out(table.rendered)
            return
        }
        let id = try await client.restoreCollection(collection)
        Console.out(
            id.isEmpty
                ? "Restored a hidden collection: its passcode opens it (`puffctl unlock --hidden`)"
                : "Restored '\(id)', locked: `puffctl unlock \(id)` opens it")
    }
}
