// SPDX-License-Identifier: Apache-2.0
import DequeModule
import Logging
import PuffConcurrency
import PuffStore

/// Who holds each collection's passcode-attempt turn, and who waits for it, in arrival order.
struct AttemptTurns {
    private var busy: Set<String> = []
    private var waiters: [String: Deque<CheckedContinuation<Void, Never>>] = [:]

    /// Takes `key`'s turn if free (true); otherwise the caller must wait with ``enqueue(_:_:)``.
    mutating func take(_ key: String) -> Bool {
        busy.insert(key).inserted
    }

    mutating func enqueue(_ key: String, _ waiter: CheckedContinuation<Void, Never>) {
        waiters[key, default: []].append(waiter)
    }

    /// How many callers wait for `key`'s turn (for tests).
    func waiting(_ key: String) -> Int { waiters[key]?.count ?? 0 }

    /// Gives `key`'s turn up: to the longest waiter (returned, to be resumed), or free.
    mutating func give(_ key: String) -> CheckedContinuation<Void, Never>? {
        // Popped in place: a copy of the queue out of the dictionary would copy every waiter.
        guard let next = waiters[key]?.popFirst() else {
            waiters[key] = nil
            busy.remove(key)
            return nil
        }
        if waiters[key]?.isEmpty == true { waiters[key] = nil }
        return next
    }
}

extension SecretService {
    /// The delay after `count` wrong passcodes in a row: 0.5 s, doubling, at most 30 s.
    static func delay(afterFailures count: Int) -> Duration {
        min(Duration.milliseconds(500) * (1 << min(max(count, 1) - 1, 6)), .seconds(30))
    }

    /// Runs one passcode attempt on `key`'s collection (`""`: the hidden ones) (issue 24 item 11).
    ///
    /// Attempts on one collection run one at a time, whichever connection sent them: each waits
    /// for the turn, then for what is left of the delay of the last wrong passcode (also one
    /// from before a restart, by the `attempts` file), then runs `body`. A wrong passcode (`body`
    /// throws ``ServiceError/wrongPasscode(_:)``) is counted, saved and answered at once with the
    /// doubling delay the next try waits (issue 24 item 22: announced, not waited in silence); a
    /// right one clears the count. Waits hold no call slot; a call cancelled while it waits is
    /// not tried.
    func passcodeAttempt<Value>(
        _ key: String, _ body: () async throws(ServiceError) -> Value
    ) async throws(ServiceError) -> Value {
        await takeAttemptTurn(key)
        defer { giveAttemptTurn(key) }
        guard await waitOutLastFailure(key) else { throw .failed("the call was cancelled") }
        do throws(ServiceError) {
            let value = try await body()
            nextTries[key] = nil
            if failedAttempts.removeValue(forKey: key) != nil { await saveAttempts() }
            return value
        } catch .wrongPasscode {
            let count = (failedAttempts[key]?.count ?? 0) + 1
            let delay = Self.delay(afterFailures: count)
            failedAttempts[key] = PasscodeAttempts.Failures(count: count, last: now())
            nextTries[key] = timeline.now + delay
            await saveAttempts()
            logger.notice(
                "Wrong passcode",
                metadata: ["collection.id": "\(key.isEmpty ? "(hidden)" : key)", "attempt": "\(count)"])
            throw .wrongPasscode(PasscodeRetry(attempt: count, delay: delay))
        }
    }

    /// Waits, without holding a call slot, until the delay of `key`'s last wrong passcode is
    /// over: one of this run by ``timeline``, one of an earlier run by the time saved with it.
    /// False when cancelled first.
    private func waitOutLastFailure(_ key: String) async -> Bool {
        if nextTries[key] == nil, let failures = failedAttempts[key] {
            let delay = Self.delay(afterFailures: failures.count)
            let seconds = UInt64(delay.components.seconds) + (delay.components.attoseconds > 0 ? 1 : 0)
            let (end, current) = (failures.last + seconds, now())
            nextTries[key] = timeline.now + .seconds(end > current ? end - current : 0)
        }
        guard let due = nextTries[key], due > timeline.now else { return true }
        let timeline = self.timeline
        return (try? await CallSlot.released { () async throws in try await timeline.sleep(until: due) }) != nil
    }

    private func takeAttemptTurn(_ key: String) async {
        guard !attemptTurns.take(key) else { return }
        await CallSlot.released {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                attemptTurns.enqueue(key, waiter)
            }
        }
    }

    private func giveAttemptTurn(_ key: String) {
        attemptTurns.give(key)?.resume()
    }

    /// Writes the wrong-passcode counts to the vault's `attempts` file; a failure is logged (the
    /// delay still applies in this run).
    private func saveAttempts() async {
        do {
            try await store.replacePasscodeAttempts(PasscodeAttempts(failures: failedAttempts).encoded())
        } catch {
            logger.warning("The wrong-passcode counts could not be saved", metadata: ["error": "\(error)"])
        }
    }

    /// The wrong-passcode counts saved by an earlier run; none when the file is missing or damaged.
    static func loadAttempts(from store: any RecordStore, logger: Logger) async -> [String: PasscodeAttempts.Failures] {
        do {
            guard let bytes = try await store.passcodeAttempts() else { return [:] }
            guard let attempts = PasscodeAttempts(decoding: bytes) else {
                logger.warning("The wrong-passcode counts are malformed; starting from none")
                return [:]
            }
            return attempts.failures
        } catch {
            logger.warning("The wrong-passcode counts could not be read", metadata: ["error": "\(error)"])
            return [:]
        }
    }
}
