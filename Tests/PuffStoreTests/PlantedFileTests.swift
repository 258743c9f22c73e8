// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffStore
import PuffTesting
import Testing

/// Files planted in the vault folder (issue 24 item 14): a FIFO or a link where the store expects
/// a vault file is refused as damage naming the path, never followed, read or waited on. Opening
/// a FIFO for reading without `O_NONBLOCK` blocks until a writer comes, so each of these tests
/// would hang on the unfixed store; the time limit turns that into a failure.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct PlantedFileTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-planted-\(UUID().uuidString)")
        .path

    enum Plant: String, CaseIterable {
        case fifo, symlink
    }

    /// Replaces `path` with a FIFO, or with a link to a good copy of itself (so following it
    /// would succeed).
    func plant(_ plant: Plant, at path: String) throws {
        switch plant {
        case .fifo:
            unlink(path)
            #expect(mkfifo(path, 0o600) == 0)
        case .symlink:
            let target = "\(path).elsewhere"
            if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.moveItem(atPath: path, toPath: target)
            } else {
                FileManager.default.createFile(atPath: target, contents: Data())
            }
            #expect(symlink(target, path) == 0)
        }
    }

    func reason(_ plant: Plant) -> String {
        plant == .fifo ? "a FIFO, not a regular file: refused" : "a symbolic link, not a regular file: refused"
    }

    @Test(arguments: Plant.allCases)
    func aPlantedJournalHeaderOrCatalogIsDamageNamingThePath(plant: Plant) async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let space = SpaceID.random()
        do {
            let store = try FileRecordStore(folder: folder)
            try await store.replaceHeader([1], of: space)
            try await store.append([2], to: space)
            try await store.replaceCatalog([3])
        }
        let journal = "\(folder)/\(space.hex).journal"
        let header = "\(folder)/\(space.hex).header"
        let catalog = "\(folder)/catalog"
        for path in [journal, header, catalog] { try self.plant(plant, at: path) }

        let reopened = try await FileRecordStore.reopening(folder: folder)
        await #expect(throws: StoreError.damaged(file: journal, offset: 0, reason: reason(plant))) {
            try await reopened.replay(space)
        }
        await #expect(throws: StoreError.damaged(file: header, offset: 0, reason: reason(plant))) {
            try await reopened.header(of: space)
        }
        await #expect(throws: StoreError.damaged(file: catalog, offset: 0, reason: reason(plant))) {
            try await reopened.catalog()
        }
        await #expect(throws: StoreError.damaged(file: journal, offset: 0, reason: reason(plant))) {
            try await reopened.append([4], to: space)
        }
        let refused = await reopened.refusedFiles().map { "\($0)" }
        #expect(
            refused == [catalog, header, journal].sorted().map { "\($0) is damaged at offset 0: \(reason(plant))" },
            "\(refused)")
    }

    @Test(arguments: Plant.allCases)
    func aPlantedLockFileIsRefused(plant: Plant) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try self.plant(plant, at: "\(folder)/lock")
        #expect(throws: StoreError.damaged(file: "\(folder)/lock", offset: 0, reason: reason(plant))) {
            _ = try FileRecordStore(folder: folder)
        }
    }

    @Test(arguments: Plant.allCases)
    func aPlantedAuditLogIsMovedAsideUnreadAndNamedAsDamageWhileTheLogGoesOn(plant: Plant) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let space = SpaceID.random()
        let audit = try FileAuditStore(folder: folder)
        let path = "\(folder)/\(space.hex).audit"
        try self.plant(plant, at: path)
        #expect(
            try audit.entries(of: space).damage == "\(path) is damaged at offset 0: \(reason(plant))",
            "named before anything is appended")
        try audit.append([[1, 2, 3]], to: space)
        let replay = try audit.entries(of: space)
        #expect(replay.records == [[1, 2, 3]], "the new entry lands in a new file")
        #expect(replay.damage == "\(path).1 is damaged at offset 0: \(reason(plant))")
        var info = stat()
        #expect(lstat("\(path).1", &info) == 0)
        #expect(info.st_mode & S_IFMT == (plant == .fifo ? S_IFIFO : S_IFLNK), "moved aside as it was")
    }
}
