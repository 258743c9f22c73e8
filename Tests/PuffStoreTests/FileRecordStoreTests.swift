// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffStore
import PuffTesting
import Testing

/// The file store against real files in a fresh folder.
struct FileRecordStoreTests {
    let folder: String

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-store-\(UUID().uuidString)").path
    }

    private func journal(_ space: SpaceID) -> String { "\(folder)/\(space.hex).journal" }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    @Test func appendedRecordsReplayInOrderAfterReopening() async throws {
        let space = SpaceID.random()
        do {
            let store = try FileRecordStore(folder: folder)
            try await store.replaceHeader([1, 2, 3], of: space)
            try await store.append([10], to: space)
            try await store.append([20, 21], to: space)
        }
        let store = try await FileRecordStore.reopening(folder: folder)
        #expect(try await store.spaces() == [space])
        #expect(try await store.header(of: space) == [1, 2, 3])
        let replay = try await store.replay(space)
        #expect(replay.records.map(\.bytes) == [[10], [20, 21]])
        #expect(replay.cut == nil)
    }

    @Test func aTornTailIsCutOffKeptAsideAndLaterAppendsFollowTheGoodPart() async throws {
        let space = SpaceID.random()
        let store = try FileRecordStore(folder: folder)
        try await store.replaceHeader([1], of: space)
        try await store.append([1, 1, 1], to: space)
        let goodEnd = try FileManager.default.attributesOfItem(atPath: journal(space))[.size] as! Int
        // A crash in the middle of the next append: its length and part of its bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal(space)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([9, 0, 0, 0, 7, 7]))
        try handle.close()

        let replay = try await store.replay(space)
        #expect(replay.records.map(\.bytes) == [[1, 1, 1]])
        let cut = try #require(replay.cut)
        #expect(cut.offset == UInt64(goodEnd))
        #expect(cut.length == 6)
        #expect(FileManager.default.contents(atPath: try #require(cut.keptAt)) == Data([9, 0, 0, 0, 7, 7]))
        try await store.append([2], to: space)
        #expect(try await store.replay(space).records.map(\.bytes) == [[1, 1, 1], [2]])
    }

    @Test(arguments: [1, 0])
    func aFlippedByteBeforeTheTailIsDamageNamingFileAndOffsetAndTheRecordsAfterItRead(inPayloadOrLength: Int)
        async throws
    {
        let space = SpaceID.random()
        let store = try FileRecordStore(folder: folder)
        try await store.replaceHeader([1], of: space)
        try await store.append([1, 2, 3, 4], to: space)
        try await store.append([5, 6], to: space)
        try await store.append([7], to: space)
        var bytes = try #require(FileManager.default.contents(atPath: journal(space)))
        // The first record's payload (its length then points at the next frame), or its length
        // (then the next good frame is searched for).
        let flipped = JournalFraming.preamble.count + (inPayloadOrLength == 1 ? JournalFraming.frameOverhead + 1 : 1)
        bytes[flipped] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: journal(space)))
        let replay = try await store.replay(space)
        #expect(replay.records.map(\.bytes) == [[5, 6], [7]])
        #expect(replay.damaged.map(\.offset) == [UInt64(JournalFraming.preamble.count)])
        #expect(
            replay.damaged.first?.reason
                == (inPayloadOrLength == 1
                    ? "record checksum does not match"
                    : "record length 16388 runs past the end, but a record follows at 62"))
        #expect(replay.cut == nil, "nothing of a damaged journal is cut")
    }

    /// A right passcode after wrong ones leaves no failure to count: the attempts file is then
    /// empty, and must read back as empty rather than as damage.
    @Test func anEmptyAttemptsFileReadsBackEmpty() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileRecordStore(folder: folder)
        try await store.replacePasscodeAttempts([])
        #expect(try await store.passcodeAttempts() == [])
        #expect(VaultFileCheck.findings(folder: folder) == [])
    }

    @Test func aFlippedHeaderByteFailsItsChecksum() async throws {
        let space = SpaceID.random()
        let store = try FileRecordStore(folder: folder)
        try await store.replaceHeader(Array(repeating: 7, count: 40), of: space)
        let path = "\(folder)/\(space.hex).header"
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[bytes.count - 3] ^= 1
        try bytes.write(to: URL(fileURLWithPath: path))
        await #expect(throws: StoreError.damaged(file: path, offset: 8, reason: "checksum or length does not match")) {
            try await store.header(of: space)
        }
    }

    @Test func foldersAre0700AndFiles0600WhateverTheUmask() async throws {
        let old = umask(0)
        defer { umask(old) }
        let space = SpaceID.random()
        let store = try FileRecordStore(folder: folder)
        try await store.replaceHeader([1], of: space)
        try await store.append([1], to: space)
        try await store.replaceCatalog([1])
        _ = try await store.rewrite(space, records: [[2]])
        #expect(mode(folder) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            #expect(mode("\(folder)/\(name)") == 0o600, "\(name)")
        }
    }

    @Test func compactionReplacesTheJournalAndReportsTheBytesReclaimed() async throws {
        let space = SpaceID.random()
        let store = try FileRecordStore(folder: folder)
        try await store.replaceHeader([1], of: space)
        for _ in 0..<10 { try await store.append(Array(repeating: 1, count: 100), to: space) }
        let reclaimed = try await store.rewrite(space, records: [[3]])
        #expect(reclaimed == UInt64(10 * (100 + JournalFraming.frameOverhead) - (1 + JournalFraming.frameOverhead)))
        #expect(try await store.replay(space).records.map(\.bytes) == [[3]])
    }

    @Test func aSecondStoreOnTheSameFolderIsRefused() throws {
        let first = try FileRecordStore(folder: folder)
        #expect(throws: StoreError.busy("another puffd is using \(folder)")) { _ = try FileRecordStore(folder: folder) }
        _ = first
    }
}
