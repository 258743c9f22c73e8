// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffStore
import PuffTesting
import Testing

/// What `puffctl doctor` reads from a vault's files without a key (issue 24 item 20).
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct VaultFileCheckTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-filecheck-\(UUID().uuidString)")
        .path

    @Test func damageRefusedFilesCutsAndTornTailsAreNamedWithFileAndOffsetAndNothingChanges() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let damaged = SpaceID.random()
        let torn = SpaceID.random()
        do {
            let store = try FileRecordStore(folder: folder)
            try await store.replaceCatalog([1])
            try await store.replacePasscodeAttempts([6])
            for space in [damaged, torn] {
                try await store.replaceHeader([2], of: space)
                try await store.append([3, 3, 3], to: space)
                try await store.append([4], to: space)
            }
        }
        #expect(VaultFileCheck.findings(folder: folder) == [], "a whole vault")

        let journal = "\(folder)/\(damaged.hex).journal"
        var bytes = try #require(FileManager.default.contents(atPath: journal))
        bytes[JournalFraming.preamble.count + JournalFraming.frameOverhead] ^= 1
        try bytes.write(to: URL(fileURLWithPath: journal))
        let tornJournal = "\(folder)/\(torn.hex).journal"
        let goodEnd = try #require(FileManager.default.contents(atPath: tornJournal)).count
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: tornJournal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([9, 0, 0, 0, 7]))
        try handle.close()
        try Data([5, 5]).write(to: URL(fileURLWithPath: "\(tornJournal).cut-99"))
        let audit = "\(folder)/\(torn.hex).audit"
        #expect(mkfifo(audit, 0o600) == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()

        let expected = [
            VaultFileCheck.Finding(
                kind: .damaged, file: journal, offset: UInt64(JournalFraming.preamble.count),
                what: "record checksum does not match"),
            VaultFileCheck.Finding(
                kind: .refused, file: audit, offset: 0, what: "a FIFO, not a regular file: refused"),
            VaultFileCheck.Finding(
                kind: .torn, file: tornJournal, offset: UInt64(goodEnd), what: "ends in a torn append of 5 bytes"),
            VaultFileCheck.Finding(
                kind: .cut, file: "\(tornJournal).cut-99", offset: 99,
                what: "\(tornJournal) was cut at offset 99; the 2 bytes cut off are kept here"),
        ]
        #expect(Set(VaultFileCheck.findings(folder: folder).map { "\($0)" }) == Set(expected.map { "\($0)" }))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before, "nothing cut or moved")
        #expect(try #require(FileManager.default.contents(atPath: tornJournal)).count == goodEnd + 5)
    }
}
