// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

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
            status`). The collection gets a new key and every record is sealed again under it;             on a terminal a progress bar on standard error shows how far that has got.
            """
    )

    @Argument(help: "The collection's id; the default collection when left out.")
    var collection: String?

    @OptionGroup var passcodes: PasscodeChangeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        let target = try await client.status().target(collection)
        let oldChannel = try passcodes.oldSource.open()
        // One channel when both come from the same place, so the second read continues where
        // the first stopped.
        let newChannel = passcodes.newSource == passcodes.oldSource ? oldChannel : try passcodes.newSource.open()
        let old = try PasscodePrompt.existing(from: oldChannel, prompt: "Current passcode for \(target.id):")
        let new = try PasscodePrompt.new(from: newChannel, for: target.id, requirement: target.policyText)
        let progress = ProgressReporter.forCommand("passwd", json: false)
        defer { progress.finish() }
        try await client.changePasscode(of: target.id, old: old, new: new, progress: progress.update)
    }
}
