// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

@testable import PuffStore

/// Compare-and-set appends (design core-reshaped §8): an append that expects the journal at a
/// generation it is not at writes nothing and says so in its own error, for every store.
struct RecordStoreGenerationTests {
    let space = SpaceID(hex: "0123456789abcdef0123456789abcdef")!

    static func stores() throws -> [(String, any RecordStore)] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-gen-\(UUID().uuidString)").path
        return [
            ("file", try FileRecordStore(folder: folder)), ("memory", MemoryRecordStore()),
            ("faulty over memory", FaultyRecordStore()),
        ]
    }

    /// Appends `record` expecting `generation`; the error it was refused with, or nil.
    func append(_ record: UInt8, expecting generation: UInt64?, to store: any RecordStore) async -> StoreError? {
        do throws(StoreError) {
            let ticket = try await store.enqueueAppend(
                contentsOf: [[record]], to: space, head: nil, expecting: generation)
            try await ticket.durable()
            return nil
        } catch {
            return error
        }
    }

    @Test func anAppendAtTheCurrentGenerationIsWrittenAndAStaleOneIsRefusedWithNothingWritten() async throws {
        for (name, store) in try Self.stores() {
            try await store.replaceHeader([1], of: space)
            let current = try await store.generation(of: space)
            #expect(await append(1, expecting: current, to: store) == nil, "\(name)")
            #expect(await append(2, expecting: nil, to: store) == nil, "\(name): nil means the current one")
            let stale = current + 5
            #expect(
                await append(3, expecting: stale, to: store)
                    == .staleGeneration(space, expected: stale, current: current), "\(name)")
            #expect(try await store.replay(space).records.map(\.bytes) == [[1], [2]], "\(name)")
        }
    }

    @Test func eachStoreNamesItsObjectsItselfAndTheFileStoreByItsPath() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-names-\(UUID().uuidString)")
            .path
        let files = try FileRecordStore(folder: folder)
        #expect(files.name(of: .journal(space)) == "\(folder)/\(space.hex).journal")
        #expect(files.name(of: .keptJournal(space, suffix: ".repair")) == "\(folder)/\(space.hex).journal.repair")
        #expect(files.name(of: .replacementNote(space)) == "\(folder)/\(space.hex).replaces")
        let memory = MemoryRecordStore()
        #expect(memory.name(of: .header(space)) == "\(space.hex).header")
        #expect(FaultyRecordStore(files).name(of: .catalog) == "\(folder)/catalog")
    }
}
