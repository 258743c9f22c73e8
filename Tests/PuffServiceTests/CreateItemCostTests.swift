// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// One `CreateItem` is one pass (design core-reshaped §2): its attributes' keyed digests are
/// computed once (the lookups, the record's tags and the index share them) and its secret is sealed
/// once, inside the record. Counted through `CryptoCounts`, bound to the calling task only.
@Suite struct CreateItemCostTests {
    static let attributes: Attributes = ["service": "mail", "user": "alice", "host": "example.org"]

    /// Runs `body` with a fresh counter bound to this task and returns it.
    static func counting(_ body: () async throws -> Void) async rethrows -> CryptoCounts {
        let counts = CryptoCounts()
        try await CryptoCounts.$current.withValue(counts) { try await body() }
        return counts
    }

    @Test func aNewItemHashesEachAttributeAndTheWholeSetOnce() async throws {
        let fixture = try await Fixture()
        let session = try await fixture.plainSession()
        let counts = try await Self.counting {
            for replace in [false, true] {
                _ = try await fixture.service.createItem(
                    in: .login, label: "mail \(replace)",
                    attributes: Self.attributes.merging(["n": "\(replace)"]) {
                        $1
                    },
                    type: "", secret: Fixture.plain(Array("pw".utf8), session: session), replace: replace,
                    client: Fixture.alice)
            }
        }
        // 4 pairs and 1 set per item, for both the exact-set lookup (replace) and the tags and
        // index keys; today's code hashed them two or three times (18 for these two).
        #expect(counts.digests == 2 * (4 + 1))
    }

    @Test func replacingAnItemHashesTheNewSetOnce() async throws {
        let fixture = try await Fixture()
        let first = try await fixture.store(Self.attributes, secret: "one")
        let counts = try await Self.counting {
            let again = try await fixture.store(Self.attributes, secret: "two")
            #expect(again == first)
        }
        #expect(counts.digests == 3 + 1)
        #expect(try await fixture.read(first) == "two")
    }

    @Test func aNewItemSealsItsSecretOnceInsideItsRecord() async throws {
        let fixture = try await Fixture()
        let session = try await fixture.plainSession()
        let counts = try await Self.counting {
            _ = try await fixture.service.createItem(
                in: .login, label: "mail", attributes: Self.attributes, type: "",
                secret: Fixture.plain(Array("pw".utf8), session: session), replace: false, client: Fixture.alice)
        }
        // The record, the journal head's authenticator and the audit entry: three seals. The
        // secret is not sealed a second time for memory: the record is the item's only sealed form.
        #expect(counts.seals == 3)
    }
}
