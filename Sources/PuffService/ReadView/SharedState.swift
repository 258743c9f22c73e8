// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A value the ``SecretService`` actor owns that the bus thread reads (design core-reshaped §7):
/// the actor alone writes it, always under the lock (``modify``, short sections with no `await`
/// inside); the actor reads it without the lock, since nobody else writes it; any other thread
/// reads it under the lock (``read(_:)``).
///
/// The lock is recursive: a write to one value a holder shares (a collection's items, then its
/// settings) never waits for itself.
final class SharedState<Value>: @unchecked Sendable {
    private var stored: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ value: Value) {
        stored = value
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The value, for its owner: read without the lock, written under it.
    var value: Value {
        _read { yield stored }
        _modify {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            yield &stored
        }
    }

    /// Runs `body` on the value under the lock: how a thread other than the owner's reads it.
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(stored)
    }
}
