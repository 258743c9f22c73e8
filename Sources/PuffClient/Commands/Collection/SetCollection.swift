// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection set C --locked-search MODE`.
struct SetCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a collection's settings: whether its items are found while it is locked.",
        discussion: """
            --locked-search always: search finds the items of the locked collection from start; its \
            files then let someone who copies them confirm guessed attribute values (user=alice) at \
            hash speed and see which items share a value. after-unlock: found once the collection \
            was unlocked since puffd started, until puffd stops; nothing on disk to guess with. \
            never: found only while it is unlocked. tpm2: as always, but the index key is sealed \
            by this machine's TPM and never written in the clear, so copied files give nothing to \
            test guesses with, and search before the unlock works on this machine only (it needs \
            a TPM, not a tpm2 slot; if the TPM refuses at start, as after-unlock until the \
            collection is unlocked). The change needs the collection's passcode (terminal, --stdin \
            or --passcode-fd), unlocks it, and is written to its audit log; going towards always \
            is said to weaken protection. Private collections are always never.
            """
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @Option(name: .customLong("locked-search"), help: "Whether its items are found while it is locked.")
    var lockedSearch: LockedSearchMode

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        let current = LockedSearchMode(of: target)
        if let current, current.exposure < lockedSearch.exposure {
            Console.error(
                "\(target.id): locked search \(current.shown) → \(lockedSearch.shown) weakens protection; "
                    + "its passcode agrees to it")
        }
        let code = try PasscodePrompt.existing(from: try passcode.source.open(), prompt: "Passcode for \(target.id):")
        try await client.setLockedSearch(of: target.id, to: lockedSearch, passcode: code)
        Console.out("\(target.id): locked search \(lockedSearch.shown)")
    }
}
