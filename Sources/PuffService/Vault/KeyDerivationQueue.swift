// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Runs Argon2id on a thread of its own, one derivation at a time, never on Swift's cooperative
/// pool.
///
/// A key derivation blocks its thread for up to a second. The pool has one thread per core (two
/// on this project's machine), so two derivations there at once stalled every other task of the
/// process: other clients' calls, prompt completions, timers. One at a time also bounds the
/// memory derivations take together (256 MiB each with the default parameters).
enum KeyDerivationQueue {
    private static let queue = DispatchQueue(label: "puff.key-derivation")

    /// Runs `work` on the derivation thread and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
