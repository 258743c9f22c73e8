// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import PuffCrypto

/// `--stdin`, `--passcode-fd` and `--ask-passcode`, for commands whose change weakens protection
/// (`unprotect`, `access allow`, `access revoke`): the person agrees with the collection's
/// passcode, or, with none of them, by answering puffd's own question (`puffctl agent`, pinentry).
public struct ConsentOptions: ParsableArguments {
    @Flag(name: .customLong("stdin"), help: "Read the collection's passcode as one line of standard input.")
    public var readsStandardInput = false

    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp("Read the collection's passcode as one line of descriptor N.", valueName: "N")
    )
    public var descriptor: Int32?

    @Flag(
        name: .customLong("ask-passcode"),
        help: "Ask for the collection's passcode on this terminal instead of letting puffd's prompter confirm.")
    public var asksOnTerminal = false

    /// Creates the options with their defaults: puffd's prompter confirms.
    public init() {}

    public func validate() throws {
        guard [readsStandardInput, descriptor != nil, asksOnTerminal].filter({ $0 }).count <= 1 else {
            throw ValidationError("give one of --stdin, --passcode-fd and --ask-passcode")
        }
        if let descriptor, descriptor < 0 {
            throw ValidationError("--passcode-fd needs a descriptor number (0 or more)")
        }
    }

    /// The passcode of `collection` from where the options say, or nil when puffd's prompter is
    /// to ask the person instead.
    func passcode(of collection: String) throws(ClientError) -> SecureBytes? {
        let source: PasscodeSource
        if readsStandardInput {
            source = .standardInput
        } else if let descriptor {
            source = .descriptor(descriptor)
        } else if asksOnTerminal {
            source = .terminal
        } else {
            return nil
        }
        return try PasscodePrompt.existing(from: try source.open(), prompt: "Passcode for \(collection):")
    }
}
