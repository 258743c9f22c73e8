// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import PuffCrypto

/// `--recovery` and `--recovery-fd`, for `unlock` and `passwd`: a recovery code (docs/unlock-slots.md)
/// in place of the passcode. It is read like a passcode, never from the command line, and checked
/// here to be a code before it is sent.
public struct RecoveryCodeOptions: ParsableArguments {
    @Flag(name: .customLong("recovery"), help: "Use a recovery code instead of the passcode.")
    public var isRequested = false

    @Option(
        name: .customLong("recovery-fd"),
        help: ArgumentHelp("Read the recovery code as one line of descriptor N (implies --recovery).", valueName: "N")
    )
    public var descriptor: Int32?

    /// Creates the options with their defaults: no recovery code.
    public init() {}

    /// Whether a recovery code is to be used.
    public var isGiven: Bool { isRequested || descriptor != nil }

    public func validate() throws {
        if let descriptor, descriptor < 0 {
            throw ValidationError("--recovery-fd needs a descriptor number (0 or more)")
        }
    }

    /// Reads the code from `--recovery-fd`, else from `fallback` (where the passcode would come from).
    func read(fallback: PasscodeSource, for name: String) throws(ClientError) -> SecureBytes {
        try read(from: descriptor == nil ? try fallback.open() : nil, for: name)
    }

    /// Reads the code from `--recovery-fd`, else from `channel`. On a terminal a text that is not
    /// a code is asked again, three times in all.
    ///
    /// - Throws: ``ClientError/usage(_:)`` when the text is not a recovery code.
    func read(from channel: (any PasscodeChannel)?, for name: String) throws(ClientError) -> SecureBytes {
        let source: any PasscodeChannel
        if let descriptor {
            source = try PasscodeSource.descriptor(descriptor).open()
        } else if let channel {
            source = channel
        } else {
            source = try PasscodeSource.terminal.open()
        }
        for attempt in 1...PasscodePrompt.attempts {
            let text = try source.readPasscode(prompt: "Recovery code for \(name):")
            if RecoveryCode.parse(text) != nil { return text }
            guard source.isInteractive, attempt < PasscodePrompt.attempts else { break }
            source.tell("That is not a recovery code (32 letters and digits, XXXX-XXXX-…); try again.")
        }
        throw .usage("that is not a recovery code: 32 letters and digits, as XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX")
    }
}
