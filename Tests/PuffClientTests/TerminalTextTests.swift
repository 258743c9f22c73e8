// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffText
import Testing

/// The one escaping of text from others that puffctl's output, its agent and pinentry's questions
/// share (issue 24 item 15): what reaches a terminal carries no control character.
@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain “label” é", "plain “label” é"),
        ("clear\u{1B}[2J", "clear\\u001b[2J"),
        ("csi\u{9B}31m", "csi\\u009b31m"),
        ("del\u{7F} nel\u{85} bell\u{7}", "del\\u007f nel\\u0085 bell\\u0007"),
        ("two\nlines\tand\rback", "two\\nlines\\tand\\rback"),
    ])
    func aFieldIsShownWithEveryControlCharacterEscaped(text: String, shown: String) {
        #expect(TerminalText.escaped(text) == shown)
    }

    @Test func wholeOutputKeepsItsNewlinesAndEscapesTheRest() {
        #expect(TerminalText.escapedKeepingLines("a\u{1B}]0;t\u{7}\nb\tc\n") == "a\\u001b]0;t\\u0007\nb\\tc\n")
    }

    /// The escapes are JSON's, so a person reads the same spelling in `--json` output and text.
    @Test func theEscapesReadBackAsTheOriginalInJSON() throws {
        let text = "x\u{1B}[2J\u{9B}\u{0}\n\t\r\u{7F}y"
        let json = Data("\"\(TerminalText.escaped(text))\"".utf8)
        #expect(try JSONDecoder().decode(String.self, from: json) == text)
    }

    @Test func exactlyC0DELAndC1AreControlCharacters() {
        let controls = (0...0x10FF).compactMap(Unicode.Scalar.init).filter(TerminalText.isControl)
        #expect(controls.map(\.value) == Array(0...0x1F) + Array(0x7F...0x9F))
    }
}
