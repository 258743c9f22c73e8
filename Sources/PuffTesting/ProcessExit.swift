// SPDX-License-Identifier: Apache-2.0
public import Foundation
import PuffSystem

/// A child's end as the kernel reports it, for children Foundation's `Process` started.
///
/// Foundation learns that a child ended only when a socket it gave the child reaches its end of
/// file; then it reaps the child and clears `isRunning`. But the test runner starts children from
/// many tests at once, and Foundation closes a new child's descriptors from a list it made before
/// spawning: a descriptor opened by another test in between is inherited as well, such as the
/// socket of a child spawned at that moment. While the long-lived child that inherited it (a bus,
/// a daemon) runs, the other child stays "running" to Foundation after it exited, a zombie: CI saw
/// a puffd that had logged its last line still "running" 120 s later. `waitid` with `WNOWAIT` asks
/// the kernel instead and leaves the reaping to Foundation, so the pid is not reused meanwhile.
extension Process {
    /// How the child ended: its exit code, or the number of the signal that ended it (as
    /// `terminationStatus`); nil while it runs.
    public var exitStatus: Int32? {
        let pid = processIdentifier
        guard pid > 0 else { return nil }
        if let status = try? SystemCalls.peekExit(pid, blocking: false) { return status }
        // ECHILD: Foundation has reaped it already, and says so once it has noted the status.
        return isRunning ? nil : terminationStatus
    }

    /// Whether the child has ended (``exitStatus``), whatever Foundation's `isRunning` says.
    public var hasExited: Bool { exitStatus != nil }

    /// Waits until the child ends and returns ``exitStatus``, without holding a Swift concurrency
    /// thread: a thread of its own blocks in `waitid` (leaving the reaping to Foundation).
    public func exitStatusWhenEnded() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                if let status = try? SystemCalls.peekExit(self.processIdentifier, blocking: true) {
                    continuation.resume(returning: status)
                    return
                }
                // ECHILD: Foundation reaped it first, and clears `isRunning` as soon as it has
                // noted the status.
                while self.isRunning { usleep(1000) }
                continuation.resume(returning: self.terminationStatus)
            }
        }
    }
}
