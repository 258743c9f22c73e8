// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The methods of `dbus/io.puff.Control1.xml`, read from the file itself so the fake daemon serves
/// exactly what the daemon's authors declared.
enum ControlInterfaceFile {
    /// One `<method>`: its name and the concatenated signatures of its `in` and `out` arguments.
    struct MethodShape: Sendable, Equatable {
        var name: String
        var input: String
        var output: String
    }

    /// The file's text.
    static func text() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("dbus/io.puff.Control1.xml"), encoding: .utf8)
    }

    /// Every method, in file order. The file keeps one element per line, which is all this reads.
    static func methods() throws -> [MethodShape] {
        var methods: [MethodShape] = []
        // A signal's arguments belong to no method.
        var inSignal = false
        for line in try text().split(separator: "\n") {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("<signal ") { inSignal = true }
            if line.hasPrefix("</signal>") { inSignal = false }
            if line.hasPrefix("<method "), let name = attribute("name", in: line) {
                methods.append(MethodShape(name: name, input: "", output: ""))
            } else if line.hasPrefix("<arg "), !inSignal, let type = attribute("type", in: line), !methods.isEmpty {
                if attribute("direction", in: line) == "out" {
                    methods[methods.count - 1].output += type
                } else {
                    methods[methods.count - 1].input += type
                }
            }
        }
        return methods
    }

    private static func attribute(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: " \(name)=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
