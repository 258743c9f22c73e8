// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl show ITEM [--json]`: one item's typed view, label, attributes and times, never its
/// secret.
struct ShowItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract:
            "Show an item: path, collection, kind and typed fields, label, attributes and times, never its secret.",
        discussion: ItemArguments.forms
    )

    @OptionGroup var item: ItemArguments
    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let (resolved, _) = try await item.resolve(connection)
        Console.out(output.json ? ItemOutput.json(resolved.item) : ItemOutput.detail(resolved))
    }
}
