// SPDX-License-Identifier: Apache-2.0
import CDBus
import Glibc
import PuffTesting
import Testing

@testable import PuffDBus

/// `h` through libdbus's own message functions, with no bus: `MessageWriter` appends into a real
/// `DBusMessage`, which keeps its descriptors, and `MessageReader` reads them back out of it.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes))) struct UnixFDTests {
    /// Builds a libdbus message carrying `values`, runs `body` on it, and releases it.
    private static func withMessage<T>(_ values: [DBusValue], _ body: (OpaquePointer) throws -> T) throws -> T {
        let message = try OutgoingMessage.signal(
            path: ObjectPath("/t")!, interface: "org.puff.T", member: "T", values
        ).build()
        defer { dbus_message_unref(message) }
        return try body(message)
    }

    @Test func aDescriptorEncodesAsSignatureHAndDecodesToTheSameOpenFile() throws {
        let payload = Array("correct horse battery staple".utf8)
        let sent = try Descriptors.readEnd(holding: payload)
        let decoded = try Self.withMessage([.string("login"), .unixFD(sent)]) { message in
            #expect(dbus_message_get_signature(message).map { String(cString: $0) } == "sh")
            #expect(dbus_message_contains_unix_fds(message) != 0)
            return IncomingMessage(message, policy: .standard)
        }
        #expect(decoded.undecodedBody == nil)
        #expect(decoded.signature == "sh")
        let received = try #require(decoded.arguments.last?.unixFD)
        #expect(received.rawValue != sent.rawValue, "the reader owns a duplicate, not the sender's descriptor")
        #expect(try Descriptors.readToEnd(received.rawValue) == payload)
    }

    @Test func aDecodedDescriptorIsClosedWhenTheLastValueHoldingItIsReleased() throws {
        let (watched, peer) = try Descriptors.pair()
        var decoded: IncomingMessage? = try Self.withMessage([.unixFD(watched)]) {
            IncomingMessage($0, policy: .standard)
        }
        let number = try #require(decoded?.arguments.first?.unixFD?.rawValue)
        // Now only the decoded value holds the socket open: the sender's end and libdbus's copy
        // in the message are gone.
        _ = consume watched
        #expect(fcntl(number, F_GETFD) >= 0)
        #expect(!Descriptors.otherEndIsClosed(peer), "the decoded descriptor must still be open")
        decoded = nil
        #expect(Descriptors.otherEndCloses(peer), "releasing the decoded value must close its descriptor")
    }

    @Test func duplicatingSomethingThatIsNotADescriptorThrowsEBADF() {
        // Not a closed descriptor's number: another test could open a file under it meanwhile.
        #expect(throws: UnixFD.Error(errno: EBADF)) { _ = try UnixFD.duplicating(-1) }
    }

    @Test func aDuplicateOutlivesTheOriginal() throws {
        let payload: [UInt8] = [1, 2, 3]
        var original: UnixFD? = try Descriptors.readEnd(holding: payload)
        let copy = try UnixFD.duplicating(try #require(original?.rawValue))
        original = nil
        #expect(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(try Descriptors.readToEnd(copy.rawValue) == payload)
    }

    /// A marshalled signal whose body is one `h` (index 0) and which, being bytes, carries no
    /// descriptor.
    private static func hWithoutDescriptor() throws -> IncomingMessage {
        var bytes = try WireCodec.encode([.uint32(0)])
        // The header's SIGNATURE field (code 8, variant type "g") holds "u"; make it "h".
        let field: [UInt8] = [8, 1, UInt8(ascii: "g"), 0, 1, UInt8(ascii: "u"), 0]
        let start = try #require(
            bytes.indices.first { bytes[$0...].starts(with: field) }, "the signature field is where the spec puts it")
        bytes[start + 5] = UInt8(ascii: "h")
        return try WireCodec.decode(bytes)
    }

    /// `dbus_message_demarshal` (the fuzz target's path) never carries descriptors, so an `h`
    /// there must be refused, not decoded as -1 or trapped on.
    @Test func anHInMarshalledBytesIsRefusedBecauseNoDescriptorCameWithIt() throws {
        let message = try Self.hWithoutDescriptor()
        #expect(message.signature == "h")
        #expect(message.undecodedBody == .missingUnixFD)
        #expect(message.arguments.isEmpty)
    }

    @Test func aCallWhoseDescriptorDidNotArriveIsInvalidArgsThatSaysSoAndNeverReachesTheHandler() async throws {
        struct Tree: ObjectTree {
            func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
                let take = Method("Take", in: [Argument("fd", "h")]) { _ in [.string("handler ran")] }
                return ResolvedObject(interfaces: [Interface("org.puff.T", methods: [take])], object: "t")
            }
            func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
        }
        var message = try Self.hWithoutDescriptor()
        message.kind = .methodCall
        message.member = "Take"
        message.sender = ":1.5"
        message.expectsReply = true
        let router = Router(tree: Tree()) { _ in DBusError(.failed, "") }
        let reply = await router.handle(message, context: CallContext(sender: ":1.5"))
        guard case .error(_, let name, let text)? = reply?.kind else {
            Issue.record("expected an error reply")
            return
        }
        #expect(name == .invalidArgs)
        #expect(text == "a Unix file descriptor argument of Take did not arrive")
    }

    @Test func eachDescriptorCountsAsAValueTowardTheDecodeLimit() throws {
        let (first, _) = try Descriptors.pair()
        let (second, _) = try Descriptors.pair()
        let (one, two) = try Self.withMessage([.unixFD(first), .unixFD(second)]) { message in
            (
                IncomingMessage(message, policy: DecodePolicy(maxValues: 1)),
                IncomingMessage(message, policy: DecodePolicy(maxValues: 2))
            )
        }
        #expect(one.undecodedBody == .limitExceeded("a message may hold at most 1 values"))
        #expect(one.arguments.isEmpty)
        #expect(two.undecodedBody == nil)
        #expect(two.arguments.count == 2)
    }

    @Test func aMethodTakingHIsDecodedWhenThePolicyListsItsSignature() throws {
        let policy = DecodePolicy(methodSignatures: ["Unlock": ["sh"]])
        let sent = try Descriptors.readEnd(holding: [7])
        let message = try OutgoingMessage.methodCall(
            destination: ":1.1", path: ObjectPath("/io/puff/Control")!, interface: "io.puff.Control1",
            member: "Unlock", [.string(""), .unixFD(sent)]
        ).build()
        defer { dbus_message_unref(message) }
        let decoded = IncomingMessage(message, policy: policy)
        #expect(decoded.undecodedBody == nil)
        #expect(decoded.arguments.last?.unixFD != nil)
    }
}
