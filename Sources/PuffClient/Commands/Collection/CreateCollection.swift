// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection create NAME [--private] [--hidden] [--policy P [--min-length N]]
/// [--locked-search MODE] [--store openbao]`.
struct CreateCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a collection under a passcode of its own, and print its id.",
        discussion: """
            On a terminal the passcode is typed twice. --stdin and --passcode-fd read it once. \
            The passcode must meet --policy (default: alphanumeric, at least 8 characters). \
            The new collection starts unlocked. --locked-search says whether its items are found \
            while it is locked: always (the default; its files then let someone who copies them \
            confirm guessed attribute values), tpm2 (as always, the index key sealed by this \
            machine's TPM), after-unlock (once unlocked since puffd started) or never; see \
            `puffctl collection set`. A private collection is never searched while locked. \
            --store openbao also keeps it in OpenBao under NAME (puffd needs [store.openbao]), where \
            other machines attach it (`puffctl collection attach NAME --store openbao`); it cannot \
            be hidden.
            """
    )

    @Argument(help: "The collection's label.")
    var name: String

    @Flag(name: .customLong("private"), help: "Keep the collection apart from the login passcode.")
    var isPrivate = false

    @Flag(name: .customLong("hidden"), help: "List the collection only while it is open (implies --private).")
    var isHidden = false

    @Option(
        name: .customLong("locked-search"), help: "Whether its items are found while it is locked (default: always).")
    var lockedSearch: LockedSearchMode?

    @Option(name: .customLong("store"), help: "Keep it in OpenBao too, shared with other machines: openbao.")
    var store: SharedStoreName?

    @OptionGroup var policy: PolicyOptions
    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if name.isEmpty { throw ValidationError("the collection needs a name") }
        if isPrivate || isHidden, let lockedSearch, lockedSearch != .never {
            throw ValidationError("a private collection is never searched while locked")
        }
        if store != nil {
            if isHidden {
                throw ValidationError("a collection kept in OpenBao cannot be hidden: its name is a path there")
            }
            try SharedStoreName.validate(name)
        }
    }

    func run() async throws {
        let client = try await connection.connect()
        let code = try PasscodePrompt.new(from: try passcode.source.open(), for: name)
        let id = try await client.createCollection(
            label: name, isPrivate: isPrivate || isHidden, isHidden: isHidden, policy: policy.policy,
            minimumLength: policy.minimumLength, lockedSearch: lockedSearch, passcode: code)
        if store != nil {
            do {
                try await client.shareCollection(id, as: name)
            } catch {
                Console.error(
                    "puffctl: '\(id)' was created here but not kept in OpenBao; `puffctl collection delete \(id)` "
                        + "removes it before trying again")
                throw error
            }
        }
        Console.out(id)
    }
}
