// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffStore
import Testing

/// The audit log files against real files in a fresh folder, and the memory store beside them.
struct AuditStoreTests {
    let folder: String

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-audit-\(UUID().uuidString)").path
    }

    private func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    private func entry(_ number: Int) -> [UInt8] {
        Array("entry \(number) ".utf8) + [UInt8](repeating: UInt8(number % 256), count: 40)
    }

    @Test func appendedEntriesReadBackInOrderAfterReopening() throws {
        let space = SpaceID.random()
        do {
            let store = try FileAuditStore(folder: folder)
            try store.append([entry(1)], to: space)
            try store.append([entry(2)], to: space)
            try store.sync()
        }
        let store = try FileAuditStore(folder: folder)
        #expect(try store.entries(of: space) == AuditReplay(records: [entry(1), entry(2)]))
        try store.append([entry(3)], to: space)
        #expect(try store.entries(of: space).records == [entry(1), entry(2), entry(3)])
        #expect(try store.entries(of: SpaceID.random()) == AuditReplay(records: []))
    }

    @Test func rotationKeepsTheSizeBoundAndTheNewestEntries() throws {
        let space = SpaceID.random()
        let store = try FileAuditStore(folder: folder, limit: 1000)
        for number in 1...200 { try store.append([entry(number)], to: space) }
        let current = size("\(folder)/\(space.hex).audit")
        let predecessor = size("\(folder)/\(space.hex).audit.1")
        #expect(current <= 1000)
        #expect(predecessor <= 1000)
        #expect(predecessor > 1000 - entry(200).count - JournalFraming.frameOverhead)
        let kept = try store.entries(of: space).records
        // The newest entries, without a gap, up to the last one.
        #expect(kept.count > 10)
        #expect(kept == (201 - kept.count...200).map(entry))
    }

    @Test func theMemoryStoreRotatesWhereTheFileStoreDoes() throws {
        let space = SpaceID.random()
        let file = try FileAuditStore(folder: folder, limit: 700)
        let memory = MemoryAuditStore(limit: 700)
        for number in 1...50 {
            try file.append([entry(number)], to: space)
            try memory.append([entry(number)], to: space)
        }
        #expect(try file.entries(of: space) == memory.entries(of: space))
    }

    @Test func aTornLastEntryIsLeftOutAndTheNextAppendFollowsTheGoodPart() throws {
        let space = SpaceID.random()
        let path = "\(folder)/\(space.hex).audit"
        do {
            let store = try FileAuditStore(folder: folder)
            try store.append([entry(1)], to: space)
            try store.sync()
        }
        // A crash in the middle of the next append: its length and part of its bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([60, 0, 0, 0, 7, 7, 7]))
        try handle.close()

        let store = try FileAuditStore(folder: folder)
        #expect(try store.entries(of: space) == AuditReplay(records: [entry(1)]))
        try store.append([entry(2)], to: space)
        #expect(try store.entries(of: space) == AuditReplay(records: [entry(1), entry(2)]))
    }

    @Test func aDamagedFileIsNamedAndNewEntriesStartAFreshFile() throws {
        let space = SpaceID.random()
        let path = "\(folder)/\(space.hex).audit"
        do {
            let store = try FileAuditStore(folder: folder)
            for number in 1...3 { try store.append([entry(number)], to: space) }
        }
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[AuditFraming.preamble.count + JournalFraming.frameOverhead + 2] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: path))

        let store = try FileAuditStore(folder: folder)
        let damaged = try store.entries(of: space)
        #expect(damaged.records.isEmpty)
        #expect(damaged.damage?.contains("\(space.hex).audit is damaged at offset 16") == true)
        try store.append([entry(4)], to: space)
        let after = try store.entries(of: space)
        #expect(after.records == [entry(4)])
        #expect(after.damage?.contains("\(space.hex).audit.1 is damaged at offset 16") == true)
    }

    @Test func logsArePrivateAndRemovedWithTheirPredecessor() throws {
        let space = SpaceID.random()
        let old = umask(0)
        defer { umask(old) }
        let store = try FileAuditStore(folder: folder, limit: 200)
        for number in 1...10 { try store.append([entry(number)], to: space) }
        try store.sync()
        for path in ["\(folder)/\(space.hex).audit", "\(folder)/\(space.hex).audit.1"] {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
        }
        try store.remove(space)
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(space.hex).audit"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(space.hex).audit.1"))
        #expect(try store.entries(of: space) == AuditReplay(records: []))
    }
}
