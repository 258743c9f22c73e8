// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials

/// `puffctl copy ITEM [--clear-after SECONDS]`: the secret onto the clipboard, cleared later.
struct CopyItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy an item's secret to the clipboard and clear it after 30 seconds.",
        discussion: """
            Uses wl-copy when WAYLAND_DISPLAY is set, else xclip or xsel when DISPLAY is set; \
            with none of them it exits with 1. The secret reaches the tool on its standard input, \
            never as an argument. A background puffctl clears the clipboard after --clear-after \
            seconds, unless the clipboard holds something else by then (it remembers a keyed \
            hash of the secret, not the secret). A locked collection exits with 3.

            \(ItemArguments.forms)
            """
    )

    @OptionGroup var item: ItemArguments

    @Option(help: ArgumentHelp("Clear the clipboard after SECONDS; 0 leaves it.", valueName: "SECONDS"))
    var clearAfter: UInt32 = 30

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Before the secret is fetched: without a clipboard there is nothing to fetch it for.
        let tool = try ClipboardTool.find(environment: environment)
        let (resolved, client) = try await item.resolve(connection)
        let secret = try await resolved.secret(from: client)
        try tool.set(secret, path: environment["PATH"])
        guard clearAfter > 0 else {
            Console.error("Copied \(resolved.name) to the clipboard; it will not be cleared.")
            return
        }
        try ClipboardClearer.start(tool: tool, mark: ClipboardMark(of: secret), after: clearAfter)
        Console.error("Copied \(resolved.name) to the clipboard; it will be cleared in \(clearAfter) s.")
    }
}
