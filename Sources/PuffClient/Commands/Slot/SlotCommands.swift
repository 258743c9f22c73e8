// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl slot`: the group of unlock slot subcommands (docs/unlock-slots.md).
struct SlotCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slot",
        abstract:
            "List, add, remove and rename the ways a collection opens (passcodes, recovery codes, TPM, security keys).",
        discussion: """
            A collection opens through any of its slots, each holding the collection's key under \
            its own credential. Adding or removing a slot needs a passcode or recovery code that \
            opens the collection now, and is recorded in its audit log. See docs/unlock-slots.md \
            for what each slot type protects against and what it does not.
            """,
        subcommands: [ListSlots.self, AddSlot.self, RemoveSlot.self, RelabelSlot.self]
    )
}

/// `puffctl slot list COLLECTION [--json]`.
struct ListSlots: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a collection's unlock slots.",
        discussion: "Works while the collection is locked: the slots are read from its header. Nothing shown is secret."
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        let slots = try await client.listSlots(of: target.id)
        Console.out(output.json ? SlotOutput.json(slots) : SlotOutput.text(slots))
    }
}

/// `puffctl slot remove COLLECTION SLOT`.
struct RemoveSlot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an unlock slot.",
        discussion: """
            Needs a passcode or recovery code that opens the collection (from the terminal, --stdin \
            or --passcode-fd; it may be the removed slot's own). The last slot cannot be removed. \
            Removing a slot rewrites only the collection's header: a copy of the header made \
            before (a backup, a stolen disk image) still opens with the removed slot's credential, \
            until `puffctl passwd` gives the collection a new key.
            """
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @Argument(help: "The slot's number, as `puffctl slot list` shows it.")
    var slot: UInt16

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let proved = try await SlotProof.read(collection, from: passcode.source, connection: connection)
        try await proved.client.removeSlot(slot, from: proved.target.id, proof: proved.proof)
        Console.error("Removed slot \(slot) from '\(proved.target.id)'.")
    }
}

/// `puffctl slot relabel COLLECTION SLOT LABEL`.
struct RelabelSlot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relabel",
        abstract: "Rename an unlock slot.",
        discussion: """
            Needs a passcode or recovery code that opens the collection (from the terminal, --stdin \
            or --passcode-fd). The label is shown in `puffctl slot list` and in prompts. Audited.
            """
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @Argument(help: "The slot's number, as `puffctl slot list` shows it.")
    var slot: UInt16

    @Argument(help: "The new label (1 to 64 bytes).")
    var label: String

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let proved = try await SlotProof.read(collection, from: passcode.source, connection: connection)
        try await proved.client.relabelSlot(slot, of: proved.target.id, to: label, proof: proved.proof)
        Console.error("Slot \(slot) of '\(proved.target.id)' is now “\(label)”.")
    }
}
