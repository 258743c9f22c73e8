// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffFormats
import Testing

@testable import PuffClient

/// What `import --bus` takes of an Item's properties: attributes exactly, the item type only where
/// no `xdg:schema` is given, no time for a provider that reports 0, and nothing malformed.
@Suite struct LiveItemDescriptionTests {
    let path = ObjectPath("/org/freedesktop/secrets/collection/login/1")!

    func attributes(_ pairs: [(String, String)]) -> DBusValue {
        .dictionary(key: "s", value: "s", pairs.map { .init(.string($0.0), .string($0.1)) })
    }

    func failure(_ properties: [String: DBusValue]) -> String? {
        do {
            _ = try LiveItemDescription(path: path, properties: properties)
            return nil
        } catch {
            guard case .liveSource(let reason) = error else { return "\(error)" }
            return reason
        }
    }

    @Test func anAttributeNamedTwiceIsRefusedNotResolved() {
        let twice = attributes([("user", "alice"), ("user", "mallory")])
        #expect(
            failure(["Label": .string("x"), "Attributes": twice])
                == "a malformed reply: item \(path.rawValue) names an attribute twice")
    }

    @Test func attributesThatAreNotStringPairsAreRefused() {
        let strings = DBusValue.strings(["user", "alice"])
        #expect(
            failure(["Attributes": strings]) == "a malformed reply: the Attributes of \(path.rawValue) are not a{ss}")
        #expect(
            failure(["Label": .string("x")]) == "a malformed reply: item \(path.rawValue) has no Attributes property")
    }

    @Test func aValueOverTheBatchBoundIsRefusedWithoutQuotingIt() {
        let long = String(repeating: "v", count: PortableBatch.maximumStringBytes + 1)
        let reason = failure(["Attributes": attributes([("big", long)])])
        #expect(
            reason == "an attribute value of \(path.rawValue) is longer than \(PortableBatch.maximumStringBytes) bytes")
    }

    @Test func theTypeBecomesTheSchemaOnlyWhereNoneIsGiven() throws {
        let typed = try LiveItemDescription(
            path: path,
            properties: [
                "Attributes": attributes([("server", "example.org")]),
                "Type": .string("org.gnome.keyring.NetworkPassword"),
            ])
        #expect(typed.attributes == ["server": "example.org", "xdg:schema": "org.gnome.keyring.NetworkPassword"])
        let explicit = try LiveItemDescription(
            path: path,
            properties: [
                "Attributes": attributes([("xdg:schema", "org.example.Custom")]),
                "Type": .string("org.gnome.keyring.Note"),
            ])
        #expect(explicit.attributes == ["xdg:schema": "org.example.Custom"])
    }

    @Test func timesAreKeptAndAZeroTimeIsNone() throws {
        let item = try LiveItemDescription(
            path: path,
            properties: ["Attributes": attributes([]), "Created": .uint64(1_551_675_967), "Modified": .uint64(0)])
        #expect(item.created == 1_551_675_967)
        #expect(item.modified == nil)
    }
}
