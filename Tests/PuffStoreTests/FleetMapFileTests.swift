// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffTesting
import Testing

@testable import PuffStore

/// The `fleet` file across restarts, and what a fleet space's header, removal and a vault in
/// memory do (docs/design/fleet.md §3).
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct FleetMapFileTests {
    let log = MemoryFleetLog()

    @Test func reopeningTheVaultKeepsEachFleetSpaceItsNameAndGeneration() async throws {
        let folder = try TestFolder("fleet-reopen")
        var chain = FleetChain()
        do {
            let store = try FleetRecordStore(files: try FileRecordStore(folder: folder.url.path), log: log)
            try await chain.create(in: store, records: 2)
            try await store.share(chain.space, as: "team")
            let (record, head) = chain.next()
            try await store.append(record, to: chain.space, head: head)
        }
        let store = try FleetRecordStore(files: try await FileRecordStore.reopening(folder: folder.url.path), log: log)
        #expect(store.sharedName(of: chain.space) == "team")
        #expect(try await store.generation(of: chain.space) == 2)
        #expect(try await store.pull(chain.space) == nil)
        let (record, head) = chain.next()
        try await store.enqueueAppend(contentsOf: [record], to: chain.space, head: head, expecting: 2).durable()
        #expect(await log.entryCount(of: "team") == 3)
        #expect(VaultFileCheck.findings(folder: folder.url.path).isEmpty, "doctor reads the fleet file")
    }

    @Test func anAppendWhoseCountACrashLostIsCountedAtTheNextPullNotAppendedTwice() async throws {
        let folder = try TestFolder("fleet-crash")
        var chain = FleetChain()
        let path = folder.appending("fleet").path
        let counted: Data
        do {
            let store = try FleetRecordStore(files: try FileRecordStore(folder: folder.url.path), log: log)
            try await chain.create(in: store, records: 2)
            try await store.share(chain.space, as: "team")
            counted = try Data(contentsOf: URL(fileURLWithPath: path))
            let (record, head) = chain.next()
            try await store.append(record, to: chain.space, head: head)
        }
        // A crash after the local append, before the map was written.
        try counted.write(to: URL(fileURLWithPath: path))
        let store = try FleetRecordStore(files: try await FileRecordStore.reopening(folder: folder.url.path), log: log)
        #expect(try await store.generation(of: chain.space) == 1)
        let pulled = try #require(try await store.pull(chain.space))
        #expect(pulled.records.isEmpty)
        #expect(pulled.generation == 2)
        #expect(try await store.replay(chain.space).records.count == 3, "not appended twice")
        #expect(try await store.pull(chain.space) == nil)
    }

    @Test func aJournalPutBackBehindTheEntriesItHeldIsRefusedAtThePull() async throws {
        let folder = try TestFolder("fleet-back")
        var chain = FleetChain()
        let journal = folder.appending("\(chain.space.hex).journal")
        let older: Data
        do {
            let store = try FleetRecordStore(files: try FileRecordStore(folder: folder.url.path), log: log)
            try await chain.create(in: store, records: 2)
            older = try Data(contentsOf: journal)
            try await store.share(chain.space, as: "team")
            let (record, head) = chain.next()
            try await store.append(record, to: chain.space, head: head)
        }
        try older.write(to: journal)
        let store = try FleetRecordStore(files: try await FileRecordStore.reopening(folder: folder.url.path), log: log)
        let error = await thrown { () async throws(StoreError) in _ = try await store.pull(chain.space) }
        guard case .writeFailed(let why) = error else {
            Issue.record("an older journal was pulled onto: \(String(describing: error))")
            return
        }
        #expect(why.contains("holds 2 records, fewer than the 3 its 2 entries brought"), "\(why)")
    }

    @Test(arguments: ["fifo", "symlink"])
    func aPlantedFleetFileIsRefusedNeverFollowed(plant: String) async throws {
        let folder = try TestFolder("fleet-plant")
        let path = folder.appending("fleet").path
        let reason: String
        if plant == "fifo" {
            #expect(mkfifo(path, 0o600) == 0)
            reason = "a FIFO, not a regular file: refused"
        } else {
            let target = folder.appending("elsewhere").path
            // A good file behind the link: following it would succeed.
            try Data(ChecksummedFile.encode(FleetMap().encoded(), magic: ChecksummedFile.fleetMagic))
                .write(to: URL(fileURLWithPath: target))
            #expect(symlink(target, path) == 0)
            reason = "a symbolic link, not a regular file: refused"
        }
        let files = try FileRecordStore(folder: folder.url.path)
        #expect(throws: StoreError.damaged(file: path, offset: 0, reason: reason)) {
            try FleetRecordStore(files: files, log: log)
        }
        #expect(await files.refusedFiles().map { "\($0)" } == ["\(path) is damaged at offset 0: \(reason)"])
    }

    @Test func aFlippedByteInTheFleetFileIsDamageTheStoreRefusesAndDoctorReports() async throws {
        let folder = try TestFolder("fleet-flip")
        var chain = FleetChain()
        do {
            let store = try FleetRecordStore(files: try FileRecordStore(folder: folder.url.path), log: log)
            try await chain.create(in: store, records: 1)
            try await store.share(chain.space, as: "team")
        }
        let url = folder.appending("fleet")
        var bytes = Array(try Data(contentsOf: url))
        bytes[bytes.count - 2] ^= 1
        try Data(bytes).write(to: url)
        let files = try await FileRecordStore.reopening(folder: folder.url.path)
        let error = await thrown { () async throws(StoreError) in _ = try FleetRecordStore(files: files, log: log) }
        guard case .damaged(let file, _, _) = error else {
            Issue.record("a flipped fleet file was read: \(String(describing: error))")
            return
        }
        #expect(file == url.path)
        #expect(VaultFileCheck.findings(folder: folder.url.path).map(\.file) == [url.path])
    }

    @Test func theMapReadsWhatItWroteAndRefusesALineThatIsNotOne() throws {
        let space = SpaceID.random()
        let map = FleetMap(shares: [space: .init(name: "team-1.a_b", generation: 7, records: 9, headerVersion: 2)])
        #expect(FleetMap(decoding: map.encoded()) == map)
        #expect(FleetMap(decoding: FleetMap().encoded()) == FleetMap())
        let line = "\(space.hex) 7 9 2"
        for bad in [
            "", "\(line) team\n", "fleet 1\n\(line) ../team\n", "fleet 1\n\(line)\n", "fleet 1\nzz 7 9 2 team\n",
            "fleet 1\n\(line) team\n\(SpaceID.random().hex) 1 1 1 team\n", "fleet 1\n\(line) team x\n",
        ] {
            #expect(FleetMap(decoding: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func aFleetSpacesHeaderGoesToTheLogFirstAndAStaleOneIsRefused() async throws {
        let a = try FleetMachine("ha", log: log)
        let b = try FleetMachine("hb", log: log)
        var chain = FleetChain()
        try await chain.create(in: a.store, records: 1)
        try await a.store.share(chain.space, as: "team")
        _ = try await b.store.attach("team")
        let changed = chain.header(id: "renamed")
        try await a.store.replaceHeader(changed, of: chain.space)
        #expect(try await log.header(of: "team")?.bytes == changed)
        #expect(try await log.header(of: "team")?.version == 2)
        #expect(try await a.store.header(of: chain.space) == changed)
        await #expect(throws: StoreError.staleGeneration(chain.space, expected: 1, current: 2)) {
            try await b.store.replaceHeader(changed, of: chain.space)
        }
        #expect(try await b.store.header(of: chain.space) == chain.header, "nothing written locally")
    }

    @Test func settingAFleetSpaceAsideDropsItsNameHereAndLeavesTheLog() async throws {
        let a = try FleetMachine("aside", log: log)
        var chain = FleetChain()
        try await chain.create(in: a.store, records: 1)
        try await a.store.share(chain.space, as: "team")
        try await a.store.setAside(chain.space, at: 1)
        #expect(a.store.sharedName(of: chain.space) == nil)
        #expect(a.store.map.shares.isEmpty)
        #expect(try a.files.fleetMap().flatMap(FleetMap.init(decoding:)) == FleetMap())
        #expect(await log.entryCount(of: "team") == 1)
    }

    @Test func aVaultInMemoryKeepsItsMapInMemoryAndSharesTheSameWay() async throws {
        let a = FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: log)
        let b = FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: log)
        var chain = FleetChain()
        try await chain.create(in: a, records: 2)
        try await a.share(chain.space, as: "team")
        #expect(try await b.attach("team") == chain.space)
        let (record, head) = chain.next()
        try await a.enqueueAppend(contentsOf: [record], to: chain.space, head: head, expecting: 1).durable()
        let pulled = try #require(try await b.pull(chain.space))
        #expect(try b.read(pulled.locators[0], in: chain.space) == record)
        #expect(try await b.replay(chain.space).records.map(\.bytes) == a.replay(chain.space).records.map(\.bytes))
    }
}
