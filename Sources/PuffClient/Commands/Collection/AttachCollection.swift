// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl collection attach NAME --store openbao [--stdin | --passcode-fd N]`.
struct AttachCollection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Add a collection another machine keeps in OpenBao, and print its id.",
        discussion: """
            The collection another puffd made with `puffctl collection create NAME --store openbao` \
            is copied into this vault (sealed, as it is kept there) and comes in locked, under the \
            id it has there; its passcode opens it (`puffctl unlock ID`). From then on this puffd \
            brings in what the others write, and its writes go to OpenBao first. puffd needs \
            [store.openbao] in its configuration. With --stdin or --passcode-fd, the passcode read \
            there unlocks it once attached.
            """
    )

    @Argument(help: "The collection's name in OpenBao.")
    var name: String

    @Option(name: .customLong("store"), help: "Where the collection is kept: openbao.")
    var store: SharedStoreName

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        try SharedStoreName.validate(name)
    }

    func run() async throws {
        let client = try await connection.connect()
        // Read before anything changes: a passcode that cannot be read attaches nothing.
        let code =
            passcode.readsStandardInput || passcode.descriptor != nil
            ? try PasscodePrompt.existing(from: try passcode.source.open(), prompt: "Passcode for \(name):") : nil
        let id = try await client.attachCollection(name)
        if let code { _ = try await client.unlock(id, passcode: code) }
        Console.out(id)
    }
}
