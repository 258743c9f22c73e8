// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc

/// The hidden `puffctl clear-clipboard`, which `copy` starts in the background: waits, then
/// empties the clipboard if it still holds the copied secret.
///
/// It reads the ``ClipboardMark`` (length, key, keyed digest) from standard input, so neither the
/// secret nor its digest appears in its arguments.
struct ClearClipboard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-clipboard",
        abstract: "Clear the clipboard later if it still holds what `copy` put there (started by copy).",
        shouldDisplay: false
    )

    @Option(help: "The tool copy used.")
    var tool: ClipboardTool

    @Option(help: ArgumentHelp("Seconds to wait.", valueName: "SECONDS"))
    var after: UInt32

    func run() async throws {
        // A session of its own: closing copy's terminal must not end the clearer.
        _ = setsid()
        let mark = try ClipboardMark(encoded: try Console.readInput(count: ClipboardMark.encodedCount))
        try await Task.sleep(for: .seconds(after))
        let path = getenv("PATH").map { String(cString: $0) }
        // One byte past the secret's length is enough to tell a longer content apart.
        guard let content = tool.read(limit: mark.length + 1, path: path), mark.matches(content) else { return }
        try tool.clear(path: path)
    }
}
