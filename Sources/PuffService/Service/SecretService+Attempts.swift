// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffConcurrency
import PuffStore

/// Who holds each collection's passcode-attempt turn, and who waits for it, in arrival order.
struct AttemptTurns {
    private var busy: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Takes `key`'s turn if free (true); otherwise the caller must wait with ``enqueue(_:_:)``.
    mutating func take(_ key: String) -> Bool {
        busy.insert(key).inserted
    }

    mutating func enqueue(_ key: String, _ waiter: CheckedContinuation<Void, Never>) {
        waiters[key, default: []].append(waiter)
    }

    /// Gives `key`'s turn up: to the longest waiter (returned, to be resumed), or free.
    mutating func give(_ key: String) -> CheckedContinuation<Void, Never>? {
        guard var queue = waiters[key], !queue.isEmpty else {
            busy.remove(key)
            return nil
        }
        let next = queue.removeFirst()
        waiters[key] = queue.isEmpty ? nil : queue
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
    /// for the turn, then for what is left of the delay of a failure from before a restart
    /// (the `attempts` file), then runs `body`. A wrong passcode (`body` throws
    /// ``ServiceError/wrongPasscode``) is counted, saved and answered after the doubling delay,
    /// the turn still held; a right one clears the count. Waits hold no call slot.
    func passcodeAttempt<Value>(
        _ key: String, _ body: () async throws(ServiceError) -> Value
    ) async throws(ServiceError) -> Value {
        await takeAttemptTurn(key)
        defer { giveAttemptTurn(key) }
        await waitOutEarlierFailure(key)
        do throws(ServiceError) {
            let value = try await body()
            if failedAttempts.removeValue(forKey: key) != nil { await saveAttempts() }
            return value
        } catch .wrongPasscode {
            let count = (failedAttempts[key]?.count ?? 0) + 1
            failedAttempts[key] = PasscodeAttempts.Failures(count: count, last: now())
            delaysServed.remove(key)
            await saveAttempts()
            logger.notice(
                "Wrong passcode",
                metadata: ["collection.id": "\(key.isEmpty ? "(hidden)" : key)", "attempt": "\(count)"])
            if await sleepReleased(Self.delay(afterFailures: count)) { delaysServed.insert(key) }
            throw .wrongPasscode
        }
    }

    /// Sleeps on ``clock`` without holding a call slot; false when cancelled first.
    private func sleepReleased(_ duration: Duration) async -> Bool {
        let clock = self.clock
        return (try? await CallSlot.released { () async throws in try await Self.sleep(on: clock, for: duration) })
            != nil
    }

    /// After a restart, waits until the delay of the last failure (saved with its time) is over.
    private func waitOutEarlierFailure(_ key: String) async {
        guard let failures = failedAttempts[key], !delaysServed.contains(key) else { return }
        let delay = Self.delay(afterFailures: failures.count)
        let seconds = UInt64(delay.components.seconds) + (delay.components.attoseconds > 0 ? 1 : 0)
        let (end, current) = (failures.last + seconds, now())
        if end > current, !(await sleepReleased(.seconds(end - current))) { return }
        delaysServed.insert(key)
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
