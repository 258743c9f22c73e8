// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// What an item may hold: the most attributes, bytes as bytes, binary secrets, and no value in an
/// error or a log.
@Suite struct ItemContentTests {
    @Test func anItemWithTheMostAttributesAllowedWorks() async throws {
        let fixture = try await Fixture()
        let attributes = Dictionary(uniqueKeysWithValues: (0..<256).map { ("name\($0)", "value\($0)") })
        let item = try await fixture.store(attributes)
        #expect(try await fixture.service.itemInfo(item).attributes.count == 256)
        #expect(try await fixture.service.searchItems(["name255": "value255", "name0": "value0"]).unlocked == [item])
        #expect(try await fixture.store(attributes) == item, "exact match on a large map")
    }

    @Test func attributesAreComparedAsBytesNotAsCanonicallyEquivalentText() async throws {
        let fixture = try await Fixture()
        let composed = try await fixture.store(["name": "caf\u{E9}"])
        let decomposed = try await fixture.store(["name": "cafe\u{301}"])
        #expect(composed != decomposed, "replace matches the identical bytes only")
        #expect(try await fixture.service.searchItems(["name": "caf\u{E9}"]).unlocked == [composed])
        #expect(try await fixture.service.searchItems(["name": "cafe\u{301}"]).unlocked == [decomposed])
    }

    @Test func replaceKeepsTheOldestOfSeveralIdenticalItemsAndSearchFollowsAttributeChanges() async throws {
        let fixture = try await Fixture()
        let first = try await fixture.store(["k": "v"], replace: false)
        let second = try await fixture.store(["k": "v"], replace: false)
        #expect(try await fixture.store(["k": "v"], secret: "new") == first)
        #expect(try await fixture.read(first) == "new")
        try await fixture.service.setAttributes(["k": "w"], of: first)
        #expect(try await fixture.service.searchItems(["k": "v"]).unlocked == [second])
        #expect(try await fixture.service.searchItems(["k": "w"]).unlocked == [first])
        try await fixture.service.deleteItem(second)
        #expect(try await fixture.service.searchItems(["k": "v"]).unlocked.isEmpty)
        #expect(try await fixture.store(["k": "v"]) != second, "a deleted item is never replaced")
    }

    @Test(arguments: [0, 1, 65_536])
    func binarySecretsRoundTrip(size: Int) async throws {
        let fixture = try await Fixture()
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let session = try await fixture.plainSession()
        let item = try await fixture.service.createItem(
            in: .login, label: "", attributes: [:], type: "",
            secret: Fixture.plain(bytes, session: session, contentType: "application/octet-stream"), replace: false,
            client: Fixture.alice)
        let back = try await fixture.service.secret(of: item, session: session, caller: Caller(Fixture.alice))
        #expect(back.value.unprotectedArray() == bytes)
        #expect(back.parameters.isEmpty)
    }

    @Test func errorMessagesAndLogsNeverContainValuesOrSecrets() async throws {
        let fixture = try await Fixture()
        let marker = "ZQX-distinctive-7731"
        let item = try await fixture.store(["user": marker], secret: marker, label: marker)
        await fixture.storage.failAllWrites(with: .writeFailed("disk full"))
        let session = try await fixture.plainSession()
        var errors: [ServiceError?] = []
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.store(["user": marker, "x": marker], secret: marker)
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.setAttributes(["user": marker], of: item)
            })
        let bogus = TransportSecret(
            session: session, parameters: Array(marker.utf8), value: SecureBytes(unwipedCopyOf: Array(marker.utf8)),
            contentType: marker)
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.createItem(
                    in: .login, label: marker, attributes: ["k": marker], type: marker, secret: bogus, replace: true,
                    client: Fixture.alice)
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.openSession(algorithm: marker, input: .string(marker), client: Fixture.alice)
                    .session
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.openSession(
                    algorithm: SecretService.dhAlgorithm, input: .string(marker), client: Fixture.alice
                ).session
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.createCollectionAtOnce(
                    label: marker, alias: marker + "/", client: Fixture.alice)
            })
        #expect(errors.compactMap { $0 }.count == 6)
        for case let error? in errors {
            #expect(!String(describing: error).contains(marker))
            #expect(!String(reflecting: error).contains(marker))
        }
        for line in fixture.logs.lines { #expect(!line.contains(marker)) }
        let secret = try await fixture.service.secret(of: item, session: session, caller: Caller(Fixture.alice))
        #expect(!"\(secret.value)".contains(marker))
    }
}
