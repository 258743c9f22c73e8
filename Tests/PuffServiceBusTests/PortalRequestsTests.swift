// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffTesting
import Synchronization
import Testing

@testable import PuffServiceBus

/// The replies a request's ``Replier`` sent: the portal's response codes, in order.
final class PortalReplies: Sendable {
    private let messages = Mutex<[OutgoingMessage]>([])

    /// A replier for a call from `sender`, sending here.
    func replier(from sender: String = ":1.4") -> Replier {
        Replier(
            to: IncomingMessage(
                methodCallTo: ObjectPath("/org/freedesktop/portal/desktop")!, interface: nil, member: "RetrieveSecret",
                sender: sender),
            send: { message in self.messages.withLock { $0.append(message) } })
    }

    /// The response code of each reply sent (nil for an error reply).
    var responses: [UInt32?] { messages.withLock { $0.map { $0.body.first?.uint32 } } }
}

/// Work that runs until it is cancelled, then says so.
final class HeldWork: Sendable {
    private let ended = Mutex<Bool?>(nil)
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream()
    }

    /// The work: waits for ``release()`` or cancellation, then answers `response`.
    func body(_ response: PortalRequests.Response = .success) -> @Sendable () async -> PortalRequests.Response {
        {
            for await _ in self.stream {}
            self.ended.withLock { $0 = Task.isCancelled }
            return response
        }
    }

    /// Lets the work finish on its own.
    func release() { continuation.finish() }

    /// Whether the work ran to its end.
    var ran: Bool { ended.withLock { $0 != nil } }

    /// Waits until the work ended; whether it ended cancelled.
    func endedCancelled() async -> Bool? {
        _ = await poll(limit: HangGuard.step) { self.ended.withLock { $0 != nil } }
        return ended.withLock { $0 }
    }
}

/// xdg-desktop-portal's requests in flight (docs/design/sandboxed-apps.md §2.2): a request is
/// answered exactly once, by its work, its owner's `Close` or its owner leaving the bus.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct PortalRequestsTests {
    static let handle = ObjectPath("/org/freedesktop/portal/desktop/request/1_4/t1")!
    static let portal = ":1.4"

    @Test func workThatEndsAnswersWithItsResponse() async {
        let requests = PortalRequests()
        let replies = PortalReplies()
        let work = HeldWork()
        #expect(
            requests.start(Self.handle, owner: Self.portal, replier: replies.replier(), work: work.body()) == .started)
        #expect(requests.owner(of: Self.handle) == Self.portal)
        work.release()
        #expect(await work.endedCancelled() == false)
        #expect(await poll(limit: HangGuard.step) { replies.responses.count == 1 })
        #expect(replies.responses == [0])
        #expect(requests.owner(of: Self.handle) == nil, "the handle is no object once answered")
    }

    @Test func closeFromTheOwnerCancelsTheWorkAndAnswersCancelled() async {
        let requests = PortalRequests()
        let replies = PortalReplies()
        let work = HeldWork()
        _ = requests.start(Self.handle, owner: Self.portal, replier: replies.replier(), work: work.body())
        #expect(requests.close(Self.handle, by: Self.portal) == .closed)
        #expect(await work.endedCancelled() == true)
        #expect(replies.responses == [1], "one answer: the work's own, later, is not sent")
        #expect(requests.count == 0)
    }

    @Test func closeFromAnotherConnectionIsRefusedAndTheRequestGoesOn() async {
        let requests = PortalRequests()
        let replies = PortalReplies()
        let work = HeldWork()
        _ = requests.start(Self.handle, owner: Self.portal, replier: replies.replier(), work: work.body())
        #expect(requests.close(Self.handle, by: ":1.66") == .notOwner)
        #expect(
            requests.close(ObjectPath("/org/freedesktop/portal/desktop/request/1_4/other")!, by: Self.portal)
                == .unknown)
        #expect(replies.responses.isEmpty)
        work.release()
        #expect(await poll(limit: HangGuard.step) { replies.responses == [0] })
    }

    @Test func theOwnerLeavingTheBusCancelsItsRequestsOnly() async {
        let requests = PortalRequests()
        let mine = PortalReplies()
        let theirs = PortalReplies()
        let (first, second, other) = (HeldWork(), HeldWork(), HeldWork())
        let secondHandle = ObjectPath("/org/freedesktop/portal/desktop/request/1_4/t2")!
        let otherHandle = ObjectPath("/org/freedesktop/portal/desktop/request/1_9/t1")!
        _ = requests.start(Self.handle, owner: Self.portal, replier: mine.replier(), work: first.body())
        _ = requests.start(secondHandle, owner: Self.portal, replier: mine.replier(), work: second.body())
        _ = requests.start(otherHandle, owner: ":1.9", replier: theirs.replier(from: ":1.9"), work: other.body())
        requests.ownerLeft(Self.portal)
        #expect(await first.endedCancelled() == true)
        #expect(await second.endedCancelled() == true)
        #expect(mine.responses == [1, 1])
        #expect(theirs.responses.isEmpty)
        #expect(requests.owner(of: otherHandle) == ":1.9")
        other.release()
        #expect(await poll(limit: HangGuard.step) { theirs.responses == [0] })
    }

    @Test func aDuplicateOfALiveHandleIsNotStarted() async {
        let requests = PortalRequests()
        let replies = PortalReplies()
        let work = HeldWork()
        let duplicate = HeldWork()
        _ = requests.start(Self.handle, owner: Self.portal, replier: replies.replier(), work: work.body())
        let admission = requests.start(
            Self.handle, owner: Self.portal, replier: replies.replier(), work: duplicate.body())
        #expect(admission == .duplicate)
        #expect(requests.count == 1)
        work.release()
        #expect(await poll(limit: HangGuard.step) { requests.count == 0 })
        duplicate.release()
        #expect(!duplicate.ran, "the duplicate's work never ran")
    }

    @Test func atMostTheLimitArePendingAndAClosedOneMakesRoom() async {
        let requests = PortalRequests(limit: 32)
        let replies = PortalReplies()
        let works = (0..<33).map { _ in HeldWork() }
        func handle(_ index: Int) -> ObjectPath { ObjectPath("/org/freedesktop/portal/desktop/request/1_4/t\(index)")! }
        for index in 0..<32 {
            #expect(
                requests.start(handle(index), owner: Self.portal, replier: replies.replier(), work: works[index].body())
                    == .started)
        }
        #expect(
            requests.start(handle(32), owner: Self.portal, replier: replies.replier(), work: works[32].body()) == .full)
        #expect(requests.close(handle(0), by: Self.portal) == .closed)
        #expect(
            requests.start(handle(32), owner: Self.portal, replier: replies.replier(), work: works[32].body())
                == .started)
        requests.ownerLeft(Self.portal)
    }

    @Test func onlyPathsUnderTheRequestFolderAreHandles() {
        #expect(PortalRequests.isRequestHandle(Self.handle))
        #expect(!PortalRequests.isRequestHandle(ObjectPath("/org/freedesktop/portal/desktop/request")!))
        #expect(!PortalRequests.isRequestHandle(ObjectPath("/org/freedesktop/secrets/collection/login")!))
        #expect(!PortalRequests.isRequestHandle(ObjectPath("/org/freedesktop/portal/desktop")!))
    }
}
