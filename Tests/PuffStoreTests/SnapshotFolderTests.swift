// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

@testable import PuffStore

/// Automatic snapshots when writing one fails (a full disk, a file cut while it is copied): the
/// older snapshots are all still there, and nothing of the failed one is left.
struct SnapshotFolderTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-snapshots-\(UUID().uuidString)")
        .path

    @Test func aSnapshotThatFailsHalfWayCostsNoOlderSnapshotAndLeavesNothingBehind() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileRecordStore(folder: folder)
        _ = try await BackupArchiveTests.makeVault(store, audit: try FileAuditStore(folder: folder))
        let snapshots = SnapshotFolder(vault: folder)
        for time: UInt64 in [1000, 2000, 3000] {
            _ = try snapshots.save(try await store.snapshot(), reason: "repair", keep: 3, now: time)
        }
        let before = snapshots.names()
        #expect(before.count == 3)

        // A journal that claims more bytes than it holds: the copy fails after the catalog and
        // the headers were written into the new snapshot's temporary file.
        let journal = "\(folder)/short.bytes"
        FileManager.default.createFile(atPath: journal, contents: Data([1, 2, 3]))
        let fd = open(journal, O_RDONLY)
        let space = SpaceID.random()
        let failing = VaultSnapshot(files: [
            .init(name: "catalog", contents: .bytes([UInt8](repeating: 7, count: 4096))),
            .init(name: "\(space.hex).journal", contents: .open(fd: fd, length: 1 << 20)),
        ])
        #expect(
            throws: StoreError.readFailed(
                "\(space.hex).journal became shorter while it was copied into \(snapshots.path)/19700101T011640Z-repair.puffbak"
            )
        ) {
            _ = try snapshots.save(failing, reason: "repair", keep: 3, now: 4600)
        }
        #expect(snapshots.names() == before, "every older snapshot is kept")
        #expect(try FileRecordStore.names(in: snapshots.path).sorted() == before, "no temporary file is left")
    }
}
