// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffService

/// Records another machine appended to a fleet collection (docs/design/fleet.md §0), as the
/// collection's state takes them: an open collection authenticated them as they came, a locked
/// one read only their clear prefixes, so its next unlock reads the journal whole.
@Suite struct CollectionPullStateTests {
    @Test func aLockedCollectionThatTookPulledRecordsReadsItsJournalAtTheNextUnlock() throws {
        var state = try CollectionTests.opened()
        _ = try state.apply(.lockRequested(CollectionTests.keeps))
        #expect(state.records == .checked, "locked after an unlock: the records in memory were checked")
        #expect(try state.apply(.appendedElsewhere) == [])
        #expect(state.records == .incomplete && !state.isOpen)
    }

    @Test func anOpenCollectionThatTookPulledRecordsStaysCheckedAndOpen() throws {
        var state = try CollectionTests.opened()
        #expect(try state.apply(.appendedElsewhere) == [])
        #expect(state.records == .checked && state.isOpen && state.writes == .writable)
    }
}
