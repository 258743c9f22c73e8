// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto

/// `puffctl passwd [COLLECTION]`: the current passcode, then a new one.
struct ChangePasscode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change a collection's passcode.",
        discussion: """
            Asks for the current passcode, then the new one (twice on a terminal). With --stdin \
            both come from standard input, current first, one per line; with --passcode-fd N both \
            come from N the same way, unless --new-passcode-fd M gives the new one its own \
            descriptor. The new passcode must meet the collection's policy (see `puffctl \
            status`). The collection gets a new key and every record is sealed again under it; \
            on a terminal a progress bar on standard error shows how far that has got. With \
            --recovery a recovery code takes the place of the current passcode (a forgotten \
            passcode), read from --recovery-fd N or else where the current passcode would be. The \
            new passcode replaces the one typed as the current one: in the passcode slot, or in \
            the login slot when the login password proved the change (a recovery code sets the \
            passcode slot). The new key is sealed for that slot, the tpm2 slots and a recovery \
            slot whose code proved the change; other slots (recovery codes, security keys) need their own credential, so \
            they are listed and dropped once confirmed: on the terminal, or with --drop-slots. \
            A fleet collection (docs/fleet.md) keeps its key: its passcode slot alone changes, \
            and its other machines take the change from OpenBao.
            """
    )

    @Argument(help: "The collection's id; the default collection when left out.")
    var collection: String?

    @Flag(help: "Drop the slots whose credential is not at hand (a fido2 slot, another recovery code) without asking.")
    var dropSlots = false

    @OptionGroup var recoveryCode: RecoveryCodeOptions
    @OptionGroup var passcodes: PasscodeChangeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        let oldChannel = try passcodes.oldSource.open()
        // One channel when both come from the same place, so the second read continues where
        // the first stopped.
        let newChannel = passcodes.newSource == passcodes.oldSource ? oldChannel : try passcodes.newSource.open()
        // A recovery code proves the change as the current passcode would (puffd tries a text
        // that reads as a code on the recovery slots first).
        let old =
            recoveryCode.isGiven
            ? try recoveryCode.read(from: recoveryCode.descriptor == nil ? oldChannel : nil, for: target.id)
            : try PasscodePrompt.existing(from: oldChannel, prompt: "Current passcode for \(target.id):")
        let new = try PasscodePrompt.new(from: newChannel, for: target.id, requirement: target.policyText)
        let failure = await Self.rekey(client, target.id, proof: old, new: new, dropSlots: dropSlots)
        guard let failure else { return }
        // Slots whose credential is not at hand would go: the person decides, on the terminal.
        guard case .slotRefused(let reason) = failure, !dropSlots, Self.mayAsk, try Self.confirmDropping(reason)
        else { throw failure }
        if let again = await Self.rekey(client, target.id, proof: old, new: new, dropSlots: true) { throw again }
    }

    /// Re-keys with a progress bar on a terminal; returns the failure, if any.
    private static func rekey(
        _ client: ControlClient, _ collection: String, proof: SecureBytes, new: SecureBytes, dropSlots: Bool
    ) async -> ClientError? {
        let progress = ProgressReporter.forCommand("passwd", json: false)
        defer { progress.finish() }
        do {
            try await client.rekey(collection, proof: proof, new: new, dropSlots: dropSlots, progress: progress.update)
            return nil
        } catch {
            return error
        }
    }

    /// Whether a terminal is there to ask on.
    private static var mayAsk: Bool { (try? TerminalChannel()) != nil }

    /// Shows puffd's list of the slots that would go and asks whether to go on without them.
    private static func confirmDropping(_ reason: String) throws(ClientError) -> Bool {
        let terminal = try TerminalChannel()
        terminal.tell(reason)
        let answer = try terminal.readAnswer(prompt: "Drop those slots and change the passcode? Type yes to go on:")
        return answer == "yes"
    }
}
