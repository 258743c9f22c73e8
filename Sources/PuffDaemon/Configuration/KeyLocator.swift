// SPDX-License-Identifier: Apache-2.0

/// Finds the line a key is defined on, for messages about its value.
///
/// toml++ records where every node came from (`node::source()`); this search was written when
/// TOMLKit hid those positions, and is kept with the CPuffTOML shim because where it places a key
/// is what ConfigurationErrorTests pin down. Rather than scan the text with a TOML grammar of our
/// own, it asks toml++ itself:
/// it parses growing prefixes of the document (its first 1, 2, 3... lines), and the key is
/// defined on the line after the last prefix that parsed without it. A prefix that ends inside
/// a multi-line string or array does not parse and is skipped, so a key whose value spans lines
/// is still placed on its first line. A configuration file is a few dozen lines and this runs
/// only when something is wrong, so the repeated parsing costs nothing anyone waits for.
enum KeyLocator {
    /// The 1-based line where `path` is first defined in `text`, or nil if no prefix defines it.
    static func line(of path: [String], in text: String) -> Int? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var lastParsed = 0
        var prefix = ""
        for (index, line) in lines.enumerated() {
            prefix += (index == 0 ? "" : "\n") + line
            guard let table = try? TOMLValue.parse(prefix) else { continue }
            if contains(path, in: table) { return lastParsed + 1 }
            lastParsed = index + 1
        }
        return nil
    }

    /// Whether `table` has a value at `path`, table by table.
    static func contains(_ path: [String], in table: TOMLValue) -> Bool {
        guard let first = path.first, let value = table[first] else { return false }
        if path.count == 1 { return true }
        guard case .table = value else { return false }
        return contains(Array(path.dropFirst()), in: value)
    }
}
