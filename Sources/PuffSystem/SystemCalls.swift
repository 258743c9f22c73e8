// SPDX-License-Identifier: Apache-2.0
public import SystemPackage

#if canImport(Glibc)
    public import Glibc
#endif

/// The system calls swift-system does not wrap, retried when a signal interrupts them (`EINTR`)
/// here and nowhere else in Puff.
public enum SystemCalls {
    /// `poll(2)` over `descriptors`; returns how many are ready (0 when `timeout` milliseconds
    /// passed, -1 waits for ever). An interrupted wait starts again with the whole timeout, so a
    /// caller with a deadline recomputes it on each call.
    public static func poll(_ descriptors: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
        while true {
            let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready >= 0 { return Int(ready) }
            let code = Errno(rawValue: errno)
            if code != .interrupted { throw code }
        }
    }

    /// `accept(2)` on `listener`: the new connection's descriptor, close-on-exec.
    public static func accept(_ listener: Int32) throws(Errno) -> Int32 {
        while true {
            let connection = Glibc.accept(listener, nil, nil)
            if connection >= 0 {
                // Not inherited by the programs a test starts (Glibc hides accept4).
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                return connection
            }
            let code = Errno(rawValue: errno)
            if code != .interrupted { throw code }
        }
    }

    /// `poll(2)` on one descriptor for `events`; true when it is ready.
    public static func wait(for events: Int16, on descriptor: Int32, timeout: Int32) throws(Errno) -> Bool {
        var descriptors = [pollfd(fd: descriptor, events: events, revents: 0)]
        return try poll(&descriptors, timeout: timeout) > 0
    }

    /// How child `pid` ended, without reaping it (`waitid` with `WNOWAIT`): its exit code, or the
    /// number of the signal that ended it. With `blocking` false, nil while it runs.
    ///
    /// - Throws: `ECHILD` once it has been reaped (or is no child of this process).
    public static func peekExit(_ pid: pid_t, blocking: Bool) throws(Errno) -> Int32? {
        var info = siginfo_t()
        while true {
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | (blocking ? 0 : WNOHANG)) == 0 {
                // WNOHANG: a child that has not ended leaves `info` zeroed.
                return info._sifields._sigchld.si_pid == pid ? info._sifields._sigchld.si_status : nil
            }
            let code = Errno(rawValue: errno)
            if code != .interrupted { throw code }
        }
    }

    /// Waits for child `pid` to end and returns its raw wait status.
    public static func waitForExit(_ pid: pid_t) throws(Errno) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            let code = Errno(rawValue: errno)
            if code != .interrupted { throw code }
        }
        return status
    }
}
