// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Glibc
import PuffText

/// The characters a generated password is drawn from: named classes joined with `+`
/// (`alnum+symbols`), or any other text, whose characters are the set.
public struct PasswordCharset: Sendable, Equatable, ExpressibleByArgument {
    /// The named classes, in the order the help text lists them.
    public static let classes: [(name: String, characters: String)] = [
        ("alnum", upper + lower + digits),
        ("letters", upper + lower),
        ("upper", upper),
        ("lower", lower),
        ("digits", digits),
        ("hex", digits + "abcdef"),
        ("symbols", ##"!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"##),
    ]
    /// `alnum`: what `generate` and `add --generate` use when no `--charset` is given.
    public static let standard = PasswordCharset(classes: ["alnum"])!

    private static let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    private static let lower = "abcdefghijklmnopqrstuvwxyz"
    private static let digits = "0123456789"

    /// The distinct characters, in first-seen order; each is drawn with the same probability.
    public let characters: [Unicode.Scalar]

    /// Reads `--charset`: `+`-joined class names when every part is one, else a literal set.
    ///
    /// - Returns: nil for a set of fewer than two distinct characters, or one holding a control
    ///   character (which would reach terminals and files as a command).
    public init?(argument: String) {
        let parts = argument.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        if let named = PasswordCharset(classes: parts) {
            self = named
        } else {
            self.init(literal: argument, name: "'\(argument)'")
        }
    }

    private init?(classes names: [String]) {
        var text = ""
        for name in names {
            guard let match = Self.classes.first(where: { $0.name == name }) else { return nil }
            text += match.characters
        }
        self.init(literal: text, name: names.joined(separator: "+"))
    }

    private init?(literal: String, name: String) {
        var seen = Set<Unicode.Scalar>()
        var characters: [Unicode.Scalar] = []
        for scalar in literal.unicodeScalars where seen.insert(scalar).inserted {
            guard !TerminalText.isControl(scalar) else { return nil }
            characters.append(scalar)
        }
        guard characters.count >= 2 else { return nil }
        self.characters = characters
        self.name = TerminalText.escaped(name)
    }

    /// How messages name the set: what was given on the command line.
    public let name: String

    /// The class names, for shell completion.
    public static var allValueStrings: [String] { classes.map(\.name) }

    /// Bits of entropy per character: log2 of the set's size.
    public var bitsPerCharacter: Double {
        Glibc.log2(Double(characters.count))
    }

    /// The `--charset` help text: the class names and what a literal set is.
    static let help = """
        Draw from CHARSET: class names joined with + (\(classes.map(\.name).joined(separator: ", "))), \
        for example alnum+symbols; any other text is the set of its own characters, for example \
        'abc123'. Default alnum.
        """
}
