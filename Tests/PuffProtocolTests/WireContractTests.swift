// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffProtocol
import Testing

/// The wire contract is the only place wire names are spelled, and it agrees with the interface
/// files and docs people read.
struct WireContractTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    // Spellings that name the Secret Service's or puffd's bus objects. `io.puff.vault` (the FIDO2
    // relying party, a vault-format constant) and other `io.puff.` words are not wire names.
    private static let wireSpellings = [
        "\"org.freedesktop.Secret.", "\"org.freedesktop.secrets\"", "\"/org/freedesktop/secrets",
        "\"io.puff.Control", "\"io.puff.Error.", "\"io.puff.Agent", "\"/io/puff",
    ]

    @Test func noSourceOutsideTheContractSpellsAWireName() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("PuffProtocol/") }
        #expect(files.count > 300)  // the walk really reached the sources
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                && Self.wireSpellings.contains(where: { line.contains($0) })
            {
                offenders.append("\(file):\(number + 1)")
            }
        }
        #expect(offenders == [])
    }

    /// The folders whose files write or read `io.puff.Control1`'s and `io.puff.Agent1`'s records
    /// and options, on puffd's side and puffctl's.
    private static let recordFolders = [
        "Sources/PuffServiceBus/Interfaces", "Sources/PuffServiceBus/Agents", "Sources/PuffClient/Control",
        "Sources/PuffClient/Agent",
    ]

    /// Where a line spells an `a{sv}` key: `["key"]`, `"key": .value`, `.string("key"), .variant`,
    /// `("key", .value)` or a reply field read as `fields.string("key")`.
    private static func spelledKeys(in line: Substring) -> [String] {
        var keys: [String] = []
        var rest = line[...]
        while let quote = rest.firstIndex(of: "\"") {
            let afterQuote = rest.index(after: quote)
            guard let close = rest[afterQuote...].firstIndex(of: "\"") else { break }
            let word = rest[afterQuote..<close]
            let before = rest[..<quote]
            let after = rest[rest.index(after: close)...]
            let isKeyWord = !word.isEmpty && word.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }
            let subscripted =
                before.range(of: #"[A-Za-z0-9_)\]?]\[$"#, options: .regularExpression) != nil && after.hasPrefix("]")
            let entry = after.hasPrefix(": .") || (before.hasSuffix("(") && after.hasPrefix(", ."))
            let dictEntry = before.hasSuffix(".init(.string(") && after.hasPrefix("), .variant")
            let fieldRead = before.range(of: #"fields\.[a-zA-Z0-9]+\($"#, options: .regularExpression) != nil
            let shaped = subscripted || entry || dictEntry || fieldRead
            if isKeyWord && shaped { keys.append(String(word)) }
            rest = rest[rest.index(after: close)...]
        }
        return keys
    }

    @Test func theControlRecordsSpellNoKeyOfTheirOwn() throws {
        var files: [String] = []
        for folder in Self.recordFolders {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: Self.root.appendingPathComponent(folder).path)
            files += names.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }
        }
        #expect(files.count > 40)  // the walk really reached the bindings
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for key in Self.spelledKeys(in: line) { offenders.append("\(file):\(number + 1) \"\(key)\"") }
            }
        }
        #expect(offenders == [])
    }

    @Test func aKeyOfAControlRecordIsSpelledNowhereElseInTheBusLayers() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        // puffd's and puffctl's bus layers: elsewhere (puffd's configuration, JSON output, the
        // typed views' schema fields such as a URL's `path`) the same word names something else.
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && ($0.hasPrefix("PuffServiceBus/") || $0.hasPrefix("PuffClient/")) }
            .filter { !$0.hasPrefix("PuffClient/Output/") }
        #expect(files.count > 100)
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for key in Self.spelledKeys(in: line) where ControlContract.Key.all.contains(key) {
                    offenders.append("\(file):\(number + 1) \(key)")
                }
            }
        }
        #expect(offenders == [])
    }

    @Test func theScanFindsEveryShapeOfAKeyLiteral() {
        #expect(Self.spelledKeys(in: #"let a = options["min_length"]"#) == ["min_length"])
        #expect(Self.spelledKeys(in: #""policy": .string(name), "x": .uint32(1)"#) == ["policy", "x"])
        #expect(Self.spelledKeys(in: #".init(.string("hidden"), .variant(.boolean(true)))"#) == ["hidden"])
        #expect(Self.spelledKeys(in: #"("store", .string("file"))"#) == ["store"])
        #expect(Self.spelledKeys(in: #"try fields.uint32("items") ?? 0"#) == ["items"])
        #expect(Self.spelledKeys(in: #"Method("Delete", out: [.init("prompt", "o")])"#) == [])
        #expect(Self.spelledKeys(in: #".strings(["login"])"#) == [])
    }

    @Test func everyPuffErrorNameTheDocsMentionIsInTheContractAndNoOther() throws {
        var mentioned = Set<String>()
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for file in ["dbus/io.puff.Control1.xml"] + docs {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            var rest = text[...]
            while let range = rest.range(of: "io.puff.Error.") {
                let name = rest[range.lowerBound...].prefix { $0.isLetter || $0 == "." }
                mentioned.insert(String(name.hasSuffix(".") ? name.dropLast() : name))
                rest = rest[range.upperBound...]
            }
        }
        #expect(mentioned.count >= 10)
        #expect(mentioned == Set(ControlContract.ErrorName.all))
    }

    @Test func theControlInterfaceFileDeclaresTheContractsInterfaceName() throws {
        let xml = try String(
            contentsOf: Self.root.appendingPathComponent("dbus/io.puff.Control1.xml"), encoding: .utf8)
        #expect(xml.contains("<interface name=\"\(ControlContract.interface)\">"))
        let agent = try String(
            contentsOf: Self.root.appendingPathComponent("dbus/io.puff.Agent1.xml"), encoding: .utf8)
        #expect(agent.contains("<interface name=\"\(ControlContract.Agent.interface)\">"))
    }

    @Test func theSecretServiceFileDeclaresEveryInterfaceOfTheContract() throws {
        let xml = try String(
            contentsOf: Self.root.appendingPathComponent("dbus/org.freedesktop.Secrets.xml"), encoding: .utf8)
        let interfaces = SecretServiceContract.Interface.self
        for name in [interfaces.service, interfaces.collection, interfaces.item, interfaces.session, interfaces.prompt]
        {
            #expect(xml.contains("<interface name=\"\(name)\">"), "\(name)")
        }
    }

    @Test func pathElementsEncodeAsGnomeKeyringDoesAndDecodeBack() {
        #expect(PathElement.encode("login") == "login")
        #expect(PathElement.encode("my_keys 2") == "my_5fkeys_202")
        #expect(PathElement.encode("ü") == "_c3_bc")
        #expect(PathElement.encode("") == "_")
        for identifier in ["login", "my_keys 2", "ü", "a/b", "_5f"] {
            #expect(PathElement.decode(PathElement.encode(identifier)) == identifier)
        }
        #expect(PathElement.decode("_4A") == "J")
        #expect(PathElement.decode("_zz") == "_zz")
    }
}
