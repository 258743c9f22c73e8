// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffText

/// `puffctl add LABEL ATTR=VALUE... [--collection C] [--stdin | --generate]`: stores a new item.
struct AddItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Store a new item: its label, attributes and a secret typed, piped in or generated.",
        discussion: """
            The secret is typed twice on the terminal with echo off, read from standard input to \
            its end with --stdin (one trailing newline dropped, every other byte kept), or made by \
            --generate from libsodium's CSPRNG and never shown. It is never an argument. puffctl \
            stores it as any Secret Service client does (Collection.CreateItem), encrypted on the \
            bus, so puffd's checks and its audit log apply. A new item is always added, even when \
            another has the same attributes (secret-tool store would replace that one), unless \
            puffd's unique_internet rule makes it replace an internet password. The collection \
            must be unlocked (exit 3 otherwise). Prints the new item as COLLECTION/NUMBER.
            """
    )

    @Argument(help: ArgumentHelp("The item's label, as people see it.", valueName: "LABEL"))
    var label: String

    @Argument(help: ArgumentHelp("Lookup attributes, as attr=value (none is allowed).", valueName: "ATTR=VALUE"))
    var attributes: [String] = []

    @Option(
        help: ArgumentHelp("Store in the collection with id C instead of the default one.", valueName: "C"),
        completion: .custom(Completions.collections))
    var collection: String?

    @OptionGroup var secret: SecretOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let pairs = try ItemReference.attributes(attributes)
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        // Checked before the secret is typed, so a locked collection costs no typing.
        guard !target.isLocked else { throw ClientError.locked(collection: target.id) }
        let value = try secret.secret(for: "'\(TerminalText.escaped(label))'")
        let path = try await client.createItem(in: target.id, label: label, attributes: pairs, secret: value)
        let name = SecretPaths.shortName(of: path, collection: target.id)
        let generated = secret.generate ? " with a generated secret of \(secret.generatedDescription)" : ""
        Console.error("Added '\(TerminalText.escaped(label))' as \(TerminalText.escaped(name))\(generated).")
        Console.out(TerminalText.escaped(name))
    }
}
