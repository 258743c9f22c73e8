// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting

@testable import PuffStore

/// One machine of a fleet in a test: a vault folder of its own (0700) with a file store, and a
/// `FleetRecordStore` over it sharing `log` with the other machines.
final class FleetMachine: Sendable {
    let folder: TestFolder
    let files: FileRecordStore
    let store: FleetRecordStore

    init(_ label: String, log: MemoryFleetLog) throws {
        folder = try TestFolder("fleet-\(label)")
        files = try FileRecordStore(folder: folder.url.path)
        store = try FleetRecordStore(files: files, log: log)
    }

    /// The journal file's bytes.
    func journal(_ space: SpaceID) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appending("\(space.hex).journal")))
    }

    /// The records of the journal, in order.
    func records(_ space: SpaceID) async throws -> [[UInt8]] {
        try await store.replay(space).records.map(\.bytes)
    }
}

/// A collection's chain as a writer builds it: a header naming its space, records sealed in
/// order, each with the head naming it. Each machine keeps its own copy of the tip, as puffd's
/// memory does.
struct FleetChain {
    let space = SpaceID.random()
    let sealer = SecretSealer()
    private(set) var tip: VaultRecord?

    /// A header of `space` that parses (its wrapped key opens nothing: the store never opens it).
    var header: [UInt8] { header(id: "shared") }

    /// The header with another collection id.
    func header(id: String) -> [UInt8] {
        BackupArchiveTests.header(space, id: id)
    }

    /// The next record after `tip`, and its head; the tip moves to it.
    mutating func next() -> (record: [UInt8], head: [UInt8]) {
        let sequence = (tip?.link?.sequence ?? 0) + 1
        let record = VaultRecord(
            kind: .item, number: sequence, tags: [], plaintext: SecureBytes(unwipedCopyOf: [UInt8(sequence & 0xFF)]),
            space: space, sealer: sealer,
            link: tip.map { VaultRecord.Link(sequence: sequence, previous: $0.mac) } ?? .first(sequence))
        tip = record
        let head = JournalHead(
            sequence: sequence, tag: record.mac, digest: .empty, modified: 0, space: space, sealer: sealer)
        return (record.encoded(), head.encoded())
    }

    /// Moves the tip to the last of `records` (a pull brought them).
    mutating func follow(_ records: [[UInt8]]) throws {
        if let last = records.last { tip = try VaultRecord(decoding: last) }
    }

    /// Makes the space in `store` with `count` records, appended one by one.
    mutating func create(in store: any RecordStore, records count: Int) async throws {
        try await store.replaceHeader(header, of: space)
        for _ in 0..<count {
            let (record, head) = next()
            try await store.append(record, to: space, head: head)
        }
    }
}
