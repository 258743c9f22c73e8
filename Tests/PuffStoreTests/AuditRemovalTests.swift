// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffStore
import Testing

/// ``FileAuditStore/wasRemoved(_:)``: a log deleted or replaced behind the store's back while it
/// is open is noticed, let go, and the next append starts a new file (issue 24 item 8).
struct AuditRemovalTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-audit-rm-\(UUID().uuidString)")
        .path

    private func entry(_ number: Int) -> [UInt8] { Array("entry \(number)".utf8) }

    @Test func aLogDeletedWhileOpenIsNoticedOnceAndTheNextAppendStartsANewFile() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileAuditStore(folder: folder)
        let space = SpaceID.random()
        try store.append([entry(1)], to: space)
        #expect(store.wasRemoved(space) == false)
        #expect(unlink("\(folder)/\(space.hex).audit") == 0)
        #expect(store.wasRemoved(space))
        #expect(store.wasRemoved(space) == false, "noticed once: the old file is let go")
        try store.append([entry(2)], to: space)
        #expect(try store.entries(of: space).records == [entry(2)], "written where it can be read")
    }

    @Test func aLogReplacedByAnotherFileIsNoticed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileAuditStore(folder: folder)
        let space = SpaceID.random()
        try store.append([entry(1)], to: space)
        // A copy under the same name: same bytes, another inode; the original kept under another
        // name, so its link count does not drop to zero.
        let path = "\(folder)/\(space.hex).audit"
        #expect(link(path, path + ".kept") == 0)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(FileManager.default.createFile(atPath: path + ".copy", contents: bytes))
        #expect(rename(path + ".copy", path) == 0)
        #expect(store.wasRemoved(space))
    }

    @Test func aLogReadAtOpenAndDeletedBeforeAnyAppendIsNoticed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let space = SpaceID.random()
        do {
            let first = try FileAuditStore(folder: folder)
            try first.append([entry(1)], to: space)
        }
        let store = try FileAuditStore(folder: folder)
        #expect(try store.entries(of: space).records == [entry(1)])
        #expect(store.wasRemoved(space) == false)
        #expect(unlink("\(folder)/\(space.hex).audit") == 0)
        #expect(store.wasRemoved(space))
    }

    @Test func aLogNeverWrittenIsNotRemoved() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileAuditStore(folder: folder)
        let space = SpaceID.random()
        #expect(try store.entries(of: space).records.isEmpty)
        #expect(store.wasRemoved(space) == false)
    }
}
