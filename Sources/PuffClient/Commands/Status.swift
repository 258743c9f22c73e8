// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl status [--json]`.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the vault and its collections.",
        discussion: """
            Hidden collections appear only while they are unlocked. Below the table, each fleet \
            collection (docs/fleet.md) gets a line naming its store (openbao) and saying whether \
            the store answered puffd's last pull or write (online) or not (offline, with why), and \
            when it last answered; --json has these as shared_name, online, checked_at, reached_at \
            and offline_reason.
            """
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let status = try await connection.connect().status()
        Console.out(output.json ? StatusOutput.json(status) : StatusOutput.text(status))
    }
}
