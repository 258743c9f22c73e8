// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The service names a store's objects only through the store (`RecordStore.name(of:)`): a
/// source scan finds no file name composed from a space's hex or the store's folder.
struct StoreNamesTests {
    private static let service = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PuffService")

    @Test func theServiceComposesNoStoreFileName() throws {
        let composed = [
            "hex).journal", "hex).header", "hex).replaces", "hex).index", "location.map {", "\".journal", "\".header",
        ]
        let files = try #require(FileManager.default.enumerator(atPath: Self.service.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 80)  // the walk really reached the service
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.service.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for spelling in composed where line.contains(spelling) { offenders.append("\(file):\(number + 1)") }
            }
        }
        #expect(offenders == [])
    }
}
