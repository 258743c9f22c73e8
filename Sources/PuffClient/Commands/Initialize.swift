// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl init`: sets the passcode of a new vault, which creates the `login` collection.
struct Initialize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Set the passcode of a new vault; this creates the login collection.",
        discussion: """
            On a vault whose login collection was deleted, makes a new login collection (the default \
            one when no other is). On a terminal the passcode is typed twice. --stdin and --passcode-fd read it once. \
            The passcode must meet --policy (default: alphanumeric, at least 8 characters); \
            `puffctl passwd` keeps to it later.
            """
    )

    @OptionGroup var policy: PolicyOptions
    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try await connection.connect()
        // Checked first, so nobody types a passcode that would only be refused.
        let status = try await client.status()
        guard !status.isInitialized || status.collection("login") == nil else { throw ClientError.alreadyInitialized }
        let channel = try passcode.source.open()
        let code = try PasscodePrompt.new(from: channel, for: "login")
        try await client.initialize(passcode: code, policy: policy.policy, minimumLength: policy.minimumLength)
    }
}
