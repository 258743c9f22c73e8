// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import PuffCrypto

/// Where `add` and `edit` take a secret from: the terminal (typed twice, echo off), standard
/// input (`--stdin`), or libsodium's CSPRNG (`--generate`).
struct SecretOptions: ParsableArguments {
    @Flag(
        name: .customLong("stdin"),
        help: "Read the secret from standard input, to its end; one trailing newline is dropped.")
    var readsStandardInput = false

    @Flag(help: "Generate the secret (see `puffctl generate`); it is never shown.")
    var generate = false

    @Option(help: ArgumentHelp("Characters to generate with --generate (default 24).", valueName: "LENGTH"))
    var length: Int?

    @OptionGroup var charset: CharsetOption

    func validate() throws {
        if readsStandardInput, generate { throw ValidationError("give --stdin or --generate, not both") }
        if charset.charset != nil, !generate { throw ValidationError("--charset goes with --generate") }
        if let length {
            guard generate else { throw ValidationError("--length goes with --generate") }
            try CharsetOption.validate(length: length)
        }
    }

    /// Whether a source other than the terminal was chosen.
    var isGiven: Bool { readsStandardInput || generate }

    /// What --generate made, for the message: `24 characters of alnum (142 bits)`.
    var generatedDescription: String {
        let count = length ?? PasswordGenerator.standardLength
        let bits = Int((Double(count) * charset.chosen.bitsPerCharacter).rounded(.down))
        return "\(count) characters of \(charset.chosen.name) (\(bits) bits)"
    }

    /// Reads or makes the secret for the item called `name`.
    func secret(for name: String) throws(ClientError) -> SecureBytes {
        if generate { return charset.generate(length: length ?? PasswordGenerator.standardLength) }
        if readsStandardInput { return try SecretInput.readAll(from: STDIN_FILENO) }
        return try SecretInput.typed(for: name)
    }
}
