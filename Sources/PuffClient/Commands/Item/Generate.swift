// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials

/// `puffctl generate [LENGTH] [--charset CHARSET]`: a password on standard output.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print a new random password.",
        discussion: """
            Each character is drawn uniformly from CHARSET by libsodium's CSPRNG \
            (randombytes_uniform, without modulo bias). The password and a newline go to \
            standard output; nothing else is written, so $(puffctl generate) is the password. \
            puffd is not needed. To store one, use `puffctl add LABEL ATTR=VALUE... --generate`, \
            which never prints it.
            """
    )

    @Argument(help: ArgumentHelp("How many characters (default 24).", valueName: "LENGTH"))
    var length = PasswordGenerator.standardLength

    @OptionGroup var charset: CharsetOption

    func validate() throws {
        try CharsetOption.validate(length: length)
    }

    func run() throws {
        try Console.out(secret: charset.generate(length: length), newline: true)
    }
}
