// SPDX-License-Identifier: Apache-2.0

/// Text from a client, a file or a header nobody has authenticated yet, made safe to show on a
/// terminal (issue 24 item 15): labels, attributes, executable paths and reasons are set by
/// whoever stored them, and a C0 or C1 control character (ESC `[2J`, the single-byte CSI U+009B)
/// would reach the person's terminal as a command. Every control character is shown as an escape
/// instead. puffctl's output and agent use it, and so does pinentry's text, which a tty or curses
/// pinentry writes to a terminal.
///
/// The escapes are JSON's (`\n`, `\t`, `\r`, `\u001b`), so output already in JSON stays valid JSON
/// when it passes through, and a person reads the same spelling in both.
public enum TerminalText {
    /// `text` with every C0 control (newline and tab included), DEL and C1 control escaped: one
    /// field, which must stay on its line.
    public static func escaped(_ text: String) -> String {
        escaped(text, keepingNewlines: false)
    }

    /// `text` with every control character but the newline escaped: whole output, whose lines are
    /// puffctl's own (its fields were escaped with ``escaped(_:)``).
    public static func escapedKeepingLines(_ text: String) -> String {
        escaped(text, keepingNewlines: true)
    }

    /// Whether `scalar` is a C0 control, DEL or a C1 control.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func escaped(_ text: String, keepingNewlines: Bool) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingNewlines && scalar == "\n") else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }
}
