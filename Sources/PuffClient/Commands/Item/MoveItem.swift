// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffText

/// `puffctl mv ITEM COLLECTION`: moves an item to another collection, in one step of puffd's.
struct MoveItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Move an item to another collection.",
        discussion: """
            puffd moves the item in one call (io.puff.Control1.MoveItem): it writes the item to \
            COLLECTION (label, attributes, secret, creation time, protection and access rules) \
            and saves it before deleting it from its old collection, so an interruption leaves \
            two copies, never none. Both collections must be unlocked (exit 3 otherwise). Moving \
            opens the secret, so it goes through the same access checks as reading it: a \
            protected item asks the person to confirm. Prints the item's new COLLECTION/NUMBER.

            ITEM is given as a single argument: a path, COLLECTION/NUMBER, or one attr=value \
            that matches exactly one item.
            """
    )

    @Argument(
        help: ArgumentHelp("A path, COLLECTION/NUMBER, or one attr=value matching one item.", valueName: "ITEM"),
        completion: .custom(Completions.items))
    var item: String

    @Argument(
        help: ArgumentHelp("The id of the collection to move it to.", valueName: "COLLECTION"),
        completion: .custom(Completions.collections))
    var collection: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let reference = try ItemReference(arguments: [item])
        let client = try await connection.connect()
        let resolved = try await ItemResolver(directory: client).resolve(reference)
        let target = try await client.status().target(collection)
        let from = resolved.collection.id
        guard target.id != from else {
            throw ClientError.usage("\(resolved.name) is already in \(TerminalText.escaped(collection))")
        }
        // Checked here for the message; puffd checks again.
        for status in [resolved.collection, target] where status.isLocked {
            throw ClientError.locked(collection: status.id)
        }
        let path = try await client.moveItem(resolved.item.path, to: target.id)
        let old = TerminalText.escaped(SecretPaths.shortName(of: resolved.item.path, collection: from))
        let new = TerminalText.escaped(SecretPaths.shortName(of: path, collection: target.id))
        Console.error("Moved \(resolved.name) from \(old) to \(new).")
        Console.out(new)
    }
}
