// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffText

/// `puffctl edit ITEM [--label L] [--set ATTR=VALUE]... [--unset ATTR]... [--secret]`.
struct EditItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change an item's label, attributes or secret.",
        discussion: """
            --set adds or changes an attribute and --unset removes one; the others stay. \
            --secret replaces the secret, typed twice on the terminal with echo off; --stdin or \
            --generate replace it from standard input or libsodium's CSPRNG (they imply \
            --secret). puffctl makes the changes as any Secret Service client does (the Label \
            and Attributes properties, Item.SetSecret, the secret encrypted on the bus), one \
            after the other: attributes, label, then secret. Each is saved and audited as it is \
            made. The collection must be unlocked (exit 3 otherwise).

            \(ItemArguments.forms)
            """
    )

    @OptionGroup var item: ItemArguments

    @Option(help: ArgumentHelp("The new label.", valueName: "L"))
    var label: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Set attribute ATTR to VALUE.", valueName: "ATTR=VALUE"))
    var set: [String] = []

    @Option(help: ArgumentHelp("Remove attribute ATTR.", valueName: "ATTR"))
    var unset: [String] = []

    @Flag(name: .customLong("secret"), help: "Replace the secret, typed on the terminal.")
    var changesSecret = false

    @OptionGroup var secret: SecretOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard label != nil || !set.isEmpty || !unset.isEmpty || changesSecret || secret.isGiven else {
            throw ValidationError("nothing to change: give --label, --set, --unset or --secret")
        }
    }

    func run() async throws {
        let changes = try ItemReference.attributes(set)
        for name in unset where changes[name] != nil {
            throw ClientError.usage("attribute '\(name)' is both set and unset")
        }
        let (resolved, client) = try await item.resolve(connection)
        let collection = resolved.collection.id
        let path = resolved.item.path
        guard !resolved.collection.isLocked, let current = resolved.item.attributes else {
            throw ClientError.locked(collection: collection)
        }
        var done: [String] = []
        var attributes = current.merging(changes) { $1 }
        for name in unset { attributes[name] = nil }
        if attributes != current {
            try await client.setAttributes(attributes, of: path, collection: collection)
            done.append("attributes")
        }
        if let label, label != resolved.item.label {
            try await client.setLabel(label, of: path, collection: collection)
            done.append("label")
        }
        if changesSecret || secret.isGiven {
            let value = try secret.secret(for: resolved.name)
            try await client.setSecret(value, of: path, collection: collection)
            done.append(secret.generate ? "secret (generated: \(secret.generatedDescription))" : "secret")
        }
        let name = TerminalText.escaped(SecretPaths.shortName(of: path, collection: collection))
        Console.error(
            done.isEmpty
                ? "Nothing changed: \(resolved.name) (\(name)) already is as asked."
                : "Changed \(done.joined(separator: ", ")) of \(resolved.name) (\(name)).")
    }
}
