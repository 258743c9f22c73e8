// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Deleting a locked collection through a client's `Collection.Delete`, confirmed by the person,
/// is audited (issue 24 item 4 of the users' decision): its own log cannot take the entry (its
/// key is gone while locked) and goes aside with it, so the logs of the collections still open
/// name it.
extension CollectionDeletionTests {
    @Test func aConfirmedDeleteOfALockedCollectionIsAuditedInTheLogsOfTheOpenOnes() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(order: ["pinentry", "none"], answering: ["OK"])
        try await prepare(puffd, items: 2)
        let created = try await puffctl(puffd, ["collection", "create", "Work", "--stdin"], input: "work pass 1\n")
        #expect(created.status == 0, "\(created.output)")
        #expect(try await puffctl(puffd, ["lock", "login"]).status == 0)

        let deleted = try await clientDelete(puffd)
        #expect(deleted["dismissed"] as? Bool == false && deleted["error"] as? String == "", "\(deleted)")
        #expect(try await listed(puffd)["login"] == nil)
        let audit = try await puffctl(puffd, ["audit", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(audit.output.utf8)) as? [String: Any]
        let entries = try #require(object?["entries"] as? [[String: Any]], "\(audit.output)")
        let deletions = entries.filter { $0["action"] as? String == "delete-collection" }
        #expect(deletions.map { $0["label"] as? String } == ["collection login"], "\(audit.output)")
        #expect(deletions.first?["result"] as? String == "allowed")
    }
}
