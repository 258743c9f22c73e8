// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A write the file system refuses (full, over quota, read-only, not writable) is told to the
/// caller as such, with the vault's place, and changes nothing in memory or on disk (issue 24
/// item 22). The refusal is injected at the store seam, as `FileRecordStore` reports `ENOSPC`.
@Suite struct RefusedWriteTests {
    static let journal = "/home/alice/.local/share/puff/0123.journal"

    @Test func aStoreOnAFullDiskFailsSayingSoAndLeavesNoItemBehind() async throws {
        let fixture = try await Fixture.persistent()
        let kept = try await fixture.store(["n": "1"], secret: "first", label: "first")
        let before = await fixture.service.itemIDs(in: .login)
        await fixture.storage.failNextWrite(with: .refused(.noSpace, path: Self.journal))
        let error = await serviceError { () async throws(ServiceError) in
            try await fixture.store(["n": "2"], secret: "second", label: "second")
        }
        #expect(error == .vaultUnwritable(.noSpace, folder: Self.journal), "the memory store has no folder of its own")
        #expect(await fixture.service.itemIDs(in: .login) == before, "no item the caller could believe stored")
        #expect(try await fixture.read(kept) == "first")

        // Room again: the next store works, and a restart reads exactly what was acknowledged.
        let later = try await fixture.store(["n": "3"], secret: "third", label: "third")
        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "correct horse")
        #expect(await restarted.service.itemIDs(in: .login) == [kept, later])
        #expect(try await restarted.read(kept) == "first")
        #expect(try await restarted.read(later) == "third")
    }

    @Test func eachRefusalOfAChangeIsToldWithItsCauseAndAnUnexpectedFailureStaysVague() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["n": "1"])
        for refusal in [WriteRefusal.noSpace, .quotaExceeded, .readOnly, .notPermitted] {
            await fixture.storage.failNextWrite(with: .refused(refusal, path: Self.journal))
            let error = await serviceError { () async throws(ServiceError) in
                try await fixture.service.setLabel("renamed", of: item)
            }
            #expect(error == .vaultUnwritable(refusal, folder: Self.journal))
        }
        await fixture.storage.failNextWrite(with: .writeFailed("cannot write x: Input/output error"))
        let other = await serviceError { () async throws(ServiceError) in
            try await fixture.service.setLabel("renamed", of: item)
        }
        #expect(other == .failed("the change could not be saved"))
        #expect(try await fixture.service.itemInfo(item).label == "label")
    }

    @Test func theMessagesNameTheCauseThePlaceAndTheFix() {
        let folder = "/home/alice/.local/share/puff"
        let texts = [WriteRefusal.noSpace, .quotaExceeded, .readOnly, .notPermitted].map {
            ServiceError.vaultUnwritable($0, folder: folder).description
        }
        #expect(texts[0] == "no space left on device for the vault at \(folder): free space, then retry")
        #expect(texts[1].hasPrefix("disk quota exceeded for the vault at \(folder): free space"))
        #expect(texts[2].contains("read-only file system: remount it read-write, or move the vault (puffd --data-dir"))
        #expect(texts[3].contains("\(folder) is not writable by this user"))
    }

    @Test func errnoValuesTheyStandForAreTheOnlyOnesTakenForARefusal() {
        #expect(WriteRefusal(errno: ENOSPC) == .noSpace)
        #expect(WriteRefusal(errno: EDQUOT) == .quotaExceeded)
        #expect(WriteRefusal(errno: EROFS) == .readOnly)
        #expect(WriteRefusal(errno: EACCES) == .notPermitted)
        #expect(WriteRefusal(errno: EPERM) == .notPermitted)
        #expect(WriteRefusal(errno: EIO) == nil)
        #expect(WriteRefusal(errno: EFBIG) == nil)
    }
}
