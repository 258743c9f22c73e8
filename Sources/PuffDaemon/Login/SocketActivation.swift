// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The login socket systemd hands over when `puff-login.socket` starts `puffd.service` (socket
/// activation, sd_listen_fds(3) done by hand: no libsystemd).
///
/// systemd passes listening sockets from descriptor 3 on, with `LISTEN_FDS` (how many),
/// `LISTEN_PID` (the process they are meant for) and `LISTEN_FDNAMES` (their names, `:` between).
/// Descriptors meant for another process (a parent that exported the variables and forked) are
/// not taken, and the variables are removed either way so that no child of puffd sees them.
enum SocketActivation {
    /// The first descriptor systemd passes (SD_LISTEN_FDS_START).
    static let firstDescriptor: Int32 = 3
    /// The name `puff-login.socket` gives its descriptor (FileDescriptorName=).
    static let loginName = "login"

    /// What the start-up environment passed.
    enum Outcome: Equatable {
        /// No socket was passed: puffd makes its own.
        case none
        /// The listening login socket at `fd`, bound to `path`.
        case login(fd: Int32, path: String)
        /// Sockets were passed but are not taken, and why.
        case ignored(String)
    }

    /// Reads and removes the variables, and returns the login socket passed, if it is one.
    static func takeLoginSocket() -> Outcome {
        let variables = ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]
        let values = variables.map { name in getenv(name).map { String(cString: $0) } }
        for name in variables { unsetenv(name) }
        return loginSocket(count: values[0], pid: values[1], names: values[2], ownPID: getpid())
    }

    /// The decision, from the variables' values: a listening Unix stream socket named `login`
    /// (or the only one passed), for this process.
    static func loginSocket(count: String?, pid: String?, names: String?, ownPID: pid_t) -> Outcome {
        guard let count else { return .none }
        guard let pid, pid_t(pid) == ownPID else {
            return .ignored("LISTEN_PID \(pid ?? "(unset)") is not puffd's process \(ownPID)")
        }
        guard let passed = Int32(count), passed > 0, passed < 64 else {
            return .ignored("LISTEN_FDS is \(count), not a count of descriptors")
        }
        // None of the passed descriptors may reach a child (pinentry) of puffd.
        for fd in firstDescriptor..<(firstDescriptor + passed) { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let labels = names.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        let index: Int32
        if let labels, let found = labels.firstIndex(of: loginName) {
            index = Int32(found)
        } else if passed == 1 {
            index = 0
        } else {
            return .ignored("\(passed) sockets passed and none named \(loginName)")
        }
        let fd = firstDescriptor + index
        guard let path = listeningUnixStreamPath(fd) else {
            return .ignored("descriptor \(fd) is not a listening Unix stream socket")
        }
        return .login(fd: fd, path: path)
    }

    /// The path `fd` is bound to when it is a listening Unix stream socket with one; else nil.
    private static func listeningUnixStreamPath(_ fd: Int32) -> String? {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_DOMAIN) == AF_UNIX, option(SO_TYPE) == Int32(SOCK_STREAM.rawValue),
            option(SO_ACCEPTCONN) == 1
        else { return nil }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return path.hasPrefix("/") ? path : nil
    }
}
