// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffStore

/// Restores from crafted archives (issue 25 item 3 review): an archive's checksums are unkeyed, so
/// whoever hands a person a "backup" writes every byte and every checksum of it. Each test is one
/// attack: the archive is refused before anything of the vault is touched, and nothing is staged.
struct RestoreAttackTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-restore-\(UUID().uuidString)").path
    var vault: String { folder + "/vault" }

    /// An archive written entry by entry, with the right checksums for whatever it says.
    struct Crafted {
        var bytes = BackupArchive.preamble
        var count: UInt32 = 0

        static func digest(_ bytes: [UInt8]) -> [UInt8] {
            let digest = StreamingDigest()
            digest.update(bytes)
            return digest.finish()
        }

        mutating func add(_ name: String, _ contents: [UInt8], claiming length: UInt64? = nil) {
            add(raw: Array(name.utf8), contents, claiming: length)
        }

        mutating func add(raw name: [UInt8], _ contents: [UInt8], claiming length: UInt64? = nil) {
            var entry = [UInt8(1)] + BackupArchive.littleEndian(UInt16(name.count)) + name
            entry += BackupArchive.littleEndian(length ?? UInt64(contents.count)) + contents
            bytes += entry + Self.digest(entry)
            count += 1
        }

        func finished() -> [UInt8] {
            let end = bytes + [0] + BackupArchive.littleEndian(count) + BackupArchive.littleEndian(UInt64(bytes.count))
            return end + Self.digest(end)
        }
    }

    /// The live vault the attacks aim at, and a copy of its files' bytes to compare with after.
    func liveVault() async throws -> (FileRecordStore, [String: Data]) {
        let store = try FileRecordStore(folder: vault)
        _ = try await BackupArchiveTests.makeVault(store, audit: try FileAuditStore(folder: vault))
        return (store, try files())
    }

    func files() throws -> [String: Data] {
        var found: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: vault) where name != "lock" {
            found[name] = FileManager.default.contents(atPath: "\(vault)/\(name)") ?? Data()
        }
        return found
    }

    /// Stages `archive` against the live vault and returns the refusal's reason; checks that the
    /// vault's files are as they were and that no staging folder is left.
    func refusal(
        of archive: [UInt8], freeBytes: UInt64? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let (store, before) = try await liveVault()
        let path = folder + "/crafted.puffbak"
        FileManager.default.createFile(atPath: path, contents: Data(archive))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var reason = "accepted"
        do {
            if let freeBytes {
                _ = try await store.stageRestore(from: fd, path: path, freeBytes: freeBytes)
            } else {
                _ = try await store.stageRestore(from: fd, path: path)
            }
        } catch .damaged(let file, _, let why) {
            #expect(file == path, sourceLocation: sourceLocation)
            reason = why
        } catch .writeFailed(let why) {
            reason = why
        } catch {
            reason = "\(error)"
        }
        #expect(try files() == before, "the live vault changed", sourceLocation: sourceLocation)
        return reason
    }

    let space = SpaceID.random()

    /// A header file of ``space`` as the vault holds it (checksummed), which parses.
    func framedHeader(id: String?, version: UInt16 = 2) -> [UInt8] {
        ChecksummedFile.encode(
            BackupArchiveTests.header(space, id: id, version: version), magic: ChecksummedFile.headerMagic)
    }

    @Test func namesThatLeaveTheVaultFolderAreRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let long = String(repeating: "a", count: 300)
        for name in [
            "../\(space.hex).header", "/tmp/\(space.hex).header", "deleted/1-\(space.hex)/../../catalog",
            "deleted/1-\(space.hex)/\(space.hex).header/", "\(space.hex).header/..", "deleted//\(space.hex).header",
            "./catalog", long, "\(long).header",
        ] {
            var archive = Crafted()
            archive.add(name, [1])
            let reason = try await refusal(of: archive.finished())
            #expect(
                reason.contains("which is not a vault file") || reason.contains("an entry name of"),
                "\(name): \(reason)")
            try FileManager.default.removeItem(atPath: folder)
        }
        var withNUL = Crafted()
        withNUL.add(raw: Array("catalog".utf8) + [0] + Array("../x".utf8), [1])
        #expect(try await refusal(of: withNUL.finished()).contains("which is not a vault file"))
        try FileManager.default.removeItem(atPath: folder)
        var notUTF8 = Crafted()
        notUTF8.add(raw: [0xC0, 0xAF] + Array(".header".utf8), [1])
        #expect(try await refusal(of: notUTF8.finished()).contains("which is not a vault file"))
    }

    @Test func aNameThatComesTwiceIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var archive = Crafted()
        archive.add("\(space.hex).header", framedHeader(id: "a"))
        archive.add("\(space.hex).header", framedHeader(id: "b"))
        #expect(try await refusal(of: archive.finished()).contains("comes twice"))
    }

    /// Lengths that lie: past the file, 2^63 and 2^64-1 (which wrap a signed offset), and a
    /// sparse archive that really is that long on paper (a few bytes on disk), whose entry a
    /// reader holding entries in memory would allocate whole.
    @Test func lengthsThatLieAreRefusedBeforeAnythingIsAllocated() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for claimed in [UInt64(10_000), 1 << 63, UInt64.max, 1 << 40] {
            var archive = Crafted()
            archive.add("catalog", [1], claiming: claimed)
            let reason = try await refusal(of: archive.finished())
            #expect(reason.contains("claims \(claimed) bytes; the archive ends before"), "\(claimed): \(reason)")
            try FileManager.default.removeItem(atPath: folder)
        }
        // A length shorter than the bytes: what follows is read as the next entry, and is not one.
        var short = Crafted()
        short.add("catalog", [1, 2, 3], claiming: 1)
        #expect(try await refusal(of: short.finished()).contains("checksum does not match"))
        try FileManager.default.removeItem(atPath: folder)

        // 2 GiB claimed, and the file is that long (sparse): refused by the largest-file bound.
        var sparse = Crafted()
        sparse.add("\(space.hex).journal", [], claiming: 2 << 30)
        let path = folder + "/sparse.puffbak"
        let (store, before) = try await liveVault()
        FileManager.default.createFile(atPath: path, contents: Data(sparse.bytes))
        #expect(truncate(path, off_t(sparse.bytes.count) + off_t(2 << 30) + 200) == 0)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        await #expect(
            throws: StoreError.damaged(
                file: path, offset: 16,
                reason: "\(space.hex).journal claims 2147483648 bytes, more than a vault file may hold (1073741824)")
        ) { _ = try await store.stageRestore(from: fd, path: path, freeBytes: UInt64.max / 2) }
        #expect(try files().filter { $0.key != "sparse.puffbak" } == before)
    }

    /// Every checksum right, the files garbage: the vault would not open. Refused before the
    /// vault is touched, naming the entry.
    @Test func aChecksummedArchiveWhoseCollectionFilesAreGarbageIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let other = SpaceID.random()
        let cases: [(String, [UInt8], String)] = [
            ("\(space.hex).header", Array("garbage".utf8), "not a Puff file of this kind"),
            (
                "\(space.hex).header",
                ChecksummedFile.encode(Array("garbage".utf8), magic: ChecksummedFile.headerMagic),
                "malformed magic"
            ),
            (
                "\(space.hex).header",
                ChecksummedFile.encode(BackupArchiveTests.header(other, id: "x"), magic: ChecksummedFile.headerMagic),
                "is the header of another space"
            ),
            ("\(space.hex).journal", Array("garbage".utf8), "\(space.hex).journal at offset 0"),
            (
                "catalog", ChecksummedFile.encode(Array("not a catalog".utf8), magic: ChecksummedFile.catalogMagic),
                "catalog"
            ),
            ("\(space.hex).audit", [UInt8](repeating: 0xEE, count: 64), "\(space.hex).audit at offset 0"),
        ]
        for (name, contents, expected) in cases {
            var archive = Crafted()
            archive.add(name, contents)
            let reason = try await refusal(of: archive.finished())
            #expect(reason.contains(expected) && reason.contains("puffd would not read it"), "\(name): \(reason)")
            try FileManager.default.removeItem(atPath: folder)
        }
    }

    /// A backup of another version: the archive's own (a newer Puff's), and a vault header of a
    /// format version this Puff does not read inside a version-1 archive.
    @Test func anArchiveOrAHeaderOfAnotherFormatVersionIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var newer = Crafted().finished()
        newer[8] = 2
        #expect(try await refusal(of: newer).contains("a backup of format version 2, which this Puff does not read"))
        try FileManager.default.removeItem(atPath: folder)
        var archive = Crafted()
        archive.add("\(space.hex).header", framedHeader(id: "x", version: VaultHeader.slottedVersion + 1))
        let reason = try await refusal(of: archive.finished())
        #expect(reason.contains("format version 4 is newer than this puffd reads"), "\(reason)")
    }

    /// Staging needs the archive's size free in the vault's file system: refused up front, not
    /// after filling the disk. A failure half-way (here the last entry's checksum, the path a
    /// full disk takes too) removes what was staged.
    @Test func anArchiveTooLargeForTheFreeSpaceOrFailingHalfWayLeavesNothingStaged() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var archive = Crafted()
        archive.add(
            "catalog",
            ChecksummedFile.encode(Catalog(hiddenKDF: .interactive).encoded(), magic: ChecksummedFile.catalogMagic))
        let reason = try await refusal(of: archive.finished(), freeBytes: 1000)
        #expect(reason.contains("no space left on device") && reason.contains("1000 are free"), "\(reason)")
        try FileManager.default.removeItem(atPath: folder)

        archive.add("\(space.hex).header", framedHeader(id: "x"))
        var broken = archive.finished()
        broken[broken.count - 40] ^= 1
        #expect(try await refusal(of: broken).contains("does not match"))
        #expect(try FileRecordStore.names(in: vault).allSatisfy { !$0.hasPrefix("restore-") })
    }

    /// A staging folder a crash (puffd killed while staging) left behind is removed when the
    /// vault is next opened.
    @Test func aStagingFolderACrashLeftIsRemovedAtTheNextStart() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do { _ = try await liveVault() }
        let left = "\(vault)/restore-\(SpaceID.random().hex)"
        try FileManager.default.createDirectory(
            atPath: left + "/deleted/1-\(space.hex)", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: left + "/catalog", contents: Data([1]))
        FileManager.default.createFile(
            atPath: left + "/deleted/1-\(space.hex)/\(space.hex).header", contents: Data([1]))
        _ = try await FileRecordStore.reopening(folder: vault)
        #expect(!FileManager.default.fileExists(atPath: left))
    }

    /// A link planted in the vault folder under a staging name (F), pointing at a folder of the
    /// person's: the start-up clean-up removes the link, not the files it points at.
    @Test func aLinkPlantedUnderAStagingNameIsRemovedWithoutFollowingIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do { _ = try await liveVault() }
        let documents = folder + "/documents"
        try FileManager.default.createDirectory(atPath: documents + "/inner", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: documents + "/letter.txt", contents: Data("keep me".utf8))
        FileManager.default.createFile(atPath: documents + "/inner/note.txt", contents: Data("me too".utf8))
        let planted = "\(vault)/restore-\(SpaceID.random().hex)"
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: documents)
        _ = try await FileRecordStore.reopening(folder: vault)
        #expect(FileManager.default.contents(atPath: documents + "/letter.txt") == Data("keep me".utf8))
        #expect(FileManager.default.contents(atPath: documents + "/inner/note.txt") == Data("me too".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: planted)) == nil, "the link is gone")
    }
}
