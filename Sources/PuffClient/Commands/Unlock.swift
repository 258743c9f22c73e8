// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl unlock [COLLECTION] [--hidden]`.
struct Unlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unlock a collection with its passcode.",
        discussion: """
            With no COLLECTION, unlocks the default collection. With --hidden, tries the passcode \
            on the hidden collections and prints the id of the one it opens.
            """
    )

    @Argument(help: "The collection's id; the default collection when left out.")
    var collection: String?

    @Flag(help: "Unlock whichever hidden collection the passcode opens, and print its id.")
    var hidden = false

    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if hidden, collection != nil { throw ValidationError("--hidden takes no collection: the passcode picks it") }
    }

    func run() async throws {
        let client = try await connection.connect()
        let status = try await client.status()
        if hidden {
            guard status.isInitialized else { throw ClientError.notInitialized }
            let code = try PasscodePrompt.existing(
                from: try passcode.source.open(), prompt: "Passcode for a hidden collection:")
            Console.out(try await client.unlock("", passcode: code))
            return
        }
        let target = try status.target(collection)
        guard target.isLocked else {
            Console.out("'\(target.id)' is already unlocked")
            return
        }
        let code = try PasscodePrompt.existing(from: try passcode.source.open(), prompt: "Passcode for \(target.id):")
        _ = try await client.unlock(target.id, passcode: code)
    }
}
