// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffFormats
import PuffTesting
import Testing

@testable import PuffClient

/// puffd's replies grow with the collection: an import of 20,000 items or a listing of 40,000 is
/// one reply past the bus layer's default decoding limits (262,144 values, 4 MiB), which puffctl
/// must still read.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LargeReplyTests {
    private static let count = 20_000

    private static func entries(_ count: Int = count, _ make: (Int) -> [(String, DBusValue)]) -> DBusValue {
        .array(element: "a{sv}", (0..<count).map { Replies.dictionary(make($0)) })
    }

    @Test func anImportOf20000ItemsReportsEveryItemInsteadOfAnUnexpectedReply() async throws {
        let fake = try await FakeControl()
        fake.reply(
            to: "ImportItems",
            with: [
                Self.entries { index in
                    [
                        ("outcome", .string("added")), ("index", .uint32(UInt32(index))),
                        ("label", .string("imported item number \(index)")), ("reason", .string("")),
                        ("path", .objectPath(ObjectPath("/org/freedesktop/secrets/collection/work/\(index + 1)")!)),
                    ]
                }
            ])
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        let lines = try await client.importItems(
            [PortableItem(label: "mail", attributes: ["user": "a"], secret: SecureBytes(unwipedCopyOf: [1]))],
            into: "work", dryRun: false)
        #expect(lines.count == Self.count)
        #expect(lines.last?.label == "imported item number \(Self.count - 1)")
    }

    @Test func aListingOf40000ItemsArrivesWhole() async throws {
        let fake = try await FakeControl()
        fake.reply(
            to: "ListItems",
            with: [
                Self.entries(2 * Self.count) { index in
                    [
                        ("path", .objectPath(ObjectPath("/org/freedesktop/secrets/collection/work/\(index + 1)")!)),
                        ("label", .string("item \(index)")),
                    ]
                }
            ])
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        #expect(try await client.listItems(in: "work").count == 2 * Self.count)
    }
}
