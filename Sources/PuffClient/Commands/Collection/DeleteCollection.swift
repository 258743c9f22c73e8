// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto

/// `puffctl collection delete C [--force]`.
struct DeleteCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a collection and every item in it (kept for a while: see collection restore).",
        discussion: """
            A collection that may hold items is deleted only once confirmed: on the terminal, by typing \
            its id, or with --force where there is no terminal. A locked collection needs its passcode \
            (from the terminal, --stdin or --passcode-fd). What is deleted is kept sealed in the vault \
            for [vault] keep_deleted_days days (default 7); `puffctl collection restore` brings it back.
            """
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @Flag(help: "Delete without asking on the terminal (for scripts, which have none).")
    var force = false

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        // A locked private collection's items are unknown until it opens: it may hold some.
        if !force, target.itemCount > 0 || (target.isLocked && target.isPrivate) {
            try Self.confirm(target)
        }
        var code: SecureBytes?
        if target.isLocked {
            code = try PasscodePrompt.existing(from: try passcode.source.open(), prompt: "Passcode for \(target.id):")
        }
        let deleted = try await client.deleteCollection(target.id, passcode: code)
        let days = deleted.keptDays.map { "within \($0) day\($0 == 1 ? "" : "s")" } ?? "for a while"
        Console.out(
            "Deleted \(deleted.described); `puffctl collection restore \(target.id)` brings it back \(days)")
    }

    /// Asks on the terminal; only the collection's id, typed in full, confirms.
    ///
    /// - Throws: ``ClientError/usage(_:)`` when there is no terminal or the answer is not the id.
    private static func confirm(_ target: CollectionStatus) throws(ClientError) {
        let items =
            target.isLocked && target.isPrivate
            ? "its items" : "its \(target.itemCount) item\(target.itemCount == 1 ? "" : "s")"
        let terminal: TerminalChannel
        do {
            terminal = try TerminalChannel()
        } catch {
            throw .usage(
                "'\(target.id)' may hold items and there is no terminal to confirm on: pass --force to delete it")
        }
        let answer =
            (try? terminal.readAnswer(
                prompt: "Delete the collection '\(target.id)' and \(items)? Type its id to confirm:")) ?? ""
        guard answer == target.id else { throw .usage("not confirmed; nothing was deleted") }
    }
}
