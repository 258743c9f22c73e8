// SPDX-License-Identifier: Apache-2.0
import PuffService
import Testing

@Suite struct SchemaMapperTests {
    let mappers = SchemaMappers.standard

    @Test(arguments: SchemaCase.clients)
    func eachClientsShapeMapsToItsTypedRecord(row: SchemaCase) {
        #expect(mappers.record(from: row.attributes) == row.expected)
    }

    @Test(arguments: SchemaCase.unusual)
    func unusualInputMapsToWhatIsThereAndNoMore(row: SchemaCase) {
        #expect(mappers.record(from: row.attributes) == row.expected)
    }

    @Test func aThousandAttributesAroundAShapeStillMapToIt() {
        var attributes = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("extra.\($0)", String($0)) })
        #expect(mappers.record(from: attributes) == .other)
        attributes["service"] = "svc"
        attributes["username"] = "u"
        #expect(attributes.count == 1_002)
        #expect(mappers.record(from: attributes) == SchemaCase.generic("svc", "u"))
        attributes["xdg:schema"] = InternetMapper.networkPasswordSchema
        attributes["server"] = "h"
        #expect(mappers.record(from: attributes) == SchemaCase.internet(nil, "h", user: "u"))
    }

    @Test func theFieldsCarryOnlyWhatIsPresentWithThePortInDecimal() {
        let internet = mappers.record(from: [
            "xdg:schema": InternetMapper.networkPasswordSchema, "server": "h", "port": "0443", "protocol": "https",
            "domain": "",
        ])
        #expect(internet.kind == .internet)
        #expect(internet.fields == ["server": "h", "port": "443", "protocol": "https"])
        #expect(mappers.record(from: ["service": "s", "account": "a"]).fields == ["service": "s", "account": "a"])
        #expect(mappers.record(from: ["xdg:schema": NoteMapper.noteSchema]).fields == [:])
        #expect(mappers.record(from: [:]).kind == .other)
    }

    @Test func anInactiveMappersItemsPassThroughAsOther() throws {
        let genericOnly = try #require(SchemaMappers(named: ["generic"]))
        #expect(genericOnly.record(from: SchemaCase.clients[0].attributes) == .other)
        #expect(genericOnly.record(from: ["server": "h", "protocol": "ftp"]) == .other)
        #expect(genericOnly.record(from: ["service": "svc", "username": "u"]) == SchemaCase.generic("svc", "u"))
        let none = try #require(SchemaMappers(named: []))
        #expect(none.record(from: ["service": "svc", "username": "u"]) == .other)
        #expect(none.record(from: ["xdg:schema": NoteMapper.noteSchema]) == .other)
    }

    @Test func theConfiguredOrderDecidesBetweenShapes() throws {
        let both: Attributes = ["service": "svc", "user": "alice", "server": "h", "protocol": "ssh"]
        #expect(mappers.record(from: both).kind == .internet)
        let genericFirst = try #require(SchemaMappers(named: ["generic", "internet", "note"]))
        #expect(genericFirst.record(from: both) == SchemaCase.generic("svc", "alice"))
        // A schema is owned whatever the order.
        let network = SchemaCase.clients[0].attributes
        #expect(genericFirst.record(from: network.merging(["service": "svc"]) { $1 }).kind == .internet)
    }

    @Test func unknownMapperNamesAreRefused() {
        #expect(SchemaMappers(named: ["internet", "keychain"]) == nil)
        #expect(SchemaMappers(named: ["other"]) == nil)
        #expect(SchemaMappers.names == ["internet", "generic", "note"])
    }

    @Test func theUniqueKeyIsServerUserProtocolAndPort() {
        let a = InternetRecord(protocol: "HTTPS", server: "h", user: "u", port: 443, path: "/a")
        let b = InternetRecord(protocol: "https", server: "h", user: "u", port: 443, path: "/b", domain: "d")
        #expect(a.uniqueKey != nil && a.uniqueKey == b.uniqueKey)
        #expect(a.uniqueKey != InternetRecord(protocol: "https", server: "h", user: "u").uniqueKey)
        #expect(a.uniqueKey != InternetRecord(protocol: "https", server: "H", user: "u", port: 443).uniqueKey)
        #expect(InternetRecord(protocol: "https", user: "u").uniqueKey == nil)
    }

    @Test func theServiceDerivesTheRecordAndHandsBackTheAttributesVerbatim() async throws {
        let fixture = try await Fixture()
        let stored: Attributes = [
            "xdg:schema": InternetMapper.networkPasswordSchema, "server": "bücher.example", "port": "http",
            "domain": "", "user": "a@b:c",
        ]
        let item = try await fixture.store(stored)
        #expect(
            try await fixture.service.typedRecord(of: item) == SchemaCase.internet(nil, "bücher.example", user: "a@b:c")
        )
        #expect(try await fixture.service.itemInfo(item).attributes == stored)
        let generic = try await fixture.store(["service": "svc", "username": "u"])
        #expect(try await fixture.service.typedRecord(of: generic) == SchemaCase.generic("svc", "u"))
    }

    @Test func aCollectionNotUnlockedSinceStartHasNoTypedRecordsUntilItIs() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["service": "svc", "username": "u"])
        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.typedRecord(of: item) == nil)
        try await restarted.unlock(.login, "correct horse")
        #expect(try await restarted.service.typedRecord(of: item) == SchemaCase.generic("svc", "u"))
        // Locked again, the attributes are forgotten as at a restart, and so is the record.
        try await restarted.service.lock([.login])
        #expect(try await restarted.service.typedRecord(of: item) == nil)
    }
}
