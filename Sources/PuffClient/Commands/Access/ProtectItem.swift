// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl protect ITEM`: every read of the item's secret asks the person first.
struct ProtectItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "protect",
        abstract: "Ask for a confirmation before every read of an item's secret.",
        discussion: """
            A protected item's secret is released only after the person confirms, each time, \
            through puffd's prompters (puffctl agent, pinentry), which show the executable asking \
            and the item's label. With no prompter reaching a person the read is refused at once. \
            The setting is kept, sealed, in the item's collection, which must be unlocked.

            """ + ItemArguments.forms
    )

    @OptionGroup var item: ItemArguments
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let (resolved, client) = try await item.resolve(connection)
        try await client.setProtected(true, item: resolved.item.path)
        Console.out("protected \(resolved.name)")
    }
}
