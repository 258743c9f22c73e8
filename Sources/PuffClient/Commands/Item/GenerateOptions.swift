// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto

/// `--charset`, shared by `generate` and `add --generate`.
struct CharsetOption: ParsableArguments {
    @Option(help: ArgumentHelp(PasswordCharset.help, valueName: "CHARSET"))
    var charset: PasswordCharset?

    /// The set chosen, ``PasswordCharset/standard`` when none was.
    var chosen: PasswordCharset { charset ?? .standard }

    /// A password of `length` characters of the chosen set, from libsodium's CSPRNG.
    func generate(length: Int) -> SecureBytes {
        PasswordGenerator.generate(length: length, charset: chosen)
    }

    /// Checks a length given on the command line.
    static func validate(length: Int) throws {
        guard (1...PasswordGenerator.maximumLength).contains(length) else {
            throw ValidationError("a length is 1 to \(PasswordGenerator.maximumLength) characters, not \(length)")
        }
    }
}
