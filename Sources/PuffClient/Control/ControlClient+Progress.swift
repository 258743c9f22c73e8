// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import Synchronization

/// One `Progress` signal of `io.puff.Control1`: `done` of `total` `unit` of a running call.
public struct ProgressUpdate: Sendable, Equatable {
    public var done: UInt64
    public var total: UInt64
    /// `records`, `items` or `bytes`; `""` for a unit puffctl does not know.
    public var unit: String

    /// An update of `done` of `total` `unit`.
    public init(done: UInt64, total: UInt64, unit: String) {
        self.done = done
        self.total = total
        self.unit = unit
    }

    /// The units puffctl shows; anything else is shown as none.
    static let knownUnits: Set<String> = ["records", "items", "bytes"]
}

/// Hands the `Progress` signals puffd unicasts to this connection to whoever waits on the call
/// they describe. One task reads the connection's messages for the client's whole life (an
/// `AsyncStream` has one reader, and cancelling it would end the stream).
///
/// A call's reply reaches its caller directly, while signals wait in that stream: the last
/// `Progress` (done = total), sent before the reply, may not have been read when the reply is
/// in. ``flush(_:)`` waits for them by sending this connection a signal of its own, which
/// arrives behind everything received before it.
final class ProgressRelay: Sendable {
    private struct State {
        var listening = false
        var operation: String?
        var handler: (@Sendable (ProgressUpdate) -> Void)?
        var flushes: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextFlush: UInt64 = 0
    }

    /// The member of the signal ``flush(_:)`` sends to its own connection.
    static let flushMember: MemberName = "ProgressFlush"
    /// How long ``flush(_:)`` waits for its signal before it gives up (a bus that would not
    /// route it): only the last report can be missed then, never the call's result.
    static let flushLimit: Duration = .seconds(5)

    private let state = Mutex(State())

    /// Starts reading `connection`'s messages, once: signals are taken only from the owner of
    /// `busName` (another client of the same user could send `Progress` to us too).
    func listen(on connection: BusConnection, busName: String) {
        let start = state.withLock { state in
            defer { state.listening = true }
            return !state.listening
        }
        guard start, let name = BusName(busName) else { return }
        let messages = connection.messages
        Task { [weak connection] in
            var owner: String?
            for await message in messages {
                if message.kind == .signal, message.member == Self.flushMember.rawValue,
                    message.sender == connection?.uniqueName, case .uint64(let id)? = message.arguments.first
                {
                    flushed(id)
                    continue
                }
                guard message.kind == .signal, message.path == ControlNames.path,
                    message.interface == ControlNames.interface.rawValue, message.member == "Progress",
                    message.arguments.count == 4, case .string(let operation) = message.arguments[0],
                    case .uint64(let done) = message.arguments[1], case .uint64(let total) = message.arguments[2],
                    case .string(let unit) = message.arguments[3]
                else { continue }
                if owner == nil { owner = try? await connection?.nameOwner(of: name) }
                guard let owner, message.sender == owner else { continue }
                let update = ProgressUpdate(
                    done: done, total: total, unit: ProgressUpdate.knownUnits.contains(unit) ? unit : "")
                deliver(update, for: operation)
            }
        }
    }

    /// Routes `operation`'s signals to `handler` until ``stop()``.
    func start(_ operation: String, _ handler: @escaping @Sendable (ProgressUpdate) -> Void) {
        state.withLock {
            $0.operation = operation
            $0.handler = handler
        }
    }

    /// Drops what arrives from now on.
    func stop() {
        state.withLock {
            $0.operation = nil
            $0.handler = nil
        }
    }

    /// Returns once every message `connection` received before now has been read: the
    /// `Progress` signals sent before a reply just received are then delivered.
    func flush(_ connection: BusConnection) async {
        let id = state.withLock { state in
            defer { state.nextFlush += 1 }
            return state.nextFlush
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { $0.flushes[id] = continuation }
            connection.send(
                .signal(
                    path: ControlNames.path, interface: ControlNames.interface, member: Self.flushMember,
                    destination: connection.uniqueName, [.uint64(id)]))
            // Does nothing once the signal is back.
            Task { [weak self] in
                try? await Task.sleep(for: Self.flushLimit)
                self?.flushed(id)
            }
        }
    }

    private func flushed(_ id: UInt64) {
        state.withLock { $0.flushes.removeValue(forKey: id) }?.resume()
    }

    private func deliver(_ update: ProgressUpdate, for operation: String) {
        let handler = state.withLock { $0.operation == operation ? $0.handler : nil }
        handler?(update)
    }
}

extension ControlClient {
    /// Runs `body`, one call of `operation`, while its `Progress` signals go to `progress`.
    func observingProgress<T>(
        _ operation: ControlContract.Method, _ progress: (@Sendable (ProgressUpdate) -> Void)?,
        _ body: () async throws(ClientError) -> T
    ) async throws(ClientError) -> T {
        guard let progress else { return try await body() }
        relay.listen(on: connection, busName: busName)
        relay.start(operation.name, progress)
        defer { relay.stop() }
        let result = try await body()
        await relay.flush(connection)
        return result
    }
}
