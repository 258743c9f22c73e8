// SPDX-License-Identifier: Apache-2.0

/// Text for a prompt made safe to show: labels come from clients and, before an unlock, from a
/// header nobody has authenticated yet, and a control character (ESC `[2J`, the single-byte CSI
/// U+009B) would reach a tty or curses pinentry's terminal as a command. Every C0 control, DEL and
/// C1 control is shown as a JSON-style escape (`\n`, `\t`, `\r`, `\u001b`), as `puffctl` shows them.
public enum PromptText {
    /// `text` with every control character escaped.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
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

    /// Whether `scalar` is a C0 control, DEL or a C1 control.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
