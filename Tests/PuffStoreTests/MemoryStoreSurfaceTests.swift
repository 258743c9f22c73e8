// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The store `puffd --ephemeral` runs on has no controls a test could use to make it fail, hold
/// or change what it keeps: its public calls are the ``RecordStore`` protocol's and no others.
struct MemoryStoreSurfaceTests {
    private static let stores = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PuffStore/Stores")

    /// The names of the functions `text` declares with `marker` before `func`.
    static func functions(in text: String, marker: String) -> Set<String> {
        var names = Set<String>()
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(marker + "func ") else { continue }
            names.insert(String(trimmed.dropFirst(marker.count + 5).prefix { $0.isLetter || $0.isNumber }))
        }
        return names
    }

    @Test func theMemoryStoreDeclaresOnlyTheProtocolsCalls() throws {
        let memory = try String(
            contentsOf: Self.stores.appendingPathComponent("MemoryRecordStore.swift"), encoding: .utf8)
        let protocolText = try String(
            contentsOf: Self.stores.appendingPathComponent("RecordStore.swift"), encoding: .utf8)
        let required = Self.functions(in: protocolText, marker: "")
        let declared = Self.functions(in: memory, marker: "public ")
        #expect(required.count >= 25)  // the scan really read the protocol
        #expect(declared.count >= 20)
        #expect(declared.subtracting(required) == [])
        for control in ["failNextWrite", "holdNextWrite", "tamper", "appendCount", "keptJournals("] {
            #expect(!memory.contains("public func \(control)") && !memory.contains("var \(control)"), "\(control)")
        }
    }
}
