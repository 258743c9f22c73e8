// SPDX-License-Identifier: Apache-2.0
public import Foundation

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
        var info = siginfo_t()
        while true {
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 {
                // WNOHANG: a child that has not ended leaves `info` zeroed.
                return info._sifields._sigchld.si_pid == pid ? info._sifields._sigchld.si_status : nil
            }
            if errno != EINTR { break }
        }
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
                let pid = self.processIdentifier
                var info = siginfo_t()
                var result: Int32
                repeat {
                    result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
                } while result != 0 && errno == EINTR
                if result == 0 {
                    continuation.resume(returning: info._sifields._sigchld.si_status)
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
