// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl unprotect ITEM`: reads of the item no longer ask for a confirmation.
struct UnprotectItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unprotect",
        abstract: "Stop asking for a confirmation before each read of an item's secret.",
        discussion: ItemArguments.forms + "\n\n" + AccessCommands.consent
    )

    @OptionGroup var item: ItemArguments
    @OptionGroup var consent: ConsentOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let (resolved, client) = try await item.resolve(connection)
        try await client.setProtected(
            false, item: resolved.item.path, passcode: try consent.passcode(of: resolved.collection.id))
        Console.out("unprotected \(resolved.name)")
    }
}
