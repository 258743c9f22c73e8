// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemPackage

/// Who runs behind a process id, as `/proc/<pid>` tells it: the executable, and whether the
/// process runs in a Flatpak sandbox and as which app (its root's `/.flatpak-info`, the file
/// xdg-desktop-portal identifies apps by). A caller behind xdg-dbus-proxy is named by the proxy's
/// pid, whose root holds the app's file (docs/design/sandboxed-apps.md F9).
///
/// Every read goes through one descriptor of `/proc/<pid>`, which stays bound to the process it
/// opened: once that process is gone a read fails (`ESRCH`) and never reaches a later owner of the
/// pid (F12). A last read of `stat` after the others therefore makes them all one process's.
public struct ProcessIdentity: Sendable, Equatable {
    /// Where a process runs.
    public enum Sandbox: Sendable, Hashable {
        /// Not sandboxed: the process's root holds no `.flatpak-info`.
        case host
        /// A Flatpak app (directly, or through the xdg-dbus-proxy flatpak runs in the app's sandbox).
        case app(AppID, instance: String?)
        /// The identity could not be read or trusted (the reason is for logs). Matches deny rules only.
        case unverified(String)
    }

    /// The executable's path in the process's own mount namespace (`/proc/<pid>/exe`), when readable.
    public var executable: String?
    public var sandbox: Sandbox

    /// Creates an identity.
    public init(executable: String? = nil, sandbox: Sandbox) {
        self.executable = executable
        self.sandbox = sandbox
    }

    /// The largest `.flatpak-info` read, in bytes (flatpak's are well under 4 KiB).
    public static let flatpakInfoLimit = 64 * 1024

    /// Reads the identity of process `pid`.
    ///
    /// - Parameters:
    ///   - bound: The latest start (``bootTicks()``) the process may have had: the time its bus
    ///     connection was first seen. A process that started later holds a reused pid and is
    ///     ``Sandbox/unverified(_:)``. Nil checks nothing.
    ///   - procRoot: Where `/proc` is mounted; tests point it at a folder of fake processes.
    public static func read(pid: UInt32, startedBy bound: UInt64?, procRoot: String = "/proc") -> ProcessIdentity {
        let directory = retrying { open("\(procRoot)/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard directory >= 0 else { return unverified("process \(pid) cannot be opened", Errno(rawValue: errno)) }
        defer { close(directory) }
        return read(directory: directory, startedBy: bound)
    }

    /// Reads the identity of the process whose `/proc/<pid>` folder `directory` holds open.
    public static func read(directory: Int32, startedBy bound: UInt64?) -> ProcessIdentity {
        let start: UInt64
        switch status(directory) {
        case .failure(let reason): return ProcessIdentity(sandbox: .unverified(reason.text))
        case .success(let started): start = started
        }
        // One tick of slack: both clocks are rounded down to ticks.
        if let bound, start > bound + 1 { return ProcessIdentity(sandbox: .unverified("pid reused")) }
        let executable = link(directory, "exe")
        var sandbox = flatpakSandbox(directory)
        if case .failure(let reason) = status(directory) { sandbox = .unverified(reason.text) }
        return ProcessIdentity(executable: executable, sandbox: sandbox)
    }

    /// `CLOCK_BOOTTIME` in clock ticks, the unit of a process's start time in `/proc/<pid>/stat`.
    public static func bootTicks() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let hertz = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return UInt64(now.tv_sec) * hertz + UInt64(now.tv_nsec) * hertz / 1_000_000_000
    }

    /// The process's start time (field 22 of `stat`), if it still runs: a zombie's root and
    /// executable are gone, so its answers would be no one's.
    private static func status(_ directory: Int32) -> Result<UInt64, Reason> {
        let fd = retrying { openat(directory, "stat", O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return .failure(describe("stat cannot be read", Errno(rawValue: errno))) }
        let file = FileDescriptor(rawValue: fd)
        defer { try? file.close() }
        let bytes: [UInt8]
        do throws(Errno) {
            guard let read = try file.readToEnd(limit: 4096) else { return .failure(Reason("stat is too long")) }
            bytes = read
        } catch {
            return .failure(describe("stat cannot be read", error))
        }
        // The command name (field 2) is in parentheses and may hold anything: count from the last `)`.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return .failure(Reason("stat is malformed")) }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20, let state = fields[0].first,
            let start = UInt64(String(decoding: fields[19], as: UTF8.self))
        else { return .failure(Reason("stat is malformed")) }
        guard state != UInt8(ascii: "Z"), state != UInt8(ascii: "X") else {
            return .failure(Reason("the process exited"))
        }
        return .success(start)
    }

    /// What the process's root says: no `.flatpak-info` is the host; a regular file of at most
    /// ``flatpakInfoLimit`` bytes naming a valid app is that app; anything else is unverified.
    private static func flatpakSandbox(_ directory: Int32) -> Sandbox {
        // The root first, so that a root that cannot be reached (a zombie's, another user's) is
        // never taken for a root without the file.
        let root = retrying { openat(directory, "root", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard root >= 0 else { return .unverified(describe("its root cannot be opened", Errno(rawValue: errno)).text) }
        defer { close(root) }
        // Not following a link, not waiting for a FIFO's writer, never taking a terminal.
        let fd = retrying {
            openat(root, ".flatpak-info", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let code = Errno(rawValue: errno)
            return code == .noSuchFileOrDirectory
                ? .host : .unverified(describe(".flatpak-info cannot be opened", code).text)
        }
        let file = FileDescriptor(rawValue: fd)
        defer { try? file.close() }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return .unverified(describe(".flatpak-info cannot be read", Errno(rawValue: errno)).text)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .unverified(".flatpak-info is not a regular file") }
        guard info.st_size <= flatpakInfoLimit else { return .unverified(".flatpak-info is too big") }
        let bytes: [UInt8]?
        do throws(Errno) {
            bytes = try file.readToEnd(limit: flatpakInfoLimit)
        } catch {
            return .unverified(describe(".flatpak-info cannot be read", error).text)
        }
        guard let bytes else { return .unverified(".flatpak-info is too big") }
        guard let parsed = FlatpakInfo(parsing: bytes) else { return .unverified(".flatpak-info names no valid app") }
        return .app(parsed.app, instance: parsed.instance)
    }

    /// The target of the link `name` in `directory`, nil when it cannot be read.
    private static func link(_ directory: Int32, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlinkat(directory, name, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why a read failed, for logs.
    private struct Reason: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    private static func describe(_ what: String, _ code: Errno) -> Reason {
        Reason(code == .noSuchProcess ? "the process exited" : "\(what): \(code)")
    }

    private static func unverified(_ what: String, _ code: Errno) -> ProcessIdentity {
        ProcessIdentity(sandbox: .unverified(describe(what, code).text))
    }

    /// Runs an `open`-like call again while a signal interrupts it.
    private static func retrying(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
