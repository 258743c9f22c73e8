// SPDX-License-Identifier: Apache-2.0
import DequeModule
public import PuffService

/// A ``Prompter`` for tests: records every request and answers it from a script, or holds it until
/// the test releases it, so tests can observe cancellation.
public actor ScriptedPrompter: Prompter {
    /// `"scripted"`.
    public static let kind = "scripted"

    /// How to answer one request.
    public enum Step: Sendable {
        /// Answer at once.
        case reply(PromptReply)
        /// Throw ``ScriptedPrompterError``.
        case fail
        /// Wait until ``release(with:)`` or cancellation.
        case hold
    }

    private var script: [Step]
    private let fallback: Step
    private var held: Deque<(id: Int, continuation: CheckedContinuation<PromptReply?, Never>)> = []
    private var nextHoldID = 0
    /// Every request received, in order.
    public private(set) var requests: [PromptRequest] = []
    /// How many held requests ended by task cancellation.
    public private(set) var cancellations = 0

    /// Creates a prompter that answers requests with `script` in order, then with `fallback`.
    public init(_ script: [Step] = [], fallback: Step = .reply(.dismissed)) {
        self.script = script
        self.fallback = fallback
    }

    /// How many requests are currently held.
    public var heldCount: Int { held.count }

    /// Records `request` and answers it from the script.
    public func prompt(_ request: PromptRequest) async throws -> PromptReply {
        requests.append(request)
        let step = script.isEmpty ? fallback : script.removeFirst()
        switch step {
        case .reply(let reply):
            return reply
        case .fail:
            throw ScriptedPrompterError.scripted
        case .hold:
            nextHoldID += 1
            let id = nextHoldID
            let reply = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<PromptReply?, Never>) in
                    if Task.isCancelled {
                        continuation.resume(returning: nil)
                    } else {
                        held.append((id, continuation))
                    }
                }
            } onCancel: {
                Task { await self.cancelHeld(id) }
            }
            guard let reply else {
                cancellations += 1
                throw CancellationError()
            }
            return reply
        }
    }

    /// Answers the oldest held request with `reply`.
    ///
    /// - Returns: false when nothing was held.
    @discardableResult
    public func release(with reply: PromptReply) -> Bool {
        guard let oldest = held.popFirst() else { return false }
        oldest.continuation.resume(returning: reply)
        return true
    }

    /// Waits (in real time, polling) until `count` requests are held.
    @discardableResult
    public func waitUntilHolding(_ count: Int, limit: Duration = HangGuard.step) async -> Bool {
        await poll(limit: limit) { await self.heldCount >= count }
    }

    /// Waits (in real time, polling) until `count` held requests were cancelled.
    @discardableResult
    public func waitForCancellations(_ count: Int, limit: Duration = HangGuard.step) async -> Bool {
        await poll(limit: limit) { await self.cancellations >= count }
    }

    private func cancelHeld(_ id: Int) {
        guard let index = held.firstIndex(where: { $0.id == id }) else { return }
        held.remove(at: index).continuation.resume(returning: nil)
    }
}

/// What a ``ScriptedPrompter`` throws for a `.fail` step.
public enum ScriptedPrompterError: Error, Sendable {
    /// The script said to fail.
    case scripted
}
