// SPDX-License-Identifier: Apache-2.0
public import Dispatch
import PuffCrypto

/// Runs work that holds a thread for long (Argon2id, opening every record of a collection,
/// waiting on a passcode pipe) on a Dispatch thread, outside Swift's cooperative pool.
///
/// The cooperative pool has one thread per core (two on the target machine): a key derivation or
/// a pipe read there would stop every other client's calls until it ends. `Task.detached` does not
/// help, as it runs on the same pool.
public enum BlockingWork {
    /// Runs `body` on a Dispatch thread and returns or throws what it did.
    public static func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        try await result(on: nil, body).get()
    }

    /// Runs `body` on `queue` and returns or throws what it did (a serial queue runs such work one at a time).
    public static func run<Value: Sendable, Failure: Error>(
        on queue: DispatchQueue, _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        try await result(on: queue, body).get()
    }

    /// Runs `body` on a Dispatch thread and returns its outcome.
    public static func result<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async -> Result<Value, Failure> {
        await result(on: nil, body)
    }

    /// Runs `body` on `queue` (a concurrent global queue when nil) and returns its outcome.
    static func result<Value: Sendable, Failure: Error>(
        on queue: DispatchQueue?, _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async -> Result<Value, Failure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            (queue ?? .global(qos: .userInitiated)).async {
                let result = Result { () throws(Failure) in try body() }
                // The worker parks with its stack as the work left it: keys and secrets included.
                ProcessProtection.wipeStack()
                continuation.resume(returning: result)
            }
        }
    }
}
