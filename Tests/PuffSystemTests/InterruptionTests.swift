// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffSystem
import Synchronization
import SystemPackage
import Testing

/// A signal caught while a thread waits in `poll` interrupts the call (`EINTR`: poll is never
/// restarted by the kernel); `SystemCalls.poll` must wait on, not fail.
@Suite(.serialized) struct InterruptionTests {
    /// How many SIGUSR2 the handler has caught.
    static let caught = Atomic<Int>(0)

    /// A thread's id and pthread, and what its poll returned.
    final class Waiter: @unchecked Sendable {
        var tid: pid_t = 0
        var thread = pthread_t()
        var result: Result<Int, Errno>?
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
    }

    /// The calling thread's kernel id, from `/proc/thread-self` (PID/task/TID): Glibc's module has no gettid.
    static func threadID() -> pid_t {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return pid_t(target.split(separator: "/").last.flatMap { Int32($0) } ?? 0)
    }

    /// Catches SIGUSR2 without SA_RESTART, so the interrupted call returns EINTR.
    static func catchSignal() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in InterruptionTests.caught.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGUSR2, &action, nil)
    }

    /// Waits until thread `tid` is blocked in poll or ppoll (x86_64: 7, 271; others: ppoll, 73),
    /// or `gaveUp` says to stop looking.
    static func waitUntilPolling(_ tid: pid_t, unless gaveUp: () -> Bool = { false }) {
        let path = "/proc/self/task/\(tid)/syscall"
        // Not a budget: only a thread that never reaches poll takes this long.
        for _ in 0..<60_000 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if let number = text.split(separator: " ").first.flatMap({ Int($0) }), [7, 271, 73].contains(number) {
                return
            }
            if gaveUp() { return }
            usleep(1000)
        }
        Issue.record("the thread never waited in poll")
    }

    @Test func pollWaitsOnWhenASignalInterruptsIt() throws {
        Self.catchSignal()
        let pipe = try FileDescriptor.pipe()
        let ends = (read: pipe.readEnd, write: pipe.writeEnd)
        defer {
            try? ends.read.close()
            try? ends.write.close()
        }
        let waiter = Waiter()
        let thread = Thread {
            // Threads started from the test runner's workers inherit their mask, which blocks SIGUSR2.
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            waiter.tid = Self.threadID()
            waiter.thread = pthread_self()
            waiter.started.signal()
            var descriptors = [pollfd(fd: ends.read.rawValue, events: Int16(POLLIN), revents: 0)]
            do throws(Errno) {
                waiter.result = .success(try SystemCalls.poll(&descriptors, timeout: -1))
            } catch {
                waiter.result = .failure(error)
            }
            waiter.done.signal()
        }
        thread.start()
        waiter.started.wait()
        Self.waitUntilPolling(waiter.tid)
        let before = Self.caught.load(ordering: .relaxed)
        #expect(pthread_kill(waiter.thread, SIGUSR2) == 0)
        while Self.caught.load(ordering: .relaxed) == before { usleep(1000) }
        // Caught: the poll was interrupted. Either it waits again or it has ended with EINTR.
        Self.waitUntilPolling(waiter.tid) { waiter.result != nil }
        _ = try ends.write.writeAll([1])
        waiter.done.wait()
        #expect(try waiter.result?.get() == 1)
    }
}
