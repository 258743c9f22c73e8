// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A detached POSIX thread of its own, not one of the cooperative pool's: for loops that block in
/// system calls (the bus loop's `poll`, the journal committer's `fdatasync`), which would
/// otherwise hold a pool thread (two on a two-core machine).
public enum DedicatedThread {
    /// Starts a detached thread running `body`; `what` names it in the crash when none can start.
    public static func start(_ what: StaticString, _ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        precondition(result == 0, "could not start \(what)")
        pthread_detach(thread)
    }
}
