// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import PuffTesting
import Testing

/// `puffctl repair` run twice on one collection within one second (issue 24, left open): each keeps
/// the journal it replaced under its own name, and the first kept journal is never replaced.
@Suite struct RepairTwiceTests {
    let chain = JournalChainAttackTests()
    var vault: JournalVault { chain.vault }

    @Test func aSecondRepairWithinTheSameSecondKeepsItsOldJournalBesideTheFirstsUntouched() async throws {
        defer { vault.remove() }
        do {
            let service = try await vault.initialized(at: vault.pristine)
            for key in ["a", "b", "c"] { try await vault.store(key, "secret \(key)", in: service) }
        }
        var (preamble, frames) = try chain.frames()
        frames[1][40] ^= 0x01
        try chain.write(preamble, frames)
        let journal = try vault.loginFile(".journal", at: vault.trial)
        let damaged = try Data(contentsOf: journal)

        // The suite's clock stands still: both repairs run "within the same second".
        let service = try await vault.service(at: vault.trial)
        try await vault.unlock(service)
        let first = try await service.repair(.login)
        try await vault.unlock(service)
        try await vault.store("d", "secret d", in: service)
        let repaired = try Data(contentsOf: journal)
        let second = try await service.repair(.login)

        #expect(first.keptAt == journal.path + ".damaged-1700000000")
        #expect(second.keptAt == journal.path + ".damaged-1700000000-2")
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.keptAt)) == damaged, "the first kept journal is intact")
        #expect(try Data(contentsOf: URL(fileURLWithPath: second.keptAt)) == repaired)
        let aside = try FileManager.default.contentsOfDirectory(atPath: vault.trial.path).filter {
            $0.contains(".damaged-")
        }
        #expect(aside.count == 2, "\(aside)")
    }
}
