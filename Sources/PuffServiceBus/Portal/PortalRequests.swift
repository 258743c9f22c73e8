// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import Synchronization

/// The portal's `RetrieveSecret` calls in flight, by request handle: who asked (xdg-desktop-portal's
/// connection), the task working out the answer, and the call's ``Replier``. The one owner of
/// that state (docs/design/sandboxed-apps.md §2.2).
///
/// Whoever removes an entry answers its call: the task with its response, a `Request.Close` from
/// the owner or the owner leaving the bus with ``Response/cancelled``. The handle is an object
/// (`org.freedesktop.impl.portal.Request`) exactly while its entry lives.
final class PortalRequests: Sendable {
    /// The portal's response codes (`org.freedesktop.portal.Request.Response`).
    enum Response: UInt32, Sendable {
        /// The key went to the app's pipe.
        case success = 0
        /// Nobody unlocked the collection, or the request was closed.
        case cancelled = 1
        /// Anything else: a bad argument, a full table, a failure.
        case other = 2
    }

    /// What ``start(_:owner:replier:work:)`` did.
    enum Admission: Equatable, Sendable {
        case started
        /// A live request already has this handle.
        case duplicate
        /// ``limit`` requests are pending.
        case full
    }

    /// What ``close(_:by:)`` did.
    enum Closing: Equatable, Sendable {
        /// Cancelled and answered ``Response/cancelled``.
        case closed
        /// The request is another connection's.
        case notOwner
        /// No live request has this handle.
        case unknown
    }

    /// Requests that may be pending at once (a person answers each unlock question in turn).
    static let limit = 32
    /// Where xdg-desktop-portal puts request handles (`…/request/SENDER/TOKEN`).
    static let handlePrefix = "/org/freedesktop/portal/desktop/request/"

    private struct Entry {
        let owner: String
        let replier: Replier
        /// Tells this request from a later one with the same handle.
        let serial: UInt64
        var task: Task<Void, Never>?
    }

    private struct State {
        var entries: [ObjectPath: Entry] = [:]
        var serials: UInt64 = 0
    }

    private let state = Mutex(State())
    private let limit: Int

    /// A table of at most `limit` pending requests.
    init(limit: Int = PortalRequests.limit) {
        self.limit = limit
    }

    /// Whether `handle` is where xdg-desktop-portal puts request handles.
    static func isRequestHandle(_ handle: ObjectPath) -> Bool {
        handle.rawValue.hasPrefix(handlePrefix) && handle.rawValue.count > handlePrefix.count
    }

    /// Starts `work` for the request `handle` of `owner`, unless the handle is live or the table
    /// full; the call is then answered with what `work` returns, if nothing answered it first.
    func start(
        _ handle: ObjectPath, owner: String, replier: Replier,
        work: @escaping @Sendable () async -> Response
    ) -> Admission {
        state.withLock { state in
            guard state.entries[handle] == nil else { return .duplicate }
            guard state.entries.count < limit else { return .full }
            state.serials += 1
            let serial = state.serials
            // Made under the lock: its end (`finish`) cannot look for the entry before it is stored.
            let task = Task {
                let response = await work()
                self.finish(handle, serial, response)
            }
            state.entries[handle] = Entry(owner: owner, replier: replier, serial: serial, task: task)
            return .started
        }
    }

    /// `org.freedesktop.impl.portal.Request.Close` from `sender`.
    func close(_ handle: ObjectPath, by sender: String) -> Closing {
        let entry = state.withLock { state -> Entry? in
            guard let entry = state.entries[handle], entry.owner == sender else { return nil }
            return state.entries.removeValue(forKey: handle)
        }
        guard let entry else { return owner(of: handle) == nil ? .unknown : .notOwner }
        entry.task?.cancel()
        Self.answer(entry.replier, .cancelled)
        return .closed
    }

    /// Cancels every request of `name`, which left the bus, answering each ``Response/cancelled``.
    func ownerLeft(_ name: String) {
        let gone = state.withLock { state -> [Entry] in
            let handles = state.entries.filter { $0.value.owner == name }.map(\.key)
            return handles.compactMap { state.entries.removeValue(forKey: $0) }
        }
        for entry in gone {
            entry.task?.cancel()
            Self.answer(entry.replier, .cancelled)
        }
    }

    /// The connection that made the live request `handle`, or nil.
    func owner(of handle: ObjectPath) -> String? {
        state.withLock { $0.entries[handle]?.owner }
    }

    /// How many requests are pending.
    var count: Int { state.withLock { $0.entries.count } }

    /// Answers `replier` with `response` and no results: the portal forwards none (F5).
    static func answer(_ replier: Replier, _ response: Response) {
        replier.reply([.uint32(response.rawValue), .dictionary(key: "s", value: "v", [])])
    }

    private func finish(_ handle: ObjectPath, _ serial: UInt64, _ response: Response) {
        let entry = state.withLock { state -> Entry? in
            guard state.entries[handle]?.serial == serial else { return nil }
            return state.entries.removeValue(forKey: handle)
        }
        guard let entry else { return }
        Self.answer(entry.replier, response)
    }
}
