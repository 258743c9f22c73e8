// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The one answer to a call whose method replies later (``Method/init(_:in:out:deferred:)``):
/// the router hands it to the method's body, which returns at once, so the caller's lane moves
/// on while the answer is worked out elsewhere.
///
/// Only the first ``reply(_:)`` or ``fail(_:)`` is sent; later ones do nothing. A replier dropped
/// without an answer sends `Failed`, so no caller waits for a reply that will never come. It keeps
/// only what addresses the reply, not the call's arguments (a descriptor in them stays the
/// method's to keep or drop).
public final class Replier: Sendable {
    private let serial: UInt32
    private let destination: String?
    private let expectsReply: Bool
    private let send: @Sendable (OutgoingMessage) -> Void
    private let answered = Atomic<Bool>(false)

    /// A replier for `call`, sending through `send`.
    public init(to call: IncomingMessage, send: @escaping @Sendable (OutgoingMessage) -> Void) {
        serial = call.serial
        destination = call.sender
        expectsReply = call.expectsReply
        self.send = send
    }

    /// Sends `body` as the reply, unless the call was answered already; says whether it was sent.
    @discardableResult
    public func reply(_ body: [DBusValue]) -> Bool {
        guard claim() else { return false }
        if expectsReply {
            send(OutgoingMessage(kind: .methodReturn(replySerial: serial), destination: destination, body: body))
        }
        return true
    }

    /// Sends `error` as the reply, unless the call was answered already; says whether it was sent.
    @discardableResult
    public func fail(_ error: DBusError) -> Bool {
        guard claim() else { return false }
        if expectsReply { send(Self.errorMessage(error, serial: serial, destination: destination)) }
        return true
    }

    /// Whether the call has its answer.
    public var isAnswered: Bool { answered.load(ordering: .acquiring) }

    /// Takes the one answer for the caller (the router, when the body throws before answering).
    func claim() -> Bool {
        answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    deinit {
        guard claim(), expectsReply else { return }
        let error = DBusError(.failed, "the call ended without an answer")
        send(Self.errorMessage(error, serial: serial, destination: destination))
    }

    private static func errorMessage(_ error: DBusError, serial: UInt32, destination: String?) -> OutgoingMessage {
        OutgoingMessage(
            kind: .error(replySerial: serial, name: error.name, text: error.message), destination: destination,
            body: [.string(error.message)])
    }
}
