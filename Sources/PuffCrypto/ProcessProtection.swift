// SPDX-License-Identifier: Apache-2.0
import CSodium
import Glibc

/// Keeps secrets in this process's memory from leaking through core files and debuggers.
public enum ProcessProtection {
    /// Sets `RLIMIT_CORE` to 0 and `PR_SET_DUMPABLE` to 0: no core file, and other processes of the
    /// same user can neither `ptrace` this one nor read its `/proc/<pid>/mem`.
    ///
    /// - Returns: The names of the steps that failed (none, normally).
    public static func forbidCoreDumps() -> [String] {
        var failed: [String] = []
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        if setrlimit(Int32(RLIMIT_CORE.rawValue), &none) != 0 { failed.append("RLIMIT_CORE") }
        if puff_forbid_dumps() != 0 { failed.append("PR_SET_DUMPABLE") }
        return failed
    }

    /// Zeroes the stack below the caller's frame on this thread: call it after work that handled
    /// keys or secrets on a thread that then sits idle (a Dispatch worker keeps its stack as it was).
    public static func wipeStack() {
        puff_wipe_stack()
    }
}
