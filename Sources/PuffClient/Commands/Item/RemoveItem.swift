// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffText

/// `puffctl rm ITEM [--force]`: deletes an item after asking on the terminal.
struct RemoveItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete an item, after asking on the terminal.",
        discussion: """
            puffctl names the item (label and COLLECTION/NUMBER) and asks on the terminal; only \
            y or yes deletes. --force deletes without asking; without a terminal and without \
            --force, nothing is deleted (exit 1). The deletion goes through Item.Delete as for \
            any Secret Service client and is audited. A deleted item is not kept: unlike a \
            deleted collection (kept for keep_deleted_days), it cannot be restored, and the \
            next compaction drops its sealed record from the journal.

            \(ItemArguments.forms)
            """
    )

    @OptionGroup var item: ItemArguments

    @Flag(help: "Delete without asking (for scripts).")
    var force = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let (resolved, client) = try await item.resolve(connection)
        let collection = resolved.collection.id
        let name = TerminalText.escaped(SecretPaths.shortName(of: resolved.item.path, collection: collection))
        // The Secret portal's key of a sandboxed app: libsecret there reports what it can no longer
        // decrypt as "not found", so the person hears it here or nowhere.
        if let attributes = resolved.item.attributes, attributes["xdg:schema"] == "org.freedesktop.portal.Secret" {
            let app = TerminalText.escaped(attributes["app_id"] ?? "an app")
            Console.error(
                "This is the portal key of \(app): the secrets \(app) stored through the portal become unreadable.")
        }
        if !force {
            let terminal: TerminalChannel
            do {
                terminal = try TerminalChannel()
            } catch {
                throw ClientError.usage(
                    "no terminal to ask on: nothing was deleted; add --force to delete \(name) without asking")
            }
            let answer = try terminal.readAnswer(prompt: "Delete \(resolved.name) (\(name)) for good? [y/N]")
            guard ["y", "yes"].contains(answer.lowercased()) else {
                Console.error("Nothing was deleted.")
                return
            }
        }
        try await client.deleteItem(resolved.item.path, collection: collection)
        Console.error("Deleted \(resolved.name) (\(name)).")
    }
}
