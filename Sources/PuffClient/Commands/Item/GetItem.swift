// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl get ITEM [--newline]`: the secret's bytes on standard output, for scripts.
struct GetItem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print an item's secret on standard output, exactly as stored.",
        discussion: """
            Nothing is added: no newline unless --newline asks for one, so `$(puffctl get ITEM)` and \
            pipes get the stored bytes. The secret travels encrypted on the bus (the Secret \
            Service's dh-ietf1024-sha256-aes128-cbc-pkcs7 session). A locked collection exits with \
            3 and no prompt: unlock it first with `puffctl unlock`.

            \(ItemArguments.forms)
            """
    )

    @OptionGroup var item: ItemArguments

    @Flag(help: "End the output with a newline.")
    var newline = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let (resolved, client) = try await item.resolve(connection)
        // The secret is wiped when this scope ends and the last reference goes.
        let secret = try await resolved.secret(from: client)
        try Console.out(secret: secret, newline: newline)
    }
}
