// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffFormats
import PuffService
import PuffTesting
import Synchronization
import Testing

/// An import of many items lets other callers in while it applies its items and while it
/// writes its audit entries, not only while it decides (`make bench` measured a reader's
/// GetSecret held 0.3–0.8 s behind a 10,000-item import before the later steps yielded too).
///
/// A ticker task on the actor notes what it sees and yields, as the import does, so it gets a
/// turn whenever the import lets others in. When a step never yields, nobody sees it half done:
/// no item count between none and all, and every audit entry of the batch written at one tick
/// of the service's clock (the ticker moves it on a second per turn). No clock is read.
@Suite struct ImportTurnTests {
    static let caller = Caller(Fixture.alice)
    static let count = 4_000

    static func source() -> [PortableItem] {
        (0..<count).map { k in
            PortableItem(
                label: "imported \(k)", attributes: ["user": "u\(k)"],
                secret: SecureBytes(unwipedCopyOf: Array("s\(k)".utf8)))
        }
    }

    @Test func otherCallersGetTurnsWhileAnImportAppliesItsItemsAndWritesItsAuditEntries() async throws {
        let fixture = try await Fixture.persistent()
        let source = Self.source()
        let ticker = Ticker(time: fixture.time)
        let ticking = Task { await fixture.service.tick(ticker) }

        _ = try await fixture.service.importItems(source, into: .login, dryRun: false, caller: Self.caller)
        ticker.stop()
        await ticking.value

        #expect(await fixture.service.itemIDs(in: .login).count == Self.count)
        let partial = ticker.itemCounts.filter { $0 > 0 && $0 < Self.count }
        #expect(!partial.isEmpty, "no turn while the items were applied")
        let creates = try await fixture.service.auditEntries(collection: .login).entries.filter { $0.action == .create }
        let stretches = Dictionary(grouping: creates, by: \.time).values.map(\.count)
        #expect(creates.count == Self.count)
        #expect(stretches.count > 1, "all \(creates.count) audit entries were written in one stretch")
    }
}

/// What the ticker saw, shared with the test; each turn advances the service's clock.
final class Ticker: Sendable {
    private let state = Mutex<(running: Bool, counts: [Int])>((true, []))
    let time: SettableTime

    init(time: SettableTime) { self.time = time }

    var isRunning: Bool { state.withLock { $0.running } }
    var itemCounts: [Int] { state.withLock { $0.counts } }

    func stop() { state.withLock { $0.running = false } }

    func saw(_ count: Int) {
        state.withLock { $0.counts.append(count) }
        time.advance(by: 1)
    }
}

extension SecretService {
    /// Notes how many items `login` shows, then yields the actor as an import does, until
    /// `ticker` stops: it gets a turn whenever the import lets others in.
    func tick(_ ticker: Ticker) async {
        while ticker.isRunning {
            ticker.saw(itemIDs(in: .login).count)
            await Task.yield()
        }
    }
}
