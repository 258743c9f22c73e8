// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService
import PuffTesting
import Testing

@testable import PuffServiceBus

/// An item's `Properties.Get` and `GetAll` answered on the bus thread (design core-reshaped §7,
/// issue 27 item 6), bus-free: each call is marshalled to bytes and given to ``FastPath`` and to
/// the router's lane, and both replies are read back the same way.
struct FastPathPropertiesTests {
    typealias H = SecretRouterHarness
    typealias Names = SecretServiceContract

    /// The fast path's reply to `member` on `path`, read back as a client would; nil when it declined.
    static func fast(
        _ harness: H, _ path: String, _ member: String, _ arguments: [DBusValue], readers: PropertyReaders? = nil
    ) throws -> [DBusValue]? {
        let call = try WireCodec.deliver(
            .methodCall(
                destination: Names.busName, path: try #require(ObjectPath(path)),
                interface: try #require(InterfaceName(H.properties)), member: try #require(MemberName(member)),
                arguments),
            from: H.alice, policy: harness.built.decodePolicy)
        guard
            let reply = FastPath.reply(
                to: call, context: CallContext(sender: H.alice), view: harness.service.readView, readers: readers)
        else { return nil }
        return try WireCodec.deliver(reply, from: ":1.0").arguments
    }

    /// Values as text, to compare replies (``DBusValue`` is not `Equatable`: secrets never compare).
    static func text(_ values: [DBusValue]?) -> String? { values.map { "\($0)" } }

    @Test func getAndGetAllOfAnUnlockedItemAnswerWhatTheLaneAnswers() async throws {
        let harness = try await H()
        let item = try await harness.createItem(label: "Mail", attributes: ["service": "mail", "user": "u1"])
        for interface in ["", Names.Interface.item] {
            let lane = try await harness.ok(item, H.properties, "GetAll", [.string(interface)])
            #expect(Self.text(try Self.fast(harness, item, "GetAll", [.string(interface)])) == Self.text(lane))
            guard case .dictionary(_, _, let entries)? = lane.first else {
                Issue.record("GetAll was not answered with a dictionary")
                return
            }
            #expect(entries.compactMap(\.key.string) == FastPath.itemProperties)
        }
        for name in ["Locked", "Attributes", "Label", "Type", "Created", "Modified"] {
            let arguments: [DBusValue] = [.string(Names.Interface.item), .string(name)]
            let lane = try await harness.ok(item, H.properties, "Get", arguments)
            #expect(Self.text(try Self.fast(harness, item, "Get", arguments)) == Self.text(lane), "\(name)")
        }
    }

    @Test func aPropertyReadThereIsNotedForTheItemsLockSignals() async throws {
        let harness = try await H()
        let item = try await harness.createItem()
        let readers = PropertyReaders()
        #expect(try Self.fast(harness, item, "GetAll", [.string("")], readers: readers) != nil)
        #expect(readers.count(of: H.alice) == 1)
        let unknown: [DBusValue] = [.string(Names.Interface.item), .string("Secret")]
        let other = PropertyReaders()
        #expect(try Self.fast(harness, item, "Get", unknown, readers: other) == nil, "the lane answers InvalidArgs")
        #expect(other.count(of: H.alice) == 0)
    }

    @Test func otherObjectsInterfacesAndLockedItemsAreLeftToTheLane() async throws {
        let harness = try await H()
        let item = try await harness.createItem()
        let label: [DBusValue] = [.string(Names.Interface.collection), .string("Label")]
        #expect(try Self.fast(harness, item, "Get", label) == nil)
        #expect(try Self.fast(harness, H.login, "Get", label) == nil)
        #expect(try Self.fast(harness, H.login, "GetAll", [.string("")]) == nil)
        let number = try #require(item.split(separator: "/").last)
        #expect(try Self.fast(harness, H.defaultAlias + "/\(number)", "GetAll", [.string("")]) == nil)
        _ = await harness.service.lock([.collection(.login)], client: ClientID(H.alice))
        #expect(try Self.fast(harness, item, "GetAll", [.string("")]) == nil)
        let lane = try await harness.ok(item, H.properties, "Get", [.string(""), .string("Locked")])
        #expect(lane.first?.variantContents?.bool == true, "the lane answers for the locked item")
    }
}
