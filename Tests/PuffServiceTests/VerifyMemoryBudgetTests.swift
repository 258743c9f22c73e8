// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// What `puffctl verify` leaves behind in puffd (docs/benchmarks.md, issue 27): it reads every
/// unlocked journal whole and opens each record, which at 100,000 items once lifted puffd from
/// 72 to 415 MiB for good, as glibc kept the freed blocks of each verify's worker thread. Run
/// alone, in a process of its own (the Makefile's ALONE_TESTS), as it reads `RssAnon`.
@Suite(.serialized) struct VerifyMemoryBudgetTests {
    static let items = 20_000
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-verifymem-\(UUID().uuidString)")

    @Test func verifyingAnUnlockedVaultGivesBackWhatItRead() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = try await SecretService(
            store: try FileRecordStore(folder: folder.path, sync: { _, _ in 0 }), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        for number in 0..<Self.items {
            _ = try await service.createItem(
                in: .login, label: "item \(number)", attributes: ["service": "s\(number)", "user": "u\(number % 100)"],
                type: "", secret: Fixture.plain(Array("secret number \(number)".utf8), session: session.session),
                replace: false, client: Fixture.alice)
        }
        let journal =
            try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".journal") }
            .map {
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size] as! Int
            }
            .max() ?? 0
        #expect(journal > 4 << 20, "the login journal of \(Self.items) items holds \(journal) bytes")

        MemoryTrim.trim()
        let before = residentAnonymousBytes()
        for _ in 0..<3 {
            let report = await service.verify()
            #expect(report.records >= Self.items)
            #expect(report.findings.isEmpty)
        }
        let kept = residentAnonymousBytes() - before
        // Measured with a 5.0 MB journal: 20.3 MB kept without the trim after a verify (4 times the
        // journal, and growing with each worker thread's arena), 5.8 MB with it (worker stacks and
        // what the first verify leaves cached among them).
        #expect(kept < 2 * journal, "three verifies of a \(journal)-byte journal kept \(kept) bytes resident")
    }
}
