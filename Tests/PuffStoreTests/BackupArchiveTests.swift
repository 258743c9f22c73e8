// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffStore

/// Backups of the file store: the archive format, snapshots between appends, and restores.
struct BackupArchiveTests {
    let folder: String

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-backup-\(UUID().uuidString)").path
    }

    /// A vault with two spaces (one with a longer journal and a head), a catalog and an audit log.
    /// Headers and catalog parse, as a restore checks (their keys are not real).
    static func makeVault(_ store: FileRecordStore, audit: FileAuditStore) async throws -> (SpaceID, SpaceID) {
        let (first, second) = (SpaceID.random(), SpaceID.random())
        try await store.replaceHeader(header(first, id: "first"), of: first)
        try await store.replaceHeader(header(second, id: "second"), of: second)
        try await store.append([10, 11], to: first, head: [7, 7])
        try await store.append([12], to: first, head: [8, 8])
        try await store.append([20], to: second)
        var catalog = Catalog(hiddenKDF: .interactive)
        catalog.collections = [.init(space: first, id: "first"), .init(space: second, id: "second")]
        try await store.replaceCatalog(catalog.encoded())
        try audit.append([[30, 31]], to: first)
        return (first, second)
    }

    /// A header of `space` that parses (its wrapped key opens nothing).
    static func header(_ space: SpaceID, id: String?, version: UInt16 = 2) -> [UInt8] {
        var header = VaultHeader(
            flags: id == nil ? .hidden : [], kdf: .interactive,
            salt: [UInt8](repeating: 7, count: PasscodeKDF.saltBytes), space: space, indexKey: nil,
            collectionID: id, wrappedKey: [1, 2, 3], lockedSearch: .never)
        header.version = version
        return header.encoded()
    }

    private func makeVault(_ store: FileRecordStore, audit: FileAuditStore) async throws -> (SpaceID, SpaceID) {
        try await Self.makeVault(store, audit: audit)
    }

    /// `snapshot` written to a new archive file, opened for reading.
    private func archive(_ snapshot: VaultSnapshot, at path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        _ = try snapshot.write(to: fd, path: path)
        return fd
    }

    private func entries(of fd: Int32, path: String) throws -> [String: [UInt8]] {
        var reader = try BackupReader(fd: fd, path: path)
        var found: [String: [UInt8]] = [:]
        while let entry = try reader.next() { found[entry.name] = entry.bytes }
        return found
    }

    private func fileBytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    @Test func anArchiveHoldsEveryVaultFileByteForByteAndNothingElse() async throws {
        let store = try FileRecordStore(folder: folder)
        let audit = try FileAuditStore(folder: folder)
        let (first, second) = try await makeVault(store, audit: audit)
        try await store.replacePasscodeAttempts([1])
        let snapshot = try await store.snapshot()
        let all = VaultSnapshot(files: snapshot.files.map(\.self) + (try audit.snapshotFiles()))
        _ = snapshot
        let path = folder + "/out.puffbak"
        let fd = try archive(all, at: path)
        defer { close(fd) }
        let found = try entries(of: fd, path: path)
        let expected = [
            "catalog", "\(first.hex).header", "\(first.hex).journal", "\(first.hex).head", "\(first.hex).audit",
            "\(second.hex).header", "\(second.hex).journal",
        ]
        #expect(Set(found.keys) == Set(expected))
        for name in expected { #expect(found[name] == fileBytes("\(folder)/\(name)"), "\(name)") }
    }

    @Test func aSnapshotKeepsTheBytesOfItsInstantWhateverIsAppendedOrReplacedAfter() async throws {
        let store = try FileRecordStore(folder: folder)
        let audit = try FileAuditStore(folder: folder)
        let (first, _) = try await makeVault(store, audit: audit)
        let journalThen = fileBytes("\(folder)/\(first.hex).journal")
        let headThen = fileBytes("\(folder)/\(first.hex).head")
        let snapshot = try await store.snapshot()
        try await store.append([99, 99, 99], to: first, head: [9, 9])
        _ = try await store.rewrite(first, records: [[1]])
        try await store.replaceHeader(Self.header(first, id: "renamed"), of: first)
        let path = folder + "/out.puffbak"
        let fd = try archive(snapshot, at: path)
        defer { close(fd) }
        let found = try entries(of: fd, path: path)
        #expect(found["\(first.hex).journal"] == journalThen)
        #expect(found["\(first.hex).head"] == headThen)
        #expect(found["\(first.hex).header"] != fileBytes("\(folder)/\(first.hex).header"))
    }

    @Test func everyFlippedByteOfAnArchiveIsFoundAndNamesTheArchive() async throws {
        let store = try FileRecordStore(folder: folder)
        let audit = try FileAuditStore(folder: folder)
        _ = try await makeVault(store, audit: audit)
        let path = folder + "/out.puffbak"
        let fd = try archive(try await store.snapshot(), at: path)
        close(fd)
        let good = try #require(fileBytes(path))
        let flipped = folder + "/flipped.puffbak"
        for index in good.indices {
            var bytes = good
            bytes[index] ^= 0x01
            FileManager.default.createFile(atPath: flipped, contents: Data(bytes))
            let reading = open(flipped, O_RDONLY)
            defer { close(reading) }
            do {
                _ = try entries(of: reading, path: flipped)
                Issue.record("a flip at \(index) went unseen")
            } catch StoreError.damaged(let file, _, _) {
                #expect(file == flipped)
            }
        }
        // A cut archive too.
        FileManager.default.createFile(atPath: flipped, contents: Data(good.dropLast(1)))
        let cut = open(flipped, O_RDONLY)
        defer { close(cut) }
        #expect(
            throws: StoreError.damaged(
                file: flipped, offset: UInt64(good.count - 32),
                reason: "the archive ends in the middle of an entry (cut short?)")
        ) {
            _ = try entries(of: cut, path: flipped)
        }
    }

    @Test func namesOutsideTheVaultsFilesAreNeverEntries() {
        let space = SpaceID.random().hex
        for name in [
            "../catalog", "/etc/passwd", "lock", "attempts", "snapshots/x.puffbak", "\(space).journal.cut-16",
            "deleted/../catalog", "deleted/1-\(space)/../../catalog",
            "deleted/1-\(space)/\(SpaceID.random().hex).header",
            "deleted/x-\(space)/\(space).header", "deleted/+1-\(space)/\(space).header", "\(space).header/x", "",
            "\(space).header\u{0}",
        ] {
            #expect(!BackupArchive.isEntryName(name), "\(name)")
        }
        for name in ["catalog", "\(space).header", "\(space).audit.1", "deleted/17-\(space)/\(space).journal"] {
            #expect(BackupArchive.isEntryName(name), "\(name)")
        }
    }

    @Test func aRestoreReplacesTheVaultsFilesKeepsEvidenceAndMergesDeletedCollections() async throws {
        let source = folder + "/source"
        let target = folder + "/target"
        let path = folder + "/out.puffbak"
        let (first, second): (SpaceID, SpaceID)
        do {
            let store = try FileRecordStore(folder: source)
            (first, second) = try await makeVault(store, audit: try FileAuditStore(folder: source))
            try await store.setAside(second, at: 1000)
            close(try archive(try await store.snapshot(), at: path))
        }
        let store = try FileRecordStore(folder: target)
        let other = SpaceID.random()
        try await store.replaceHeader(Self.header(other, id: "other"), of: other)
        try await store.append([3], to: other)
        try await store.replacePasscodeAttempts([6])
        FileManager.default.createFile(atPath: "\(target)/\(other.hex).journal.cut-16", contents: Data([1]))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let staged = try await store.stageRestore(from: fd, path: path)
        #expect(staged.summary.collections == 1)
        try await store.commitRestore(staged)
        #expect(try await store.spaces() == [first])
        #expect(fileBytes("\(target)/\(first.hex).journal") == fileBytes("\(source)/\(first.hex).journal"))
        #expect(fileBytes("\(target)/catalog") == fileBytes("\(source)/catalog"))
        #expect(!FileManager.default.fileExists(atPath: "\(target)/\(other.hex).header"))
        #expect(FileManager.default.fileExists(atPath: "\(target)/\(other.hex).journal.cut-16"))
        #expect(try await store.passcodeAttempts() == [6])
        #expect(try await store.setAsideSpaces().map(\.name.space) == [second])
        #expect(try FileRecordStore.names(in: target).filter { $0.hasPrefix("restore") }.isEmpty)
        try await store.append([4], to: first)
        #expect(try await store.replay(first).records.map(\.bytes) == [[10, 11], [12], [4]])
    }

    @Test func aRestoreACrashInterruptedIsFinishedWhenTheStoreNextOpens() async throws {
        let source = folder + "/source"
        let target = folder + "/target"
        let path = folder + "/out.puffbak"
        let (first, second): (SpaceID, SpaceID)
        do {
            let store = try FileRecordStore(folder: source)
            (first, second) = try await makeVault(store, audit: try FileAuditStore(folder: source))
            close(try archive(try await store.snapshot(), at: path))
        }
        let old = SpaceID.random()
        do {
            let store = try FileRecordStore(folder: target)
            try await store.replaceHeader(Self.header(old, id: "old"), of: old)
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            let staged = try await store.stageRestore(from: fd, path: path)
            // The crash: the marker written, the old files removed, one staged file moved in.
            let marker = ([staged.folder] + staged.names).joined(separator: "\n")
            try Data(ChecksummedFile.encode(Array(marker.utf8), magic: FileRecordStore.restoreMagic)).write(
                to: URL(fileURLWithPath: "\(target)/restore.pending"))
            unlink("\(target)/\(old.hex).header")
            rename("\(target)/\(staged.folder)/catalog", "\(target)/catalog")
        }
        let store = try await FileRecordStore.reopening(folder: target)
        #expect(Set(try await store.spaces()) == [first, second])
        #expect(try await store.replay(first).records.map(\.bytes) == [[10, 11], [12]])
        #expect(!FileManager.default.fileExists(atPath: "\(target)/restore.pending"))
        #expect(!FileManager.default.fileExists(atPath: "\(target)/\(old.hex).journal"))
    }

    @Test func theSnapshotFolderKeepsTheNewestAndSortsThemByTime() async throws {
        let store = try FileRecordStore(folder: folder)
        _ = try await makeVault(store, audit: try FileAuditStore(folder: folder))
        let snapshots = SnapshotFolder(vault: folder)
        for (time, reason): (UInt64, String) in [
            (1000, "restore"), (1000, "repair"), (1000, "import"), (2000, "passwd"),
        ] {
            _ = try snapshots.save(try await store.snapshot(), reason: reason, keep: 3, now: time)
        }
        #expect(
            snapshots.names() == [
                "19700101T001640Z02-repair.puffbak", "19700101T001640Z03-import.puffbak",
                "19700101T003320Z-passwd.puffbak",
            ])
        var info = stat()
        #expect(stat(snapshots.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat("\(snapshots.path)/\(snapshots.names()[0])", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try snapshots.save(try await store.snapshot(), reason: "repair", keep: 0) == nil)
    }

    /// The clock was set back after a snapshot (a wrong clock at boot, then fixed): the new
    /// snapshot's name sorts before the old one's. It is kept; the oldest by name goes instead.
    @Test func aSnapshotTakenWithTheClockSetBackIsKeptAndAStaleTemporaryIsCleared() async throws {
        let store = try FileRecordStore(folder: folder)
        _ = try await makeVault(store, audit: try FileAuditStore(folder: folder))
        let snapshots = SnapshotFolder(vault: folder)
        _ = try snapshots.save(try await store.snapshot(), reason: "passwd", keep: 1, now: 4_000_000_000)
        FileManager.default.createFile(
            atPath: "\(snapshots.path)/.19700101T000001Z-repair.puffbak.tmp", contents: Data([1]))
        let new = try #require(try snapshots.save(try await store.snapshot(), reason: "restore", keep: 1, now: 1000))
        #expect(snapshots.names() == [String(new.split(separator: "/").last ?? "")])
        #expect(try FileRecordStore.names(in: snapshots.path) == snapshots.names())
    }
}
