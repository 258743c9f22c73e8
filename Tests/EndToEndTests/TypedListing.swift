// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl list --json` of a test daemon, read back as the typed view of each item.
struct TypedListing {
    /// One entry: its attributes, kind and typed fields (the port as JSON gives it, a number).
    struct Entry {
        var path: String
        var attributes: [String: String]
        var kind: String?
        var fields: [String: Any]

        /// The typed fields as strings, the port in decimal, for comparing with a dictionary.
        var textFields: [String: String] {
            fields.mapValues { value in (value as? Int).map { String($0) } ?? "\(value)" }
        }
    }

    let entries: [Entry]
    /// The whole output, to check that no secret is in it.
    let output: Data

    /// Runs `puffctl list --json` against `daemon`.
    init(of daemon: TestDaemon, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let list = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["list", "--json"], environment: daemon.clientEnvironment)
        #expect(list.status == 0, "puffctl list exited \(list.status)", sourceLocation: sourceLocation)
        output = list.bytes
        let array = try JSONSerialization.jsonObject(with: list.bytes) as? [[String: Any]] ?? []
        entries = array.map { object in
            Entry(
                path: object["path"] as? String ?? "", attributes: object["attributes"] as? [String: String] ?? [:],
                kind: object["kind"] as? String, fields: object["fields"] as? [String: Any] ?? [:])
        }
    }

    /// The one entry whose attributes include every pair of `query`.
    func entry(_ query: [String: String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Entry {
        let matches = entries.filter { entry in query.allSatisfy { entry.attributes[$0.key] == $0.value } }
        #expect(matches.count == 1, "\(matches.count) entries match \(query)", sourceLocation: sourceLocation)
        return try #require(matches.first, sourceLocation: sourceLocation)
    }

    /// Whether `secret`'s bytes appear anywhere in the listing (a Bool, so no secret is printed).
    func contains(_ secret: String) -> Bool {
        output.range(of: Data(secret.utf8)) != nil
    }
}
